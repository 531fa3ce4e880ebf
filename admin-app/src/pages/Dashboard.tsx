// The dashboard: points issued, redeemed and expired over time, members per tier, the
// redemption rate and the top rewards. Each chart has a caption and its figures as a table
// (for screen readers, and for whoever wants the numbers).
import { type ReactNode, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useQuery } from 'urql';
import { messageOf } from '../api';
import { formatNumber, formatPercent } from '../format';
import { type ResultOf, graphql } from '../graphql';
import { Alert, DataTable, PageTitle, SelectField } from '../ui';

const DashboardQuery = graphql(`
  query Dashboard($range: DashboardRange) {
    dashboard(range: $range) {
      range bucket from to
      points_issued points_redeemed points_expired redemption_rate members
      series { period_start issued redeemed expired }
      members_per_tier { tier_id tier_name customers }
      top_rewards { reward_id name redemptions points_spent }
    }
  }
`);

type Range = 'last_7_days' | 'last_30_days' | 'last_90_days' | 'last_12_months';
const ranges: { value: Range; label: string }[] = [
  { value: 'last_7_days', label: 'Last 7 days' },
  { value: 'last_30_days', label: 'Last 30 days' },
  { value: 'last_90_days', label: 'Last 90 days (by week)' },
  { value: 'last_12_months', label: 'Last 12 months (by month)' },
];

const COLORS = { issued: '#5b3cc4', redeemed: '#0b7a53', expired: '#b3261e', members: '#1d5fa8' };

function periodLabel(iso: string, bucket: string) {
  const d = new Date(iso);
  return bucket === 'month'
    ? d.toLocaleDateString(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' })
    : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd>
        <span className="stat-value">{value}</span>
        {hint && <span className="hint">{hint}</span>}
      </dd>
    </div>
  );
}

type Data = ResultOf<typeof DashboardQuery>['dashboard'];

/** A chart with its title, and a description for those who do not see it. */
function ChartCard({ title, note, label, children, after }: { title: string; note?: string; label: string; children: ReactNode; after?: ReactNode }) {
  return (
    <figure className="card chart">
      <figcaption>
        <h2>{title}</h2>
        {note && <span className="hint">{note}</span>}
      </figcaption>
      <div className="chart-box" role="img" aria-label={label}>
        {children}
      </div>
      {after}
    </figure>
  );
}

function PointsChart({ d }: { d: Data }) {
  const rows = d.series.map((p) => ({ ...p, label: periodLabel(p.period_start, d.bucket) }));
  const figures = (
    <details>
      <summary>Show the figures</summary>
      <DataTable
        bare
        rows={rows}
        rowKey={(r) => r.period_start}
        empty="No period."
        columns={[
          { header: 'Period', rowHeader: true, cell: (r) => r.label },
          { header: 'Issued', num: true, cell: (r) => formatNumber(r.issued) },
          { header: 'Redeemed', num: true, cell: (r) => formatNumber(r.redeemed) },
          { header: 'Expired', num: true, cell: (r) => formatNumber(r.expired) },
        ]}
      />
    </details>
  );
  return (
    <ChartCard
      title="Points over time"
      note={`Per ${d.bucket}, UTC`}
      label={`Bar chart of points issued, redeemed and expired per ${d.bucket}; the figures are in the table below`}
      after={figures}
    >
      <ResponsiveContainer width="100%" height={280}>
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 8 }} barGap={1}>
          <CartesianGrid strokeDasharray="3 3" stroke="#d9d9e3" vertical={false} />
          <XAxis dataKey="label" tick={{ fontSize: 12 }} minTickGap={16} />
          <YAxis tick={{ fontSize: 12 }} tickFormatter={(n: number) => formatNumber(n)} width={64} />
          <Tooltip formatter={(n) => formatNumber(Number(n))} />
          <Legend />
          <Bar dataKey="issued" name="Issued" fill={COLORS.issued} isAnimationActive={false} />
          <Bar dataKey="redeemed" name="Redeemed" fill={COLORS.redeemed} isAnimationActive={false} />
          <Bar dataKey="expired" name="Expired" fill={COLORS.expired} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

function TiersChart({ d }: { d: Data }) {
  const table = (
    <DataTable
      bare
      rows={d.members_per_tier}
      rowKey={(t) => t.tier_id ?? 'none'}
      empty="No customer yet."
      columns={[
        { header: 'Tier', rowHeader: true, cell: (t) => t.tier_name },
        { header: 'Customers', num: true, cell: (t) => formatNumber(t.customers) },
      ]}
    />
  );
  return (
    <ChartCard
      title="Members per tier"
      label={`Bar chart of customers per tier; the figures are in the table below: ${d.members_per_tier.map((t) => `${t.tier_name}: ${t.customers}`).join(', ')}`}
      after={table}
    >
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={d.members_per_tier} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#d9d9e3" />
          <XAxis dataKey="tier_name" tick={{ fontSize: 12 }} />
          <YAxis allowDecimals={false} tick={{ fontSize: 12 }} width={48} />
          <Tooltip formatter={(n) => formatNumber(Number(n))} />
          <Bar dataKey="customers" name="Customers" fill={COLORS.members} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

function TopRewards({ d }: { d: Data }) {
  if (d.top_rewards.length === 0) {
    return (
      <ChartCard title="Top rewards" note="Redeemed most in the range" label="No reward was redeemed in this range">
        <p>No reward was redeemed in this range.</p>
      </ChartCard>
    );
  }
  const table = (
    <DataTable
      bare
      rows={d.top_rewards}
      rowKey={(r) => r.reward_id}
      empty="No reward was redeemed in this range."
      columns={[
        { header: 'Reward', rowHeader: true, cell: (r) => r.name },
        { header: 'Redemptions', num: true, cell: (r) => formatNumber(r.redemptions) },
        { header: 'Points spent', num: true, cell: (r) => formatNumber(r.points_spent) },
      ]}
    />
  );
  return (
    <ChartCard
      title="Top rewards"
      note="Redeemed most in the range"
      label={d.top_rewards.map((r) => `${r.name}: ${r.redemptions} redemptions`).join(', ')}
      after={table}
    >
      <ResponsiveContainer width="100%" height={40 + d.top_rewards.length * 36}>
        <BarChart data={d.top_rewards} layout="vertical" margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 12 }} />
          <YAxis type="category" dataKey="name" width={140} tick={{ fontSize: 12 }} />
          <Tooltip formatter={(n) => formatNumber(Number(n))} />
          <Bar dataKey="redemptions" name="Redemptions" fill={COLORS.redeemed} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

export function Dashboard() {
  const [range, setRange] = useState<Range>('last_30_days');
  const [{ data, error, fetching }] = useQuery({ query: DashboardQuery, variables: { range } });
  const d = data?.dashboard;
  return (
    <>
      <div className="section-head">
        <PageTitle>Dashboard</PageTitle>
        <SelectField label="Range" value={range} onChange={(e) => setRange(e.target.value as Range)} options={ranges} />
      </div>
      <Alert>{messageOf(error)}</Alert>
      {fetching && !d && <p>Loading…</p>}
      {d && (
        <>
          <dl className="stats">
            <Stat label="Points issued" value={formatNumber(d.points_issued)} />
            <Stat label="Points redeemed" value={formatNumber(d.points_redeemed)} />
            <Stat label="Points expired" value={formatNumber(d.points_expired)} />
            <Stat label="Redemption rate" value={formatPercent(d.redemption_rate)} hint="redeemed ÷ issued" />
            <Stat label="Customers" value={formatNumber(d.members)} hint="in the program" />
          </dl>
          <PointsChart d={d} />
          <div className="grid two-cols">
            <TiersChart d={d} />
            <TopRewards d={d} />
          </div>
        </>
      )}
    </>
  );
}
