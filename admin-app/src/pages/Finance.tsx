// Finance: the points the shop owes and what they are worth (docs/finance.md says what each figure
// counts). The roll-forward over a range of the shop's local dates, cut into days, weeks, months
// or quarters (a chart of the points outstanding with the movements, and its table); the points
// that lapse in the next 30, 60 and 90 days; the valuation in money, with the form that sets a
// point's value and the expected redemption rate; the monthly cohorts the rate is estimated from;
// and each customer's points at one instant, paged.
import { type FormEvent, type ReactNode, useState } from 'react';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useMutation, useQuery } from 'urql';
import { messages } from '../../../src/domain/shared/messages';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../api';
import { formatDate, formatDateTime, formatMoney, formatNumber, formatPercent, formatPeriod, shopToday } from '../format';
import { graphql, type ResultOf } from '../graphql';
import { useSession } from '../session';
import { Alert, DataTable, FormFooter, PageTitle, SelectField, TextField } from '../ui';
import { Stat } from './Dashboard';
import { mergeErrors, numberErrors, toNumber } from './program/kit';

const PeriodFields = graphql(`
  fragment PeriodFields on LiabilityPeriod @_unmask {
    label start end opening closing reversed redeemed expired manual_debits
    issued { orders engagement referrals manual import total }
  }
`);

const LiabilityQuery = graphql(
  `
  query Liability($from: Date!, $to: Date!, $grouping: LiabilityGrouping) {
    points_liability(from: $from, to: $to, grouping: $grouping) {
      from to grouping timezone
      pending { customers points }
      held_referrals { referrals points }
      periods { ...PeriodFields }
      total { ...PeriodFields }
    }
  }
`,
  [PeriodFields],
);

const ValuationFields = graphql(`
  fragment ValuationFields on PointsValuation @_unmask {
    at currency points_outstanding point_value point_value_source redemption_rate redemption_rate_source
    liability_value allocated_revenue revenue_recognized redemption_revenue breakage_revenue deferred_revenue
    points_from_sales points_redeemed_from_sales
  }
`);

const FinanceQuery = graphql(
  `
  query Finance {
    points_expiry_schedule { expiry_days windows { days until points customers } }
    points_valuation { ...ValuationFields }
    points_vintages { at timezone estimated_redemption_rate estimate_cohorts cohorts { cohort issued redeemed expired corrected outstanding } }
  }
`,
  [ValuationFields],
);

const SetValuation = graphql(
  `
  mutation SetPointsValuation($point_value: Float, $redemption_rate: Float) {
    set_points_valuation(point_value: $point_value, redemption_rate: $redemption_rate) { ...ValuationFields }
  }
`,
  [ValuationFields],
);

type Liability = ResultOf<typeof LiabilityQuery>['points_liability'];
type Period = Liability['periods'][number];
type Grouping = 'day' | 'week' | 'month' | 'quarter';
type Valuation = ResultOf<typeof FinanceQuery>['points_valuation'];

const groupings: { value: Grouping; label: string }[] = [
  { value: 'day', label: 'Day' },
  { value: 'week', label: 'Week (from Monday)' },
  { value: 'month', label: 'Month' },
  { value: 'quarter', label: 'Quarter' },
];

const COLORS = {
  issued: '#5b3cc4',
  redeemed: '#0b7a53',
  expired: '#b3261e',
  corrections: '#8a5a00',
  closing: '#1c1b22',
  opening: '#1d5fa8',
};

/** The first day of the month eleven months before `today` (YYYY-MM-DD): twelve months with this one. */
function yearBefore(today: string) {
  const [y, m] = today.split('-').map(Number) as [number, number];
  const month = y * 12 + (m - 1) - 11;
  return `${Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-01`;
}

type Range = { from: string; to: string; grouping: Grouping };

function RangePicker({
  initial,
  onPick,
  serverErrors,
  timezone,
}: {
  initial: Range;
  onPick: (r: Range) => void;
  serverErrors: FieldErrors;
  timezone: string;
}) {
  const [range, setRange] = useState(initial);
  const [local, setLocal] = useState<FieldErrors>({});
  const errors = mergeErrors(local, serverErrors);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems: FieldErrors = {};
    if (!range.from) problems.from = [messages.required];
    if (!range.to) problems.to = [messages.required];
    else if (range.from && range.to < range.from) problems.to = [messages.onOrAfter('From')];
    setLocal(problems);
    if (!Object.keys(problems).length) onPick(range);
  };
  return (
    <form className="range-picker" onSubmit={submit} noValidate aria-label="Range of the roll-forward">
      <TextField
        label="From"
        type="date"
        value={range.from}
        onChange={(e) => setRange({ ...range, from: e.target.value })}
        errors={errors.from}
      />
      <TextField label="To" type="date" value={range.to} onChange={(e) => setRange({ ...range, to: e.target.value })} errors={errors.to} />
      <SelectField
        label="Per"
        value={range.grouping}
        onChange={(e) => setRange({ ...range, grouping: e.target.value as Grouping })}
        options={groupings}
      />
      <div className="actions">
        <button type="submit" className="primary">
          Show
        </button>
      </div>
      <p className="hint">Dates in the shop’s time zone, {timezone}; both included.</p>
    </form>
  );
}

const corrections = (p: Period) => p.reversed + p.manual_debits;

function RollForwardChart({ l }: { l: Liability }) {
  const bucket = l.grouping === 'quarter' ? 'month' : l.grouping;
  const rows = l.periods.map((p) => ({
    label:
      l.grouping === 'quarter'
        ? `Q${Math.floor((Number(p.label.slice(5, 7)) - 1) / 3) + 1} ${p.label.slice(0, 4)}`
        : formatPeriod(p.start, bucket),
    opening: p.opening,
    closing: p.closing,
    issued: p.issued.total,
    redeemed: -p.redeemed,
    expired: -p.expired,
    corrections: -corrections(p),
  }));
  return (
    <figure className="card chart">
      <figcaption>
        <h2>Points outstanding</h2>
        <span className="hint">
          Per {l.grouping}: the lines are the points owed at each period’s start and end; the bars what moved them
        </span>
      </figcaption>
      <div
        className="chart-box"
        role="img"
        aria-label={`Chart of the points outstanding per ${l.grouping}, from ${formatNumber(l.total.opening)} to ${formatNumber(l.total.closing)}, with the points issued, redeemed, expired and corrected; the figures are in the table below`}
      >
        <ResponsiveContainer width="100%" height={300}>
          <ComposedChart data={rows} stackOffset="sign" margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#d9d9e3" vertical={false} />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} minTickGap={12} />
            <YAxis tick={{ fontSize: 12 }} tickFormatter={(n: number) => formatNumber(n)} width={72} />
            <Tooltip formatter={(n) => formatNumber(Math.abs(Number(n)))} />
            <Legend />
            <Bar dataKey="issued" name="Issued" stackId="moves" fill={COLORS.issued} isAnimationActive={false} />
            <Bar dataKey="redeemed" name="Redeemed" stackId="moves" fill={COLORS.redeemed} isAnimationActive={false} />
            <Bar dataKey="expired" name="Expired" stackId="moves" fill={COLORS.expired} isAnimationActive={false} />
            <Bar
              dataKey="corrections"
              name="Reversed and debited by hand"
              stackId="moves"
              fill={COLORS.corrections}
              isAnimationActive={false}
            />
            <Line dataKey="opening" name="Opening" stroke={COLORS.opening} strokeDasharray="5 4" dot={false} isAnimationActive={false} />
            <Line dataKey="closing" name="Closing" stroke={COLORS.closing} strokeWidth={2} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

const pts = (n: number) => formatNumber(n);

function PeriodsTable({ l }: { l: Liability }) {
  const rows = [...l.periods, { ...l.total, label: 'Whole range' }];
  return (
    <section aria-labelledby="periods">
      <h2 id="periods">Roll-forward</h2>
      <p className="hint">
        In points. Closing = opening + issued − reversed − redeemed − expired − manual debits; each period’s closing is the next one’s
        opening.
      </p>
      <DataTable
        caption="Points outstanding per period"
        wide
        rows={rows}
        rowKey={(p) => p.label}
        empty="No period."
        rowClass={(p) => (p.label === 'Whole range' ? 'total-row' : undefined)}
        columns={[
          {
            header: 'Period',
            rowHeader: true,
            cell: (p) => (p.label === 'Whole range' ? p.label : formatDate(p.start)),
            className: () => 'nowrap',
          },
          { header: 'Opening', num: true, cell: (p) => pts(p.opening) },
          { header: 'Orders', num: true, cell: (p) => pts(p.issued.orders) },
          { header: 'Engagement', num: true, cell: (p) => pts(p.issued.engagement) },
          { header: 'Referrals', num: true, cell: (p) => pts(p.issued.referrals) },
          { header: 'Manual credits', num: true, cell: (p) => pts(p.issued.manual) },
          { header: 'Imported', num: true, cell: (p) => pts(p.issued.import) },
          { header: 'Issued', num: true, cell: (p) => pts(p.issued.total) },
          { header: 'Reversed', num: true, cell: (p) => pts(p.reversed) },
          { header: 'Redeemed', num: true, cell: (p) => pts(p.redeemed) },
          { header: 'Expired', num: true, cell: (p) => pts(p.expired) },
          { header: 'Manual debits', num: true, cell: (p) => pts(p.manual_debits) },
          { header: 'Closing', num: true, cell: (p) => pts(p.closing) },
        ]}
      />
    </section>
  );
}

function RollForward({ timezone }: { timezone: string }) {
  const today = shopToday();
  const initial: Range = { from: yearBefore(today), to: today, grouping: 'month' };
  const [range, setRange] = useState(initial);
  const [{ data, error, fetching }] = useQuery({ query: LiabilityQuery, variables: range });
  const fieldErrors = fieldErrorsOf(error);
  const l = data?.points_liability;
  return (
    <>
      <RangePicker initial={initial} onPick={setRange} serverErrors={fieldErrors} timezone={timezone} />
      {!Object.keys(fieldErrors).length && <Alert>{messageOf(error)}</Alert>}
      {fetching && !l && <p>Loading…</p>}
      {l && (
        <>
          <dl className="stats">
            <Stat label="Opening" value={pts(l.total.opening)} hint={`owed at the start of ${formatDate(l.periods[0]?.start)}`} />
            <Stat label="Issued" value={pts(l.total.issued.total)} hint="earned, given or imported" />
            <Stat label="Redeemed" value={pts(l.total.redeemed)} hint="spent on rewards" />
            <Stat label="Expired" value={pts(l.total.expired)} />
            <Stat label="Reversed and debited by hand" value={pts(corrections(l.total))} />
            <Stat label="Closing" value={pts(l.total.closing)} hint={`owed at the end of ${formatDate(l.to)}`} />
            <Stat
              label="Pending"
              value={pts(l.pending.points)}
              hint={`not owed yet: ${formatNumber(l.pending.customers)} customer(s)’ orders in their return window, now`}
            />
            <Stat
              label="Held referrals"
              value={pts(l.held_referrals.points)}
              hint={`not issued until approved: ${formatNumber(l.held_referrals.referrals)} referral(s) under review, now`}
            />
          </dl>
          <RollForwardChart l={l} />
          <PeriodsTable l={l} />
        </>
      )}
    </>
  );
}

const BalancesQuery = graphql(`
  query LiabilityBalances($at: DateTime!, $after: ID) {
    points_liability_balances(at: $at, after: $after, per_page: 10) { at data { id customer_id points } next_after }
  }
`);

/** Each customer's points at one instant, ten a page: every page is read at the same instant, so the pages sum to the closing then. */
function CustomerBalances() {
  const [at] = useState(() => new Date().toISOString());
  // the cursor each page read was asked with: the last is the page shown, the one before it the previous page
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors.at(-1) ?? null;
  const [{ data, error, fetching }] = useQuery({ query: BalancesQuery, variables: { at, after } });
  // urql keeps the previous page's data while the next one loads: shown under the new page's
  // number it would be the wrong page, and its Next would ask for the same page again
  const page = fetching ? undefined : data?.points_liability_balances;
  const onPage = page ? page.data.reduce((sum, b) => sum + b.points, 0) : null;
  return (
    <section className="card" aria-labelledby="balances">
      <h2 id="balances">Points owed per customer</h2>
      <p className="hint">
        As of {formatDateTime(at)}: every customer with points, page {formatNumber(cursors.length)}. The pages together sum to the points
        outstanding then; an erased customer’s points stay owed.
      </p>
      <Alert>{messageOf(error)}</Alert>
      <DataTable
        bare
        caption="Points owed per customer"
        rows={page?.data}
        rowKey={(b) => b.id}
        empty={fetching ? 'Loading…' : 'No customer holds points.'}
        columns={[
          { header: 'Customer', rowHeader: true, cell: (b) => b.customer_id ?? 'Erased customer' },
          { header: 'Points', num: true, cell: (b) => pts(b.points) },
        ]}
      />
      {onPage !== null && <p>On this page: {pts(onPage)} points.</p>}
      <nav className="pager" aria-label="Points owed per customer pages">
        <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <button type="button" disabled={!page?.next_after} onClick={() => page?.next_after && setCursors([...cursors, page.next_after])}>
          Next
        </button>
      </nav>
    </section>
  );
}

function ExpirySchedule({ s }: { s: ResultOf<typeof FinanceQuery>['points_expiry_schedule'] }) {
  return (
    <section className="card" aria-labelledby="expiry">
      <h2 id="expiry">Points expiring</h2>
      {s.expiry_days === null ? (
        <p>Points never expire in this shop (Settings).</p>
      ) : (
        <>
          <p className="hint">
            Points lapse after {formatNumber(s.expiry_days)} days without activity. These lapse by each date unless their customers are
            active again; each window includes the shorter ones.
          </p>
          <DataTable
            bare
            caption="Points expiring"
            rows={s.windows}
            rowKey={(w) => String(w.days)}
            empty="Nothing expires."
            columns={[
              { header: 'Within', rowHeader: true, cell: (w) => `${formatNumber(w.days)} days` },
              { header: 'By', cell: (w) => formatDate(w.until) },
              { header: 'Points', num: true, cell: (w) => pts(w.points) },
              { header: 'Customers', num: true, cell: (w) => formatNumber(w.customers) },
            ]}
          />
        </>
      )}
    </section>
  );
}

const sourceText: Record<string, string> = {
  set: 'set by you',
  derived: 'derived from the rewards redeemed',
  estimated: 'estimated from your cohorts',
};

function ValuationFacts({ v }: { v: Valuation }) {
  const money = (n: number | null | undefined) => (n === null || n === undefined ? 'Not known yet' : formatMoney(n, v.currency));
  const facts: [string, ReactNode, string][] = [
    ['Points outstanding', pts(v.points_outstanding), 'Every customer’s balance now.'],
    [
      'Value of a point',
      v.point_value === null || v.point_value === undefined
        ? 'Not known yet'
        : `${formatMoney(v.point_value, v.currency)} (${sourceText[v.point_value_source ?? ''] ?? ''})`,
      'What honouring one point costs you.',
    ],
    [
      'Expected redemption rate',
      v.redemption_rate === null || v.redemption_rate === undefined
        ? 'Not known yet'
        : `${formatPercent(v.redemption_rate)} (${sourceText[v.redemption_rate_source ?? ''] ?? ''})`,
      'The share of points you expect customers to spend; the rest is breakage.',
    ],
    ['Liability', money(v.liability_value), 'Points outstanding × value × redemption rate: what honouring them is expected to cost.'],
    [
      'Revenue allocated to points',
      money(v.allocated_revenue),
      'The part of each order’s revenue set aside for the points it earned (relative stand-alone selling price).',
    ],
    ['Revenue recognized', money(v.revenue_recognized), 'Released as points are redeemed, breakage included in proportion.'],
    ['  of which redemptions', money(v.redemption_revenue), 'For the points spent on rewards.'],
    ['  of which breakage', money(v.breakage_revenue), 'For the points expected never to be spent.'],
    ['Deferred revenue', money(v.deferred_revenue), 'Allocated − recognized: the contract liability on your balance sheet.'],
  ];
  return (
    <dl className="valuation">
      {facts.map(([label, value, hint]) => (
        <div key={label}>
          <dt>{label.trim()}</dt>
          <dd>
            <strong>{value}</strong>
            <span className="hint">{hint}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function ValuationForm({ v, onSaved }: { v: Valuation; onSaved: () => void }) {
  const [value, setValue] = useState(v.point_value_source === 'set' && v.point_value != null ? String(v.point_value) : '');
  const [rate, setRate] = useState(
    v.redemption_rate_source === 'set' && v.redemption_rate != null ? String(Math.round(v.redemption_rate * 10000) / 100) : '',
  );
  const [local, setLocal] = useState<FieldErrors>({});
  const [result, save] = useMutation(SetValuation);
  const errors = mergeErrors(local, fieldErrorsOf(result.error));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems = numberErrors({ point_value: { text: value }, redemption_rate: { text: rate } });
    const r = toNumber(rate);
    if (!problems.redemption_rate && r !== null && r <= 0) problems.redemption_rate = [messages.above(0)];
    if (!problems.redemption_rate && r !== null && r > 100) problems.redemption_rate = [messages.atMost(100)];
    const p = toNumber(value);
    if (!problems.point_value && p !== null && p <= 0) problems.point_value = [messages.above(0)];
    setLocal(problems);
    if (Object.keys(problems).length) return;
    // empty hands the figure back to the service (null); the rate is entered in percent, sent as a share
    const res = await save({ point_value: p, redemption_rate: r === null ? null : r / 100 });
    if (res.data) onSaved();
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="set-valuation">
      <h3 id="set-valuation">Set the valuation</h3>
      <p className="hint">
        In effect from now on: earlier periods keep the valuation they had, so a changed estimate is caught up in the period of the change.
      </p>
      <TextField
        label={`Value of a point (${v.currency})`}
        hint="What one point costs you when it is spent, e.g. 0.01 when 100 points buy a 1.00 discount. Leave empty to derive it from the rewards redeemed (discounts and store credit given per point spent)."
        inputMode="decimal"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        errors={errors.point_value}
      />
      <TextField
        label="Expected redemption rate (%)"
        hint="Of every 100 points issued, how many you expect customers to spend: more than 0, at most 100. Leave empty to estimate it from your cohorts below; set it while the program is young (under a year of expiries)."
        inputMode="decimal"
        value={rate}
        onChange={(e) => setRate(e.target.value)}
        errors={errors.redemption_rate}
      />
      <FormFooter
        errors={errors}
        shown={['point_value', 'redemption_rate']}
        error={result.error}
        busy={result.fetching}
        submit="Save valuation"
      />
    </form>
  );
}

function Vintages({ v }: { v: ResultOf<typeof FinanceQuery>['points_vintages'] }) {
  const used = new Set(v.estimate_cohorts);
  return (
    <section aria-labelledby="vintages">
      <h2 id="vintages">Cohorts</h2>
      <p className="hint">
        The points issued each month ({v.timezone}) and what became of them; the oldest points are spent first. Estimated redemption rate:{' '}
        <strong>
          {v.estimated_redemption_rate === null || v.estimated_redemption_rate === undefined
            ? 'not known yet'
            : formatPercent(v.estimated_redemption_rate)}
        </strong>
        {v.estimate_cohorts.length > 0 &&
          ` (redeemed ÷ redeemed and expired, over the ${v.estimate_cohorts.length} cohort(s) marked “used”)`}
        .
      </p>
      <DataTable
        caption="Cohorts of points by month issued"
        rows={v.cohorts}
        rowKey={(c) => c.cohort}
        empty="No point issued yet."
        columns={[
          { header: 'Issued in', rowHeader: true, cell: (c) => formatPeriod(`${c.cohort}-15T12:00:00Z`, 'month') },
          { header: 'Issued', num: true, cell: (c) => pts(c.issued) },
          { header: 'Redeemed', num: true, cell: (c) => pts(c.redeemed) },
          { header: 'Expired', num: true, cell: (c) => pts(c.expired) },
          { header: 'Corrected', num: true, cell: (c) => pts(c.corrected) },
          { header: 'Outstanding', num: true, cell: (c) => pts(c.outstanding) },
          {
            header: 'Redeemed of ended',
            num: true,
            cell: (c) => (c.redeemed + c.expired > 0 ? formatPercent(c.redeemed / (c.redeemed + c.expired)) : '—'),
          },
          { header: 'In the estimate', cell: (c) => (used.has(c.cohort) ? 'Used' : '—') },
        ]}
      />
    </section>
  );
}

export function Finance() {
  const { state } = useSession();
  const timezone = state.kind === 'signed-in' ? state.session.merchant.timezone : 'UTC';
  const [{ data, error }, refetch] = useQuery({ query: FinanceQuery });
  const [saved, setSaved] = useState(false);
  return (
    <>
      <PageTitle>Finance</PageTitle>
      <p className="lead">
        Points your customers hold are a debt of the shop’s. Here is how it moved, what lapses soon, and what it is worth, for your
        accounts.
      </p>
      <RollForward timezone={timezone} />
      <Alert>{messageOf(error)}</Alert>
      {data && (
        <>
          <div className="grid two-cols">
            <section className="card" aria-labelledby="valuation">
              <h2 id="valuation">In money</h2>
              <p className="hint">
                As of {formatDateTime(data.points_valuation.at)}, in {data.points_valuation.currency}.
              </p>
              <ValuationFacts v={data.points_valuation} />
              <Alert tone="success">{saved ? 'Valuation saved: the figures above use it from now on.' : null}</Alert>
              <ValuationForm
                key={`${data.points_valuation.point_value}-${data.points_valuation.redemption_rate}`}
                v={data.points_valuation}
                onSaved={() => {
                  setSaved(true);
                  refetch({ requestPolicy: 'network-only' });
                }}
              />
            </section>
            <ExpirySchedule s={data.points_expiry_schedule} />
          </div>
          <Vintages v={data.points_vintages} />
          <CustomerBalances />
        </>
      )}
    </>
  );
}
