// The audit log (AuditEntry): every admin change, who made it, what, before/after and when.
// Rows are written by one wrapper around every admin mutation (src/graphql/audit.ts) and by the
// CLI's erasures; they are read newest first through the admin API (`audit_log`).

import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { getDatamodel } from '../../generated/pothos-types.js';
import { Prisma } from '../../generated/prisma/client.js';
import { ERASED, needlesOf } from '../privacy/erasure.js';
import { newestFirst, type PageArgs, paginate } from '../shared/pagination.js';
import { isUuid } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { redact, scrubValues } from './redact.js';

export interface AuditInput {
  merchantId: string;
  /** `token:<admin token prefix>`, `session:<admin session id>` or `cli` */
  actor: string;
  action: string;
  resourceType?: string | null;
  resourceId?: string | null;
  args?: unknown;
  before?: unknown;
  after?: unknown;
}

const json = (value: unknown) => {
  const clean = redact(value);
  return clean === null ? Prisma.DbNull : (clean as Prisma.InputJsonValue);
};

/** Records one change; secrets are taken out of args, before and after first. */
export function recordAudit(db: Db, entry: AuditInput) {
  return db.auditEntry.create({
    data: {
      merchantId: entry.merchantId,
      actor: entry.actor,
      action: entry.action,
      resourceType: entry.resourceType ?? null,
      resourceId: entry.resourceId ?? null,
      args: json(entry.args),
      before: json(entry.before),
      after: json(entry.after),
    },
  });
}

export interface AuditFilter extends PageArgs {
  action?: string | null;
  resource_type?: string | null;
  resource_id?: string | null;
  /** One actor (`token:lpa_1a2b`, `session:…`, `cli`), or every actor of a kind (`token`, `session`). */
  actor?: string | null;
  /** created_after <= created_at < created_before. */
  created_after?: Date | null;
  created_before?: Date | null;
}

/** The kinds of actor (the part of `actor` before its colon); `cli` is one actor and its own kind. */
export const ACTOR_KINDS = ['token', 'session', 'cli'] as const;

const actorWhere = (actor: string) =>
  (ACTOR_KINDS as readonly string[]).includes(actor) && actor !== 'cli' ? { startsWith: `${actor}:` } : actor;

const auditFilter = z
  .object({ created_after: z.date().optional(), created_before: z.date().optional() })
  .refine((f) => !f.created_after || !f.created_before || f.created_after < f.created_before, {
    path: ['created_before'],
    message: 'must be after created_after',
  });

export function listAudit(db: Db, merchantId: string, args: AuditFilter) {
  const time = parseInput(auditFilter, {
    created_after: args.created_after ?? undefined,
    created_before: args.created_before ?? undefined,
  });
  const where = {
    merchantId,
    ...(args.action ? { action: args.action } : {}),
    ...(args.resource_type ? { resourceType: args.resource_type } : {}),
    ...(args.resource_id ? { resourceId: args.resource_id } : {}),
    ...(args.actor ? { actor: actorWhere(args.actor) } : {}),
    ...(time.created_after || time.created_before ? { createdAt: { gte: time.created_after, lt: time.created_before } } : {}),
  };
  return paginate(
    args,
    (p) => db.auditEntry.findMany({ where, orderBy: newestFirst, ...p }),
    () => db.auditEntry.count({ where }),
  );
}

// ---- the resource a change is about, read before and after it ----------------------------

type Reader = (db: Db, merchantId: string, id: string | null) => Promise<unknown>;

const models = getDatamodel().datamodel.models as Record<string, { fields: readonly { name: string; isUnique: boolean }[] }>;

/** Any model with a merchant: its row by id (uuid), or the merchant's one row when merchantId is unique. */
function modelReader(model: string): Reader | undefined {
  const fields = models[model]?.fields;
  const merchantField = fields?.find((f) => f.name === 'merchantId');
  if (!fields || !merchantField) return undefined;
  const delegate = model.charAt(0).toLowerCase() + model.slice(1);
  return async (db, merchantId, id) => {
    const table = (db as unknown as Record<string, { findFirst(args: object): Promise<unknown> }>)[delegate];
    if (!table) return null;
    if (id && isUuid(id) && fields.some((f) => f.name === 'id')) return table.findFirst({ where: { id, merchantId } });
    if (!id && merchantField.isUnique) return table.findFirst({ where: { merchantId } });
    return null;
  };
}

/**
 * Per-resource readers, by the GraphQL type a mutation returns. Types named after a Prisma
 * model with a merchant (Reward, Tier, ApiKey, BoosterCampaign, ReferralProgram, and whatever
 * model another part adds) need no entry. Listed here: the ones that differ.
 */
const readers: Record<string, Reader> = {
  Merchant: (db, merchantId) => db.merchant.findUnique({ where: { id: merchantId } }),
  Customer: (db, merchantId, id) =>
    id
      ? db.customer.findFirst({ where: isUuid(id) ? { merchantId, OR: [{ id }, { platformId: id }] } : { merchantId, platformId: id } })
      : Promise.resolve(null),
};

/** Result types that stand for another resource (a created key is its ApiKey row...). */
const resourceOfType: Record<string, string> = {
  CreatedApiKey: 'ApiKey',
  CreatedWebhookEndpoint: 'WebhookEndpoint',
  ManualAdjustment: 'Customer',
  CustomerErasure: 'Customer',
};

export function auditResourceType(returnType: string): string {
  return resourceOfType[returnType] ?? returnType;
}

/** Reads the resource as stored (null when the type has no reader or the row is missing). */
async function readResource(db: Db, merchantId: string, type: string, id: string | null): Promise<unknown> {
  const reader = readers[type] ?? modelReader(type);
  if (!reader) return null;
  try {
    return (await reader(db, merchantId, id)) ?? null;
  } catch {
    return null; // an unreadable id: the mutation itself answers for it
  }
}

// ---- one change, audited -------------------------------------------------------------------

export interface Change {
  merchantId: string;
  actor: string;
  action: string;
  /** The resource's type (a GraphQL type name; auditResourceType maps result types). */
  type: string;
  /** How the caller named the resource (uuid, platform id), if it did. */
  id: string | null;
  args: unknown;
}

type Row = Record<string, unknown> | null;
type Customerish = { platformId: string; email: string; firstName: string | null; lastName: string | null; erasedAt?: Date | null };

/** The id a change's result names its resource by (`id`, or its customer's). */
function idOfResult(result: unknown): string | null {
  const r = result as { id?: unknown; customer?: { id?: unknown } } | null;
  const id = r?.id ?? r?.customer?.id;
  return typeof id === 'string' ? id : null;
}

/**
 * Runs `run` (the change) and, when it succeeds, records it with the resource as stored before
 * and after. Used by every admin mutation (src/graphql/audit.ts) and the CLI's changes.
 */
export async function audited<T>(db: Db, change: Change, run: () => Promise<T>): Promise<T> {
  const { merchantId, type } = change;
  let before = (await readResource(db, merchantId, type, change.id)) as Row;
  const result = await run();
  const id = (before?.id as string | undefined) ?? idOfResult(result) ?? change.id;
  const after = (await readResource(db, merchantId, type, id)) as Row;
  let args = change.args;
  // an erasure must not keep what it erased: the person's identifiers leave its own row too
  if (type === 'Customer' && before && !(before as Customerish).erasedAt && (after as Customerish | null)?.erasedAt) {
    const needles = needlesOf(before as Customerish);
    before = scrubValues(before, needles, ERASED) as Row;
    args = scrubValues(args, needles, ERASED);
  }
  await recordAudit(db, {
    merchantId,
    actor: change.actor,
    action: change.action,
    resourceType: type,
    resourceId: (after?.id as string | undefined) ?? id,
    args,
    before,
    // a result with no stored resource behind it (an event's outcome) is the "after"
    after: after ?? (before ? null : result),
  });
  return result;
}
