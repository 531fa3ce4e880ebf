// A replay's collector setting, for `loyalty replay` and the benchmark that measures it.
import v8 from 'node:v8';

/**
 * The server's collector setting (src/main.ts) for a replay here too, unless node's command line
 * gives one: the old generation grows 30% past what the last full collection kept. At V8's own
 * choice (up to 4×) a million-order replay's garbage between collections took its peak from
 * 440 MB to 640 MB (bench/README.md, "What-if replay").
 */
export function replayHeap() {
  if (!process.execArgv.some((arg) => arg.replace(/_/g, '-').startsWith('--heap-growing-percent')))
    v8.setFlagsFromString('--heap-growing-percent=30');
}
