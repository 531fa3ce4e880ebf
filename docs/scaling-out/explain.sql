-- The hot statements under EXPLAIN on the cluster, after draft-distribute.sql, on the seeded
-- merchant acme (docs/scaling-out.md, "What EXPLAIN shows"). Statements marked "as the service
-- sends it" are copied from the code of today; Citus refuses some of them (the error is the
-- finding). psql -f docs/scaling-out/explain.sql "$(scripts/citus.sh url)"
\set VERBOSITY terse
SELECT quote_literal(id) AS m FROM merchants WHERE slug = 'acme' \gset
SELECT quote_literal(hash) AS key_hash FROM api_keys WHERE merchant_id = :m LIMIT 1 \gset
SELECT quote_literal(id) AS customer FROM customers WHERE merchant_id = :m AND platform_id = 'demo-1001' \gset
\echo '=== the ledger statement as ledger.ts sends it (by platform id, a credit of 5)'
-- exactly as src/domain/ledger/ledger.ts sends it (by platform id, a credit)
PREPARE ledger(uuid, text, int, int, int, uuid, bigint, int, bigint, int, bigint, int, uuid, uuid, int, text, text, text, text, text,
               uuid, uuid, text, text, int, text, text, text) AS
    WITH customer AS (SELECT c.id FROM customers c WHERE c.merchant_id = $1::uuid AND c.platform_id = $2 AND c.erased_at IS NULL),  updated AS (
      UPDATE customers
         SET points_balance = points_balance + $3::int,
             points_earned  = points_earned + $4::int,
             points_spent   = points_spent + $5::int,
             last_activity_at = now(),
             updated_at = now()
       WHERE id = (SELECT id FROM customer)
         AND merchant_id = $6::uuid
         AND points_balance + $7::bigint BETWEEN 0 AND $8
         AND points_earned + $9::bigint <= $10
         AND points_spent + $11::bigint <= $12
      RETURNING id AS customer_id, points_balance
    ), tx AS (
      INSERT INTO points_transactions
        (id, merchant_id, customer_id, points, type, description, source, balance_after, reference_kind, reference_id)
      SELECT $13::uuid, $14::uuid, updated.customer_id, $15::int,
             $16::"TransactionType", $17, $18::"TransactionSource",
             points_balance, $19, $20
        FROM updated
      RETURNING balance_after
    ), act AS (
    INSERT INTO activities
      (id, merchant_id, customer_id, type, description, points_change, balance_after, status,
       reference_kind, reference_id, occurred_at, created_at)
    SELECT $21::uuid, $22::uuid, (updated.customer_id)::uuid, $23::text,
           $24::text, $25::int, (points_balance)::int,
           $26::"ActivityStatus", $27::text, $28::text,
           (now())::timestamptz, (now())::timestamptz
    FROM updated
      RETURNING id
    )
    SELECT customer.id::text AS customer_id, tx.balance_after, act.id::text AS activity_id
      FROM customer LEFT JOIN (tx CROSS JOIN act) ON true;
EXPLAIN (COSTS OFF) EXECUTE ledger(:m, 'demo-1001', 5, 5, 0, :m, 5, 2147483647, 5, 2147483647, 0, 2147483647,
  gen_random_uuid(), :m, 5, 'credit', 'explain', 'manual', NULL, NULL,
  gen_random_uuid(), :m, 'adjustment', 'explain', 5, 'approved', 'transaction', 'x');
\echo '=== the same change through the distributed function (constant or bound arguments: delegated)'
EXPLAIN (COSTS OFF) SELECT loyalty_apply_points(:m, NULL, 'demo-1001', 5, 2147483647, 'a0000000-0000-4000-8000-000000000001', 'credit', 'explain', 'manual', NULL, NULL, 'a0000000-0000-4000-8000-000000000002', 'adjustment', 'transaction', 'x');
\echo '=== inside a transaction block (force_delegation => true: still delegated)'
BEGIN;
EXPLAIN (COSTS OFF) SELECT loyalty_apply_points(:m, NULL, 'demo-1001', 5, 2147483647, 'a0000000-0000-4000-8000-000000000001', 'credit', 'explain', 'manual', NULL, NULL, 'a0000000-0000-4000-8000-000000000002', 'adjustment', 'transaction', 'x');
ROLLBACK;
\echo '=== a fan-out turned into an error, for a test run (citus.multi_task_query_log_level)'
SET citus.multi_task_query_log_level = 'error';
SELECT count(*) FROM customers WHERE referral_code = 'NOPE';
SELECT count(*) FROM customers WHERE merchant_id = :m;
RESET citus.multi_task_query_log_level;
\echo '=== API key by hash (api_keys: reference table)'
EXPLAIN (COSTS OFF) SELECT id, merchant_id AS "merchantId", scopes, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE hash = :key_hash;
\echo '=== the same lookup if the key table were distributed: every shard'
EXPLAIN (COSTS OFF) SELECT id FROM customers WHERE referral_code = 'NOPE';
\echo '=== admin token by hash (merchants: reference table)'
EXPLAIN (COSTS OFF) SELECT id FROM merchants WHERE admin_token_hash = 'x';
\echo '=== customer by platform id (findCustomer)'
EXPLAIN (COSTS OFF) SELECT c.id, c.points_balance FROM customers c WHERE c.merchant_id = :m AND c.platform_id = 'demo-1001' AND c.erased_at IS NULL;
\echo '=== customers list as the service sends it (its total read from merchant_stats)'
EXPLAIN (COSTS OFF) SELECT t._total, p.* FROM (SELECT (SELECT customer_count FROM merchant_stats WHERE merchant_id = :m) AS _total) t
  LEFT JOIN LATERAL (
    SELECT c.id, c.platform_id, CASE WHEN t.id IS NULL THEN NULL ELSE json_build_object('id', t.id, 'name', t.name) END AS tier,
           row_number() OVER (ORDER BY c.created_at DESC, c.id DESC) AS _n
      FROM customers c LEFT JOIN tiers t ON t.id = c.tier_id WHERE c.merchant_id = :m AND c.erased_at IS NULL
     ORDER BY c.created_at DESC, c.id DESC OFFSET 0 LIMIT 20
  ) p ON true ORDER BY p._n;
\echo '=== customers list, rewritten: the tier joined on (merchant_id, id), the total from merchant_stats'
EXPLAIN (COSTS OFF) SELECT t._total, p.* FROM (SELECT (SELECT customer_count FROM merchant_stats WHERE merchant_id = :m) AS _total) t
  LEFT JOIN LATERAL (
    SELECT c.id, c.platform_id, CASE WHEN t.id IS NULL THEN NULL ELSE json_build_object('id', t.id, 'name', t.name) END AS tier,
           row_number() OVER (ORDER BY c.created_at DESC, c.id DESC) AS _n
      FROM customers c LEFT JOIN tiers t ON t.merchant_id = c.merchant_id AND t.id = c.tier_id WHERE c.merchant_id = :m AND c.erased_at IS NULL
     ORDER BY c.created_at DESC, c.id DESC OFFSET 0 LIMIT 20
  ) p ON true ORDER BY p._n;
\echo '=== balance (balances.ts) as the service sends it'
EXPLAIN (COSTS OFF) SELECT m.points_expiry_days, m.timezone,
       (SELECT coalesce(json_object_agg(p.customer_id, p.points), '{}')
          FROM (SELECT customer_id, sum(points_change)::int AS points FROM activities
                 WHERE merchant_id = m.id AND customer_id = ANY(ARRAY[:customer]::uuid[]) AND status = 'pending'
                 GROUP BY customer_id) p) AS pending
  FROM merchants m WHERE m.id = :m;
\echo '=== balance, rewritten: the merchant and the pending sums as two uncorrelated subqueries'
EXPLAIN (COSTS OFF) SELECT (SELECT row_to_json(x) FROM (SELECT points_expiry_days, timezone FROM merchants WHERE id = :m) x) AS merchant,
       (SELECT coalesce(json_object_agg(p.customer_id, p.points), '{}')
          FROM (SELECT customer_id, sum(points_change)::int AS points FROM activities
                 WHERE merchant_id = :m AND customer_id = ANY(ARRAY[:customer]::uuid[]) AND status = 'pending'
                 GROUP BY customer_id) p) AS pending;
\echo '=== dispatcher pass as deliveries.ts sends it (ON CONFLICT target given merchant_id)'
BEGIN;
EXPLAIN (COSTS OFF) WITH ev AS (
         SELECT id, merchant_id, type FROM events
          WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT 200 FOR UPDATE SKIP LOCKED
       ), fan AS (
         INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, updated_at)
         SELECT gen_random_uuid(), ev.merchant_id, e.id, ev.id, now()
           FROM ev JOIN webhook_endpoints e
             ON e.merchant_id = ev.merchant_id AND e.enabled
            AND (cardinality(e.event_types) = 0 OR ev.type = ANY(e.event_types))
         ON CONFLICT (merchant_id, endpoint_id, event_id) DO NOTHING
         RETURNING id
       ), done AS (
         UPDATE events SET dispatched_at = now() WHERE id IN (SELECT id FROM ev) RETURNING id
       )
       SELECT (SELECT count(*) FROM done)::int AS events;
ROLLBACK;
\echo '=== its first part alone: the oldest undispatched events of every merchant, locked'
EXPLAIN (COSTS OFF) SELECT id, merchant_id, type FROM events WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT 200 FOR UPDATE SKIP LOCKED;
\echo '=== proposed: which merchants have undispatched events (no lock; every shard, from the partial index)'
EXPLAIN (COSTS OFF) SELECT merchant_id, min(created_at) AS oldest FROM events WHERE dispatched_at IS NULL GROUP BY merchant_id ORDER BY oldest LIMIT 50;
\echo '=== proposed: then one merchant at a time, the same pass with merchant_id named everywhere'
EXPLAIN (COSTS OFF) WITH ev AS (
         SELECT id, merchant_id, type FROM events
          WHERE merchant_id = :m AND dispatched_at IS NULL ORDER BY created_at, id LIMIT 200 FOR UPDATE SKIP LOCKED
       ), fan AS (
         INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, updated_at)
         SELECT gen_random_uuid(), ev.merchant_id, e.id, ev.id, now()
           FROM ev JOIN webhook_endpoints e
             ON e.merchant_id = ev.merchant_id AND e.enabled
            AND (cardinality(e.event_types) = 0 OR ev.type = ANY(e.event_types))
          WHERE e.merchant_id = :m
         ON CONFLICT (merchant_id, endpoint_id, event_id) DO NOTHING
         RETURNING id
       ), done AS (
         UPDATE events SET dispatched_at = now() WHERE merchant_id = :m AND id IN (SELECT id FROM ev) RETURNING id
       )
       SELECT (SELECT count(*) FROM done)::int AS events;
\echo '=== deliveries waiting for a job, as deliveries.ts reads them'
EXPLAIN (COSTS OFF) SELECT id FROM webhook_deliveries WHERE status = 'pending' AND job_id IS NULL ORDER BY created_at LIMIT 800 FOR UPDATE SKIP LOCKED;
\echo '=== the same for one merchant'
EXPLAIN (COSTS OFF) SELECT id FROM webhook_deliveries WHERE merchant_id = :m AND status = 'pending' AND job_id IS NULL ORDER BY created_at LIMIT 800 FOR UPDATE SKIP LOCKED;
