// Importing a whole program (customers with opening balances, rewards, earning rules,
// tiers, boosters, referral program, the merchant's time zone and settings) and its past orders
// (order-history.ts) from one JSON file: validated in full first, then written in ONE batch
// transaction, so a file is imported entirely or not at all. Past orders that are to earn points
// are recorded through the engine after it, each on its own.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { customerInput, generateReferralCode } from '../customers/customer-writes.js';
import { boosterCampaignInput, boosterRow } from '../earning/booster-campaigns.js';
import { earningRuleInput, earningRuleRow } from '../earning/earning-rules.js';
import { insertActivity } from '../ledger/activity-log.js';
import { merchantTimeZone, settingsInput, settingsRow } from '../merchants/merchants.js';
import { announceProgramChange, programChangedHere } from '../merchants/program-changes.js';
import { referralProgramInput, referralProgramRow } from '../referrals/referral-program.js';
import { rewardInput, rewardRow } from '../rewards/rewards.js';
import { timeZoneSchema } from '../shared/calendar.js';
import { AppError, type ErrorDetails, validationError } from '../shared/errors.js';
import { MAX_BALANCE } from '../shared/limits.js';
import { detailsFromZod } from '../shared/validation.js';
import { tierInput, tierRow, tiersChanged } from '../tiers/tiers.js';
import { awardHistory, existingForOrders, type FileOrder, historyOrderInput, insertHistory, orderProblems } from './order-history.js';

const importCustomerInput = customerInput.extend({
  points_balance: z.number().int().min(0).max(MAX_BALANCE).optional(),
});

const sections = {
  customers: importCustomerInput,
  rewards: rewardInput,
  earning_rules: earningRuleInput,
  tiers: tierInput,
  booster_campaigns: boosterCampaignInput,
  orders: historyOrderInput,
} as const;
type Sections = typeof sections;
type Section = keyof Sections;
/** The sections of the program's records, which may give their ids. */
type ProgramSection = Exclude<Section, 'customers' | 'orders'>;
const sectionNames = Object.keys(sections) as Section[];

/** The import file (field names as in the public API). */
export type ProgramFile = { [K in Section]?: z.input<Sections[K]>[] | null } & {
  referral_program?: z.input<typeof referralProgramInput> | null;
  /** The merchant's IANA time zone; dates in the file's earning rules are days of it. */
  timezone?: string | null;
  /** The merchant's settings, as the admin API's update_merchant_settings takes them (the time zone is `timezone`). */
  settings?: z.input<typeof importSettingsInput> | null;
};

export interface ImportSummary {
  customers: number;
  rewards: number;
  earning_rules: number;
  tiers: number;
  booster_campaigns: number;
  referral_program: boolean;
  settings: boolean;
  points_imported: number;
  /** Past orders written (as history, or recorded with their points: `award_points`). */
  orders: number;
  /** Past orders already recorded before: left as they were. */
  orders_skipped: number;
  /** Points the past orders earned (`award_points` only). */
  points_awarded: number;
}

export interface ImportOptions {
  /** Past orders earn points as late orders do, instead of being history only. */
  awardPoints?: boolean;
}

/** Records per list; the whole file is one database transaction. */
const MAX_RECORDS = 100_000;
const CHUNK = 5_000;
const IMPORT_TIMEOUT_MS = 15 * 60_000;
const OPENING_BALANCE = 'Opening balance (import)';

const topLevelKeys = new Set<string>([...sectionNames, 'referral_program', 'timezone', 'settings']);
/** The file's top-level `timezone` is the zone its dates are read in, so it is not a setting here too. */
const importSettingsInput = settingsInput.omit({ timezone: true });

type Parsed = { [K in Section]: { index: number; value: z.output<Sections[K]> }[] };

/** Validates `file` in full, then writes it for `merchantId` in one batch; 422 lists every problem. */
export async function importProgram(db: Db, merchantId: string, file: unknown, opts: ImportOptions = {}): Promise<ImportSummary> {
  const problems = new Problems();
  if (!file || typeof file !== 'object' || Array.isArray(file)) {
    problems.add([], 'The import file must be a JSON object');
    throw problems.error();
  }
  const top = file as Record<string, unknown>;
  for (const key of Object.keys(top)) if (!topLevelKeys.has(key)) problems.add([key], 'is not a known field');
  problems.addNulBytes(file);

  // Each record on its own, so one bad record does not hide the others.
  const parsed = {} as Record<Section, { index: number; value: unknown }[]>;
  for (const section of sectionNames) {
    const records = top[section] ?? [];
    parsed[section] = [];
    if (!Array.isArray(records)) problems.add([section], 'must be an array');
    else if (records.length > MAX_RECORDS) problems.add([section], `must have at most ${MAX_RECORDS} records`);
    else {
      records.forEach((record, index) => {
        const result = sections[section].safeParse(record);
        if (result.success) parsed[section].push({ index, value: result.data });
        else problems.addZod(result.error, [section, index]);
      });
    }
  }
  let referralProgram: z.output<typeof referralProgramInput> | null = null;
  if (top.referral_program != null) {
    const result = referralProgramInput.safeParse(top.referral_program);
    if (result.success) referralProgram = result.data;
    else problems.addZod(result.error, ['referral_program']);
  }
  let timezone: string | null = null;
  if (top.timezone != null) {
    const result = timeZoneSchema.safeParse(top.timezone);
    if (result.success) timezone = result.data;
    else problems.addZod(result.error, ['timezone']);
  }

  let settings: z.output<typeof importSettingsInput> | null = null;
  if (top.settings != null) {
    const result = importSettingsInput.safeParse(top.settings);
    if (result.success) settings = result.data;
    else problems.addZod(result.error, ['settings']);
  }

  const records = parsed as Parsed;
  const existing = await readExisting(db, merchantId, records);
  checkCrossRecord(records, existing, problems);
  const now = new Date();
  const orders = await checkOrders(db, merchantId, records, settings, Boolean(opts.awardPoints), now, problems);
  if (problems.any()) throw problems.error();

  const referralCodes = await assignReferralCodes(db, merchantId, records.customers, existing.referralCodes);
  const zone = timezone ?? (await merchantTimeZone(db, merchantId));
  const plan = buildBatch(db, merchantId, records, referralProgram, referralCodes, existing.defaultTierId, zone);
  if (!opts.awardPoints && orders.fresh.length) {
    for (const chunk of chunks(orders.fresh))
      plan.ops.push(
        insertHistory(
          db,
          merchantId,
          chunk.map((o) => o.value),
          orders.currency,
          now,
        ),
      );
    plan.ops.push(tiersChanged(db, merchantId));
  }
  if (timezone) plan.ops.push(db.merchant.update({ where: { id: merchantId }, data: { timezone } }));
  if (settings) plan.ops.push(db.merchant.update({ where: { id: merchantId }, data: settingsRow(settings) }));
  const programChanged = Boolean(
    timezone || settings || records.tiers.length || records.earning_rules.length || records.booster_campaigns.length,
  );
  if (programChanged) plan.ops.push(announceProgramChange(db, merchantId));
  try {
    // one batch: a large file takes longer than Prisma's 5 s default
    await db.$transaction(plan.ops, { maxWait: 30_000, timeout: IMPORT_TIMEOUT_MS });
    if (programChanged) programChangedHere(merchantId);
  } catch (err) {
    // a concurrent write took a unique value between our checks and the batch
    if ((err as { code?: string }).code === 'P2002') {
      throw new AppError('conflict', 'Records of this file were created meanwhile; nothing was imported');
    }
    throw err;
  }
  const summary = { ...plan.summary, settings: settings !== null, orders: orders.fresh.length, orders_skipped: orders.skipped };
  if (!opts.awardPoints || orders.fresh.length === 0) return summary;
  const awarded = await awardHistory(db, merchantId, orders.fresh);
  return {
    ...summary,
    orders: awarded.recorded,
    orders_skipped: orders.skipped + orders.fresh.length - awarded.recorded,
    points_awarded: awarded.points,
  };
}

/**
 * The file's orders checked (problems at `orders.<index>.<field>`) against its customers, the
 * merchant's and the shop's currency and late earning days as the file leaves them: those not yet
 * recorded (`fresh`), and how many were.
 */
async function checkOrders(
  db: Db,
  merchantId: string,
  records: Parsed,
  settings: z.output<typeof importSettingsInput> | null,
  awardPoints: boolean,
  now: Date,
  problems: Problems,
): Promise<{ fresh: FileOrder[]; skipped: number; currency: string }> {
  const orders = records.orders;
  const merchant = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { currency: true, lateEarningDays: true } });
  const currency = settings?.currency ?? merchant.currency;
  if (orders.length === 0) return { fresh: [], skipped: 0, currency };
  const found = await existingForOrders(
    db,
    merchantId,
    orders.map((o) => o.value),
  );
  const context = {
    customers: new Set([...found.customers, ...records.customers.map((c) => c.value.customer_id)]),
    recorded: found.recorded,
    currency,
    lateEarningDays: settings?.late_earning_days ?? merchant.lateEarningDays,
  };
  const seen = new Map<string, number>();
  for (const { index, value } of orders) {
    const first = seen.get(value.order_id);
    if (first !== undefined) problems.add(['orders', index, 'order_id'], `duplicates orders.${first}.order_id`);
    else seen.set(value.order_id, index);
    for (const [key, message] of orderProblems(value, context, awardPoints, now)) problems.add(['orders', index, key], message);
  }
  const fresh = orders.filter((o) => !found.recorded.has(o.value.order_id) && seen.get(o.value.order_id) === o.index);
  return { fresh, skipped: orders.length - fresh.length, currency };
}

/** Collects `path → messages` across the whole file. */
class Problems {
  readonly details: ErrorDetails = {};

  add(path: (string | number)[], message: string) {
    (this.details[path.join('.') || '_'] ??= []).push(message);
  }

  addZod(error: z.ZodError, prefix: (string | number)[] = []) {
    // an unknown key is reported at its own path, not at its parent's
    const unknown = error.issues.filter((i) => i.code === 'unrecognized_keys');
    for (const issue of unknown) {
      for (const key of issue.keys) this.add([...prefix, ...issue.path.map(String), key], 'is not a known field');
    }
    const rest = error.issues.filter((i) => i.code !== 'unrecognized_keys');
    for (const [key, messages] of Object.entries(detailsFromZod({ issues: rest } as z.ZodError, prefix))) {
      (this.details[key] ??= []).push(...messages);
    }
  }

  /** PostgreSQL refuses NUL in text and JSON: refuse it here rather than fail at write. */
  addNulBytes(value: unknown, path: (string | number)[] = []) {
    if (typeof value === 'string') {
      if (value.includes('\u0000')) this.add(path, 'must not contain NUL characters');
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) this.addNulBytes(v, [...path, i]);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) this.addNulBytes(v, [...path, k]);
    }
  }

  any() {
    return Object.keys(this.details).length > 0;
  }

  error() {
    const count = Object.keys(this.details).length;
    return validationError(this.details, `The import file is invalid (${count} field${count === 1 ? '' : 's'}); nothing was imported`);
  }
}

interface Existing {
  platformIds: Set<string>;
  emails: Set<string>;
  referralCodes: Set<string>;
  /** Ids already used by any row of the table (ids are global keys). */
  ids: Record<ProgramSection, Set<string>>;
  tiers: { id: string; position: number; isDefault: boolean }[];
  defaultTierId: string | null;
}

const chunks = <T>(items: T[], size = CHUNK) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The merchant's customers that share a platform id, email (any case) or referral code with the file. */
function clashingCustomers(db: Db, merchantId: string, platformIds: string[], emails: string[], codes: string[]) {
  // one array parameter each: long `in` lists are slow through Prisma, and its insensitive
  // `in` fails on them (bind count mismatch)
  return db.$queryRaw<{ platform_id: string; email: string; referral_code: string }[]>`
    SELECT platform_id, email, referral_code
      FROM customers
     WHERE merchant_id = ${merchantId}::uuid
       AND (platform_id = ANY(${platformIds}::text[])
            OR lower(email) = ANY(${emails}::text[])
            OR referral_code = ANY(${codes}::text[]))`;
}

async function readExisting(db: Db, merchantId: string, parsed: Parsed): Promise<Existing> {
  const customers = parsed.customers.map((c) => c.value);
  const givenIds = (section: ProgramSection) => parsed[section].flatMap((r) => (r.value.id ? [r.value.id] : []));
  // ids given by the file must be new to the merchant (its rows' keys are (merchant, id))
  const idSet = async (ids: string[], find: (ids: string[]) => Promise<{ id: string }[]>) =>
    new Set(ids.length ? (await find(ids)).map((r) => r.id) : []);
  const select = { id: true } as const;
  // sequential on purpose: concurrent statements over the embedded PGlite socket can
  // interleave (electric-sql/pglite#1046), and these are a handful of queries
  const clashes = customers.length
    ? await clashingCustomers(
        db,
        merchantId,
        customers.map((c) => c.customer_id),
        customers.map((c) => c.email.toLowerCase()),
        customers.flatMap((c) => (c.referral_code ? [c.referral_code] : [])),
      )
    : [];
  const rewards = await idSet(givenIds('rewards'), (ids) => db.reward.findMany({ where: { merchantId, id: { in: ids } }, select }));
  const earningRules = await idSet(givenIds('earning_rules'), (ids) =>
    db.earningRule.findMany({ where: { merchantId, id: { in: ids } }, select }),
  );
  const tiers = await idSet(givenIds('tiers'), (ids) => db.tier.findMany({ where: { merchantId, id: { in: ids } }, select }));
  const boosters = await idSet(givenIds('booster_campaigns'), (ids) =>
    db.boosterCampaign.findMany({ where: { merchantId, id: { in: ids } }, select }),
  );
  const merchantTiers = await db.tier.findMany({
    where: { merchantId },
    select: { id: true, position: true, isDefault: true },
  });
  return {
    platformIds: new Set(clashes.map((c) => c.platform_id)),
    emails: new Set(clashes.map((c) => c.email.toLowerCase())),
    referralCodes: new Set(clashes.map((c) => c.referral_code)),
    ids: { rewards, earning_rules: earningRules, tiers, booster_campaigns: boosters },
    tiers: merchantTiers,
    defaultTierId: merchantTiers.find((t) => t.isDefault)?.id ?? null,
  };
}

/** Rules across records and against the merchant's data: uniqueness, tier order, references. */
function checkCrossRecord(parsed: Parsed, existing: Existing, problems: Problems) {
  const unique = <T>(
    section: Section,
    field: string,
    records: { index: number; value: T }[],
    keyOf: (value: T) => string | null | undefined,
    taken: (key: string) => string | null,
  ) => {
    const seen = new Map<string, number>();
    for (const { index, value } of records) {
      const key = keyOf(value);
      if (key == null) continue;
      const first = seen.get(key);
      if (first !== undefined) problems.add([section, index, field], `duplicates ${section}.${first}.${field}`);
      else {
        seen.set(key, index);
        const why = taken(key);
        if (why) problems.add([section, index, field], why);
      }
    }
  };

  const { customers, tiers } = parsed;
  unique(
    'customers',
    'customer_id',
    customers,
    (c) => c.customer_id,
    (k) => (existing.platformIds.has(k) ? 'is already a customer of this merchant' : null),
  );
  unique(
    'customers',
    'email',
    customers,
    (c) => c.email.toLowerCase(),
    (k) => (existing.emails.has(k) ? 'is already the email of a customer of this merchant' : null),
  );
  unique(
    'customers',
    'referral_code',
    customers,
    (c) => c.referral_code,
    (k) => (existing.referralCodes.has(k) ? 'is already used by a customer of this merchant' : null),
  );
  for (const section of ['rewards', 'earning_rules', 'tiers', 'booster_campaigns'] as const) {
    unique(
      section,
      'id',
      parsed[section] as { index: number; value: { id?: string } }[],
      (r) => r.id,
      (k) => (existing.ids[section].has(k) ? 'is already in use' : null),
    );
  }
  unique(
    'tiers',
    'position',
    tiers,
    (t) => String(t.position),
    (k) => (existing.tiers.some((t) => String(t.position) === k) ? 'is already the position of a tier of this merchant' : null),
  );
  let hasDefault = existing.defaultTierId !== null;
  for (const { index, value } of tiers) {
    if (!value.is_default) continue;
    if (hasDefault) problems.add(['tiers', index, 'is_default'], 'only one tier can be the default');
    hasDefault = true;
  }

  // conditions.tier_ids must name tiers of this merchant (existing or in this file)
  const tierIds = new Set([...existing.tiers.map((t) => t.id), ...tiers.flatMap((t) => (t.value.id ? [t.value.id] : []))]);
  for (const { index, value } of parsed.earning_rules) {
    value.conditions?.tier_ids?.forEach((id, i) => {
      if (!tierIds.has(id)) problems.add(['earning_rules', index, 'conditions', 'tier_ids', i], 'is not a tier of this merchant');
    });
  }
}

/** Given codes are kept; the others get 8 random upper-case alphanumerics, unique for the merchant. */
async function assignReferralCodes(db: Db, merchantId: string, customers: Parsed['customers'], taken: Set<string>) {
  const used = new Set(taken);
  for (const { value } of customers) if (value.referral_code) used.add(value.referral_code);
  const codes = customers.map(({ value }) => value.referral_code ?? null);
  let missing = codes.flatMap((c, i) => (c === null ? [i] : []));
  while (missing.length) {
    for (const i of missing) {
      let code = generateReferralCode();
      while (used.has(code)) code = generateReferralCode();
      used.add(code);
      codes[i] = code;
    }
    const fresh = missing.map((i) => codes[i]!);
    const clashes = new Set((await clashingCustomers(db, merchantId, [], [], fresh)).map((c) => c.referral_code));
    missing = missing.filter((i) => clashes.has(codes[i]!));
  }
  return codes as string[];
}

type CustomerRow = {
  id: string;
  platformId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  status: string;
  balance: number;
  referralCode: string;
  birthday: string | null;
  createdAt: string;
};

/** `INSERT INTO tier_memberships` of an active import membership for each `id` of CTE `from`. */
const insertMemberships = (merchantId: string, tierId: string, now: Date, from: 'joined' | 'inserted') => Prisma.sql`
  INSERT INTO tier_memberships (id, merchant_id, customer_id, tier_id, status, source, started_at)
  SELECT gen_random_uuid(), ${merchantId}::uuid, id, ${tierId}::uuid, 'active'::"MembershipStatus",
         'import'::"MembershipSource", ${now}::timestamptz
    FROM ${Prisma.raw(from)}`;

/** The customers, members in the default tier (if any) with their membership. */
function insertCustomers(db: Db, merchantId: string, rows: CustomerRow[], tierId: string | null, now: Date) {
  const col = <K extends keyof CustomerRow>(key: K) => rows.map((r) => r[key]);
  const insert = Prisma.sql`
    INSERT INTO customers (id, merchant_id, platform_id, email, first_name, last_name, status, points_balance,
                           points_earned, referral_code, birthday, tier_id, last_activity_at, created_at, updated_at)
    SELECT u.id, ${merchantId}::uuid, u.platform_id, u.email, u.first_name, u.last_name,
           u.status::"CustomerStatus", u.balance, u.balance, u.referral_code, u.birthday,
           CASE WHEN u.status = 'member' THEN ${tierId}::uuid END,
           CASE WHEN u.balance > 0 THEN ${now}::timestamptz END, u.created_at, ${now}::timestamptz
      FROM unnest(${col('id')}::uuid[], ${col('platformId')}::text[], ${col('email')}::text[],
                  ${col('firstName')}::text[], ${col('lastName')}::text[], ${col('status')}::text[],
                  ${col('balance')}::int[], ${col('referralCode')}::text[], ${col('birthday')}::date[],
                  ${col('createdAt')}::timestamptz[])
        AS u(id, platform_id, email, first_name, last_name, status, balance, referral_code, birthday, created_at)`;
  if (!tierId) return db.$executeRaw(insert);
  return db.$executeRaw`
    WITH inserted AS (${insert} RETURNING id, tier_id)
    ${insertMemberships(merchantId, tierId, now, 'inserted')} WHERE tier_id IS NOT NULL`;
}

/** The opening balance as a ledger entry (transaction + activity), so the balance is the sum of its transactions. */
function insertOpeningBalances(db: Db, merchantId: string, rows: CustomerRow[], now: Date) {
  const transactionIds = rows.map(() => randomUUID());
  return db.$executeRaw`
    WITH u AS (
      SELECT * FROM unnest(${rows.map((r) => r.id)}::uuid[], ${transactionIds}::uuid[], ${rows.map(() => randomUUID())}::uuid[],
                           ${rows.map((r) => r.balance)}::int[])
        AS u(customer_id, transaction_id, activity_id, points)
    ), tx AS (
      INSERT INTO points_transactions (id, merchant_id, customer_id, points, type, description, source, balance_after, created_at)
      SELECT transaction_id, ${merchantId}::uuid, customer_id, points, 'credit'::"TransactionType", ${OPENING_BALANCE},
             'import'::"TransactionSource", points, ${now}::timestamptz
        FROM u
    )
    ${insertActivity(
      {
        id: Prisma.sql`activity_id`,
        merchantId,
        customerId: Prisma.sql`customer_id`,
        type: 'import',
        description: OPENING_BALANCE,
        pointsChange: Prisma.sql`points`,
        balanceAfter: Prisma.sql`points`,
        reference: { kind: 'transaction', id: Prisma.sql`transaction_id` },
        at: now,
      },
      Prisma.sql`u`,
    )}`;
}

const date = (iso: string | null | undefined) => (iso ? new Date(iso) : undefined);

function buildBatch(
  db: Db,
  merchantId: string,
  parsed: Parsed,
  referralProgram: z.output<typeof referralProgramInput> | null,
  referralCodes: string[],
  existingDefaultTierId: string | null,
  zone: string,
) {
  const now = new Date();
  const ops: Prisma.PrismaPromise<unknown>[] = [];

  // tiers first: customers reference the default tier
  const tiers = parsed.tiers.map(({ value: t }) => ({
    id: t.id ?? randomUUID(),
    merchantId,
    ...tierRow(t),
    createdAt: date(t.created_at) ?? now,
  }));
  if (tiers.length) ops.push(db.tier.createMany({ data: tiers }));

  // Members join the default tier: those already here without a tier now, imported ones as inserted.
  const defaultTierId = tiers.find((t) => t.isDefault)?.id ?? existingDefaultTierId;
  if (defaultTierId) {
    ops.push(db.$executeRaw`
      WITH joined AS (
        UPDATE customers SET tier_id = ${defaultTierId}::uuid, updated_at = ${now}::timestamptz
         WHERE merchant_id = ${merchantId}::uuid AND tier_id IS NULL AND status = 'member'::"CustomerStatus"
        RETURNING id
      )
      ${insertMemberships(merchantId, defaultTierId, now, 'joined')}`);
  }

  // Customers and their opening balances: one statement per chunk over array parameters
  // (unnest), far faster than createMany for thousands of rows.
  const customers = parsed.customers.map(({ value: c }, i) => ({
    id: randomUUID(),
    platformId: c.customer_id,
    email: c.email,
    firstName: c.first_name ?? null,
    lastName: c.last_name ?? null,
    status: c.status,
    balance: c.points_balance ?? 0,
    referralCode: referralCodes[i]!,
    birthday: c.birthday ?? null,
    createdAt: c.created_at ? new Date(c.created_at).toISOString() : now.toISOString(),
  }));
  for (const chunk of chunks(customers)) {
    ops.push(insertCustomers(db, merchantId, chunk, defaultTierId, now));
    const funded = chunk.filter((c) => c.balance > 0);
    if (funded.length) ops.push(insertOpeningBalances(db, merchantId, funded, now));
  }
  // imported customers (and tiers) are judged on their history by the tier-changes job
  if (tiers.length || customers.length) ops.push(tiersChanged(db, merchantId));

  const pointsImported = customers.reduce((sum, c) => sum + c.balance, 0);

  const rewards = parsed.rewards.map(({ value: r }) => ({
    ...(r.id && { id: r.id }),
    merchantId,
    ...rewardRow(r),
    createdAt: date(r.created_at) ?? now,
  }));
  for (const chunk of chunks(rewards)) ops.push(db.reward.createMany({ data: chunk }));

  const earningRules = parsed.earning_rules.map(({ value: e }) => ({
    ...(e.id && { id: e.id }),
    merchantId,
    ...earningRuleRow(e, zone),
    createdAt: date(e.created_at) ?? now,
  }));
  for (const chunk of chunks(earningRules)) ops.push(db.earningRule.createMany({ data: chunk }));

  const boosters = parsed.booster_campaigns.map(({ value: b }) => ({
    ...(b.id && { id: b.id }),
    merchantId,
    ...boosterRow(b),
    createdAt: date(b.created_at) ?? now,
  }));
  for (const chunk of chunks(boosters)) ops.push(db.boosterCampaign.createMany({ data: chunk }));

  if (referralProgram) {
    const data = referralProgramRow(referralProgram);
    ops.push(db.referralProgram.upsert({ where: { merchantId }, create: { merchantId, ...data }, update: data }));
  }

  const summary: ImportSummary = {
    customers: customers.length,
    rewards: rewards.length,
    earning_rules: earningRules.length,
    tiers: tiers.length,
    booster_campaigns: boosters.length,
    referral_program: referralProgram !== null,
    settings: false,
    points_imported: pointsImported,
    orders: 0,
    orders_skipped: 0,
    points_awarded: 0,
  };
  return { ops, summary };
}
