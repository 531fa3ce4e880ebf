// Admin API calls for tests that drive the engine as a merchant's integration does
// (/admin/graphql): `ok` for an operation that must succeed, `fails` for one that must not.
import { expect } from 'vitest';
import { adminClient, type TestApp } from './harness.js';

export function adminOps(app: TestApp, token: string) {
  const admin = adminClient(app, token);
  return {
    /** Runs an admin operation that must succeed and returns its data. */
    async ok(query: string, variables?: Record<string, unknown>) {
      const res = await admin(query, variables);
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      expect(res.status).toBe(200);
      return res.body.data;
    },
    /** Runs an admin operation that must fail and returns its first error's extensions. */
    async fails(query: string, variables?: Record<string, unknown>) {
      const res = await admin(query, variables);
      expect(res.body.errors?.length, JSON.stringify(res.body)).toBeGreaterThan(0);
      return res.body.errors![0].extensions as { code: string; details?: Record<string, string[]> };
    },
  };
}

export const RECORD_ORDER = `mutation ($input: OrderEventInput!) {
  record_order(input: $input) { order_id customer_id points_awarded points_pending transaction_id replayed } }`;
export const REFUND_ORDER = `mutation ($input: RefundEventInput!) {
  refund_order(input: $input) {
    order_id refunded_amount points_to_claw_back points_clawed_back points_voided shortfall
    referrer_points_clawed_back transaction_id fully_refunded replayed } }`;
export const RECORD_REFERRAL = `mutation ($input: ReferralEventInput!) {
  record_referral(input: $input) { id status referrer_points } }`;
