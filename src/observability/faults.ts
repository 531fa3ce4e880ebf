// Fault injection for the crash tests, armed only by the environment: with
// LOYALTY_TEST_FAULT=<point>:kill the process kills itself (SIGKILL: nothing is cleaned up, as in
// a crash) when it reaches <point>; with <point>:pause it prints `fault <point> paused` and
// waits for SIGUSR2 (so a test can cut the database there). Unarmed, a point does nothing.
const [armedPoint, action] = (process.env.LOYALTY_TEST_FAULT ?? '').split(':');

/** Points: ledger.applied (a balance change written, not committed), idempotency.stored, idempotency.committed. */
export function faultPoint(point: string): Promise<void> | undefined {
  if (point !== armedPoint) return undefined;
  if (action === 'kill') process.kill(process.pid, 'SIGKILL');
  // listening before saying so: a SIGUSR2 with no listener ends the process (its default action),
  // and the test may send it as soon as it reads the line
  const resumed = new Promise<void>((resume) => process.once('SIGUSR2', () => resume()));
  process.stderr.write(`fault ${point} paused\n`);
  return resumed;
}
