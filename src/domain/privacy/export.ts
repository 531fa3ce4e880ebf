// A privacy export (GDPR/CCPA access request): everything held about one customer as one JSON
// document, read through the same domain reads the API uses, every page of each.
import type { Db } from '../../db/client.js';
import { snakeCase } from '../../db/names.js';
import type { Referral, ReferralParty } from '../../generated/prisma/client.js';
import { customerProfile } from '../customers/customer-records.js';
import { findCustomerById } from '../customers/customers.js';
import { listActivities } from '../ledger/activity-log.js';
import { balanceOf } from '../ledger/balances.js';
import { listTransactions } from '../ledger/points-history.js';
import { listReferrals } from '../referrals/referral-records.js';
import { listCustomerRewards } from '../rewards/redemption.js';
import { MAX_PER_PAGE, type PageArgs, type Paginated } from '../shared/pagination.js';
import { listMemberships } from '../tiers/standing.js';

/** Every row of a paged read, page after page. */
async function allPages<T>(read: (args: PageArgs) => Promise<Paginated<T>>): Promise<T[]> {
  const rows: T[] = [];
  for (let page = 1; ; page++) {
    const { data, meta } = await read({ page, per_page: MAX_PER_PAGE });
    rows.push(...data);
    if (!meta.pagination.has_more) return rows;
  }
}

/** A plain JSON copy with snake_case keys (dates as ISO strings, decimals as strings). */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), function (this: unknown, _key, v: unknown) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [snakeCase(k), x]));
  });
}

const EXPORT_FORMAT = 'loyalty.customer-export/1';

/**
 * A referral as one of its parties exports it: the identifiers of whoever registered it are the
 * other party's personal data unless this party registered it, and the fraud signals are the
 * merchant's judgement, not the customer's data.
 */
const asParty =
  (party: ReferralParty) =>
  <R extends Referral>({ signals: _signals, ...referral }: R) =>
    referral.registeredBy === party
      ? referral
      : { ...referral, clientIp: null, deviceId: null, paymentFingerprint: null, shippingAddressHash: null };

/** The export of the merchant's customer named by `id` (internal uuid or platform id); 404 when erased. */
export async function exportCustomer(db: Db, merchantId: string, id: string) {
  const customer = await findCustomerById(db, merchantId, id);
  const own = { merchantId, customerId: customer.id };
  const [profile, balance, transactions, activities, rewards, referralsMade, referredBy, memberships, orders] = await Promise.all([
    customerProfile(db, merchantId, customer.id),
    balanceOf(db, customer),
    allPages((p) => listTransactions(db, merchantId, customer.id, p)),
    allPages((p) => listActivities(db, merchantId, customer.id, p)),
    allPages((p) => listCustomerRewards(db, customer, p)),
    allPages((p) => listReferrals(db, merchantId, customer.id, p)),
    db.referral.findMany({
      where: { merchantId, OR: [{ refereeId: customer.id }, { refereeEmail: customer.email.toLowerCase() }] },
      orderBy: { createdAt: 'asc' },
    }),
    allPages((p) => listMemberships(db, merchantId, customer.id, p)),
    db.order.findMany({ where: own, orderBy: { placedAt: 'asc' } }),
  ]);
  return plain({
    format: EXPORT_FORMAT,
    exported_at: new Date(),
    // the merchant's time zone, which the profile carries, is not the customer's data
    customer: { ...profile, zone: undefined },
    balance,
    ledger: transactions,
    activities,
    rewards,
    referrals: { made: referralsMade.map(asParty('referrer')), received: referredBy.map(asParty('referee')) },
    memberships,
    orders,
  }) as Record<string, unknown>;
}
