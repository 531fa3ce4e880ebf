// Exit 0 when the PostgreSQL at argv[2] answers a query within a few seconds, else 1.
import pg from 'pg';

const client = new pg.Client({ connectionString: process.argv[2], connectionTimeoutMillis: 3000 });
try {
  await client.connect();
  await client.query('select 1');
  await client.end();
} catch (err) {
  console.error(`PostgreSQL unavailable: ${err.message}`);
  process.exit(1);
}
