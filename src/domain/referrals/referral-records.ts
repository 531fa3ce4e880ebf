// What the APIs read of referrals: a customer's referrals, as referrer (public), and the
// merchant's referrals by status, such as those held for review (admin).
import type { Db } from '../../db/client.js';
import { columnsOf, timeFieldsOf } from '../../db/sql.js';
import { Prisma, type Referral, type ReferralStatus } from '../../generated/prisma/client.js';
import { ownRows } from '../customers/customer-parts.js';
import { newestFirst, type OwnedList, type PageArgs, paginate, paginateOne } from '../shared/pagination.js';

const referralsMade = {
  table: 'referrals',
  ownerType: 'uuid',
  where: (referrer) => Prisma.sql`referrer_id = ${referrer}`,
  order: 'created_at DESC, id DESC',
  keyset: 'created_at, id',
  name: 'referrals',
  // the referee's platform id, once they are a customer, in the same statement
  columns: Prisma.sql`${columnsOf(Prisma.ReferralScalarFieldEnum, 'x')}, c.platform_id AS referee_platform_id`,
  join: (merchant) => Prisma.sql`LEFT JOIN customers c ON c.merchant_id = ${merchant} AND c.id = x.referee_id`,
  times: timeFieldsOf('Referral'),
  shape: ({ referee_platform_id, ...referral }: Referral & { referee_platform_id: string | null }) => ({
    ...referral,
    referee: referee_platform_id === null ? null : { platformId: referee_platform_id },
  }),
} satisfies OwnedList<{ id: string }>;

export function listReferrals(db: Db, merchantId: string, referrerId: string, args: PageArgs) {
  return paginateOne(db, merchantId, referrerId, args, referralsMade);
}

/** The referrals each customer made as the graph's links read them, beside the customer. */
export const referralRows = ownRows(referralsMade);

/** The merchant's referrals, newest first, of one status or all. */
export function merchantReferrals(db: Db, merchantId: string, args: PageArgs & { status?: ReferralStatus | null }) {
  const where = { merchantId, ...(args.status && { status: args.status }) };
  return paginate(
    args,
    (p) => db.referral.findMany({ where, orderBy: newestFirst, include: { referee: { select: { platformId: true } } }, ...p }),
    () => db.referral.count({ where }),
  );
}
