// BENCHMARK BASELINE, NOT PART OF THE SERVICE: what a team would build without the single
// schema gateway. The benchmark's endpoints hand-written with Fastify and Prisma (the same
// generated client and adapter settings as the service), the same key check (sha256 lookup,
// scope per route), the same response shapes, JSON-schema validation answered as 422, and
// one log line per request (pino, as the service logs).
// Env: DATABASE_URL, PORT, HOST, DB_POOL_MAX (default 10, as the service).
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { createPrisma } from '../../src/db/client.js';
import { estimate, type RuleRow } from './estimate-math.js';
import { codeStatus, iso, isSessionToken, nextExpiry, tierStatus, verifySession } from './panel-shape.js';

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
    principal: { merchantId: string; scopes: string[]; customerId?: string };
  }
  interface FastifyContextConfig {
    scope?: string;
  }
}

app.decorateRequest('principal', null as never);

const sessionSecrets = new Map<string, Uint8Array | null>();
async function sessionSecret(merchantId: string) {
  if (!sessionSecrets.has(merchantId)) {
    const row = await db.storefrontSettings.findUnique({ where: { merchantId }, select: { sessionSecret: true } });
    sessionSecrets.set(merchantId, row ? new Uint8Array(row.sessionSecret) : null);
  }
  return sessionSecrets.get(merchantId)!;
}

app.addHook('onRequest', async (req) => {
  const token = req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (!token) throw new HttpError(401, 'invalid_token', 'The API key is invalid or revoked');
  // the panel also takes a customer session, which sees its own customer
  if (req.routeOptions.url === '/bench/panel' && isSessionToken(token)) {
    const session = await verifySession(token, sessionSecret);
    if (!session) throw new HttpError(401, 'invalid_token', 'The customer session is invalid or has expired');
    req.principal = { merchantId: session.merchantId, scopes: [], customerId: session.customerId };
    return;
  }
  const key = await db.apiKey.findUnique({
    where: { hash: createHash('sha256').update(token).digest('hex') },
    select: { merchantId: true, scopes: true, revokedAt: true },
  });
  if (!key || key.revokedAt) throw new HttpError(401, 'invalid_token', 'The API key is invalid or revoked');
  const scope = req.routeOptions.config.scope;
  if (scope) {
    const [access, name] = scope.split(':');
    if (!key.scopes.includes(scope) && !(access === 'read' && key.scopes.includes(`write:${name}`))) {
      throw new HttpError(403, 'insufficient_scope', `This API key lacks the scope ${scope}`);
    }
  }
  req.principal = { merchantId: key.merchantId, scopes: key.scopes };
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

app.get<{ Querystring: CustomerQ }>(
  '/v1/customers/balance',
  { config: { scope: 'read:customers' }, schema: { querystring: { type: 'object', properties: customerQuery } } },
  async (req) => {
    const c = await findCustomer(req.principal.merchantId, req.query);
    const [merchant, pending] = await Promise.all([
      db.merchant.findUniqueOrThrow({ where: { id: c.merchantId }, select: { pointsExpiryDays: true } }),
      db.activity.aggregate({ where: { merchantId: c.merchantId, customerId: c.id, status: 'pending' }, _sum: { pointsChange: true } }),
    ]);
    const since = c.lastActivityAt ?? c.createdAt;
    const days = merchant.pointsExpiryDays;
    return {
      data: {
        customer_id: c.id,
        points_balance: c.pointsBalance,
        points_earned: c.pointsEarned,
        points_spent: c.pointsSpent,
        points_pending: pending._sum.pointsChange ?? 0,
        next_expiry:
          days && c.pointsBalance > 0 ? { points: c.pointsBalance, expires_at: new Date(since.getTime() + days * 86_400_000) } : null,
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

// The storefront's panel (docs/graphql.md's LoyaltyPanel) for the key's `customer_id` or the
// session's customer: the customer, then its parts in parallel.
app.get<{ Querystring: CustomerQ }>(
  '/bench/panel',
  { schema: { querystring: { type: 'object', properties: customerQuery } } },
  async (req) => {
    const { merchantId, customerId } = req.principal;
    if (!customerId) {
      for (const scope of ['read:customers', 'read:tiers', 'read:rewards', 'read:activities']) {
        const [, name] = scope.split(':');
        if (!req.principal.scopes.includes(scope) && !req.principal.scopes.includes(`write:${name}`)) {
          throw new HttpError(403, 'insufficient_scope', `This API key lacks the scope ${scope}`);
        }
      }
    }
    const c = customerId
      ? await db.customer.findFirst({ where: { merchantId, id: customerId, erasedAt: null } })
      : await db.customer.findFirst({ where: { merchantId, platformId: req.query.customer_id ?? '', erasedAt: null } });
    if (!c) throw notFound('Customer');
    const [merchant, pending, earned, tiers, redeemable, activities, held] = await Promise.all([
      db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { pointsExpiryDays: true } }),
      db.activity.aggregate({ where: { merchantId, customerId: c.id, status: 'pending' }, _sum: { pointsChange: true } }),
      db.pointsTransaction.aggregate({ where: { merchantId, customerId: c.id, type: 'credit' }, _sum: { points: true } }),
      db.tier.findMany({
        where: { merchantId, isActive: true },
        orderBy: [{ position: 'asc' }, { id: 'asc' }],
        select: { name: true, benefits: true, threshold: true, isDefault: true },
      }),
      c.status === 'excluded'
        ? []
        : db.reward.findMany({
            where: { merchantId, isActive: true, pointsCost: { lte: c.pointsBalance } },
            orderBy: [{ pointsCost: 'asc' }, { createdAt: 'desc' }, { id: 'desc' }],
            take: 5,
            select: { id: true, name: true, pointsCost: true, rewardType: true },
          }),
      db.activity.findMany({
        where: { merchantId, customerId: c.id },
        orderBy: [{ occurredAt: 'desc' }, { createdAt: 'desc' }, { id: 'desc' }],
        take: 5,
        select: { description: true, pointsChange: true, occurredAt: true },
      }),
      db.customerReward.findMany({
        where: { merchantId, customerId: c.id },
        orderBy: [{ issuedAt: 'desc' }, { id: 'desc' }],
        take: 3,
        select: { code: true, status: true, expiresAt: true, reward: { select: { name: true, description: true } } },
      }),
    ]);
    const now = new Date();
    const ladder = tiers.map((t) => ({ name: t.name, benefits: t.benefits, threshold: t.threshold, is_default: t.isDefault }));
    return {
      data: {
        customer: {
          data: {
            first_name: c.firstName,
            balance: {
              points_balance: c.pointsBalance,
              points_pending: pending._sum.pointsChange ?? 0,
              next_expiry: nextExpiry(c.pointsBalance, merchant.pointsExpiryDays, c.lastActivityAt ?? c.createdAt),
            },
            tier_status: tierStatus(ladder, earned._sum.points ?? 0),
            redeemable_rewards: {
              data: redeemable.map((r) => ({ id: r.id, name: r.name, points_cost: r.pointsCost, reward_type: r.rewardType })),
            },
            activities: {
              data: activities.map((a) => ({ description: a.description, points_change: a.pointsChange, occurred_at: iso(a.occurredAt) })),
            },
            rewards: {
              data: held.map((h) => ({
                code: h.code,
                status: codeStatus(h.status, h.expiresAt, now),
                expires_at: iso(h.expiresAt),
                catalogue_reward: { name: h.reward.name, description: h.reward.description },
              })),
            },
          },
        },
      },
    };
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
