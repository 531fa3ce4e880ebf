// For the tests that need a Citus cluster: whether TEST_DATABASE_URL is a Citus coordinator
// (the reason to skip when it is not), and the URL of a node or of another database on it.
import pg from 'pg';

export const testDatabaseUrl = process.env.TEST_DATABASE_URL;

/** The rows of `text` on a connection of its own (without values: several statements may run). */
export async function sql<T extends pg.QueryResultRow = any>(url: string, text: string, values?: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Why the Citus tests do not run here, or undefined when TEST_DATABASE_URL is a Citus coordinator. */
export async function notCitus(): Promise<string | undefined> {
  if (!testDatabaseUrl) return 'the embedded database is not Citus (set TEST_DATABASE_URL to a Citus coordinator)';
  const [row] = await sql<{ citus: boolean }>(
    testDatabaseUrl,
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`,
  );
  return row!.citus ? undefined : 'TEST_DATABASE_URL has no citus extension';
}

/** `url` with another host, port and/or database, and/or the session's settings (`options`, as `-c name=value`). */
export function urlOf(url: string, at: { host?: string; port?: number; database?: string; options?: string }): string {
  const u = new URL(url);
  if (at.host) u.hostname = at.host;
  if (at.port) u.port = String(at.port);
  if (at.database) u.pathname = `/${at.database}`;
  if (at.options) u.searchParams.set('options', at.options);
  return u.toString();
}
