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
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // a state a test waits for may take a busy machine many times vitest's default second to
    // reach (as long as a Playwright wait); the load tests' own deadlines grow with the load
    // (test/load.ts)
    expect: { poll: { timeout: 30_000 } },
    // Two processes, each running files one after another on the modules it loaded once: the
    // app's module graph took ~2 s a file to load again. Each file still makes its own app and,
    // embedded, its own database (or its own merchants on PostgreSQL); test/setup.ts undoes
    // what a file changed in the process.
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
  },
});
