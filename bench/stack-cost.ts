// `npx tsx bench/stack-cost.ts`: the CPU cost per request of each layer of the service's
// stack, in process, with the database replaced by a stub that answers at once (so neither
// SQL, sockets nor background load on the machine enter the figures: CPU time is measured
// with process.cpuUsage). Each variant adds one layer to the previous one:
//   floor        the domain call + the JSON a hand-written handler would send
//   execute      + GraphQL execution of the document SOFA runs (Pothos resolvers, scope checks)
//   bare-graphql POST /graphql through a bare Yoga on the same schema (its default parse and
//                validation caches, none of the service's plugins): what the plugins add
//   graphql      POST /graphql through the service (gate, Armor limits, Yoga, execute)
//   rest         GET /v1/... through the gate, SOFA, Yoga (what REST clients get)
//   rest-log     + one pino log line per request (the service's default, LOG_LEVEL=info)
// Not part of the service.
import { createRequire } from 'node:module';
import { type DocumentNode, execute as graphqlJsExecute, parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/client.js';
import { fullAccessScopes } from '../src/domain/access/scopes.js';
import { generateToken } from '../src/domain/access/tokens.js';
import { createApp } from '../src/http/app.js';
// GraphQL requests select what the REST twin answers, not the graph's links (as bench/run.ts)
import { restSchema as schema } from '../src/graphql/public.js';
import { graphqlDocument, operations } from './operations.js';

const merchantId = '00000000-0000-4000-8000-000000000001';
const customerId = '00000000-0000-4000-8000-000000000002';
const token = generateToken('api_key');
const key = { id: '00000000-0000-4000-8000-000000000003', merchantId, scopes: fullAccessScopes(), revokedAt: null };
const day = (i: number) => new Date(Date.UTC(2025, 0, 1 + i));

const rewards = Array.from({ length: 20 }, (_, i) => ({
  id: `00000000-0000-4000-8000-1000000000${String(i).padStart(2, '0')}`,
  merchantId,
  name: `Reward ${i}`,
  description: `Catalogue reward ${i}`,
  rewardType: 'fixed_discount',
  pointsCost: 100 * (i + 1),
  rewardRule: { discount_value: 5 + i },
  isActive: true,
  createdAt: day(i),
  updatedAt: day(i),
}));
const customer = {
  id: customerId,
  merchantId,
  platformId: 'c2',
  email: 'c2@bench.test',
  firstName: 'First',
  lastName: 'Last',
  status: 'member',
  pointsBalance: 700,
  pointsEarned: 800,
  pointsSpent: 100,
  amountSpent: 0,
  tierId: null,
  referralCode: 'R2',
  birthday: null,
  lastActivityAt: day(3),
  createdAt: day(1),
  updatedAt: day(2),
};
const transactions = Array.from({ length: 20 }, (_, i) => ({
  id: `00000000-0000-4000-8000-2000000000${String(i).padStart(2, '0')}`,
  merchantId,
  customerId,
  points: 50 + i,
  type: 'credit',
  description: `Order #${i}`,
  source: 'earning_rule',
  balanceAfter: 1000 + i,
  referenceKind: null,
  referenceId: null,
  createdAt: day(i),
}));

// only what the measured operations call; anything else is a loud failure
const models: Record<string, Record<string, (args?: unknown) => unknown>> = {
  apiKey: { findUnique: () => key, update: () => key },
  reward: { findMany: () => rewards, count: () => 180 },
  customer: { findFirst: () => customer, findUnique: () => customer },
  merchant: { findUniqueOrThrow: () => ({ pointsExpiryDays: null, currency: 'USD' }), findUnique: () => ({ pointsExpiryDays: null, currency: 'USD' }) },
  activity: { aggregate: () => ({ _sum: { pointsChange: null } }) },
  pointsTransaction: { findMany: () => transactions, count: () => 5000 },
};
const db = new Proxy(
  {},
  {
    get: (_t, model: string) => {
      const m = models[model];
      if (!m) throw new Error(`stub db: no model ${model}`);
      return new Proxy(m, {
        get: (mm, fn: string) => {
          const f = mm[fn];
          if (!f) throw new Error(`stub db: no ${model}.${fn}`);
          return async (args?: unknown) => f(args);
        },
      });
    },
  },
) as unknown as Db;

const require = createRequire(import.meta.url);
let execute: (args: { schema: typeof schema; document: DocumentNode; contextValue: unknown; variableValues?: Record<string, unknown> }) => unknown =
  graphqlJsExecute as never;
let executor = 'graphql-js execute';
try {
  // what Yoga itself runs
  const tools = require('@graphql-tools/executor') as { normalizedExecutor: typeof execute };
  execute = tools.normalizedExecutor;
  executor = '@graphql-tools/executor (as Yoga)';
} catch {}

const config = loadConfig({ ...process.env, NODE_ENV: 'production', RATE_LIMIT_PER_KEY: '1000000000', RATE_LIMIT_PER_MERCHANT: '1000000000', REDIS_URL: '' });
const silent = pino({ level: 'silent' });
const toDevNull = pino({ level: 'info', base: undefined }, pino.destination({ dest: '/dev/null', sync: true }));
const quietApp = createApp({ db, config, logger: silent } as Parameters<typeof createApp>[0]);
const loggingApp = createApp({ db, config, logger: toDevNull } as Parameters<typeof createApp>[0]);
const bareYoga = createYoga({ schema, context: () => ({ db, principal: { keyId: key.id, merchantId, scopes: key.scopes } }), logging: false });
const headers = { authorization: `Bearer ${token.token}`, 'content-type': 'application/json' };
const base = 'http://bench.local';

async function cpuPerCall(fn: () => Promise<unknown>, n: number) {
  for (let i = 0; i < Math.min(500, n); i++) await fn();
  const start = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const used = process.cpuUsage(start);
  return { cpuUs: (used.user + used.system) / n, wallUs: ((performance.now() - t) * 1000) / n };
}

const n = Number(process.argv[2] ?? 3000);
const picked = operations(240).filter((o) => ['rewards', 'balance', 'transactions_p1'].includes(o.name));
console.log(`CPU µs per request, ${n} sequential requests after a warm-up; executor: ${executor}\n`);
console.log(`${'operation'.padEnd(18)} ${['floor', 'execute', 'bare-graphql', 'graphql', 'rest', 'rest-log'].map((s) => s.padStart(12)).join(' ')}`);
const results: Record<string, Record<string, number>> = {};
for (const op of picked) {
  const docText = graphqlDocument(schema, op)!;
  const document = parse(docText);
  const variables = JSON.parse(JSON.stringify(op.graphql.args).replaceAll('__CUST__', '2')) as Record<string, unknown>;
  const path = op.rest.path.replaceAll('__CUST__', '2');
  const principal = { keyId: key.id, merchantId, scopes: key.scopes };
  const floor = async () => {
    await db.apiKey.findUnique({ where: { hash: 'x' } });
    const [rows, total] = await Promise.all([
      op.name === 'rewards' ? db.reward.findMany() : op.name === 'balance' ? [await db.customer.findFirst()] : db.pointsTransaction.findMany(),
      op.name === 'rewards' ? db.reward.count() : db.pointsTransaction.count(),
    ]);
    return JSON.stringify({ data: rows, meta: { pagination: { total } } });
  };
  const exec = async () => {
    const r = (await execute({ schema, document, contextValue: { db, principal }, variableValues: variables })) as { errors?: unknown[] };
    if (r.errors) throw new Error(JSON.stringify(r.errors));
    return JSON.stringify(r);
  };
  const gql = async () => {
    const res = await quietApp.fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: docText, variables }) });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    return res.text();
  };
  const bare = async () => {
    const res = await bareYoga.fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: docText, variables }) });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    return res.text();
  };
  const rest = (app: typeof quietApp) => async () => {
    const res = await app.fetch(`${base}${path}`, { headers });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    return res.text();
  };
  const row = {
    floor: (await cpuPerCall(floor, n)).cpuUs,
    execute: (await cpuPerCall(exec, n)).cpuUs,
    'bare-graphql': (await cpuPerCall(bare, n)).cpuUs,
    graphql: (await cpuPerCall(gql, n)).cpuUs,
    rest: (await cpuPerCall(rest(quietApp), n)).cpuUs,
    'rest-log': (await cpuPerCall(rest(loggingApp), n)).cpuUs,
  };
  results[op.name] = row;
  console.log(`${op.name.padEnd(18)} ${Object.values(row).map((v) => v.toFixed(0).padStart(12)).join(' ')}`);
}
await quietApp.close?.();
await loggingApp.close?.();
if (process.argv.includes('--json')) console.log(JSON.stringify(results));
process.exit(0);
