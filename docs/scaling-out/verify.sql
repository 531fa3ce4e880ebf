-- checks run by hand on the cluster after the draft (seeded merchants acme and globex)
SELECT quote_literal(id) AS m FROM merchants WHERE slug = 'acme' \gset
SELECT quote_literal(id) AS g FROM merchants WHERE slug = 'globex' \gset
\set VERBOSITY terse
\echo '1. customer counts carried into merchant_stats'
SELECT customer_count FROM merchant_stats WHERE merchant_id = :m;
\echo '2. a customer inserted by SQL: counted, customer.created in the outbox'
INSERT INTO customers (id, merchant_id, platform_id, email, referral_code, updated_at)
VALUES ('c0000000-0000-4000-8000-000000000001', :m, 'sql-1', 'sql-1@example.com', 'SQLONE', now());
SELECT customer_count FROM merchant_stats WHERE merchant_id = :m;
SELECT type, payload->>'customer_id' AS customer FROM events WHERE merchant_id = :m AND type = 'customer.created' AND payload->>'customer_id' = 'sql-1';
\echo '3. a credit through the ledger function: balance, counters, points.credited'
SELECT loyalty_apply_points(:m, NULL, 'sql-1', 100, 2147483647, 'c0000000-0000-4000-8000-000000000002', 'credit', 'welcome', 'manual', NULL, NULL, 'c0000000-0000-4000-8000-000000000003', 'adjustment', 'transaction', 'c0000000-0000-4000-8000-000000000002');
SELECT points_balance, transaction_count, activity_count FROM customers WHERE merchant_id = :m AND platform_id = 'sql-1';
SELECT type, payload->>'balance_after' AS balance_after, payload->'customer'->>'customer_id' AS customer FROM events WHERE merchant_id = :m AND type = 'points.credited' AND payload->>'transaction_id' = 'c0000000-0000-4000-8000-000000000002';
\echo '4. a debit past the balance: refused, nothing written'
SELECT loyalty_apply_points(:m, NULL, 'sql-1', -101, 2147483647, 'c0000000-0000-4000-8000-000000000004', 'debit', 'too much', 'manual', NULL, NULL, 'c0000000-0000-4000-8000-000000000005', 'adjustment', 'transaction', 'x');
SELECT points_balance, transaction_count FROM customers WHERE merchant_id = :m AND platform_id = 'sql-1';
\echo '5. the CHECK still guards the balance'
UPDATE customers SET points_balance = -1 WHERE merchant_id = :m AND platform_id = 'sql-1';
\echo '6. a transaction row naming a customer of another merchant: refused by the composite foreign key'
INSERT INTO points_transactions (id, merchant_id, customer_id, points, type, description, source, balance_after)
VALUES (gen_random_uuid(), :g, 'c0000000-0000-4000-8000-000000000001', 1, 'credit', 'x', 'manual', 1);
\echo '7. deleting a transaction row: the counter follows (the old_rows path)'
DELETE FROM points_transactions WHERE merchant_id = :m AND id = 'c0000000-0000-4000-8000-000000000002';
SELECT transaction_count FROM customers WHERE merchant_id = :m AND platform_id = 'sql-1';
\echo '8. a tier membership: tier.changed with the tier and the previous tier'
INSERT INTO tier_memberships (id, merchant_id, customer_id, tier_id, status, source)
SELECT gen_random_uuid(), :m, 'c0000000-0000-4000-8000-000000000001', id, 'ended', 'manual' FROM tiers WHERE merchant_id = :m AND position = 1;
UPDATE tier_memberships SET ended_at = now() WHERE merchant_id = :m AND customer_id = 'c0000000-0000-4000-8000-000000000001';
INSERT INTO tier_memberships (id, merchant_id, customer_id, tier_id, status, source)
SELECT gen_random_uuid(), :m, 'c0000000-0000-4000-8000-000000000001', id, 'active', 'manual' FROM tiers WHERE merchant_id = :m AND position = 2;
SELECT payload->'tier'->>'name' AS tier, payload->'previous_tier'->>'name' AS previous FROM events WHERE merchant_id = :m AND type = 'tier.changed' AND payload->'customer'->>'customer_id' = 'sql-1';
\echo '9. an event body cannot change; an erasure (SET LOCAL, propagated) can scrub it'
UPDATE events SET body = '{}' WHERE merchant_id = :m AND type = 'customer.created' AND payload->>'customer_id' = 'sql-1';
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL loyalty.erasure = 'on';
UPDATE events SET payload = payload - 'email' WHERE merchant_id = :m AND type = 'customer.created' AND payload->>'customer_id' = 'sql-1';
COMMIT;
\echo '10. key revocation announced on loyalty_auth (this session listens)'
LISTEN loyalty_auth;
UPDATE api_keys SET revoked_at = now() WHERE merchant_id = :m AND revoked_at IS NULL;
SELECT 1 AS after_revoke;
