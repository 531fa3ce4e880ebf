// reevaluateTier: tier status follows points earned (or money spent) in each tier's window.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyPoints } from '../../src/domain/ledger/ledger.js';
import { reevaluateTier } from '../../src/domain/tiers/standing.js';
import { newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;

beforeAll(async () => {
  app = await testApp();
});

/** A merchant with Bronze (default, 0), Silver (500), Gold (1000) in `window` on `qualification`. */
async function program(
  window: 'lifetime' | 'calendar_year' | 'rolling_12_months' = 'lifetime',
  qualification: 'points_earned' | 'amount_spent' = 'points_earned',
) {
  const merchantId = (await newMerchant(app, 'tiers')).id;
  const make = (name: string, position: number, threshold: number, isDefault = false) =>
    app.db.tier.create({ data: { merchantId, name, position, threshold, window, qualification, isDefault } });
  const bronze = await make('Bronze', 1, 0, true);
  const silver = await make('Silver', 2, 500);
  const gold = await make('Gold', 3, 1000);
  return { merchantId, bronze, silver, gold };
}

const move = (merchantId: string, customerId: string, points: number) =>
  applyPoints(app.db, {
    merchantId,
    customerId,
    points,
    description: points > 0 ? 'Earned' : 'Spent',
    source: points > 0 ? 'earning_rule' : 'redemption',
    activityType: points > 0 ? 'purchase' : 'redemption',
  });

const tierChanges = (customerId: string) =>
  app.db.activity.findMany({ where: { customerId, type: 'tier_change' }, orderBy: { createdAt: 'asc' } });

describe('reevaluateTier', () => {
  it('places a new customer in the default tier', async () => {
    const { merchantId, bronze } = await program();
    const customer = await newCustomer(app, merchantId);
    expect(await reevaluateTier(app.db, merchantId, customer.id)).toEqual({ changed: true, from: null, to: bronze.id });
    const memberships = await app.db.tierMembership.findMany({ where: { customerId: customer.id } });
    expect(memberships).toHaveLength(1);
    expect(memberships[0]).toMatchObject({ tierId: bronze.id, status: 'active', source: 'earned', endedAt: null });
  });

  it('upgrades: sets the tier, ends the old membership, starts a new one, logs tier_change', async () => {
    const { merchantId, bronze, gold } = await program();
    const customer = await newCustomer(app, merchantId);
    await reevaluateTier(app.db, merchantId, customer.id);
    await move(merchantId, customer.id, 1200);
    const now = new Date();
    expect(await reevaluateTier(app.db, merchantId, customer.id, now)).toEqual({
      changed: true,
      from: bronze.id,
      to: gold.id,
    });

    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).tierId).toBe(gold.id);
    const memberships = await app.db.tierMembership.findMany({
      where: { customerId: customer.id },
      orderBy: { startedAt: 'asc' },
    });
    expect(memberships.map((m) => [m.tierId, m.status])).toEqual([
      [bronze.id, 'ended'],
      [gold.id, 'active'],
    ]);
    expect(memberships[0]!.endedAt).toEqual(now);
    expect(memberships[1]).toMatchObject({ source: 'earned', startedAt: now, expiresAt: null, endedAt: null });

    const changes = await tierChanges(customer.id);
    expect(changes.at(-1)).toMatchObject({
      description: 'Moved from Bronze to Gold',
      pointsChange: 0,
      balanceAfter: 1200,
      status: 'approved',
      occurredAt: now,
    });
  });

  it('does not drop the tier when points are spent', async () => {
    const { merchantId, silver } = await program();
    const customer = await newCustomer(app, merchantId);
    await move(merchantId, customer.id, 600);
    expect((await reevaluateTier(app.db, merchantId, customer.id)).to).toBe(silver.id);
    await move(merchantId, customer.id, -550);
    expect(await reevaluateTier(app.db, merchantId, customer.id)).toEqual({
      changed: false,
      from: silver.id,
      to: silver.id,
    });
    const row = await app.db.customer.findFirstOrThrow({ where: { id: customer.id } });
    expect(row).toMatchObject({ tierId: silver.id, pointsBalance: 50 });
  });

  it('changes nothing when run twice', async () => {
    const { merchantId, gold } = await program();
    const customer = await newCustomer(app, merchantId, { points: 1500 });
    expect((await reevaluateTier(app.db, merchantId, customer.id)).changed).toBe(true);
    expect(await reevaluateTier(app.db, merchantId, customer.id)).toEqual({ changed: false, from: gold.id, to: gold.id });
    expect(await app.db.tierMembership.count({ where: { customerId: customer.id } })).toBe(1);
    expect(await tierChanges(customer.id)).toHaveLength(1);
  });

  it('writes one change when evaluations race', async () => {
    const { merchantId, gold } = await program();
    const customer = await newCustomer(app, merchantId, { points: 1500 });
    const results = await Promise.all(Array.from({ length: 8 }, () => reevaluateTier(app.db, merchantId, customer.id)));
    expect(results.filter((r) => r.changed)).toEqual([{ changed: true, from: null, to: gold.id }]);
    expect(await app.db.tierMembership.count({ where: { customerId: customer.id } })).toBe(1);
    expect(await tierChanges(customer.id)).toHaveLength(1);
  });

  it('imported credits count as earned (the opening balance is earned history)', async () => {
    const { merchantId, silver } = await program();
    const customer = await newCustomer(app, merchantId, { points: 700 });
    expect((await reevaluateTier(app.db, merchantId, customer.id)).to).toBe(silver.id);
  });

  it('calendar_year ignores last year’s credits and expires at the end of the year', async () => {
    const { merchantId, bronze, silver } = await program('calendar_year');
    const customer = await newCustomer(app, merchantId);
    const now = new Date('2026-06-15T12:00:00.000Z');
    const old = await move(merchantId, customer.id, 900);
    await app.db.pointsTransaction.updateMany({
      where: { id: old.transactionId },
      data: { createdAt: new Date('2025-12-31T23:59:59.000Z'), placedAt: new Date('2025-12-31T23:59:59.000Z') },
    });
    expect((await reevaluateTier(app.db, merchantId, customer.id, now)).to).toBe(bronze.id);

    const fresh = await move(merchantId, customer.id, 600);
    await app.db.pointsTransaction.updateMany({
      where: { id: fresh.transactionId },
      data: { createdAt: new Date('2026-01-01T00:00:00.000Z'), placedAt: new Date('2026-01-01T00:00:00.000Z') },
    });
    expect(await reevaluateTier(app.db, merchantId, customer.id, now)).toMatchObject({ changed: true, to: silver.id });
    const active = await app.db.tierMembership.findFirstOrThrow({ where: { customerId: customer.id, status: 'active' } });
    expect(active.expiresAt).toEqual(new Date('2027-01-01T00:00:00.000Z'));
  });

  it('rolling_12_months counts only the last twelve months', async () => {
    const { merchantId, bronze, silver } = await program('rolling_12_months');
    const customer = await newCustomer(app, merchantId);
    const now = new Date('2026-06-15T12:00:00.000Z');
    const tx = await move(merchantId, customer.id, 600);
    await app.db.pointsTransaction.updateMany({
      where: { id: tx.transactionId },
      data: { createdAt: new Date('2025-06-15T11:59:59.000Z'), placedAt: new Date('2025-06-15T11:59:59.000Z') },
    });
    expect((await reevaluateTier(app.db, merchantId, customer.id, now)).to).toBe(bronze.id);
    await app.db.pointsTransaction.updateMany({
      where: { id: tx.transactionId },
      data: { createdAt: new Date('2025-06-15T12:00:01.000Z'), placedAt: new Date('2025-06-15T12:00:01.000Z') },
    });
    expect((await reevaluateTier(app.db, merchantId, customer.id, now)).to).toBe(silver.id);
    const active = await app.db.tierMembership.findFirstOrThrow({ where: { customerId: customer.id, status: 'active' } });
    expect(active.expiresAt).toBeNull();
  });

  it('amount_spent qualifies on unrefunded order subtotals, not on points', async () => {
    const { merchantId, bronze, silver, gold } = await program('lifetime', 'amount_spent');
    const customer = await newCustomer(app, merchantId, { points: 5000 });
    expect((await reevaluateTier(app.db, merchantId, customer.id)).to).toBe(bronze.id);
    const order = (subtotal: number, refunded = false) =>
      app.db.order.create({
        data: {
          merchantId,
          customerId: customer.id,
          platformOrderId: randomUUID(),
          subtotal,
          currency: 'USD',
          placedAt: new Date(),
          refundedAt: refunded ? new Date() : null,
        },
      });
    await order(300.5);
    await order(199.5);
    await order(800, true);
    expect(await reevaluateTier(app.db, merchantId, customer.id)).toEqual({ changed: true, from: bronze.id, to: silver.id });
    await order(500);
    expect((await reevaluateTier(app.db, merchantId, customer.id)).to).toBe(gold.id);
  });

  it('judges each tier on its own qualification and window', async () => {
    const merchantId = (await newMerchant(app, 'mixed')).id;
    const base = await app.db.tier.create({ data: { merchantId, name: 'Member', position: 1, threshold: 0 } });
    const spender = await app.db.tier.create({
      data: { merchantId, name: 'Spender', position: 2, threshold: 100, qualification: 'amount_spent' },
    });
    await app.db.tier.create({ data: { merchantId, name: 'Star', position: 3, threshold: 10_000 } });
    const customer = await newCustomer(app, merchantId, { points: 50 });
    await app.db.order.create({
      data: { merchantId, customerId: customer.id, platformOrderId: 'o-1', subtotal: 150, currency: 'USD', placedAt: new Date() },
    });
    expect((await reevaluateTier(app.db, merchantId, customer.id)).to).toBe(spender.id);
    expect(base.isDefault).toBe(false);
  });

  it('leaves a customer alone when the merchant has no tiers, and ignores other merchants', async () => {
    const { merchantId } = await program();
    const other = (await newMerchant(app, 'other')).id;
    const customer = await newCustomer(app, other, { points: 2000 });
    expect(await reevaluateTier(app.db, other, customer.id)).toEqual({ changed: false, from: null, to: null });
    expect(await reevaluateTier(app.db, merchantId, customer.id)).toEqual({ changed: false, from: null, to: null });
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).tierId).toBeNull();
  });
});
