// `npm run build`: bundle the server (src/main.ts and the packages it loads) into one plain
// JavaScript file, dist/server.mjs, which plain node runs (no TypeScript loader, and one file to
// load instead of ~1,900 modules: start-up 1.6 s → 1.0 s, bench/README.md), and the CLI
// (src/cli/index.ts) into dist/cli.mjs (a command in 0.7 s instead of 1.5 s), beside the query
// compiler's wasm both read, and build the admin
// app (admin-app/ → admin-app/dist, static files the server serves at /admin). Type checking
// is `npm run typecheck`'s. `buildIfStale()` is what `npm start` calls (`bundleIfStale()`, the
// CLI): it builds each only when one of its sources is newer than its last build, so a
// newcomer never has to remember to. The tests build both the same way (test/global-setup.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
export const entry = path.join(dist, 'server.mjs');
export const cliEntry = path.join(dist, 'cli.mjs');
/** Prisma's query compiler as wasm bytes, which the bundle reads (scripts/query-compiler-wasm.mjs). */
const queryCompiler = path.join(dist, 'query-compiler.wasm');
const adminApp = path.join(root, 'admin-app');
/** The module of Prisma's query compiler that the generated client imports (src/generated/prisma/internal/class.ts). */
const queryCompilerModule = '@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64';
const adminAppEntry = path.join(adminApp, 'dist', 'index.html');

/** The newest modification time under `at` (a file or a folder), skipping `skip` folders. */
function newest(at, skip = new Set()) {
  if (!existsSync(at)) return 0;
  const stat = statSync(at);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const item of readdirSync(at, { withFileTypes: true })) {
    if (!skip.has(item.name)) latest = Math.max(latest, newest(path.join(at, item.name), skip));
  }
  return latest;
}

function run(args, what) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${what} failed: see the errors above`);
}

export function build() {
  const result = esbuild.buildSync({
    entryPoints: { server: path.join(root, 'src/main.ts'), cli: path.join(root, 'src/cli/index.ts') },
    outdir: dist,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    // the CommonJS packages inside the bundle call require
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    // loaded from node_modules when used: files found next to their own module (PGlite's wasm
    // and data), and tracing, which is off unless configured
    external: ['@electric-sql/pglite', '@electric-sql/pglite/*', '@opentelemetry/*', '@prisma/instrumentation', 'pg-native'],
    // V8 keeps the whole source in memory for the life of the process: without comments and
    // indentation it is a third smaller, and parses faster at start-up
    minifyWhitespace: true,
    sourcemap: 'linked',
    // the query compiler's wasm (half the bundle as a base64 literal: ~90 ms to read and parse
    // at start-up) is a file of its own next to the bundle, read when first needed
    alias: { [`${queryCompilerModule}.mjs`]: path.join(root, 'scripts/query-compiler-wasm.mjs') },
    metafile: true,
    logLevel: 'warning',
    // written below, each file whole or not at all: a server or command starting meanwhile
    // reads the old file or the new one, never half of one
    write: false,
  });
  if (Object.keys(result.metafile.inputs).some((input) => input.includes('wasm-base64'))) {
    throw new Error(`the bundle still holds ${queryCompilerModule}: has the generated client's import changed?`);
  }
  mkdirSync(dist, { recursive: true });
  writeWhole(queryCompiler, Buffer.from(createRequire(import.meta.url)(`${queryCompilerModule}.js`).wasm, 'base64'));
  for (const file of result.outputFiles) {
    writeWhole(file.path, file.path.endsWith('.mjs') ? asciiOnly(file.text) : file.contents);
  }
}

/** Writes a file beside its place and moves it there: whoever reads it meanwhile sees the old one. */
function writeWhole(file, contents) {
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, contents);
  renameSync(next, file);
}

/**
 * esbuild escapes non-ASCII characters in strings (its default charset) but not in regular
 * expression literals, and one such character (title-case's dashes) makes V8 hold the whole
 * bundle as a two-byte string: 18 MB of heap instead of 9. `\uXXXX` means the same character in
 * any regular expression (outside a character class too); the source map's columns after it on
 * its line shift by a few characters, which a profile's attribution survives.
 */
function asciiOnly(source) {
  return source.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Builds the admin app with Vite into admin-app/dist. */
export function buildAdminApp() {
  run(
    [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', path.join(adminApp, 'vite.config.ts'), '--logLevel', 'warn'],
    'admin app build',
  );
}

/** The service's modules the admin app imports: the message catalogue, the error codes, the schema's enums. */
const adminAppSharedSources = ['src/domain/shared/messages.ts', 'src/domain/shared/errors.ts', 'src/generated/prisma/enums.ts'];

/** Whether the admin app's build is older than its sources (or its dependencies). */
export function adminAppIsStale() {
  if (!existsSync(adminAppEntry)) return true;
  const sources = Math.max(
    newest(adminApp, new Set(['dist', 'node_modules'])),
    newest(path.join(root, 'package-lock.json')),
    ...adminAppSharedSources.map((file) => newest(path.join(root, file))),
  );
  return sources > statSync(adminAppEntry).mtimeMs;
}

export function buildAdminAppIfStale() {
  if (adminAppIsStale()) buildAdminApp();
}

/**
 * Builds dist/ when a bundle is missing or older than what goes into it: a source under src/,
 * the build's own scripts, the installed dependencies (package-lock.json) or their patches.
 */
export function bundleIfStale() {
  const outputs = [entry, cliEntry, queryCompiler];
  if (outputs.some((file) => !existsSync(file))) return build();
  const inputs = ['src', 'scripts/build.mjs', 'scripts/query-compiler-wasm.mjs', 'package-lock.json', 'patches'];
  const sources = Math.max(...inputs.map((input) => newest(path.join(root, input))));
  if (sources > Math.min(...outputs.map((file) => statSync(file).mtimeMs))) build();
}

export function buildIfStale() {
  bundleIfStale();
  buildAdminAppIfStale();
}

/** Runs the built `file` in this process once `ensureBuilt` has built it; a failed build says why and exits 1. */
export async function runBuilt(ensureBuilt, file) {
  try {
    ensureBuilt();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
  await import(pathToFileURL(file).href);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    build();
    buildAdminApp();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
