// The dashboard: points issued, redeemed and expired over time, members per tier, the
// redemption rate, active members, redemptions and the top rewards, over a preset or custom
// range, each figure beside the previous period's. Each chart has a caption and its figures as
// a table (for screen readers, and for whoever wants the numbers).
import { type FormEvent, type ReactNode, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useQuery } from 'urql';
import { messages } from '../../../src/domain/shared/messages';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../api';
import { formatChange, formatDate, formatNumber, formatPercent, formatPeriod } from '../format';
import { graphql, type ResultOf } from '../graphql';
import { Alert, DataTable, PageTitle, SelectField, TextField } from '../ui';

const DashboardQuery = graphql(`
  query Dashboard($range: DashboardRange, $from_date: Date, $to_date: Date) {
    dashboard(range: $range, from_date: $from_date, to_date: $to_date) {
      range bucket from to
      points_issued points_redeemed points_expired redemption_rate members active_members redemptions
      series { period_start issued redeemed expired }
      previous {
        from to points_issued points_redeemed points_expired redemption_rate active_members redemptions
        series { period_start issued }
      }
      members_per_tier { tier_id tier_name customers }
      top_rewards { reward_id name redemptions points_spent }
    }
  }
`);

type Range = 'last_7_days' | 'last_30_days' | 'last_90_days' | 'last_12_months' | 'custom';
const ranges: { value: Range; label: string }[] = [
  { value: 'last_7_days', label: 'Last 7 days' },
  { value: 'last_30_days', label: 'Last 30 days' },
  { value: 'last_90_days', label: 'Last 90 days (by week)' },
  { value: 'last_12_months', label: 'Last 12 months (by month)' },
  { value: 'custom', label: 'Custom dates…' },
];

const COLORS = { issued: '#5b3cc4', redeemed: '#0b7a53', expired: '#b3261e', members: '#1d5fa8', previous: '#9a8fc9' };

/** One figure of a row of figures (`dl.stats`): its label, value, a hint, and the previous period's. */
export function Stat({
  label,
  value,
  hint,
  previous,
}: {
  label: string;
  value: string;
  hint?: string;
  previous?: { value: string; change: string };
}) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd>
        <span className="stat-value">{value}</span>
        {hint && <span className="hint">{hint}</span>}
        {previous && (
          <span className="stat-previous">
            Previous period: {previous.value} ({previous.change})
          </span>
        )}
      </dd>
    </div>
  );
}

type Data = ResultOf<typeof DashboardQuery>['dashboard'];

/** A chart with its title, and a description for those who do not see it. */
export function ChartCard({
  title,
  note,
  label,
  children,
  after,
}: {
  title: string;
  note?: string;
  label: string;
  children: ReactNode;
  after?: ReactNode;
}) {
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
  // the previous period's bucket at the same place (its nth day, week or month)
  const rows = d.series.map((p, i) => ({
    ...p,
    label: formatPeriod(p.period_start, d.bucket),
    previous: d.previous.series[i]?.issued ?? null,
  }));
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
          { header: 'Issued, previous period', num: true, cell: (r) => (r.previous === null ? '—' : formatNumber(r.previous)) },
        ]}
      />
    </details>
  );
  return (
    <ChartCard
      title="Points over time"
      note={`Per ${d.bucket}, in the shop's time zone`}
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

/** Every figure of the range beside the previous period's. */
function figuresOf(d: Data) {
  const p = d.previous;
  return [
    { figure: 'Points issued', current: d.points_issued, previous: p.points_issued, format: formatNumber },
    { figure: 'Points redeemed', current: d.points_redeemed, previous: p.points_redeemed, format: formatNumber },
    { figure: 'Points expired', current: d.points_expired, previous: p.points_expired, format: formatNumber },
    { figure: 'Active members', current: d.active_members, previous: p.active_members, format: formatNumber },
    { figure: 'Redemptions', current: d.redemptions, previous: p.redemptions, format: formatNumber },
    { figure: 'Redemption rate', current: d.redemption_rate, previous: p.redemption_rate, format: formatPercent },
  ];
}

function ComparisonChart({ d }: { d: Data }) {
  const rows = figuresOf(d);
  // the chart's rows hold figures only: recharts passes every key of a row on to its SVG elements
  const counts = rows.filter((r) => r.figure !== 'Redemption rate').map(({ figure, current, previous }) => ({ figure, current, previous }));
  const table = (
    <DataTable
      bare
      rows={rows}
      rowKey={(r) => r.figure}
      empty="No figure."
      columns={[
        { header: 'Figure', rowHeader: true, cell: (r) => r.figure },
        { header: 'This period', num: true, cell: (r) => r.format(r.current) },
        { header: 'Previous period', num: true, cell: (r) => r.format(r.previous) },
        { header: 'Change', num: true, cell: (r) => formatChange(r.current, r.previous) },
      ]}
    />
  );
  return (
    <ChartCard
      title="Compared with the previous period"
      note={`${formatDate(d.previous.from)} – ${formatDate(d.previous.to)}`}
      label={`Bar chart of each figure in this period and the previous one; the figures are in the table below: ${rows
        .map((r) => `${r.figure}: ${r.format(r.current)} against ${r.format(r.previous)}`)
        .join(', ')}`}
      after={table}
    >
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={counts} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#d9d9e3" vertical={false} />
          <XAxis dataKey="figure" tick={{ fontSize: 12 }} />
          <YAxis tick={{ fontSize: 12 }} tickFormatter={(n: number) => formatNumber(n)} width={64} />
          <Tooltip formatter={(n) => formatNumber(Number(n))} />
          <Legend />
          <Bar dataKey="current" name="This period" fill={COLORS.issued} isAnimationActive={false} />
          <Bar dataKey="previous" name="Previous period" fill={COLORS.previous} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

type Picked = { range: Range; from_date: string | null; to_date: string | null };

/** The range: a preset, or custom dates (checked here, then by the API). */
function RangePicker({ onPick, serverErrors }: { onPick: (v: Picked) => void; serverErrors: FieldErrors }) {
  const [range, setRange] = useState<Range>('last_30_days');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [local, setLocal] = useState<FieldErrors>({});
  const errors = { ...serverErrors, ...local };
  const choose = (value: Range) => {
    setRange(value);
    setLocal({});
    if (value !== 'custom') onPick({ range: value, from_date: null, to_date: null });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems: FieldErrors = {};
    if (!from) problems.from_date = [messages.required];
    if (!to) problems.to_date = [messages.required];
    else if (from && to < from) problems.to_date = [messages.after('From')];
    setLocal(problems);
    if (!Object.keys(problems).length) onPick({ range: 'custom', from_date: from, to_date: to });
  };
  return (
    <form className="range-picker" onSubmit={submit} noValidate>
      <SelectField label="Range" value={range} onChange={(e) => choose(e.target.value as Range)} options={ranges} />
      {range === 'custom' && (
        <>
          <TextField label="From" type="date" value={from} onChange={(e) => setFrom(e.target.value)} errors={errors.from_date} />
          <TextField label="To" type="date" value={to} onChange={(e) => setTo(e.target.value)} errors={errors.to_date} />
          <div className="actions">
            <button type="submit" className="primary">
              Show
            </button>
          </div>
        </>
      )}
    </form>
  );
}

export function Dashboard() {
  const [picked, setPicked] = useState<Picked>({ range: 'last_30_days', from_date: null, to_date: null });
  const [{ data, error, fetching }] = useQuery({ query: DashboardQuery, variables: picked });
  const d = data?.dashboard;
  const fieldErrors = fieldErrorsOf(error);
  return (
    <>
      <div className="section-head">
        <PageTitle>Dashboard</PageTitle>
        <RangePicker onPick={setPicked} serverErrors={fieldErrors} />
      </div>
      {!Object.keys(fieldErrors).length && <Alert>{messageOf(error)}</Alert>}
      {fetching && !d && <p>Loading…</p>}
      {d && (
        <>
          <p className="hint">
            {formatDate(d.from)} – {formatDate(d.to)}, compared with {formatDate(d.previous.from)} – {formatDate(d.previous.to)}
          </p>
          <dl className="stats">
            {figuresOf(d).map((f) => (
              <Stat
                key={f.figure}
                label={f.figure}
                value={f.format(f.current)}
                hint={f.figure === 'Redemption rate' ? 'redeemed ÷ issued' : undefined}
                previous={{ value: f.format(f.previous), change: formatChange(f.current, f.previous) }}
              />
            ))}
            <Stat label="Customers" value={formatNumber(d.members)} hint="in the program" />
          </dl>
          <PointsChart d={d} />
          <ComparisonChart d={d} />
          <div className="grid two-cols">
            <TiersChart d={d} />
            <TopRewards d={d} />
          </div>
        </>
      )}
    </>
  );
}
