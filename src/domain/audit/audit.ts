// The audit log (AuditEntry): every admin change, who made it, what, before/after and when.
// Rows are written by one wrapper around every admin mutation (src/graphql/audit.ts) and by the
// CLI's erasures; they are read newest first through the admin API (`audit_log`).
import type { Db } from '../../db/client.js';
import { getDatamodel } from '../../generated/pothos-types.js';
import { Prisma } from '../../generated/prisma/client.js';
import { type PageArgs, newestFirst, paginate } from '../shared/pagination.js';
import { isUuid } from '../shared/records.js';
import { redact } from './redact.js';

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
}

export function listAudit(db: Db, merchantId: string, args: AuditFilter) {
  const where = {
    merchantId,
    ...(args.action ? { action: args.action } : {}),
    ...(args.resource_type ? { resourceType: args.resource_type } : {}),
    ...(args.resource_id ? { resourceId: args.resource_id } : {}),
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
    id ? db.customer.findFirst({ where: isUuid(id) ? { merchantId, OR: [{ id }, { platformId: id }] } : { merchantId, platformId: id } }) : Promise.resolve(null),
};

/** Result types that stand for another resource (a created key is its ApiKey row...). */
const resourceOfType: Record<string, string> = {
  CreatedApiKey: 'ApiKey',
  ManualAdjustment: 'Customer',
  CustomerErasure: 'Customer',
};

export function auditResourceType(returnType: string): string {
  return resourceOfType[returnType] ?? returnType;
}

/** Reads the resource as stored (null when the type has no reader or the row is missing). */
export async function readResource(db: Db, merchantId: string, type: string, id: string | null): Promise<unknown> {
  const reader = readers[type] ?? modelReader(type);
  if (!reader) return null;
  try {
    return (await reader(db, merchantId, id)) ?? null;
  } catch {
    return null; // an unreadable id: the mutation itself answers for it
  }
}

/** Whether an audit entry can say what the resource looked like (it has a reader). */
export const hasReader = (type: string) => Boolean(readers[type] ?? modelReader(type));
