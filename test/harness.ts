// Test harness: the real Yoga server (REST + GraphQL) over a real database, called
// in-process with yoga.fetch (full HTTP semantics, no port). PGlite from the migrated
// snapshot by default; the PostgreSQL at TEST_DATABASE_URL when set.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createPrisma, type Db } from '../src/db/client.js';
import { startEmbedded } from '../src/db/embedded.js';
import { type CreateKeyInput, createApiKey } from '../src/domain/access/api-keys.js';
import { createMerchant } from '../src/domain/merchants/merchants.js';
import { createApp } from '../src/http/app.js';
import { SNAPSHOT } from './global-setup.js';
import { type ContractCheck, contractCheck } from './openapi-check.js';
import { ownDatabase } from './own-database.js';

export interface TestApp {
  db: Db;
  url: string;
  /**
   * What another process (the CLI) needs to share this database: its URL and, for the embedded
   * one, no named statements (its socket serves every connection from one PGlite session, where a
   * name one process prepared already exists for the next)
   */
  env: { DATABASE_URL: string; DB_PREPARED_STATEMENTS: string; DB_PIPELINE: string };
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

let shared: Promise<TestApp> | undefined;
let contract: Promise<ContractCheck> | undefined;

/**
 * `fetch` of an app, with every REST answer checked against the OpenAPI document the app serves
 * (openapi-check.ts): a test fails whatever it asserts when an answer breaks the contract.
 */
function checkedFetch(fetch: (url: string, init?: RequestInit) => Promise<Response>) {
  return async (url: string, init?: RequestInit) => {
    const response = await fetch(url, init);
    const parsed = new URL(url);
    if (parsed.pathname.startsWith('/v1/') && parsed.pathname !== '/v1/openapi.json') {
      contract ??= fetch(new URL('/v1/openapi.json', parsed).toString()).then(async (r) => contractCheck(await r.json()));
      await (await contract).check(init?.method ?? 'GET', parsed, response);
    }
    return response;
  };
}

/** Service configuration for tests: quiet logs, no rate limits and no sign-in lockout unless a test asks. */
export function testConfig(overrides: Record<string, string> = {}) {
  return loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_PER_KEY: '0',
    RATE_LIMIT_PER_MERCHANT: '0',
    RATE_LIMIT_PER_SESSION: '0',
    RATE_LIMIT_PER_GUEST: '0',
    ADMIN_LOGIN_MAX_FAILURES: '0',
    ...overrides,
  });
}

/**
 * One app per test file; closed after the file's tests. With TEST_DATABASE_URL the files share
 * that database, unless a file asks for one of its own (`ownDatabase`: own-database.ts says when);
 * the embedded database is always the file's own.
 */
export function testApp({ ownDatabase: own = false }: { ownDatabase?: boolean } = {}): Promise<TestApp> {
  shared ??= (async () => {
    const url = process.env.TEST_DATABASE_URL;
    const database = url
      ? own
        ? await ownDatabase(url)
        : { url, close: async () => {} }
      : await startEmbedded('memory', new Blob([readFileSync(SNAPSHOT)]));
    // as the service runs: named and pipelined statements on PostgreSQL, not on the embedded database
    const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
    const db = createPrisma(database.url, 10, { preparedStatements: onPostgres, pipelined: onPostgres });
    const app = createApp({ db, databaseUrl: database.url, config: testConfig() });
    const fetch = checkedFetch(app.fetch);
    return {
      db,
      url: database.url,
      env: { DATABASE_URL: database.url, DB_PREPARED_STATEMENTS: String(onPostgres), DB_PIPELINE: String(onPostgres) },
      fetch: (path, init) => fetch(`http://loyalty.test${path}`, init),
      async close() {
        await app.close();
        await db.$disconnect();
        await database.close();
      },
    };
  })();
  return shared;
}

/** Closes the file's app, if it made one (test/setup.ts, after each file). */
export async function closeTestApp() {
  const app = shared;
  shared = undefined;
  if (app) await (await app).close();
}

/** A fresh merchant (unique slug), so files sharing PostgreSQL never see each other's rows. */
export async function newMerchant(app: TestApp, label = 'shop') {
  const slug = `${label}-${randomUUID().slice(0, 8)}`;
  return createMerchant(app.db, { slug, name: label });
}

export async function newKey(app: TestApp, merchantId: string, type: CreateKeyInput['type'] = 'full', levels?: Record<string, string>) {
  return (await createApiKey(app.db, { merchantId, type, levels })).key;
}

/** A client bound to one API key: `rest('GET', '/v1/rewards')`, `gql(query, variables)`. */
export function client(app: TestApp, key: string) {
  const headers = (extra?: HeadersInit) => ({ authorization: `Bearer ${key}`, ...(extra as object) });
  return {
    async rest(method: string, path: string, body?: unknown, extraHeaders?: Record<string, string>) {
      const res = await app.fetch(path, {
        method,
        headers: headers({ 'content-type': 'application/json', ...extraHeaders }),
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
    async gql(query: string, variables?: Record<string, unknown>) {
      const res = await app.fetch('/graphql', {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
    },
  };
}

/** A customer row for merchant `merchantId`, with an opening balance through the ledger. */
export async function newCustomer(app: TestApp, merchantId: string, opts: { customerId?: string; email?: string; points?: number } = {}) {
  const customerId = opts.customerId ?? `cust-${randomUUID().slice(0, 8)}`;
  const customer = await app.db.customer.create({
    data: {
      merchantId,
      platformId: customerId,
      email: opts.email ?? `${customerId}@example.com`,
      referralCode: randomUUID().slice(0, 8).toUpperCase(),
    },
  });
  if (opts.points) {
    const { applyPoints } = await import('../src/domain/ledger/ledger.js');
    await applyPoints(app.db, {
      merchantId,
      customerId: customer.id,
      points: opts.points,
      description: 'Opening balance',
      source: 'import',
      activityType: 'import',
    });
  }
  return customer;
}

/** A client of the admin API (/admin/graphql) bound to a merchant's admin token. */
export function adminClient(app: TestApp, token: string) {
  return async (query: string, variables?: Record<string, unknown>) => {
    const res = await app.fetch('/admin/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
  };
}

/** A signed-in admin app session (/admin/session), calling /admin/app/graphql as the browser does. */
export async function adminSession(app: TestApp, token: string) {
  const origin = 'http://loyalty.test';
  const signIn = await app.fetch('/admin/session', {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (signIn.status !== 201) throw new Error(`sign-in failed: ${signIn.status}`);
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrf_token } = (await signIn.json()) as { csrf_token: string };
  return async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await app.fetch('/admin/app/graphql', {
      method: 'POST',
      headers: { origin, cookie, 'x-csrf-token': csrf_token, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { data?: any; errors?: any[] } };
  };
}

/**
 * `db` with each of its Prisma operations written to `calls`: `Model.operation`, a raw statement
 * as its operation alone, and the API key's lookup and last-use write (raw statements on
 * api_keys, src/domain/access/api-keys.ts) as `ApiKey.<operation>`.
 */
export function countingDb(db: Db, calls: string[]): Db {
  return db.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        calls.push(model ? `${model}.${operation}` : JSON.stringify(args).includes('api_keys') ? `ApiKey.${operation}` : operation);
        return query(args);
      },
    },
  }) as unknown as Db;
}

/**
 * A keyed write sent as the API asks a client to: under one Idempotency-Key, again after a 503
 * (nothing changed, or the key tells) or a 409 idempotency_in_progress (the database was busy:
 * a hot row, a shard moving), with a growing, jittered pause, for as long as the answer is one of
 * those (the test's deadline bounds it): a busy machine sheds a burst by 503s until it catches up.
 * `send` gets the key and answers status and the code of an error body, if any.
 */
export async function sendAsAsked<T extends { status: number }>(
  send: (key: string) => Promise<T>,
  code: (answer: T) => string | undefined,
) {
  const key = randomUUID();
  let answer = await send(key);
  for (let attempt = 1; answer.status === 503 || code(answer) === 'idempotency_in_progress'; attempt++) {
    await new Promise((r) => setTimeout(r, Math.min(250 * attempt, 2_000) * (0.5 + Math.random())));
    answer = await send(key);
  }
  return answer;
}

/**
 * Waits until an instance answers `read` from its cache, and shows that it does: a change written
 * quietly (`write`: plain SQL, which no instance hears of) to a value other than the one read
 * (`other`) leaves it answering what it had. Whatever it cached when its notification feed came
 * up, the change goes the other way; the stored value is the cached one again after.
 */
export async function untilCached<V>(read: () => Promise<V>, write: (value: V) => Promise<unknown>, other: (value: V) => V) {
  let cached!: V;
  await expect
    .poll(
      async () => {
        cached = await read();
        await write(other(cached));
        return (await read()) === cached;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  await write(cached);
}
