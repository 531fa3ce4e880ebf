// What a statement reads beside each customer it finds: the graph's links of a customer (its
// balance, tier status, codes, lists) are each one value per customer row, so a customer and
// every link a document selects of it are one statement, and so are a page of customers and
// theirs. A part says its SQL over the customer row's columns and how to read its value.
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { AppError } from '../shared/errors.js';
import {
  type ConnectedList,
  type Connection,
  type CursorArgs,
  connectionRead,
  type OwnerRead,
  type PageArgs,
  type Paginated,
  pageRead,
  type WindowNeeds,
} from '../shared/pagination.js';
import type { CustomerProfile } from './customer-records.js';

/** The columns of the customer row a part reads beside (expressions of its statement). */
export interface CustomerColumns {
  id: Prisma.Sql;
  pointsBalance: Prisma.Sql;
  pointsEarned: Prisma.Sql;
}

/** One value read beside each customer: `sql` over the row's columns, `read` of what it answered. */
export interface CustomerPart<V = unknown> {
  sql(c: CustomerColumns): Prisma.Sql;
  read(value: unknown, customer: CustomerProfile): V;
}

/** A list of a customer's as the graph reads it beside the customer: one page, or a connection (totals, and only the fields, asked for). */
export interface CustomerList<T> {
  page(merchantId: string, args: PageArgs, needs: WindowNeeds): CustomerPart<Paginated<T>>;
  connection(merchantId: string, args: CursorArgs, needs: WindowNeeds): CustomerPart<Connection<T> | AppError>;
}

/** An owner's value whose owner is the customer itself. */
const byCustomer = <V>(read: OwnerRead<V>): CustomerPart<V> => ({
  sql: (c) => read.sql(c.id),
  read: (value, customer) => read.read(value, customer.id),
});

/** The customer's own rows of `list` (its `where` picks them by the customer's id). */
export function ownRows<T extends { id: string }>(list: ConnectedList<T>): CustomerList<T> {
  return {
    page: (merchantId, args, needs) => byCustomer(pageRead(merchantId, list, args, needs)),
    connection: (merchantId, args, needs) => byCustomer(connectionRead(merchantId, list, args, needs)),
  };
}

/** The columns of `rows` of customerColumns (field names) under `alias`, for parts. */
export const profileColumns = (alias: string): CustomerColumns => ({
  id: Prisma.raw(`${alias}.id`),
  pointsBalance: Prisma.raw(`${alias}."pointsBalance"`),
  pointsEarned: Prisma.raw(`${alias}."pointsEarned"`),
});

/** The parts' values as the select list's last columns (`_l0`, `_l1`…), over `c`. */
export function partColumns(parts: readonly CustomerPart[], c: CustomerColumns): Prisma.Sql {
  return parts.length === 0
    ? Prisma.empty
    : Prisma.sql`, ${Prisma.join(parts.map((part, i) => Prisma.sql`${part.sql(c)} AS ${Prisma.raw(`_l${i}`)}`))}`;
}

/** A row with its parts' values read into `linked` (in the parts' order), as a profile. */
export function withParts(row: CustomerProfile & Record<string, unknown>, parts: readonly CustomerPart[]): CustomerProfile {
  if (parts.length > 0) row.linked = parts.map((part, i) => part.read(row[`_l${i}`], row));
  return row;
}

/**
 * The parts of customers already read (a graph's link reached without its parent reading it),
 * in one statement whatever their number; each customer's values in the parts' order.
 */
export async function partsOf(db: Db, customers: readonly CustomerProfile[], parts: readonly CustomerPart[]): Promise<unknown[][]> {
  const merchantId = customers[0]?.merchantId;
  if (!merchantId) return [];
  const rows = await rowsOf<Record<string, unknown>>(
    db,
    Prisma.sql`
    SELECT c._i ${partColumns(parts, profileColumns('c'))}
      FROM unnest(${customers.map((c) => c.id)}::uuid[], ${customers.map((c) => c.pointsBalance)}::int[],
                  ${customers.map((c) => c.pointsEarned)}::int[])
           WITH ORDINALITY AS c(id, "pointsBalance", "pointsEarned", _i)
     ORDER BY c._i`,
  );
  return rows.map((row, i) => parts.map((part, p) => part.read(row[`_l${p}`], customers[i]!)));
}
