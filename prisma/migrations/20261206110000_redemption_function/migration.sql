-- A redemption as one delegated function, like the ledger's change (docs/scaling-out.md, "The
-- ledger as a distributed function"). As one statement of data-modifying CTEs it ran on a Citus
-- coordinator as four distributed subplans, two of them INSERT … SELECT pulled through the
-- coordinator: ~250 ms a redemption there. loyalty_redeem runs on the worker that holds the
-- merchant: the active reward, the customer locked (an excluded one redeems nothing), the debit
-- through loyalty_apply_points (its balance check, counters, transaction, activity, bucket and
-- points.debited event: one rule for every debit), then the issued code (its row trigger writes
-- reward.redeemed). No row when the reward is not active, the customer excluded or short of
-- points; a code that collides raises unique_violation and undoes the debit with it.

-- when a code issued at `at` for a reward of rule `rule` expires: its expires_after_days, if any
CREATE FUNCTION loyalty_code_expiry(rule jsonb, at timestamptz) RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(rule -> 'expires_after_days') = 'number'
              THEN at + make_interval(days => floor((rule ->> 'expires_after_days')::numeric)::int)
         END
$$;

CREATE FUNCTION loyalty_redeem(
  p_merchant uuid, p_customer uuid, p_reward uuid, p_code text, p_max int,
  p_customer_reward_id uuid, p_transaction_id uuid, p_activity_id uuid,
  OUT id uuid, OUT code text, OUT status text, OUT points_spent int, OUT issued_at timestamptz,
  OUT expires_at timestamptz, OUT used_at timestamptz, OUT balance_after int,
  OUT reward_id uuid, OUT reward_name text, OUT reward_type text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_name text;
  v_type "RewardType";
  v_cost int;
  v_rule jsonb;
  v_status "CustomerStatus";
  v_reference text := p_customer_reward_id::text;
  v_description text;
  v_balance int;
  v_expires timestamptz;
BEGIN
  SELECT r.name, r.reward_type, r.points_cost, r.reward_rule INTO v_name, v_type, v_cost, v_rule
    FROM rewards r WHERE r.merchant_id = p_merchant AND r.id = p_reward AND r.is_active;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT c.status INTO v_status FROM customers c WHERE c.merchant_id = p_merchant AND c.id = p_customer FOR UPDATE;
  IF NOT FOUND OR v_status = 'excluded' THEN
    RETURN;
  END IF;
  v_description := 'Redeemed: ' || v_name;
  SELECT l.balance_after INTO v_balance
    FROM loyalty_apply_points(p_merchant, p_customer, NULL, -v_cost, p_max, p_transaction_id, 'debit', v_description,
                              'redemption', 'customer_reward', v_reference, p_activity_id, 'redemption',
                              'customer_reward', v_reference) l;
  IF v_balance IS NULL THEN
    RETURN;
  END IF;
  v_expires := loyalty_code_expiry(v_rule, v_now);
  INSERT INTO customer_rewards (id, merchant_id, customer_id, reward_id, code, status, points_spent, issued_at, expires_at)
  VALUES (p_customer_reward_id, p_merchant, p_customer, p_reward, p_code, 'issued', v_cost, v_now, v_expires)
  -- the times as stored (to the millisecond)
  RETURNING issued_at, expires_at INTO issued_at, expires_at;
  id := p_customer_reward_id;
  code := p_code;
  status := 'issued';
  points_spent := v_cost;
  balance_after := v_balance;
  reward_id := p_reward;
  reward_name := v_name;
  reward_type := v_type::text;
END $$;
