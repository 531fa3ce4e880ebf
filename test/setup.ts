// Runs before each test file, in that file's context. Files share a worker's modules and
// globals (vitest.config.ts: isolate false), so what one file changed is undone after it: its
// app closed, its environment variables and clock restored, its spies removed.
import { afterAll, vi } from 'vitest';
import { closeTestApp } from './harness.js';

const env = { ...process.env };

afterAll(async () => {
  await closeTestApp();
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
});
