// The audit log: every admin change, newest first, filtered by who made it, what it was, the
// resource it was about and when (local dates in the shop's time zone). Each entry opens to
// what changed: the fields whose value differs, before and after, in words.
import { type FormEvent, useState } from 'react';
import { useQuery } from 'urql';
import { messages } from '../../../src/domain/shared/messages';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../api';
import { formatDateTime, formatNumber, humanize, nextDate, startOfShopDay } from '../format';
import { graphql, type ResultOf } from '../graphql';
import { Alert, DataTable, Pager, PageTitle, SelectField, TextField } from '../ui';

const AuditQuery = graphql(`
  query AuditLog($actor: String, $action: String, $resource_type: String, $resource_id: String, $created_after: DateTime, $created_before: DateTime, $page: Int) {
    audit_log(actor: $actor, action: $action, resource_type: $resource_type, resource_id: $resource_id,
      created_after: $created_after, created_before: $created_before, page: $page, per_page: 25) {
      data { id actor action resource_type resource_id args before after created_at }
      meta { pagination { current_page last_page total } }
    }
  }
`);

type Entry = ResultOf<typeof AuditQuery>['audit_log']['data'][number];

/** Who made a change, in words. */
function actorText(actor: string): string {
  if (actor === 'cli') return 'Command line';
  const [kind, id = ''] = actor.split(/:(.*)/s);
  if (kind === 'session') return `Admin app session ${id.slice(0, 8)}`;
  if (kind === 'token') return `Admin token ${id}…`;
  return actor;
}

const kinds = [
  { value: '', label: 'Anyone' },
  { value: 'session', label: 'Someone signed in to the admin app' },
  { value: 'token', label: 'A script with the admin token' },
  { value: 'cli', label: 'The command line' },
];

/** pointsCost → Points cost; points_cost → Points cost. */
const fieldName = (key: string) => humanize(key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase());

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A stored value as a person reads it: dates in the shop's time zone, lists and objects as compact JSON. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return ISO_TIME.test(value) ? formatDateTime(value) : value;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return formatNumber(value);
  return JSON.stringify(value);
}

type Row = { field: string; before: unknown; after: unknown };
const asRecord = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** The fields a change touched: those that differ, or every field of a record created or deleted. */
function changedFields(before: unknown, after: unknown): Row[] {
  const b = asRecord(before);
  const a = asRecord(after);
  if (!b && !a) return [];
  const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a ?? {})])].filter((k) => k !== 'merchantId');
  const rows = keys.map((field) => ({ field, before: b?.[field], after: a?.[field] }));
  if (!b || !a) return rows;
  return rows.filter((r) => JSON.stringify(r.before) !== JSON.stringify(r.after) && r.field !== 'updatedAt');
}

function Changes({ entry }: { entry: Entry }) {
  const rows = changedFields(entry.before, entry.after);
  const kind = !entry.before && entry.after ? 'Created' : entry.before && !entry.after ? 'Removed' : 'Changed';
  return (
    <details>
      <summary>{rows.length ? `${kind}: ${rows.length} field${rows.length === 1 ? '' : 's'}` : 'Details'}</summary>
      {rows.length > 0 ? (
        <table className="diff">
          <caption className="visually-hidden">What changed</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.field}>
                <th scope="row">{fieldName(r.field)}</th>
                <td className={entry.before ? 'was' : undefined}>{valueText(r.before)}</td>
                <td className={entry.after ? 'now' : undefined}>{valueText(r.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">No stored record before or after this change.</p>
      )}
      {entry.args != null && (
        <>
          <h3>Sent</h3>
          <pre className="json">{JSON.stringify(entry.args, null, 2)}</pre>
        </>
      )}
    </details>
  );
}

interface Filters {
  actor: string;
  action: string;
  resource_type: string;
  resource_id: string;
  from: string;
  to: string;
}

const none: Filters = { actor: '', action: '', resource_type: '', resource_id: '', from: '', to: '' };

/** The query's variables: empty fields left out; the dates as the instants their days start and end in the shop's time zone. */
function variablesOf(f: Filters, page: number) {
  const text = (v: string) => v.trim() || null;
  return {
    actor: text(f.actor),
    action: text(f.action),
    resource_type: text(f.resource_type),
    resource_id: text(f.resource_id),
    created_after: f.from ? startOfShopDay(f.from) : null,
    // the To date is included: up to the start of the next day
    created_before: f.to ? startOfShopDay(nextDate(f.to)) : null,
    page,
  };
}

export function AuditLog() {
  const [draft, setDraft] = useState<Filters>(none);
  const [applied, setApplied] = useState<Filters>(none);
  const [page, setPage] = useState(1);
  const [local, setLocal] = useState<FieldErrors>({});
  const [{ data, error, fetching }] = useQuery({ query: AuditQuery, variables: variablesOf(applied, page), requestPolicy: 'network-only' });
  const server = fieldErrorsOf(error);
  // the API names the range's end created_before: the To field
  const errors: FieldErrors = { ...(server.created_before ? { to: server.created_before } : {}), ...local };
  const set = (key: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));

  const apply = (filters: Filters) => {
    const problems: FieldErrors = {};
    if (filters.from && filters.to && filters.to < filters.from) problems.to = [messages.onOrAfter('From')];
    setLocal(problems);
    if (Object.keys(problems).length) return;
    setApplied(filters);
    setPage(1);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply(draft);
  };
  const only = (filters: Partial<Filters>) => {
    const next = { ...draft, ...filters };
    setDraft(next);
    apply(next);
  };
  const actorOptions = kinds.some((k) => k.value === draft.actor)
    ? kinds
    : [...kinds, { value: draft.actor, label: actorText(draft.actor) }];
  const list = data?.audit_log;

  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p className="lead">
        Every change made in the admin app, with the admin token or on the command line: who made it, when, and the record before and after.
        Secrets never appear. Dates are in the shop’s time zone.
      </p>
      <form className="card" onSubmit={submit} noValidate aria-label="Filter the audit log">
        <div className="filters">
          <SelectField label="Who" value={draft.actor} onChange={(e) => set('actor')(e.target.value)} options={actorOptions} />
          <TextField label="Action" hint="e.g. update_reward" value={draft.action} onChange={(e) => set('action')(e.target.value)} />
          <TextField
            label="Resource type"
            hint="e.g. Reward, Customer"
            value={draft.resource_type}
            onChange={(e) => set('resource_type')(e.target.value)}
          />
          <TextField label="Resource id" value={draft.resource_id} onChange={(e) => set('resource_id')(e.target.value)} />
          <TextField label="From" type="date" value={draft.from} onChange={(e) => set('from')(e.target.value)} errors={errors.from} />
          <TextField label="To" type="date" value={draft.to} onChange={(e) => set('to')(e.target.value)} errors={errors.to} />
        </div>
        <div className="actions">
          <button
            type="button"
            onClick={() => {
              setDraft(none);
              apply(none);
            }}
          >
            Clear
          </button>
          <button type="submit" className="primary">
            Show
          </button>
        </div>
      </form>
      {!server.created_before && <Alert>{messageOf(error)}</Alert>}
      <p className="hint" role="status">
        {list ? `${list.meta.pagination.total} change(s)` : fetching ? 'Loading…' : ''}
      </p>
      <DataTable
        caption="Admin changes, newest first"
        rows={list?.data}
        rowKey={(e) => e.id}
        empty="No change matches these filters."
        columns={[
          { header: 'When', rowHeader: true, cell: (e) => formatDateTime(e.created_at), className: () => 'nowrap' },
          {
            header: 'Who',
            cell: (e) => (
              <button
                type="button"
                className="link"
                onClick={() => only({ actor: e.actor })}
                aria-label={`Only changes by ${actorText(e.actor)}`}
              >
                {actorText(e.actor)}
              </button>
            ),
          },
          {
            header: 'Action',
            cell: (e) => (
              <button type="button" className="link" onClick={() => only({ action: e.action })} aria-label={`Only ${humanize(e.action)}`}>
                {humanize(e.action)}
              </button>
            ),
          },
          {
            header: 'Resource',
            cell: (e) =>
              e.resource_type ? (
                <>
                  {e.resource_type}
                  {e.resource_id && <div className="hint mono">{e.resource_id}</div>}
                </>
              ) : (
                '—'
              ),
          },
          { header: 'Changes', cell: (e) => <Changes entry={e} /> },
        ]}
      />
      <Pager label="Audit log" page={list?.meta.pagination} onPage={setPage} />
    </>
  );
}
