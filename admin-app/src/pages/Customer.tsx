// One customer: profile, balance, tier progress, a manual credit or debit with its reason (sent
// with an Idempotency-Key: a double click or a retry moves points once), the activity log and
// the points transactions, each paged.
import { type FormEvent, useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { messages } from '../../../src/domain/shared/messages';
import { codeOf, fieldErrorsOf, idempotent, messageOf } from '../api';
import { formatDateTime, formatNumber, humanize } from '../format';
import { graphql } from '../graphql';
import { Link } from '../router';
import { Alert, DataTable, Pager, PageTitle, TextAreaField, TextField } from '../ui';
import { CustomerPrivacy } from './CustomerPrivacy';

const CustomerQuery = graphql(`
  query Customer($id: ID!) {
    customer(id: $id) {
      id customer_id email first_name last_name status referral_code birthday created_at last_activity_at
      points_balance points_earned points_spent amount_spent tier { id name }
    }
    customer_tier(id: $id) {
      current_tier { name } next_tier { name }
      progress { metric value next_threshold remaining } window tier_expires_at
    }
  }
`);

const ActivitiesQuery = graphql(`
  query CustomerActivities($id: ID!, $page: Int) {
    customer_activities(id: $id, page: $page, per_page: 10) {
      data { id type description points_change balance_after status occurred_at }
      meta { pagination { current_page last_page total } }
    }
  }
`);

const TransactionsQuery = graphql(`
  query CustomerTransactions($id: ID!, $page: Int) {
    customer_transactions(id: $id, page: $page, per_page: 10) {
      data { transaction_id points type description source balance_after placed_at created_at }
      meta { pagination { current_page last_page total } }
    }
  }
`);

const AdjustPoints = graphql(`
  mutation AdjustPoints($id: ID!, $points: Int!, $description: String!) {
    adjust_points(id: $id, points: $points, description: $description) {
      transaction_id balance_after customer { id points_balance points_earned points_spent }
    }
  }
`);

/** +25 / -10: a change of points. */
const signed = (n: number) => (n > 0 ? `+${formatNumber(n)}` : formatNumber(n));

/** A random Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `adj-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function AdjustForm({ id, onDone }: { id: string; onDone: () => void }) {
  const [direction, setDirection] = useState<'credit' | 'debit'>('credit');
  const [points, setPoints] = useState('');
  const [reason, setReason] = useState('');
  const [local, setLocal] = useState<Record<string, string[]>>({});
  const [done, setDone] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [result, adjust] = useMutation(AdjustPoints);
  // one key per intended adjustment: the same form sent twice (double click, retry) is one
  // adjustment; a change to the form, or a success, makes the next one another
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form's values are what makes a new key, not inputs to it
  const key = useMemo(() => newIdempotencyKey(), [direction, points, reason, round]);
  const serverErrors = fieldErrorsOf(result.error);
  const errors = { ...serverErrors, ...local };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const n = Number(points);
    const problems: Record<string, string[]> = {};
    // the direction is chosen apart: the number is how many points, from 1
    if (!points.trim()) problems.points = [messages.required];
    else if (Number.isNaN(n)) problems.points = [messages.number];
    else if (!Number.isInteger(n)) problems.points = [messages.wholeNumber];
    else if (n < 1) problems.points = [messages.atLeast(1)];
    if (!reason.trim()) problems.description = [messages.required];
    setLocal(problems);
    setDone(null);
    if (Object.keys(problems).length) return;
    const res = await adjust({ id, points: direction === 'credit' ? n : -n, description: reason.trim() }, idempotent(key));
    if (res.data) {
      const balance = res.data.adjust_points.balance_after;
      setDone(`${direction === 'credit' ? 'Credited' : 'Debited'} ${formatNumber(n)} points. New balance: ${formatNumber(balance)}.`);
      setPoints('');
      setReason('');
      setRound((r) => r + 1);
      onDone();
    }
  };

  const failure = messageOf(result.error);
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="adjust-title">
      <h2 id="adjust-title">Adjust points</h2>
      <fieldset className="field inline-radios">
        <legend>Direction</legend>
        <label className="inline">
          <input type="radio" name="direction" checked={direction === 'credit'} onChange={() => setDirection('credit')} /> Credit (add)
        </label>
        <label className="inline">
          <input type="radio" name="direction" checked={direction === 'debit'} onChange={() => setDirection('debit')} /> Debit (remove)
        </label>
      </fieldset>
      <TextField label="Points" inputMode="numeric" value={points} onChange={(e) => setPoints(e.target.value)} errors={errors.points} />
      <TextAreaField
        label="Reason"
        rows={2}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        errors={errors.description}
        hint="Shown in the customer's activity log."
      />
      {!Object.keys(serverErrors).length && <Alert>{failure}</Alert>}
      <Alert tone="success">{done}</Alert>
      <div className="actions">
        <button type="submit" className="primary" disabled={result.fetching}>
          {result.fetching ? 'Saving…' : direction === 'credit' ? 'Credit points' : 'Debit points'}
        </button>
      </div>
    </form>
  );
}

export function Customer({ id }: { id: string }) {
  const [activityPage, setActivityPage] = useState(1);
  const [transactionPage, setTransactionPage] = useState(1);
  const [profile, refetchProfile] = useQuery({ query: CustomerQuery, variables: { id } });
  const [activities, refetchActivities] = useQuery({ query: ActivitiesQuery, variables: { id, page: activityPage } });
  const [transactions, refetchTransactions] = useQuery({ query: TransactionsQuery, variables: { id, page: transactionPage } });
  const c = profile.data?.customer;
  const tier = profile.data?.customer_tier;

  const refresh = () => {
    for (const refetch of [refetchProfile, refetchActivities, refetchTransactions]) refetch({ requestPolicy: 'network-only' });
  };

  if (profile.error) {
    return (
      <>
        <PageTitle>Customer</PageTitle>
        <Alert>{codeOf(profile.error) === 'not_found' ? 'No such customer.' : messageOf(profile.error)}</Alert>
        <Link to="/customers">Back to customers</Link>
      </>
    );
  }
  if (!c || !tier) return <p>Loading…</p>;
  const name = [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email;
  const progressMax = tier.progress.next_threshold ?? 0;

  return (
    <>
      <p className="breadcrumb">
        <Link to="/customers">Customers</Link> › {c.customer_id}
      </p>
      <PageTitle>{name}</PageTitle>
      <div className="grid">
        <section className="card" aria-labelledby="profile-title">
          <h2 id="profile-title">Profile</h2>
          <dl className="facts">
            <dt>Customer id</dt>
            <dd className="mono">{c.customer_id}</dd>
            <dt>Email</dt>
            <dd>{c.email}</dd>
            <dt>Status</dt>
            <dd>{humanize(c.status)}</dd>
            <dt>Referral code</dt>
            <dd className="mono">{c.referral_code}</dd>
            <dt>Member since</dt>
            <dd>{formatDateTime(c.created_at)}</dd>
            <dt>Last activity</dt>
            <dd>{formatDateTime(c.last_activity_at)}</dd>
          </dl>
        </section>
        <section className="card" aria-labelledby="balance-title">
          <h2 id="balance-title">Balance</h2>
          <p className="big-number" aria-describedby="balance-title">
            {formatNumber(c.points_balance)} <span className="unit">points</span>
          </p>
          <dl className="facts">
            <dt>Earned</dt>
            <dd>{formatNumber(c.points_earned)}</dd>
            <dt>Spent</dt>
            <dd>{formatNumber(c.points_spent)}</dd>
          </dl>
          <h3>Tier</h3>
          <p>
            <strong>{tier.current_tier?.name ?? 'No tier'}</strong>
            {tier.next_tier && ` → next: ${tier.next_tier.name}`}
          </p>
          {tier.next_tier && progressMax > 0 ? (
            <>
              <label htmlFor="tier-progress" className="hint">
                {formatNumber(tier.progress.value)} of {formatNumber(progressMax)} {humanize(tier.progress.metric).toLowerCase()} (
                {humanize(tier.window).toLowerCase()}); {formatNumber(tier.progress.remaining ?? 0)} to go
              </label>
              <progress id="tier-progress" max={progressMax} value={Math.min(tier.progress.value, progressMax)} />
            </>
          ) : (
            <p className="hint">{tier.current_tier ? 'The highest tier.' : 'The program has no tiers.'}</p>
          )}
        </section>
        <AdjustForm id={c.id} onDone={refresh} />
        <CustomerPrivacy id={c.id} platformId={c.customer_id} name={name} balance={c.points_balance} />
      </div>

      <section aria-labelledby="activity-title">
        <h2 id="activity-title">Activity</h2>
        <Alert>{messageOf(activities.error)}</Alert>
        <DataTable
          rows={activities.data?.customer_activities.data}
          rowKey={(a) => a.id}
          empty="No activity yet."
          columns={[
            { header: 'When', cell: (a) => formatDateTime(a.occurred_at) },
            { header: 'Type', cell: (a) => humanize(a.type) },
            { header: 'Description', rowHeader: true, cell: (a) => a.description },
            {
              header: 'Points',
              num: true,
              cell: (a) => signed(a.points_change),
              className: (a) => (a.points_change < 0 ? 'negative' : undefined),
            },
            { header: 'Balance after', num: true, cell: (a) => (a.balance_after === null ? '—' : formatNumber(a.balance_after)) },
            { header: 'Status', cell: (a) => humanize(a.status) },
          ]}
        />
        <Pager label="Activity" page={activities.data?.customer_activities.meta.pagination} onPage={setActivityPage} />
      </section>

      <section aria-labelledby="transactions-title">
        <h2 id="transactions-title">Transactions</h2>
        <Alert>{messageOf(transactions.error)}</Alert>
        <DataTable
          rows={transactions.data?.customer_transactions.data}
          rowKey={(t) => t.transaction_id}
          empty="No transactions yet."
          columns={[
            {
              header: 'When',
              // an order recorded late shows when it was placed too
              cell: (t) =>
                t.placed_at === t.created_at
                  ? formatDateTime(t.created_at)
                  : `${formatDateTime(t.created_at)} (placed ${formatDateTime(t.placed_at)})`,
            },
            { header: 'Source', cell: (t) => humanize(t.source) },
            { header: 'Description', rowHeader: true, cell: (t) => t.description },
            { header: 'Points', num: true, cell: (t) => signed(t.points), className: (t) => (t.points < 0 ? 'negative' : undefined) },
            { header: 'Balance after', num: true, cell: (t) => formatNumber(t.balance_after) },
          ]}
        />
        <Pager label="Transactions" page={transactions.data?.customer_transactions.meta.pagination} onPage={setTransactionPage} />
      </section>
    </>
  );
}
