// Program → Try a change: a draft of the program (the earning rules, boosters and tiers as they
// stand, edited here) replayed over a period of the shop's local dates as a job, and what the
// period's orders would have earned under it beside what they did. The draft is sent in the admin
// API's own input shapes; only the sections changed are sent, so the others stay as they are.
import { type FormEvent, useEffect, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useMutation, useQuery } from 'urql';
import { fieldLabel, messages } from '../../../../src/domain/shared/messages';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../../api';
import { formatDateTime, formatMoney, formatNumber, formatPercent, humanize, nextDate, shopToday, startOfShopDay } from '../../format';
import { graphql, type ResultOf } from '../../graphql';
import { Alert, DataTable, Pager, TextField } from '../../ui';
import { ChartCard, Stat } from '../Dashboard';

const ProgramQuery = graphql(`
  query ProgramForReplay {
    earning_rules(per_page: 100) {
      data {
        id name description campaign_type is_active product_name product_image_url
        earning_rule { type value per_amount }
        conditions { min_order_subtotal max_points_per_order tier_ids product_ids excluded_product_ids limit { count period } starts_at ends_at }
      }
    }
    booster_campaigns(per_page: 100) { data { id name description campaign_types multiplier starts_at ends_at is_active } }
    tiers(per_page: 100) { data { id name description position threshold window qualification earn_multiplier is_default is_active benefits } }
    points_valuation { point_value currency }
  }
`);

const StartReplay = graphql(`
  mutation StartProgramReplay($from: Date!, $to: Date!, $draft: JSON!) { start_program_replay(from: $from, to: $to, draft: $draft, top: 10) { id state } }
`);

const CancelReplay = graphql(`
  mutation CancelProgramReplay($id: ID!) { cancel_program_replay(id: $id) { id state } }
`);

const JobQuery = graphql(`
  query ProgramReplayJob($id: ID!) {
    program_replay_job(id: $id) {
      id state progress orders_read read_up_to from to error { code message }
      report {
        orders mismatched_orders
        issued { actual replayed draft difference }
        liability { actual draft change }
        by_rule { id name replayed draft difference }
        by_tier { id name actual draft difference }
        tier_changes { customers moves { from_tier_id to_tier_id customers } }
        customers_most_affected { id customer_id actual draft difference tier_id draft_tier_id }
      }
    }
  }
`);

const JobsQuery = graphql(`
  query ProgramReplayJobs($page: Int) {
    program_replay_jobs(page: $page, per_page: 10) {
      data { id state progress from to created_at finished_at draft_sections { section items } }
      meta { pagination { current_page last_page total } }
    }
  }
`);

type Program = ResultOf<typeof ProgramQuery>;
type Report = NonNullable<ResultOf<typeof JobQuery>['program_replay_job']['report']>;
type Item = Record<string, unknown>;
type Section = 'earning_rules' | 'booster_campaigns' | 'tiers';

/** A record as the create mutation takes it: no nulls, no __typename, no timestamps. */
function asInput(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asInput);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => v !== null && v !== undefined && k !== '__typename')
      .map(([k, v]) => [k, asInput(v)]),
  );
}

/** The shop's date `days` before today. */
const daysAgo = (days: number) => new Date(Date.parse(`${shopToday()}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/** A number field of the draft: its text as typed, a number when sent. */
function NumberCell({
  label,
  value,
  onChange,
  invalid,
}: {
  label: string;
  value: unknown;
  onChange: (n: string) => void;
  invalid?: boolean;
}) {
  return (
    <input
      aria-label={label}
      aria-invalid={invalid || undefined}
      inputMode="decimal"
      size={6}
      value={String(value ?? '')}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** The draft's errors (keyed draft.<section>.<index>.<field>, by the app or the API) named by their record. */
function DraftErrors({ errors, draft }: { errors: FieldErrors; draft: Record<Section, Item[]> }) {
  const rest = Object.entries(errors).filter(([field]) => field !== 'from' && field !== 'to');
  if (!rest.length) return null;
  const name = (field: string) => {
    const m = /^draft\.(earning_rules|booster_campaigns|tiers)\.(\d+)\.(.+)$/.exec(field);
    const item = m && draft[m[1] as Section][Number(m[2])];
    return item ? `${String(item.name)}, ${fieldLabel(m[3]!)}` : fieldLabel(field);
  };
  return (
    <Alert>
      <ul className="plain">
        {rest.map(([field, list]) => (
          <li key={field}>
            {name(field)}: {list.join(' ')}
          </li>
        ))}
      </ul>
    </Alert>
  );
}

/** The draft's numbers as typed: each one must be a number before anything is sent. */
function numbersOf(draft: Record<Section, Item[]>): { draft: Record<Section, Item[]>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const num = (path: string, v: unknown) => {
    if (v === undefined || v === null || v === '') return v === '' ? undefined : v;
    const n = Number(v);
    if (Number.isNaN(n)) errors[path] = [messages.number];
    return n;
  };
  return {
    errors,
    draft: {
      earning_rules: draft.earning_rules.map((r, i) => {
        const rule = r.earning_rule as Item;
        return {
          ...r,
          earning_rule: {
            ...rule,
            value: num(`draft.earning_rules.${i}.earning_rule.value`, rule.value),
            per_amount: num(`draft.earning_rules.${i}.earning_rule.per_amount`, rule.per_amount),
          },
        };
      }),
      booster_campaigns: draft.booster_campaigns.map((b, i) => ({
        ...b,
        multiplier: num(`draft.booster_campaigns.${i}.multiplier`, b.multiplier),
      })),
      tiers: draft.tiers.map((t, i) => ({
        ...t,
        threshold: num(`draft.tiers.${i}.threshold`, t.threshold),
        earn_multiplier: num(`draft.tiers.${i}.earn_multiplier`, t.earn_multiplier),
      })),
    },
  };
}

function DraftEditor({ program, onStarted }: { program: Program; onStarted: (id: string) => void }) {
  const [from, setFrom] = useState(daysAgo(29));
  const [to, setTo] = useState(shopToday());
  const [draft, setDraft] = useState<Record<Section, Item[]>>(() => ({
    earning_rules: asInput(program.earning_rules.data) as Item[],
    booster_campaigns: asInput(program.booster_campaigns.data) as Item[],
    tiers: asInput(program.tiers.data) as Item[],
  }));
  const [changed, setChanged] = useState<Section[]>([]);
  const [local, setLocal] = useState<FieldErrors>({});
  const [started, start] = useMutation(StartReplay);
  const edit = (section: Section, index: number, change: (item: Item) => Item) => {
    setDraft((d) => ({ ...d, [section]: d[section].map((item, i) => (i === index ? change(item) : item)) }));
    setChanged((c) => (c.includes(section) ? c : [...c, section]));
  };
  const add = (section: Section, item: Item) => {
    setDraft((d) => ({ ...d, [section]: [...d[section], item] }));
    setChanged((c) => (c.includes(section) ? c : [...c, section]));
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = numbersOf(draft);
    const problems: FieldErrors = { ...checked.errors };
    if (!from) problems.from = [messages.required];
    if (!to) problems.to = [messages.required];
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const sent = Object.fromEntries(changed.map((s) => [s, checked.draft[s]]));
    const res = await start({ from, to, draft: sent });
    if (res.data) onStarted(res.data.start_program_replay.id);
  };
  const errors = { ...fieldErrorsOf(started.error), ...local };
  const rules = draft.earning_rules;
  return (
    <form onSubmit={submit} noValidate>
      <section className="card" aria-labelledby="period">
        <h2 id="period">Period</h2>
        <p className="hint">
          The orders placed on these days (in the shop’s time zone, both included) are judged again under the draft below.
        </p>
        <div className="toolbar-row">
          <TextField label="From" type="date" value={from} onChange={(e) => setFrom(e.target.value)} errors={errors.from} />
          <TextField label="To" type="date" value={to} onChange={(e) => setTo(e.target.value)} errors={errors.to} />
        </div>
      </section>
      <section aria-labelledby="draft-rules">
        <h2 id="draft-rules">Earning rules</h2>
        <DataTable
          caption="Earning rules of the draft"
          rows={rules.map((r, i) => ({ r, i }))}
          rowKey={({ i }) => String(i)}
          empty="No earning rule."
          columns={[
            {
              header: 'Name',
              rowHeader: true,
              cell: ({ r, i }) =>
                r.id ? (
                  String(r.name)
                ) : (
                  <input
                    aria-label={`Name of new rule ${i + 1}`}
                    value={String(r.name)}
                    onChange={(e) => edit('earning_rules', i, (x) => ({ ...x, name: e.target.value }))}
                  />
                ),
            },
            { header: 'Action', cell: ({ r }) => humanize(String(r.campaign_type)) },
            {
              header: 'Points',
              cell: ({ r, i }) => (
                <NumberCell
                  label={`Points of ${String(r.name)}`}
                  value={(r.earning_rule as Item | undefined)?.value}
                  invalid={!!errors[`draft.earning_rules.${i}.earning_rule.value`]}
                  onChange={(v) => edit('earning_rules', i, (x) => ({ ...x, earning_rule: { ...(x.earning_rule as Item), value: v } }))}
                />
              ),
            },
            {
              header: 'Per amount spent',
              cell: ({ r, i }) =>
                (r.earning_rule as Item | undefined)?.type === 'variable' ? (
                  <NumberCell
                    label={`Per amount of ${String(r.name)}`}
                    value={(r.earning_rule as Item).per_amount}
                    invalid={!!errors[`draft.earning_rules.${i}.earning_rule.per_amount`]}
                    onChange={(v) =>
                      edit('earning_rules', i, (x) => ({ ...x, earning_rule: { ...(x.earning_rule as Item), per_amount: v } }))
                    }
                  />
                ) : (
                  'Fixed'
                ),
            },
            {
              header: 'On',
              cell: ({ r, i }) => (
                <input
                  type="checkbox"
                  aria-label={`${String(r.name)} on`}
                  checked={r.is_active !== false}
                  onChange={(e) => edit('earning_rules', i, (x) => ({ ...x, is_active: e.target.checked }))}
                />
              ),
            },
          ]}
        />
        <button
          type="button"
          onClick={() =>
            add('earning_rules', {
              name: `New rule ${rules.length + 1}`,
              campaign_type: 'purchase',
              is_active: true,
              earning_rule: { type: 'variable', value: '1', per_amount: '1' },
            })
          }
        >
          Add an earning rule
        </button>
      </section>
      <section aria-labelledby="draft-boosters">
        <h2 id="draft-boosters">Boosters</h2>
        <DataTable
          caption="Boosters of the draft"
          rows={draft.booster_campaigns.map((b, i) => ({ b, i }))}
          rowKey={({ i }) => String(i)}
          empty="No booster."
          columns={[
            { header: 'Name', rowHeader: true, cell: ({ b }) => String(b.name) },
            {
              header: 'Runs',
              cell: ({ b }) => `${formatDateTime(b.starts_at as string)} – ${formatDateTime(b.ends_at as string | undefined)}`,
            },
            {
              header: 'Multiplier',
              cell: ({ b, i }) => (
                <NumberCell
                  label={`Multiplier of ${String(b.name)}`}
                  value={b.multiplier}
                  invalid={!!errors[`draft.booster_campaigns.${i}.multiplier`]}
                  onChange={(v) => edit('booster_campaigns', i, (x) => ({ ...x, multiplier: v }))}
                />
              ),
            },
            {
              header: 'On',
              cell: ({ b, i }) => (
                <input
                  type="checkbox"
                  aria-label={`${String(b.name)} on`}
                  checked={b.is_active !== false}
                  onChange={(e) => edit('booster_campaigns', i, (x) => ({ ...x, is_active: e.target.checked }))}
                />
              ),
            },
          ]}
        />
        <button
          type="button"
          onClick={() =>
            add('booster_campaigns', {
              name: `Double points ${draft.booster_campaigns.length + 1}`,
              campaign_types: ['purchase'],
              multiplier: '2',
              is_active: true,
              // the API takes instants: the period's first moment to the next day's, in the shop's time zone
              starts_at: startOfShopDay(from),
              ends_at: startOfShopDay(nextDate(to)),
            })
          }
        >
          Add a booster over the period
        </button>
      </section>
      <section aria-labelledby="draft-tiers">
        <h2 id="draft-tiers">VIP tiers</h2>
        <DataTable
          caption="Tiers of the draft"
          rows={draft.tiers.map((t, i) => ({ t, i }))}
          rowKey={({ i }) => String(i)}
          empty="No tier."
          columns={[
            { header: 'Name', rowHeader: true, cell: ({ t }) => String(t.name) },
            {
              header: 'Threshold',
              cell: ({ t, i }) => (
                <NumberCell
                  label={`Threshold of ${String(t.name)}`}
                  value={t.threshold}
                  invalid={!!errors[`draft.tiers.${i}.threshold`]}
                  onChange={(v) => edit('tiers', i, (x) => ({ ...x, threshold: v }))}
                />
              ),
            },
            {
              header: 'Earn multiplier',
              cell: ({ t, i }) => (
                <NumberCell
                  label={`Earn multiplier of ${String(t.name)}`}
                  value={t.earn_multiplier}
                  invalid={!!errors[`draft.tiers.${i}.earn_multiplier`]}
                  onChange={(v) => edit('tiers', i, (x) => ({ ...x, earn_multiplier: v }))}
                />
              ),
            },
          ]}
        />
      </section>
      <p className="hint">
        {changed.length
          ? `Changed: ${changed.map((s) => s.replace(/_/g, ' ')).join(', ')}.`
          : 'Nothing changed yet: the replay will use the program as it stands.'}
      </p>
      <DraftErrors errors={errors} draft={draft} />
      {!Object.keys(errors).length && <Alert>{messageOf(started.error)}</Alert>}
      <div className="actions">
        <button type="submit" className="primary" disabled={started.fetching}>
          Replay the period
        </button>
      </div>
    </form>
  );
}

const sign = (n: number) => (n > 0 ? `+${formatNumber(n)}` : formatNumber(n));

interface Compared {
  key: string;
  name: string;
  before: number;
  draft: number;
  difference: number;
}

/** Points per rule or tier, before and under the draft: a bar chart and its table. */
function CompareChart({
  title,
  note,
  label,
  rows,
  what,
  before,
}: {
  title: string;
  note?: string;
  label: string;
  rows: Compared[];
  what: string;
  before: string;
}) {
  return (
    <ChartCard
      title={title}
      note={note}
      label={label}
      after={
        <DataTable
          caption={title}
          rows={rows}
          rowKey={(r) => r.key}
          empty="Nothing to compare."
          columns={[
            { header: what, rowHeader: true, cell: (r) => r.name },
            { header: before, num: true, cell: (r) => formatNumber(r.before) },
            { header: 'Draft', num: true, cell: (r) => formatNumber(r.draft) },
            { header: 'Difference', num: true, cell: (r) => sign(r.difference) },
          ]}
        />
      }
    >
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#d9d9e3" vertical={false} />
          <XAxis dataKey="name" tick={{ fontSize: 12 }} />
          <YAxis tick={{ fontSize: 12 }} tickFormatter={(n: number) => formatNumber(n)} width={64} />
          <Tooltip formatter={(n) => formatNumber(Number(n))} />
          <Legend />
          <Bar dataKey="before" name={before} fill="#1d5fa8" isAnimationActive={false} />
          <Bar dataKey="draft" name="Draft" fill="#5b3cc4" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

function ReportView({ report, program }: { report: Report; program: Program }) {
  const tierName = (id: string | null | undefined) => (id ? (program.tiers.data.find((t) => t.id === id)?.name ?? id) : 'No tier');
  const pointValue = program.points_valuation.point_value;
  return (
    <section aria-labelledby="result">
      <h2 id="result">What would have happened</h2>
      <p className="hint">
        {formatNumber(report.orders)} orders placed in the period.
        {report.mismatched_orders > 0 &&
          ` ${formatNumber(report.mismatched_orders)} of them earn differently under the program as it stands than they did: the program changed during the period.`}
      </p>
      <dl className="stats">
        <Stat label="Points issued" value={formatNumber(report.issued.actual)} hint="As recorded" />
        <Stat label="Under the draft" value={formatNumber(report.issued.draft)} hint={`${sign(report.issued.difference)} points`} />
        <Stat
          label="Change in liability"
          value={`${sign(report.liability.change)} points`}
          hint={
            pointValue
              ? `${formatMoney(report.liability.change * pointValue)}: the points times the point value, ${formatMoney(pointValue)}`
              : 'Set a point value on the Finance page to see it in money'
          }
        />
        <Stat label="Customers whose tier would differ" value={formatNumber(report.tier_changes.customers)} />
      </dl>
      <CompareChart
        title="Points per earning rule"
        label="Bar chart of points per earning rule, as the program stands and under the draft; the figures are in the table below"
        rows={report.by_rule.map((r) => ({ key: r.id, name: r.name, before: r.replayed, draft: r.draft, difference: r.difference }))}
        what="Rule"
        before="As it stands"
      />
      <CompareChart
        title="Points per tier"
        note="By the tier the customer held at each order"
        label="Bar chart of points per tier, as recorded and under the draft; the figures are in the table below"
        rows={report.by_tier.map((t) => ({
          key: t.id ?? 'none',
          name: t.name,
          before: t.actual,
          draft: t.draft,
          difference: t.difference,
        }))}
        what="Tier"
        before="Recorded"
      />
      <h3>Tier moves</h3>
      <DataTable
        caption="Tier moves"
        rows={report.tier_changes.moves}
        rowKey={(m) => `${m.from_tier_id}-${m.to_tier_id}`}
        empty="No customer’s tier would differ."
        columns={[
          { header: 'From', rowHeader: true, cell: (m) => tierName(m.from_tier_id) },
          { header: 'To', cell: (m) => tierName(m.to_tier_id) },
          { header: 'Customers', num: true, cell: (m) => formatNumber(m.customers) },
        ]}
      />
      <h3>Customers most affected</h3>
      <DataTable
        caption="Customers most affected"
        rows={report.customers_most_affected}
        rowKey={(c) => c.id}
        empty="No customer earned in the period."
        columns={[
          { header: 'Customer', rowHeader: true, cell: (c) => c.customer_id ?? c.id },
          { header: 'Recorded', num: true, cell: (c) => formatNumber(c.actual) },
          { header: 'Draft', num: true, cell: (c) => formatNumber(c.draft) },
          { header: 'Difference', num: true, cell: (c) => sign(c.difference) },
          { header: 'Tier', cell: (c) => tierName(c.tier_id) },
          { header: 'Tier under the draft', cell: (c) => tierName(c.draft_tier_id) },
        ]}
      />
    </section>
  );
}

/** The job: its progress while it runs (asked again every second), Cancel, and its report when done. */
function JobView({ id, program, onAgain }: { id: string; program: Program; onAgain: () => void }) {
  const [{ data, error }, refetch] = useQuery({ query: JobQuery, variables: { id }, requestPolicy: 'network-only' });
  const [cancelled, cancel] = useMutation(CancelReplay);
  const job = data?.program_replay_job;
  const running = !job || job.state === 'queued' || job.state === 'running';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), 1000);
    return () => clearInterval(timer);
  }, [running, refetch]);
  return (
    <>
      <section className="card" aria-labelledby="job">
        <h2 id="job">Replay {job ? `of ${job.from} to ${job.to}` : ''}</h2>
        <Alert>{messageOf(error) ?? messageOf(cancelled.error)}</Alert>
        {job && (
          <>
            <p role="status">
              {job.state === 'queued' && 'Waiting to start…'}
              {job.state === 'running' &&
                `Replaying: ${formatPercent(job.progress)} of the period read (${formatNumber(job.orders_read)} orders).`}
              {job.state === 'done' && `Done: ${formatNumber(job.orders_read)} orders read.`}
              {job.state === 'cancelled' && 'Cancelled: no report was kept.'}
              {job.state === 'failed' && `Failed: ${job.error?.message ?? 'the replay stopped.'}`}
            </p>
            {running && <progress aria-label="Share of the period read" max={1} value={job.progress} />}
          </>
        )}
        <div className="actions">
          {running && (
            <button type="button" className="danger" disabled={cancelled.fetching || !job} onClick={() => void cancel({ id })}>
              Cancel the replay
            </button>
          )}
          {!running && (
            <button type="button" onClick={onAgain}>
              Change the draft
            </button>
          )}
        </div>
      </section>
      {job?.report && <ReportView report={job.report} program={program} />}
    </>
  );
}

type ListedJob = ResultOf<typeof JobsQuery>['program_replay_jobs']['data'][number];

const jobStates: Record<ListedJob['state'], string> = {
  queued: 'Waiting to start',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** What a job's draft changed, in words: each section sent, with its records. */
const draftSummary = (job: ListedJob) =>
  job.draft_sections.length === 0
    ? 'The program as it stands'
    : job.draft_sections.map((s) => `${humanize(s.section)} (${formatNumber(s.items)})`).join(', ');

/** The shop's replays of the last day, newest first: a finished one's report opens from here. */
function RecentJobs({ current, onOpen }: { current: string | null; onOpen: (id: string) => void }) {
  const [page, setPage] = useState(1);
  const [{ data, error }, refetch] = useQuery({ query: JobsQuery, variables: { page }, requestPolicy: 'network-only' });
  const jobs = data?.program_replay_jobs;
  const unfinished = jobs?.data.some((j) => j.state === 'queued' || j.state === 'running');
  // a job started or followed here, or one still running, shows its new state
  useEffect(() => {
    if (current) refetch({ requestPolicy: 'network-only' });
  }, [current, refetch]);
  useEffect(() => {
    if (!unfinished) return;
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), 2000);
    return () => clearInterval(timer);
  }, [unfinished, refetch]);
  return (
    <section className="card" aria-labelledby="recent-replays">
      <h2 id="recent-replays">Recent replays</h2>
      <p>Replays started in the last day, newest first. A replay is kept for a day after it started.</p>
      <Alert>{messageOf(error)}</Alert>
      <DataTable
        caption="Recent replays"
        bare
        rows={jobs?.data}
        rowKey={(j) => j.id}
        empty="No replay in the last day."
        columns={[
          { header: 'Started', rowHeader: true, cell: (j) => formatDateTime(j.created_at as string) },
          { header: 'Period', cell: (j) => `${j.from} – ${j.to}` },
          { header: 'Draft', cell: draftSummary },
          {
            header: 'State',
            cell: (j) => (j.state === 'running' ? `${jobStates.running}: ${formatPercent(j.progress)}` : jobStates[j.state]),
          },
          { header: 'Finished', cell: (j) => (j.finished_at ? formatDateTime(j.finished_at as string) : '—') },
          {
            header: 'Report',
            hiddenHeader: true,
            cell: (j) =>
              j.state === 'done' ? (
                <button
                  type="button"
                  aria-label={`Open the report of ${formatDateTime(j.created_at as string)}`}
                  onClick={() => onOpen(j.id)}
                >
                  Open the report
                </button>
              ) : null,
          },
        ]}
      />
      <Pager label="Recent replays" page={jobs?.meta.pagination} onPage={setPage} />
    </section>
  );
}

export function TryChange() {
  const [{ data, error }] = useQuery({ query: ProgramQuery, requestPolicy: 'network-only' });
  const [jobId, setJobId] = useState<string | null>(null);
  const [editing, setEditing] = useState(true);
  return (
    <>
      <p className="lead">
        Change the earning rules, boosters or tiers in a draft and see what a past period’s orders would have earned under it. Nothing is
        changed: the program stays as it is.
      </p>
      <Alert>{messageOf(error)}</Alert>
      {!data && !error && <p>Loading…</p>}
      {data && (
        <>
          <div hidden={!editing}>
            <DraftEditor
              program={data}
              onStarted={(id) => {
                setJobId(id);
                setEditing(false);
              }}
            />
          </div>
          {jobId && !editing && <JobView id={jobId} program={data} onAgain={() => setEditing(true)} />}
          <RecentJobs
            current={jobId}
            onOpen={(id) => {
              setJobId(id);
              setEditing(false);
            }}
          />
        </>
      )}
    </>
  );
}
