import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node resolves `graphql` (no "exports") to its CommonJS build for our dependencies;
    // Vite would pick the ESM build for our files: two realms of one library. Use one.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // each file gets its own process and its own embedded database (or its own merchants on PostgreSQL)
    pool: 'forks',
    maxWorkers: 2,
  },
});
