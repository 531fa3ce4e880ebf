// Runs the `loyalty` CLI as an operator does (bin/loyalty.mjs, --json) with the given environment.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI, projectRoot as root } from '../processes.js';

const run = promisify(execFile);

export function cliRunner(env: NodeJS.ProcessEnv) {
  return async (...args: string[]) => {
    try {
      const { stdout } = await run(process.execPath, [CLI, ...args, '--json'], { cwd: root, env });
      return { code: 0, json: JSON.parse(stdout) };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, json: e.stdout ? JSON.parse(e.stdout) : null, stderr: e.stderr };
    }
  };
}

/** The same, printing what the command prints for people (or with --csv): stdout as text. */
export function cliTextRunner(env: NodeJS.ProcessEnv) {
  return async (...args: string[]) => {
    try {
      const { stdout } = await run(process.execPath, [CLI, ...args], { cwd: root, env });
      return { code: 0, stdout };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
}
