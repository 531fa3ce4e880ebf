// `npm run build`: compile src/ to plain JavaScript in dist/ (the server runs it with plain
// node, no TypeScript loader). `buildIfStale()` is what `npm start` calls: it builds only when
// a source file is newer than the last build, so a newcomer never has to remember to.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
export const entry = path.join(dist, 'main.js');

function newestSource(dir = path.join(root, 'src')) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestSource(at) : statSync(at).mtimeMs);
  }
  return newest;
}

export function build() {
  rmSync(dist, { recursive: true, force: true }); // no output of a moved or deleted source survives
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) throw new Error('build failed: see the TypeScript errors above');
}

export function buildIfStale() {
  if (!existsSync(entry) || newestSource() > statSync(entry).mtimeMs) build();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    build();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
