// BENCHMARK BASELINE, NOT PART OF THE SERVICE: the practical ceiling for Node on this machine.
// A minimal node:http server running the same SQL as the service with `pg` directly, for
// the endpoints the benchmark calls (the same statements, in the same order: a page with its
// total in one, the balance's merchant setting and pending points in one, the earning program
// in one, the ledger's function loyalty_apply_points in one), with the same key check (sha256 lookup of the API key, its principal cached in process as the
// service caches it, scope check) and the same
// response shapes. No framework, no logging. GET /bench/panel: docs/graphql.md's LoyaltyPanel
// answered by hand, in one statement that builds the JSON; it also takes a customer session
// (an HS256 JWT checked as the service checks it, the secret and ended sessions cached alike).
// Its statements go out as the service's do: the reads and writes of one turn of the event loop
// share the pool's idle connections, pipelined (the service's own src/db/pipeline.ts).
// Env: DATABASE_URL, PORT, HOST, DB_POOL_MAX (default 10, as the service).
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { pipelineOn } from '../../src/db/pipeline.js';
import { allows, bearerToken, isSessionToken, SESSION_GRANTS, sessionClaims, signedWith } from './customer-session.js';
import { estimate, type RuleRow } from './estimate-math.js';

pg.types.setTypeParser(1082, (v) => v); // DATE stays 'YYYY-MM-DD'

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_MAX ?? 10),
  connectionTimeoutMillis: 5_000,
  idleTimeoutMillis: 30_000,
  pipeline: true,
});
pool.on('error', (err) => console.error(`pool error: ${err.message}`));
const pipeline = pipelineOn(pool);
/** `pool.query` as the service sends it: pipelined with the turn's other statements. */
function query(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> {
  return pipeline.query(typeof text === 'string' ? { text, values } : text);
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, string[]>,
  ) {
    super(message);
  }
}
const invalid = (details: Record<string, string[]>) => new HttpError(422, 'validation_error', 'The request is invalid', details);
const notFound = (what: string) => new HttpError(404, 'not_found', `${what} not found`);

interface Principal {
  merchantId: string;
  scopes: readonly string[];
  /** A customer session's own customer (uuid): it sees no other. */
  customerId?: string;
}

// The key's principal is cached in process with the service's lifetime (src/domain/access/
// key-cache.ts): kept only while a LISTEN on the channel the api_keys trigger NOTIFYs holds,
// dropped on its notification, everything dropped when the listening connection is lost, and a
// load that overlapped an invalidation answered but not kept. A plain Map: no bound is needed
// for the bench's few keys.
// The same channel carries the storefront settings' changes ('storefront:<merchant>') and ended
// sessions ('session:<merchant>:<id>:<expiry ms>'), kept alike: the merchant's session secret,
// and its list of ended sessions loaded with its first session.
const AUTH_CHANNEL = 'loyalty_auth';
// the service's program channel: a merchant's settings, tiers, rules or boosters changed
const PROGRAM_CHANNEL = 'loyalty_program';
const principals = new Map<string, Principal>();
const purchasePrograms = new Map<string, any>();
const sessionSecrets = new Map<string, Uint8Array | null>();
const endedSessions = new Map<string, Map<string, number>>();
let listening = false;
let invalidations = 0;
let keyFeed: pg.Client | undefined;

function forgetPrincipals(payload?: string) {
  invalidations++;
  if (payload === undefined) {
    principals.clear();
    purchasePrograms.clear();
    sessionSecrets.clear();
    endedSessions.clear();
  } else if (payload.startsWith('storefront:')) sessionSecrets.delete(payload.slice('storefront:'.length));
  else if (payload.startsWith('session:')) {
    const [merchantId, id, expiry] = payload.slice('session:'.length).split(':');
    if (merchantId && id && expiry) endedSessions.get(merchantId)?.set(id, Number(expiry));
  } else principals.delete(payload);
}

function listenForKeys() {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL, keepAlive: true });
  keyFeed = client;
  let lost = false;
  const down = () => {
    if (lost) return;
    lost = true;
    listening = false;
    forgetPrincipals();
    client.removeAllListeners();
    client.on('error', () => {});
    void client.end().catch(() => {});
    if (keyFeed === client) setTimeout(listenForKeys, 1_000).unref();
  };
  client.on('error', down);
  client.on('end', down);
  client.on('notification', (m) => {
    if (m.channel === AUTH_CHANNEL) forgetPrincipals(m.payload ?? '');
    else if (m.channel === PROGRAM_CHANNEL) {
      invalidations++;
      purchasePrograms.delete(m.payload ?? '');
    }
  });
  client
    .connect()
    .then(() => client.query(`LISTEN "${AUTH_CHANNEL}"; LISTEN "${PROGRAM_CHANNEL}"`))
    .then(() => {
      if (lost) return;
      forgetPrincipals();
      listening = true;
    }, down);
}
listenForKeys();

/** Kept while the LISTEN holds, not kept when an invalidation came in while it was read. */
async function cached<V>(cache: Map<string, V>, key: string, read: () => Promise<V>): Promise<V> {
  if (listening && cache.has(key)) return cache.get(key)!;
  const seen = invalidations;
  const value = await read();
  if (listening && seen === invalidations) cache.set(key, value);
  return value;
}

const invalidSession = () => new HttpError(401, 'invalid_token', 'The customer session token is invalid or expired');

/** A customer session: signed by the merchant's secret, not expired, not ended (its id or its customer's). */
async function sessionPrincipal(token: string): Promise<Principal> {
  const claims = sessionClaims(token);
  if (!claims) throw invalidSession();
  const { mid, sub, jti } = claims;
  const secret = await cached(sessionSecrets, mid, async () => {
    const { rows } = await query('SELECT session_secret FROM storefront_settings WHERE merchant_id = $1', [mid]);
    return rows[0] ? new Uint8Array(rows[0].session_secret) : null;
  });
  if (!secret || !signedWith(token, secret, claims)) throw invalidSession();
  const ended = await cached(endedSessions, mid, async () => {
    const { rows } = await query('SELECT id, expires_at FROM ended_customer_sessions WHERE merchant_id = $1 AND expires_at > now()', [mid]);
    return new Map<string, number>(rows.map((r) => [r.id, r.expires_at.getTime()]));
  });
  const now = Date.now();
  if ((ended.get(jti) ?? 0) > now || (ended.get(sub) ?? 0) > now) throw invalidSession();
  return { merchantId: mid, scopes: SESSION_GRANTS, customerId: sub };
}

async function authenticate(header: string | undefined): Promise<Principal> {
  const token = bearerToken(header);
  if (!token) throw new HttpError(401, 'invalid_token', 'The API key is invalid or revoked');
  if (isSessionToken(token)) return sessionPrincipal(token);
  const hash = createHash('sha256').update(token).digest('hex');
  const cached = listening ? principals.get(hash) : undefined;
  if (cached) return cached;
  const seen = invalidations;
  const { rows } = await query('SELECT merchant_id, scopes, revoked_at FROM api_keys WHERE hash = $1', [hash]);
  const key = rows[0];
  if (!key || key.revoked_at) throw new HttpError(401, 'invalid_token', 'The API key is invalid or revoked');
  const principal = { merchantId: key.merchant_id, scopes: key.scopes };
  if (listening && seen === invalidations) principals.set(hash, principal);
  return principal;
}

function requireScope(p: Principal, scope: string) {
  if (!allows(p.scopes, scope)) throw new HttpError(403, 'insufficient_scope', `This API key lacks the scope ${scope}`);
}

function pageOf(q: URLSearchParams) {
  const details: Record<string, string[]> = {};
  const int = (name: string, def: number, max: number) => {
    const raw = q.get(name);
    if (raw === null || raw === '') return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max) details[name] = [`must be an integer from 1 to ${max}`];
    return n;
  };
  const page = int('page', 1, 1_000_000);
  const perPage = int('per_page', 20, 100);
  if (Object.keys(details).length) throw invalid(details);
  return { page, perPage, offset: (page - 1) * perPage };
}

function paginated<T>(p: { page: number; perPage: number }, data: T[], total: number) {
  const last = Math.max(1, Math.ceil(total / p.perPage));
  return { data, meta: { pagination: { current_page: p.page, per_page: p.perPage, total, last_page: last, has_more: p.page < last } } };
}

async function findCustomer(merchantId: string, q: { customer_id?: unknown; email?: unknown }) {
  const id = typeof q.customer_id === 'string' ? q.customer_id.trim() : '';
  const email = typeof q.email === 'string' ? q.email.trim() : '';
  if (!id && !email) throw invalid({ customer_id: ['customer_id or email is required'] });
  const { rows } = id
    ? await query('SELECT * FROM customers WHERE merchant_id = $1 AND platform_id = $2 AND erased_at IS NULL', [merchantId, id])
    : await query('SELECT * FROM customers WHERE merchant_id = $1 AND lower(email) = lower($2) ORDER BY created_at, id LIMIT 1', [
        merchantId,
        email,
      ]);
  if (!rows[0] || rows[0].erased_at) throw notFound('Customer');
  return rows[0];
}

/** A page and its total in one statement, as the service's pageRows. */
async function pageQuery(
  columns: string,
  from: string,
  where: string,
  order: string,
  total: string,
  args: unknown[],
  page: { perPage: number; offset: number },
) {
  const { rows } = await query(
    `SELECT t._total, p.* FROM (SELECT ${total} AS _total) t
       LEFT JOIN LATERAL (
         SELECT ${columns}, row_number() OVER (ORDER BY ${order}) AS _n FROM ${from} WHERE ${where}
          ORDER BY ${order} OFFSET ${page.offset} LIMIT ${page.perPage}
       ) p ON true
      ORDER BY p._n`,
    args,
  );
  return { rows: rows[0]?.id == null ? [] : rows, total: (rows[0]?._total ?? 0) as number };
}

const RULE_KEYS = [
  'discount_value',
  'max_discount_amount',
  'credit_value',
  'product_id',
  'variant_id',
  'max_shipping_amount',
  'min_order_subtotal',
  'expires_after_days',
];

function rewardOut(r: any) {
  const rule: Record<string, unknown> = { points_required: r.points_cost };
  for (const k of RULE_KEYS) rule[k] = r.reward_rule?.[k] ?? null;
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    reward_type: r.reward_type,
    points_cost: r.points_cost,
    reward_rule: rule,
    is_active: r.is_active,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

async function rewards(p: Principal, q: URLSearchParams) {
  requireScope(p, 'read:rewards');
  const page = pageOf(q);
  const where = 'r.merchant_id = $1 AND NOT r.referral_reward AND r.is_active';
  const { rows, total } = await pageQuery(
    'r.*',
    'rewards r',
    where,
    'r.created_at DESC, r.id DESC',
    `(SELECT count(*)::int FROM rewards r WHERE ${where})`,
    [p.merchantId],
    page,
  );
  return paginated(page, rows.map(rewardOut), total);
}

/**
 * When a balance last active at `since` lapses, in SQL over the merchant row `m`, as the service's
 * pointsExpireAt computes it: the start of the local day N + 1 local days after the day of `since`,
 * in the merchant's zone. A local midnight that a daylight-saving change skips reads as the
 * instant the day starts (01:00), as the service's day start.
 */
const pointsExpireAt = (since: string) =>
  `((date_trunc('day', ${since} AT TIME ZONE m.timezone) + (m.points_expiry_days + 1) * interval '1 day') AT TIME ZONE m.timezone)`;

async function balance(p: Principal, q: URLSearchParams) {
  requireScope(p, 'read:customers');
  const c = await findCustomer(p.merchantId, { customer_id: q.get('customer_id'), email: q.get('email') });
  const merchant = await query(
    `SELECT m.points_expiry_days,
            CASE WHEN m.points_expiry_days <> 0 THEN ${pointsExpireAt('$3::timestamptz')} END AS expires_at,
            (SELECT coalesce(json_object_agg(p.customer_id, p.points), '{}')
               FROM (SELECT customer_id, sum(points_change)::int AS points FROM activities
                      WHERE merchant_id = $1::uuid AND customer_id = ANY($2::uuid[]) AND status = 'pending'
                      GROUP BY customer_id) p) AS pending
       FROM merchants m WHERE m.id = $1`,
    [p.merchantId, [c.id], c.last_activity_at ?? c.created_at],
  );
  const { points_expiry_days: days, expires_at: expiresAt } = merchant.rows[0];
  return {
    data: {
      customer_id: c.id,
      points_balance: c.points_balance,
      points_earned: c.points_earned,
      points_spent: c.points_spent,
      points_pending: merchant.rows[0].pending[c.id] ?? 0,
      next_expiry: days && c.points_balance > 0 ? { points: c.points_balance, expires_at: expiresAt } : null,
    },
  };
}

async function transactions(p: Principal, q: URLSearchParams) {
  requireScope(p, 'read:transactions');
  const page = pageOf(q);
  const c = await findCustomer(p.merchantId, { customer_id: q.get('customer_id'), email: q.get('email') });
  // the service's list-per-owner statement (for one owner): total and page rows together
  const { rows } = await query(
    `SELECT o._i, COALESCE(t._total, 0) AS _total, p.*
       FROM unnest($2::uuid[]) WITH ORDINALITY AS o(_owner, _i)
       -- the service's SQL: the customer's trigger-kept counter
       LEFT JOIN LATERAL (SELECT transaction_count AS _total FROM customers WHERE id = o._owner AND merchant_id = $1) t ON true
       LEFT JOIN LATERAL (
         SELECT x.id, x.customer_id, x.points, x.type, x.description, x.source, x.balance_after, x.placed_at, x.created_at,
                row_number() OVER (ORDER BY created_at DESC, id DESC) AS _n
           FROM ${
             // the service's SQL: past the first page, the skipped rows are read from the index alone
             page.offset > 0
               ? `(SELECT id AS _id FROM points_transactions WHERE merchant_id = $1 AND customer_id = o._owner
                    ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4) w
                  JOIN points_transactions x ON x.merchant_id = $1 AND x.id = w._id`
               : `points_transactions x WHERE merchant_id = $1 AND customer_id = o._owner
                    ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`
           }
       ) p ON true
      ORDER BY o._i, p._n`,
    [p.merchantId, [c.id], page.offset, page.perPage],
  );
  const data = rows
    .filter((t) => t.id !== null)
    .map((t) => ({
      transaction_id: t.id,
      customer_id: t.customer_id,
      points: t.points,
      type: t.type,
      description: t.description,
      source: t.source,
      balance_after: t.balance_after,
      placed_at: t.placed_at,
      created_at: t.created_at,
    }));
  return paginated(page, data, rows[0]?._total ?? 0);
}

async function customers(p: Principal, q: URLSearchParams) {
  requireScope(p, 'read:customers');
  const page = pageOf(q);
  const where = ['c.merchant_id = $1 AND c.erased_at IS NULL'];
  const args: unknown[] = [p.merchantId];
  const id = q.get('customer_id')?.trim();
  const email = q.get('email')?.trim();
  if (id) where.push(`c.platform_id = $${args.push(id)}`);
  if (email) where.push(`lower(c.email) = lower($${args.push(email)})`);
  const { rows, total } = await pageQuery(
    'c.*, t.name AS tier_name',
    'customers c LEFT JOIN tiers t ON t.merchant_id = c.merchant_id AND t.id = c.tier_id',
    where.join(' AND '),
    'c.created_at DESC, c.id DESC',
    // the service's SQL: unfiltered, the merchant's trigger-kept counter
    id || email
      ? `(SELECT count(*)::int FROM customers c WHERE ${where.join(' AND ')})`
      : '(SELECT coalesce((SELECT customer_count FROM merchant_stats WHERE merchant_id = $1::uuid), 0))',
    args,
    page,
  );
  const data = rows.map((c) => ({
    id: c.id,
    customer_id: c.platform_id,
    email: c.email,
    first_name: c.first_name,
    last_name: c.last_name,
    status: c.status,
    points_balance: c.points_balance,
    points_earned: c.points_earned,
    points_spent: c.points_spent,
    tier: c.tier_id ? { id: c.tier_id, name: c.tier_name } : null,
    referral_code: c.referral_code,
    birthday: c.birthday,
    created_at: c.created_at,
    updated_at: c.updated_at,
  }));
  return paginated(page, data, total);
}

async function pointsEstimate(p: Principal, body: any) {
  requireScope(p, 'read:points');
  const details: Record<string, string[]> = {};
  if (typeof body.subtotal !== 'number' || !(body.subtotal >= 0)) details.subtotal = ['must be a number, at least 0'];
  if (body.customer_id != null && typeof body.customer_id !== 'string') details.customer_id = ['must be a string'];
  const items = body.line_items ?? null;
  if (
    items !== null &&
    (!Array.isArray(items) ||
      !items.every(
        (i: any) =>
          i &&
          typeof i.product_id === 'string' &&
          Number.isInteger(i.quantity) &&
          i.quantity >= 1 &&
          typeof i.price === 'number' &&
          i.price >= 0,
      ))
  ) {
    details.line_items = ['must be a list of {product_id, quantity, price}'];
  }
  if (Object.keys(details).length) throw invalid(details);
  const customer = body.customer_id ? await findCustomer(p.merchantId, { customer_id: body.customer_id }) : null;
  // the merchant's purchase program from a cache kept as the service keeps its program cache
  // (dropped on the program channel's notice): the estimate reads only its customer
  const program = await cached(purchasePrograms, p.merchantId, async () => {
    const { rows } = await query(
      `SELECT m.currency,
              (SELECT coalesce(json_agg(json_build_object('id', r.id, 'name', r.name, 'campaign_type', r.campaign_type,
                                                          'earning_rule', r.earning_rule, 'conditions', r.conditions)
                                        ORDER BY r.created_at, r.id), '[]')
                 FROM earning_rules r WHERE r.merchant_id = $1::uuid AND r.is_active AND r.campaign_type = 'purchase') AS rules,
              (SELECT coalesce(json_agg(json_build_object('id', b.id, 'name', b.name, 'multiplier', b.multiplier,
                                                          'starts_at', b.starts_at, 'ends_at', b.ends_at)
                                        ORDER BY b.created_at, b.id), '[]')
                 FROM booster_campaigns b
                WHERE b.merchant_id = $1::uuid AND b.is_active AND (b.ends_at IS NULL OR b.ends_at > now())
                  AND 'purchase' = ANY(b.campaign_types)) AS boosters,
              (SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'earnMultiplier', t.earn_multiplier,
                                                          'isDefault', t.is_default)
                                        ORDER BY t.is_default DESC, t.position, t.id), '[]')
                 FROM tiers t WHERE t.merchant_id = $1::uuid AND t.is_active) AS tiers
         FROM merchants m WHERE m.id = $1`,
      [p.merchantId],
    );
    return rows[0];
  });
  const now = Date.now();
  const tiers: { id: string; name: string; earnMultiplier: string; isDefault: boolean }[] = program.tiers;
  const t = customer ? (tiers.find((x) => x.id === customer.tier_id) ?? tiers[0]) : undefined;
  const boosters = (program.boosters as any[]).filter(
    (b) => Date.parse(b.starts_at) <= now && (b.ends_at === null || Date.parse(b.ends_at) > now),
  );
  const currency: string = program.currency;
  if (body.currency && String(body.currency).toUpperCase() !== currency)
    throw invalid({ currency: [`must be the shop currency ${currency}`] });
  if (customer?.status === 'excluded') return { data: { points: 0, base_points: 0, bonus_points: 0, breakdown: [], currency } };
  const tier = t ? { id: t.id, name: t.name, multiplier: Number(t.earnMultiplier) } : null;
  const result = estimate(
    program.rules as RuleRow[],
    tier,
    boosters.map((b: any) => ({ ...b, multiplier: Number(b.multiplier) })),
    body,
  );
  return { data: { ...result, currency } };
}

const MAX_BALANCE = 2_147_483_647;

async function createTransaction(p: Principal, q: URLSearchParams, body: any) {
  requireScope(p, 'write:transactions');
  const details: Record<string, string[]> = {};
  if (!q.get('customer_id')) details.customer_id = ['is required'];
  if (!Number.isInteger(body.points) || body.points === 0) details.points = ['must be a non-zero integer'];
  const description = typeof body.description === 'string' ? body.description.trim() : '';
  if (!description || description.length > 500) details.description = ['is required, at most 500 characters'];
  if (Object.keys(details).length) throw invalid(details);
  const points: number = body.points;
  const type = points > 0 ? 'credit' : 'debit';
  const txId = randomUUID();
  // the service's ledger call: the function finds the customer by platform id, changes the
  // balance conditionally and writes the transaction and its activity (on Citus, on the
  // merchant's worker); a refused change answers the customer with null columns
  const { rows } = await query(
    `SELECT customer_id::text, balance_after, activity_id::text FROM loyalty_apply_points(
       $1::uuid, $2::uuid, $3::text, $4::int, $5::int, $6::uuid, $7::"TransactionType", $8::text,
       $9::"TransactionSource", $10::text, $11::text, $12::uuid, $13::text, $14::text, $15::text, $16::uuid)`,
    [
      p.merchantId,
      null,
      q.get('customer_id')!.trim(),
      points,
      MAX_BALANCE,
      txId,
      type,
      description,
      'manual',
      null,
      null,
      randomUUID(),
      'adjustment',
      'transaction',
      txId,
      null,
    ],
  );
  if (!rows[0]?.customer_id) throw notFound('Customer');
  if (rows[0].balance_after === null) {
    throw new HttpError(422, 'adjustment_failed', points < 0 ? 'Insufficient point balance' : 'The credit would overflow the balance');
  }
  return { data: { transaction_id: txId, customer_id: rows[0].customer_id, points, type } };
}

// A timestamp as JSON.stringify writes a Date (milliseconds, UTC)
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * docs/graphql.md's LoyaltyPanel for one customer, as the service answers it, in one statement
 * that builds the JSON: the balance (pending points, the expiry in the merchant's calendar), the
 * tier status judged live (each active tier's metric in its own window; the highest reached, else
 * the default; progress in the next tier's metric), 5 redeemable rewards, 5 activities, 3 held
 * codes with their catalogue rewards. No totals: the panel shows none.
 */
const PANEL_SQL = (who: string) => `
  WITH c AS (
    SELECT id, first_name, status, points_balance, points_earned, last_activity_at, created_at FROM customers
     WHERE merchant_id = $1::uuid AND ${who} AND erased_at IS NULL
  ), m AS (
    SELECT points_expiry_days, timezone FROM merchants WHERE id = $1::uuid
  ), t AS (
    SELECT id, name, benefits, position, threshold, qualification::text AS qualification, "window"::text AS win, is_default
      FROM tiers WHERE merchant_id = $1::uuid AND is_active
  ), w AS (
    SELECT date_trunc('year', now() AT TIME ZONE m.timezone) AT TIME ZONE m.timezone AS year_start,
           (now() AT TIME ZONE m.timezone - interval '12 months') AT TIME ZONE m.timezone AS rolling_start
      FROM m
  ), earned AS (
    -- lifetime points are the customer's kept counter; her credits are summed only for a tier that
    -- counts a window of them (a condition of the scan's own WHERE, so it gates the scan)
    SELECT (SELECT points_earned FROM c)::float8 AS lifetime,
           coalesce(x.year, 0)::float8 AS year, coalesce(x.rolling, 0)::float8 AS rolling
      FROM w LEFT JOIN LATERAL (
        SELECT sum(p.points) FILTER (WHERE p.placed_at >= w.year_start) AS year,
               sum(p.points) FILTER (WHERE p.placed_at >= w.rolling_start) AS rolling
          FROM points_transactions p
         WHERE EXISTS (SELECT 1 FROM t WHERE t.qualification = 'points_earned' AND t.win <> 'lifetime')
           AND p.merchant_id = $1::uuid AND p.customer_id = (SELECT id FROM c) AND p.type = 'credit') x ON true
  ), spent AS (
    SELECT coalesce(x.lifetime, 0)::float8 AS lifetime, coalesce(x.year, 0)::float8 AS year,
           coalesce(x.rolling, 0)::float8 AS rolling
      FROM w LEFT JOIN LATERAL (
        SELECT sum(o.subtotal) AS lifetime,
               sum(o.subtotal) FILTER (WHERE o.placed_at >= w.year_start) AS year,
               sum(o.subtotal) FILTER (WHERE o.placed_at >= w.rolling_start) AS rolling
          FROM orders o
         WHERE EXISTS (SELECT 1 FROM t WHERE t.qualification = 'amount_spent')
           AND o.merchant_id = $1::uuid AND o.customer_id = (SELECT id FROM c) AND o.refunded_at IS NULL) x ON true
  ), tm AS (
    SELECT t.*, CASE t.qualification || ':' || t.win
                  WHEN 'points_earned:lifetime' THEN e.lifetime WHEN 'points_earned:calendar_year' THEN e.year
                  WHEN 'points_earned:rolling_12_months' THEN e.rolling WHEN 'amount_spent:lifetime' THEN s.lifetime
                  WHEN 'amount_spent:calendar_year' THEN s.year ELSE s.rolling END AS metric
      FROM t, earned e, spent s
  ), cur AS (
    SELECT * FROM (
      (SELECT tm.*, 1 AS k FROM tm WHERE metric >= threshold ORDER BY position DESC, id DESC LIMIT 1)
      UNION ALL
      (SELECT tm.*, 2 FROM tm ORDER BY is_default DESC, position, id LIMIT 1)
    ) x ORDER BY k LIMIT 1
  ), nxt AS (
    SELECT tm.* FROM tm, cur WHERE tm.position > cur.position ORDER BY tm.position, tm.id LIMIT 1
  ), measured AS (
    SELECT * FROM (SELECT 1 AS k, qualification, metric FROM nxt UNION ALL SELECT 2, qualification, metric FROM cur) x
     ORDER BY k LIMIT 1
  )
  SELECT json_build_object(
    'first_name', c.first_name,
    'balance', json_build_object(
      'points_balance', c.points_balance,
      'points_pending', (SELECT coalesce(sum(points_change), 0)::int FROM activities
                          WHERE merchant_id = $1::uuid AND customer_id = c.id AND status = 'pending'),
      'next_expiry', CASE WHEN m.points_expiry_days <> 0 AND c.points_balance > 0 THEN json_build_object(
        'points', c.points_balance,
        'expires_at', ${iso(pointsExpireAt('coalesce(c.last_activity_at, c.created_at)'))}) END),
    'tier_status', json_build_object(
      'current_tier', (SELECT json_build_object('name', name, 'benefits', benefits) FROM cur),
      'next_tier', (SELECT json_build_object('name', name, 'threshold', threshold) FROM nxt),
      'progress', (SELECT json_build_object(
          'metric', coalesce(ms.qualification, 'points_earned'),
          'value', coalesce(ms.metric, e.lifetime),
          'remaining', CASE WHEN n.id IS NOT NULL THEN greatest(0, round((n.threshold - ms.metric)::numeric, 2))::float8 END)
        FROM earned e LEFT JOIN measured ms ON true LEFT JOIN nxt n ON true)),
    'redeemable_rewards', json_build_object('data', (
      SELECT coalesce(json_agg(json_build_object('id', r.id, 'name', r.name, 'points_cost', r.points_cost, 'reward_type', r.reward_type)
                               ORDER BY r.points_cost, r.created_at DESC, r.id DESC), '[]')
        FROM (SELECT id, name, points_cost, reward_type, created_at FROM rewards
               WHERE merchant_id = $1::uuid AND is_active AND points_cost <= c.points_balance AND c.status <> 'excluded'
               ORDER BY points_cost, created_at DESC, id DESC LIMIT 5) r)),
    'activities', json_build_object('data', (
      SELECT coalesce(json_agg(json_build_object('description', a.description, 'points_change', a.points_change,
                                                 'occurred_at', ${iso('a.occurred_at')})
                               ORDER BY a.occurred_at DESC, a.created_at DESC, a.id DESC), '[]')
        FROM (SELECT description, points_change, occurred_at, created_at, id FROM activities
               WHERE merchant_id = $1::uuid AND customer_id = c.id
               ORDER BY occurred_at DESC, created_at DESC, id DESC LIMIT 5) a)),
    'rewards', json_build_object('data', (
      SELECT coalesce(json_agg(json_build_object(
               'code', h.code,
               'status', CASE WHEN h.status = 'issued' AND h.expires_at <= now() THEN 'expired' ELSE h.status::text END,
               'expires_at', ${iso('h.expires_at')},
               'catalogue_reward', json_build_object('name', r.name, 'description', r.description))
             ORDER BY h.issued_at DESC, h.id DESC), '[]')
        FROM (SELECT reward_id, code, status, expires_at, issued_at, id FROM customer_rewards
               WHERE merchant_id = $1::uuid AND customer_id = c.id
               ORDER BY issued_at DESC, id DESC LIMIT 3) h
        JOIN rewards r ON r.merchant_id = $1::uuid AND r.id = h.reward_id))
  )::text AS panel
  FROM c, m`;
const PANEL_BY_PLATFORM_ID = PANEL_SQL('platform_id = $2');
// a session's own customer; a customer_id naming another is not found
const PANEL_OF_SESSION = PANEL_SQL('id = $2::uuid AND ($3::text IS NULL OR platform_id = $3)');

/** The panel's JSON text, as the service's `{"data":{"customer":{"data":…}}}`. */
async function panel(p: Principal, q: URLSearchParams): Promise<string> {
  for (const scope of ['read:customers', 'read:tiers', 'read:rewards', 'read:activities']) requireScope(p, scope);
  const named = q.get('customer_id') || null;
  if (!p.customerId && !named) throw invalid({ customer_id: ['is required'] });
  // named: each connection plans the statement once (planning it took as long as running it)
  const { rows } = p.customerId
    ? await query({ name: 'panel-of-session', text: PANEL_OF_SESSION, values: [p.merchantId, p.customerId, named] })
    : await query({ name: 'panel-by-platform-id', text: PANEL_BY_PLATFORM_ID, values: [p.merchantId, named] });
  if (!rows[0]) throw notFound('Customer');
  return `{"data":{"customer":{"data":${rows[0].panel}}}}`;
}

function readBody(req: http.IncomingMessage): Promise<any> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text) return resolve({});
      try {
        const parsed = JSON.parse(text);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) reject(invalid({ body: ['must be a JSON object'] }));
        else resolve(parsed);
      } catch {
        reject(invalid({ body: ['must be a valid JSON document'] }));
      }
    });
  });
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = `${req.method} ${url.pathname}`;
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const p = await authenticate(req.headers.authorization);
    // a customer session reads only its own panel
    if (p.customerId && route !== 'GET /bench/panel') throw invalidSession();
    const q = url.searchParams;
    switch (route) {
      case 'GET /bench/panel':
        return send(res, 200, await panel(p, q));
      case 'GET /v1/rewards':
        return send(res, 200, await rewards(p, q));
      case 'GET /v1/customers/balance':
        return send(res, 200, await balance(p, q));
      case 'GET /v1/customers/transactions':
        return send(res, 200, await transactions(p, q));
      case 'GET /v1/customers':
        return send(res, 200, await customers(p, q));
      case 'POST /v1/points/estimate':
        return send(res, 200, await pointsEstimate(p, body));
      case 'POST /v1/customers/transactions':
        return send(res, 201, await createTransaction(p, q, body));
      default:
        throw new HttpError(404, 'not_found', `No route ${route}`);
    }
  } catch (err) {
    if (err instanceof HttpError) {
      return send(res, err.status, { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } });
    }
    console.error(err);
    send(res, 500, { error: { code: 'internal_error', message: 'Internal error' } });
  }
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 4100), process.env.HOST ?? '127.0.0.1', () => {
  console.log(`raw-pg baseline listening on ${process.env.PORT}`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeIdleConnections();
  const feed = keyFeed;
  keyFeed = undefined;
  feed?.removeAllListeners();
  void feed?.end().catch(() => {});
  void pool.end().then(() => process.exit(0));
});
