// Deadlines for the tests whose work grows with how busy the machine is: the load tests
// (hundreds of concurrent requests, a 10,000-row import) and the CPU-bound checks. Each keeps
// its full size and gets a deadline made of its time on a quiet 2-core machine, a margin, and
// how oversubscribed this machine is when its file starts: beside an editor, a browser and a
// second test run, the same work takes several times as long, and a fixed deadline would fail
// work that was merely slow. A hang still fails, later.
import os from 'node:os';

/** A quiet machine's time may vary this much before a test is called stuck. */
const MARGIN = 4;
/** No deadline shorter than vitest's own default here (vitest.config.ts). */
const FLOOR_MS = 60_000;

/** How many times slower than quiet the machine runs now: processes wanting a core per core (1-minute load average), at least 1. */
const slowness = () => Math.max(1, os.loadavg()[0]! / os.availableParallelism());

/** The deadline for work that takes `quietMs` on a quiet 2-core machine, on this machine now. */
export const deadline = (quietMs: number) => Math.max(FLOOR_MS, Math.round(quietMs * MARGIN * slowness()));
