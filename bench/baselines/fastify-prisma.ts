// BENCHMARK BASELINE, NOT PART OF THE SERVICE: what a team would build without the single
// schema gateway. The benchmark's endpoints hand-written with Fastify and Prisma (the same
// generated client and adapter settings as the service), the same key check (sha256 lookup,
// scope per route), the same response shapes, JSON-schema validation answered as 422, and
// one log line per request (pino, as the service logs). GET /bench/panel: docs/graphql.md's
// LoyaltyPanel by hand, its reads in parallel; it also takes a customer session (an HS256 JWT
// verified with the merchant's secret, read per request as the key is).
// Env: DATABASE_URL, PORT, HOST, DB_POOL_MAX (default 10, as the service).
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { createPrisma } from '../../src/db/client.js';
import { addPeriods, periodStart } from '../../src/domain/shared/calendar.js';
import { allows, bearerToken, isSessionToken, SESSION_GRANTS, sessionClaims, signedWith } from './customer-session.js';
import { estimate, type RuleRow } from './estimate-math.js';

const db = createPrisma(process.env.DATABASE_URL!, Number(process.env.DB_POOL_MAX ?? 10));
const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' }, disableRequestLogging: true });

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
const notFound = (what: string) => new HttpError(404, 'not_found', `${what} not found`);

declare module 'fastify' {
  interface FastifyRequest {
    /** `customerId`: a customer session's own customer (uuid), which sees no other. */
    principal: { merchantId: string; scopes: readonly string[]; customerId?: string };
  }
  interface FastifyContextConfig {
    scope?: string | string[];
    /** The route takes customer sessions too. */
    sessions?: boolean;
  }
}

app.decorateRequest('principal', null as never);

const invalidSession = () => new HttpError(401, 'invalid_token', 'The customer session token is invalid or expired');

/** A customer session: signed by the merchant's secret, not expired, not ended (its id or its customer's). */
async function sessionPrincipal(token: string) {
  const claims = sessionClaims(token);
  if (!claims) throw invalidSession();
  const { mid, sub, jti } = claims;
  // the secret and an ended session of the token or of its customer, read together
  const [settings, ended] = await Promise.all([
    db.storefrontSettings.findUnique({ where: { merchantId: mid }, select: { sessionSecret: true } }),
    db.endedCustomerSession.findFirst({
      where: { merchantId: mid, id: { in: [jti, sub] }, expiresAt: { gt: new Date() } },
      select: { id: true },
    }),
  ]);
  if (!settings || !signedWith(token, new Uint8Array(settings.sessionSecret), claims) || ended) throw invalidSession();
  return { merchantId: mid, scopes: SESSION_GRANTS, customerId: sub };
}

async function keyPrincipal(token: string) {
  const key = await db.apiKey.findUnique({
    where: { hash: createHash('sha256').update(token).digest('hex') },
    select: { merchantId: true, scopes: true, revokedAt: true },
  });
  if (!key || key.revokedAt) throw new HttpError(401, 'invalid_token', 'The API key is invalid or revoked');
  return { merchantId: key.merchantId, scopes: key.scopes };
}

app.addHook('onRequest', async (req) => {
  const token = bearerToken(req.headers.authorization);
  if (!token) throw new HttpError(401, 'invalid_token', 'The API key is invalid or revoked');
  const session = isSessionToken(token);
  if (session && !req.routeOptions.config.sessions) throw invalidSession();
  const principal = session ? await sessionPrincipal(token) : await keyPrincipal(token);
  for (const scope of [req.routeOptions.config.scope ?? []].flat()) {
    if (!allows(principal.scopes, scope)) throw new HttpError(403, 'insufficient_scope', `This API key lacks the scope ${scope}`);
  }
  req.principal = principal;
});

app.addHook('onResponse', async (req, reply) => {
  req.log.info(
    { method: req.method, path: req.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
    'request',
  );
});

app.setErrorHandler((err: any, _req: FastifyRequest, reply: FastifyReply) => {
  if (err instanceof HttpError) {
    return reply
      .status(err.status)
      .send({ error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } });
  }
  if (err.validation) {
    const details: Record<string, string[]> = {};
    for (const v of err.validation) {
      const field = (v.instancePath?.split('/')[1] || v.params?.missingProperty || 'body') as string;
      (details[field] ??= []).push(v.message ?? 'is invalid');
    }
    return reply.status(422).send({ error: { code: 'validation_error', message: 'The request is invalid', details } });
  }
  if (err.statusCode && err.statusCode < 500) {
    return reply.status(err.statusCode).send({ error: { code: 'bad_request', message: err.message } });
  }
  reply.log.error(err);
  return reply.status(500).send({ error: { code: 'internal_error', message: 'Internal error' } });
});

const pageQuery = {
  page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
  per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
} as const;
const customerQuery = { customer_id: { type: 'string' }, email: { type: 'string' } } as const;

interface PageQ {
  page: number;
  per_page: number;
}
type CustomerQ = { customer_id?: string; email?: string };

function paginated<T>(q: PageQ, data: T[], total: number) {
  const last = Math.max(1, Math.ceil(total / q.per_page));
  return { data, meta: { pagination: { current_page: q.page, per_page: q.per_page, total, last_page: last, has_more: q.page < last } } };
}

async function findCustomer(merchantId: string, q: CustomerQ) {
  const customerId = q.customer_id?.trim();
  const email = q.email?.trim();
  if (!customerId && !email) {
    throw new HttpError(422, 'validation_error', 'Name the customer with customer_id or email', {
      customer_id: ['customer_id or email is required'],
    });
  }
  const customer = await db.customer.findFirst({
    where: customerId ? { merchantId, platformId: customerId } : { merchantId, email: { equals: email, mode: 'insensitive' } },
  });
  if (!customer) throw notFound('Customer');
  return customer;
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

app.get<{ Querystring: PageQ }>(
  '/v1/rewards',
  { config: { scope: 'read:rewards' }, schema: { querystring: { type: 'object', properties: pageQuery } } },
  async (req) => {
    const where = { merchantId: req.principal.merchantId, isActive: true };
    const skip = (req.query.page - 1) * req.query.per_page;
    const [rows, total] = await Promise.all([
      db.reward.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take: req.query.per_page }),
      db.reward.count({ where }),
    ]);
    const data = rows.map((r) => {
      const stored = (r.rewardRule ?? {}) as Record<string, unknown>;
      const rule: Record<string, unknown> = { points_required: r.pointsCost };
      for (const k of RULE_KEYS) rule[k] = stored[k] ?? null;
      return {
        id: r.id,
        name: r.name,
        description: r.description,
        reward_type: r.rewardType,
        points_cost: r.pointsCost,
        reward_rule: rule,
        is_active: r.isActive,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
      };
    });
    return paginated(req.query, data, total);
  },
);

/**
 * A balance's next expiry, as the service's pointsExpireAt: the whole balance, at the local
 * midnight ending the Nth whole local day after the day of its last activity, in the merchant's zone.
 */
function nextExpiry(c: { pointsBalance: number; lastActivityAt: Date | null; createdAt: Date }, days: number | null, zone: string) {
  if (!days || c.pointsBalance <= 0) return null;
  const since = c.lastActivityAt ?? c.createdAt;
  return {
    points: c.pointsBalance,
    expires_at: periodStart('day', addPeriods('day', periodStart('day', since, zone), days + 1, zone), zone),
  };
}

app.get<{ Querystring: CustomerQ }>(
  '/v1/customers/balance',
  { config: { scope: 'read:customers' }, schema: { querystring: { type: 'object', properties: customerQuery } } },
  async (req) => {
    const c = await findCustomer(req.principal.merchantId, req.query);
    const [merchant, pending] = await Promise.all([
      db.merchant.findUniqueOrThrow({ where: { id: c.merchantId }, select: { pointsExpiryDays: true, timezone: true } }),
      db.activity.aggregate({ where: { merchantId: c.merchantId, customerId: c.id, status: 'pending' }, _sum: { pointsChange: true } }),
    ]);
    return {
      data: {
        customer_id: c.id,
        points_balance: c.pointsBalance,
        points_earned: c.pointsEarned,
        points_spent: c.pointsSpent,
        points_pending: pending._sum.pointsChange ?? 0,
        next_expiry: nextExpiry(c, merchant.pointsExpiryDays, merchant.timezone),
      },
    };
  },
);

app.get<{ Querystring: PageQ & CustomerQ }>(
  '/v1/customers/transactions',
  { config: { scope: 'read:transactions' }, schema: { querystring: { type: 'object', properties: { ...pageQuery, ...customerQuery } } } },
  async (req) => {
    const c = await findCustomer(req.principal.merchantId, req.query);
    const where = { merchantId: c.merchantId, customerId: c.id };
    const [rows, total] = await Promise.all([
      db.pointsTransaction.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: (req.query.page - 1) * req.query.per_page,
        take: req.query.per_page,
      }),
      db.pointsTransaction.count({ where }),
    ]);
    const data = rows.map((t) => ({
      transaction_id: t.id,
      customer_id: t.customerId,
      points: t.points,
      type: t.type,
      description: t.description,
      source: t.source,
      balance_after: t.balanceAfter,
      placed_at: t.placedAt,
      created_at: t.createdAt,
    }));
    return paginated(req.query, data, total);
  },
);

app.get<{ Querystring: PageQ & CustomerQ }>(
  '/v1/customers',
  { config: { scope: 'read:customers' }, schema: { querystring: { type: 'object', properties: { ...pageQuery, ...customerQuery } } } },
  async (req) => {
    const customerId = req.query.customer_id?.trim();
    const email = req.query.email?.trim();
    const where = {
      merchantId: req.principal.merchantId,
      ...(customerId ? { platformId: customerId } : {}),
      ...(email ? { email: { equals: email, mode: 'insensitive' as const } } : {}),
    };
    const [rows, total] = await Promise.all([
      db.customer.findMany({
        where,
        include: { tier: { select: { id: true, name: true } } },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: (req.query.page - 1) * req.query.per_page,
        take: req.query.per_page,
      }),
      db.customer.count({ where }),
    ]);
    const data = rows.map((c) => ({
      id: c.id,
      customer_id: c.platformId,
      email: c.email,
      first_name: c.firstName,
      last_name: c.lastName,
      status: c.status,
      points_balance: c.pointsBalance,
      points_earned: c.pointsEarned,
      points_spent: c.pointsSpent,
      tier: c.tier,
      referral_code: c.referralCode,
      birthday: c.birthday ? c.birthday.toISOString().slice(0, 10) : null,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    }));
    return paginated(req.query, data, total);
  },
);

interface EstimateBody {
  customer_id?: string;
  subtotal: number;
  currency?: string;
  line_items?: { product_id: string; quantity: number; price: number }[];
}

app.post<{ Body: EstimateBody }>(
  '/v1/points/estimate',
  {
    config: { scope: 'read:points' },
    schema: {
      body: {
        type: 'object',
        required: ['subtotal'],
        properties: {
          customer_id: { type: 'string', minLength: 1 },
          subtotal: { type: 'number', minimum: 0 },
          currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
          line_items: {
            type: 'array',
            items: {
              type: 'object',
              required: ['product_id', 'quantity', 'price'],
              properties: {
                product_id: { type: 'string', minLength: 1 },
                quantity: { type: 'integer', minimum: 1 },
                price: { type: 'number', minimum: 0 },
              },
            },
          },
        },
      },
    },
  },
  async (req) => {
    const { merchantId } = req.principal;
    const body = req.body;
    const [merchant, customer] = await Promise.all([
      db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { currency: true } }),
      body.customer_id
        ? db.customer.findFirst({ where: { merchantId, platformId: body.customer_id.trim() }, include: { tier: true } }).then((c) => {
            if (!c) throw notFound('Customer');
            return c;
          })
        : null,
    ]);
    if (body.currency && body.currency.toUpperCase() !== merchant.currency) {
      throw new HttpError(422, 'validation_error', 'The request is invalid', {
        currency: [`must be the shop currency ${merchant.currency}`],
      });
    }
    if (customer?.status === 'excluded')
      return { data: { points: 0, base_points: 0, bonus_points: 0, breakdown: [], currency: merchant.currency } };
    const now = new Date();
    const [rules, boosters, defaultTier] = await Promise.all([
      db.earningRule.findMany({
        where: { merchantId, isActive: true, campaignType: 'purchase' },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: { id: true, name: true, earningRule: true, conditions: true },
      }),
      db.boosterCampaign.findMany({
        where: {
          merchantId,
          isActive: true,
          startsAt: { lte: now },
          OR: [{ endsAt: null }, { endsAt: { gt: now } }],
          campaignTypes: { has: 'purchase' },
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      }),
      customer && !customer.tier
        ? db.tier.findFirst({ where: { merchantId }, orderBy: [{ isDefault: 'desc' }, { position: 'asc' }, { id: 'asc' }] })
        : null,
    ]);
    const t = customer?.tier ?? defaultTier;
    const result = estimate(
      rules.map((r) => ({
        id: r.id,
        name: r.name,
        earning_rule: r.earningRule as RuleRow['earning_rule'],
        conditions: r.conditions as RuleRow['conditions'],
      })),
      t ? { id: t.id, name: t.name, multiplier: Number(t.earnMultiplier) } : null,
      boosters.map((b) => ({ id: b.id, name: b.name, multiplier: Number(b.multiplier) })),
      body,
    );
    return { data: { ...result, currency: merchant.currency } };
  },
);

type Qualification = 'points_earned' | 'amount_spent';
type TierWindow = 'lifetime' | 'calendar_year' | 'rolling_12_months';

/**
 * docs/graphql.md's LoyaltyPanel for one customer, as the service answers it: the customer,
 * then its reads in parallel (the merchant's calendar, pending points, the tier ladder, lifetime
 * points earned, 5 redeemable rewards, 5 activities, 3 held codes with their catalogue rewards),
 * then the other windows' figures a tier is judged on, if any.
 */
app.get<{ Querystring: { customer_id?: string } }>(
  '/bench/panel',
  {
    config: { scope: ['read:customers', 'read:tiers', 'read:rewards', 'read:activities'], sessions: true },
    schema: { querystring: { type: 'object', properties: { customer_id: { type: 'string', minLength: 1 } } } },
  },
  async (req) => {
    const { merchantId, customerId: own } = req.principal;
    const named = req.query.customer_id;
    if (!own && !named) {
      throw new HttpError(422, 'validation_error', 'The request is invalid', { customer_id: ['is required'] });
    }
    // a session's own customer; a customer_id naming another is not found
    const customer = await db.customer.findFirst({
      where: { merchantId, erasedAt: null, ...(own ? { id: own } : {}), ...(named ? { platformId: named } : {}) },
      select: { id: true, firstName: true, status: true, pointsBalance: true, pointsEarned: true, lastActivityAt: true, createdAt: true },
    });
    if (!customer) throw notFound('Customer');
    const mine = { merchantId, customerId: customer.id };
    const now = new Date();
    const [merchant, pending, tiers, redeemable, activities, held] = await Promise.all([
      db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { pointsExpiryDays: true, timezone: true } }),
      db.activity.aggregate({ where: { ...mine, status: 'pending' }, _sum: { pointsChange: true } }),
      db.tier.findMany({
        where: { merchantId, isActive: true },
        orderBy: [{ position: 'asc' }, { id: 'asc' }],
        select: { name: true, benefits: true, position: true, threshold: true, qualification: true, window: true, isDefault: true },
      }),
      customer.status === 'excluded'
        ? []
        : db.reward.findMany({
            where: { merchantId, isActive: true, pointsCost: { lte: customer.pointsBalance } },
            orderBy: [{ pointsCost: 'asc' }, { createdAt: 'desc' }, { id: 'desc' }],
            take: 5,
            select: { id: true, name: true, pointsCost: true, rewardType: true },
          }),
      db.activity.findMany({
        where: mine,
        orderBy: [{ occurredAt: 'desc' }, { createdAt: 'desc' }, { id: 'desc' }],
        take: 5,
        select: { description: true, pointsChange: true, occurredAt: true },
      }),
      db.customerReward.findMany({
        where: mine,
        orderBy: [{ issuedAt: 'desc' }, { id: 'desc' }],
        take: 3,
        select: { code: true, status: true, expiresAt: true, reward: { select: { name: true, description: true } } },
      }),
    ]);
    const zone = merchant.timezone;
    // lifetime points are the customer's kept counter, as the service reads them (not a sum of every credit)
    const lifetime = customer.pointsEarned;
    // each tier's figure: points earned or amount spent in its window
    const since = (window: TierWindow) =>
      window === 'calendar_year'
        ? periodStart('year', now, zone)
        : window === 'rolling_12_months'
          ? addPeriods('month', now, -12, zone)
          : null;
    const figure = async (qualification: Qualification, window: TierWindow) => {
      const from = since(window);
      if (qualification === 'points_earned') {
        if (!from) return lifetime;
        const sum = await db.pointsTransaction.aggregate({
          where: { ...mine, type: 'credit', placedAt: { gte: from } },
          _sum: { points: true },
        });
        return sum._sum.points ?? 0;
      }
      const sum = await db.order.aggregate({
        where: { ...mine, refundedAt: null, ...(from ? { placedAt: { gte: from } } : {}) },
        _sum: { subtotal: true },
      });
      return Number(sum._sum.subtotal ?? 0);
    };
    const keys = [...new Set(tiers.map((t) => `${t.qualification}:${t.window}`))];
    const figures = new Map(
      await Promise.all(
        keys.map(async (k) => {
          const [q, w] = k.split(':') as [Qualification, TierWindow];
          return [k, await figure(q, w)] as const;
        }),
      ),
    );
    const metricOf = (t: (typeof tiers)[number]) => figures.get(`${t.qualification}:${t.window}`)!;
    // the highest tier reached, else the default (or the lowest); progress in the next one's metric
    const current = tiers.findLast((t) => metricOf(t) >= t.threshold) ?? tiers.find((t) => t.isDefault) ?? tiers[0] ?? null;
    const next = current ? (tiers.find((t) => t.position > current.position) ?? null) : null;
    const measured = next ?? current;
    const value = measured ? metricOf(measured) : lifetime;
    return {
      data: {
        customer: {
          data: {
            first_name: customer.firstName,
            balance: {
              points_balance: customer.pointsBalance,
              points_pending: pending._sum.pointsChange ?? 0,
              next_expiry: nextExpiry(customer, merchant.pointsExpiryDays, zone),
            },
            tier_status: {
              current_tier: current ? { name: current.name, benefits: current.benefits } : null,
              next_tier: next ? { name: next.name, threshold: next.threshold } : null,
              progress: {
                metric: measured?.qualification ?? 'points_earned',
                value,
                remaining: next ? Math.max(0, Math.round((next.threshold - value) * 100) / 100) : null,
              },
            },
            redeemable_rewards: {
              data: redeemable.map((r) => ({ id: r.id, name: r.name, points_cost: r.pointsCost, reward_type: r.rewardType })),
            },
            activities: {
              data: activities.map((a) => ({ description: a.description, points_change: a.pointsChange, occurred_at: a.occurredAt })),
            },
            rewards: {
              data: held.map((h) => ({
                code: h.code,
                status: h.status === 'issued' && h.expiresAt && h.expiresAt <= now ? 'expired' : h.status,
                expires_at: h.expiresAt,
                catalogue_reward: { name: h.reward.name, description: h.reward.description },
              })),
            },
          },
        },
      },
    };
  },
);

const MAX_BALANCE = 2_147_483_647;

app.post<{ Querystring: { customer_id: string }; Body: { points: number; description: string } }>(
  '/v1/customers/transactions',
  {
    config: { scope: 'write:transactions' },
    schema: {
      querystring: { type: 'object', required: ['customer_id'], properties: { customer_id: { type: 'string', minLength: 1 } } },
      body: {
        type: 'object',
        required: ['points', 'description'],
        properties: { points: { type: 'integer', not: { const: 0 } }, description: { type: 'string', minLength: 1, maxLength: 500 } },
      },
    },
  },
  async (req, reply) => {
    const { merchantId } = req.principal;
    const c = await findCustomer(merchantId, req.query);
    const { points } = req.body;
    const description = req.body.description.trim();
    const type = points > 0 ? 'credit' : 'debit';
    const txId = randomUUID();
    // the service's ledger function through $queryRaw (no interactive transaction), with the
    // customer found above; a refused change answers null columns
    const rows = await db.$queryRaw<{ balance_after: number | null }[]>`
      SELECT balance_after FROM loyalty_apply_points(
        ${merchantId}::uuid, ${c.id}::uuid, NULL::text, ${points}::int, ${MAX_BALANCE}::int, ${txId}::uuid,
        ${type}::"TransactionType", ${description}::text, 'manual'::"TransactionSource", NULL::text, NULL::text,
        ${randomUUID()}::uuid, 'adjustment'::text, 'transaction'::text, ${txId}::text, NULL::uuid)`;
    if (rows[0]?.balance_after == null) {
      throw new HttpError(422, 'adjustment_failed', points < 0 ? 'Insufficient point balance' : 'The credit would overflow the balance');
    }
    reply.status(201);
    return { data: { transaction_id: txId, customer_id: c.id, points, type } };
  },
);

app.server.keepAliveTimeout = 65_000;
await app.listen({ port: Number(process.env.PORT ?? 4200), host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => {
  void app.close().then(async () => {
    await db.$disconnect();
    process.exit(0);
  });
});
