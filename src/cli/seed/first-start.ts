// First start on an empty embedded database: a demo merchant with a demo program, its last
// weeks of orders and redemptions, and a Full Access key, so the README's curl works at once and
// the admin app's charts have something to show.
import type { Db } from '../../db/client.js';
import { createApiKey } from '../../domain/access/api-keys.js';
import { createMerchant } from '../../domain/merchants/merchants.js';
import { importProgram } from '../../domain/program-import/program-import.js';
import { demoHistory } from './demo-history.js';
import { demoProgram } from './demo-program.js';

const DEMO_SLUG = 'demo';

export async function bootstrapDemo(db: Db) {
  if ((await db.merchant.count()) > 0) return null;
  const merchant = await createMerchant(db, { slug: DEMO_SLUG, name: 'Demo Shop' });
  const now = new Date();
  await importProgram(db, merchant.id, demoProgram(now));
  await demoHistory(db, merchant.id, now);
  const key = await createApiKey(db, { merchantId: merchant.id, type: 'full', name: 'Demo key' });
  return { slug: merchant.slug, key: key.key, admin_token: merchant.admin_token };
}
