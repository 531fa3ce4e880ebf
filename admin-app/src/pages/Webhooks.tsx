// Integrations → Webhooks: the endpoints that receive the shop's events. Add one (its signing
// secret is shown once, with a copy button), choose its events, enable or disable it, delete it
// after a confirmation. An endpoint's own page lists its deliveries (status, attempts, the last
// answer), redelivers one, sends a test event (ping) and rotates the signing secret (the old one
// keeps signing beside the new one for the overlap chosen; the new one is shown once).
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { messages } from '../../../src/domain/shared/messages';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../api';
import { formatDateTime, formatDuration, formatNumber } from '../format';
import { graphql, type ResultOf } from '../graphql';
import { Link, navigate } from '../router';
import {
  Alert,
  Badge,
  CheckboxGroup,
  ConfirmDialog,
  DataTable,
  Dialog,
  FormFooter,
  NotFound,
  Pager,
  PageTitle,
  SecretShownOnce,
  SelectField,
  TextField,
} from '../ui';
import { IntegrationsNav } from './integrations-nav';
import { mergeErrors, numberErrors } from './program/kit';

const EndpointFields = graphql(`
  fragment EndpointFields on WebhookEndpoint @_unmask {
    id url description event_types enabled disabled_reason disabled_at failing_since previous_secret_expires_at created_at
  }
`);

const EndpointsQuery = graphql(
  `
  query WebhookEndpoints {
    webhook_event_types { type description }
    webhook_endpoints { ...EndpointFields }
  }
`,
  [EndpointFields],
);

const DeliveriesQuery = graphql(`
  query WebhookDeliveries($endpoint_id: ID, $status: WebhookDeliveryStatus, $page: Int) {
    webhook_deliveries(endpoint_id: $endpoint_id, status: $status, page: $page, per_page: 20) {
      data { id event_id event_type status attempts last_attempt_at last_status last_response delivered_at created_at }
      meta { pagination { current_page last_page total } }
    }
  }
`);

const CreateEndpoint = graphql(`
  mutation CreateWebhookEndpoint($url: String!, $description: String, $event_types: [String!]) {
    create_webhook_endpoint(url: $url, description: $description, event_types: $event_types) { id url secret }
  }
`);

const UpdateEndpoint = graphql(
  `
  mutation UpdateWebhookEndpoint($id: ID!, $url: String, $description: String, $event_types: [String!], $enabled: Boolean) {
    update_webhook_endpoint(id: $id, url: $url, description: $description, event_types: $event_types, enabled: $enabled) { ...EndpointFields }
  }
`,
  [EndpointFields],
);

const DeleteEndpoint = graphql(`
  mutation DeleteWebhookEndpoint($id: ID!) { delete_webhook_endpoint(id: $id) { id } }
`);

const RotateSecret = graphql(`
  mutation RotateWebhookSecret($id: ID!, $overlap_hours: Int) {
    rotate_webhook_secret(id: $id, overlap_hours: $overlap_hours) { id url secret previous_secret_expires_at }
  }
`);

const Ping = graphql(`
  mutation PingWebhookEndpoint($id: ID!) { ping_webhook_endpoint(id: $id) { id } }
`);

const Redeliver = graphql(`
  mutation RedeliverWebhook($delivery_id: ID!) { redeliver_webhook(delivery_id: $delivery_id) { id status } }
`);

type Endpoint = ResultOf<typeof EndpointsQuery>['webhook_endpoints'][number];
type EventType = ResultOf<typeof EndpointsQuery>['webhook_event_types'][number];
type Delivery = ResultOf<typeof DeliveriesQuery>['webhook_deliveries']['data'][number];
type Secret = { url: string; secret: string; previous_secret_expires_at?: string | null };

/** The endpoint's state in words: a shape and a label, the reason beside it when the service stopped it. */
function EndpointState({ e }: { e: Endpoint }) {
  if (!e.enabled && e.disabled_reason) return <Badge tone="failed" mark="✕" label="Disabled by the service" />;
  if (!e.enabled) return <Badge tone="inactive" mark="○" label="Disabled" />;
  if (e.failing_since) return <Badge tone="failed" mark="!" label="Failing" />;
  return <Badge tone="active" mark="●" label="Enabled" />;
}

const deliveryStates: Record<Delivery['status'], { tone: 'active' | 'scheduled' | 'failed' | 'inactive'; mark: string; label: string }> = {
  succeeded: { tone: 'active', mark: '●', label: 'Delivered' },
  pending: { tone: 'scheduled', mark: '◷', label: 'Pending' },
  failed: { tone: 'failed', mark: '✕', label: 'Failed' },
  cancelled: { tone: 'inactive', mark: '○', label: 'Cancelled' },
};

const Events = ({ types }: { types: readonly string[] }) =>
  types.length === 0 ? (
    <>Every event</>
  ) : (
    <ul className="chips">
      {types.map((t) => (
        <li key={t} className="mono">
          {t}
        </li>
      ))}
    </ul>
  );

/** The URL, description and event filter of a new or existing endpoint. */
function EndpointForm({
  endpoint,
  eventTypes,
  onSaved,
}: {
  endpoint: Endpoint | null;
  eventTypes: readonly EventType[];
  onSaved: (created: Secret | null) => void;
}) {
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [every, setEvery] = useState(!endpoint || endpoint.event_types.length === 0);
  const [types, setTypes] = useState<string[]>(endpoint ? [...endpoint.event_types] : []);
  const [local, setLocal] = useState<FieldErrors>({});
  const [created, create] = useMutation(CreateEndpoint);
  const [updated, update] = useMutation(UpdateEndpoint);
  const result = endpoint ? updated : created;
  const errors = mergeErrors(local, fieldErrorsOf(result.error));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems: FieldErrors = {};
    if (!url.trim()) problems.url = [messages.required];
    if (!every && types.length === 0) problems.event_types = [messages.minItems(1)];
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const input = { url: url.trim(), description: description.trim() || null, event_types: every ? [] : types };
    if (endpoint) {
      const res = await update({ id: endpoint.id, ...input });
      if (res.data) onSaved(null);
    } else {
      const res = await create(input);
      if (res.data) onSaved(res.data.create_webhook_endpoint);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <TextField
        label="Endpoint URL"
        hint="The https address of your receiver, e.g. https://example.com/loyalty/webhooks"
        type="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        errors={errors.url}
      />
      <TextField
        label="Description"
        hint="Optional: what receives these events, e.g. “Email platform”"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        errors={errors.description}
      />
      <fieldset className="field">
        <legend>Events to send</legend>
        <label className="radio">
          <input type="radio" name="event-filter" checked={every} onChange={() => setEvery(true)} />
          <span>
            <strong>Every event</strong> <span className="hint">Types added later included.</span>
          </span>
        </label>
        <label className="radio">
          <input type="radio" name="event-filter" checked={!every} onChange={() => setEvery(false)} />
          <span>
            <strong>Only the events ticked below</strong>
          </span>
        </label>
      </fieldset>
      {!every && (
        <div className="event-types">
          <CheckboxGroup
            legend="Event types"
            options={eventTypes.map((t) => ({ value: t.type, label: `${t.type}: ${t.description}` }))}
            value={types}
            onChange={setTypes}
            errors={errors.event_types}
          />
        </div>
      )}
      <FormFooter
        errors={errors}
        shown={['url', 'description', 'event_types']}
        error={result.error}
        busy={result.fetching}
        submit={endpoint ? 'Save endpoint' : 'Add endpoint'}
      />
    </form>
  );
}

function SecretOnce({ secret, onDone, rotated }: { secret: Secret; onDone: () => void; rotated?: boolean }) {
  return (
    <SecretShownOnce
      label={`Signing secret for ${secret.url}`}
      value={secret.secret}
      warning={
        <>
          <strong>Copy this signing secret now: you will not see it again.</strong> Your receiver checks each delivery’s signature with it
          (the webhook-signature header).{' '}
          {rotated && secret.previous_secret_expires_at
            ? `Until ${formatDateTime(secret.previous_secret_expires_at)} each delivery is signed with the old secret too: update your receiver before then.`
            : rotated
              ? 'The old secret stopped signing now: update your receiver at once.'
              : 'If it is lost, rotate the secret to get a new one.'}
        </>
      }
      done={{ label: 'I have copied the secret', onClick: onDone }}
    />
  );
}

/** The endpoints, and the button that adds one. */
export function Webhooks({ path }: { path: string }) {
  const [{ data, error }, refetch] = useQuery({ query: EndpointsQuery });
  const id = /^\/integrations\/webhooks\/([^/]+)$/.exec(path)?.[1];
  if (id) {
    const endpoint = data?.webhook_endpoints.find((e) => e.id === decodeURIComponent(id));
    if (data && !endpoint) return <NotFound />;
    return endpoint ? (
      <EndpointPage endpoint={endpoint} eventTypes={data!.webhook_event_types} refetch={() => refetch({ requestPolicy: 'network-only' })} />
    ) : (
      <p>Loading…</p>
    );
  }
  return <EndpointList data={data} error={error} refetch={() => refetch({ requestPolicy: 'network-only' })} />;
}

function EndpointList({
  data,
  error,
  refetch,
}: {
  data: ResultOf<typeof EndpointsQuery> | undefined;
  error: ReturnType<typeof useQuery>[0]['error'];
  refetch: () => void;
}) {
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<Secret | null>(null);
  const close = () => {
    setAdding(false);
    setSecret(null);
    refetch();
  };
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <IntegrationsNav />
      <p className="lead">
        The service sends your other systems an event (a signed HTTPS request) when points move, a reward is redeemed, a tier changes or a
        customer is added, changed or erased. An endpoint that keeps failing for 3 days is disabled.
      </p>
      <div className="section-head">
        <h2>Endpoints</h2>
        <button type="button" className="primary" onClick={() => setAdding(true)}>
          Add endpoint
        </button>
      </div>
      <Alert>{messageOf(error)}</Alert>
      <DataTable
        caption="Webhook endpoints"
        rows={data?.webhook_endpoints}
        rowKey={(e) => e.id}
        empty="No endpoint yet: add one to receive events."
        columns={[
          {
            header: 'Endpoint',
            rowHeader: true,
            cell: (e) => (
              <>
                <Link to={`/integrations/webhooks/${e.id}`} className="mono">
                  {e.url}
                </Link>
                {e.description && <div className="hint">{e.description}</div>}
              </>
            ),
          },
          { header: 'Events', cell: (e) => <Events types={e.event_types} /> },
          { header: 'Status', cell: (e) => <EndpointState e={e} /> },
          { header: 'Added', cell: (e) => formatDateTime(e.created_at), className: () => 'nowrap' },
        ]}
      />
      <Dialog title={secret ? 'Your new endpoint' : 'Add a webhook endpoint'} open={adding} onClose={close}>
        {secret ? (
          <SecretOnce secret={secret} onDone={close} />
        ) : (
          data && <EndpointForm endpoint={null} eventTypes={data.webhook_event_types} onSaved={setSecret} />
        )}
      </Dialog>
    </>
  );
}

/** One endpoint: its settings and actions, and its deliveries. */
function EndpointPage({
  endpoint: read,
  eventTypes,
  refetch,
}: {
  endpoint: Endpoint;
  eventTypes: readonly EventType[];
  refetch: () => void;
}) {
  const [dialog, setDialog] = useState<'edit' | 'rotate' | 'delete' | null>(null);
  const [secret, setSecret] = useState<Secret | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [toggled, toggle] = useMutation(UpdateEndpoint);
  // the endpoint as Disable or Enable answered it, until the page's next read lands: the read
  // before the click would turn a second click into the first one sent again
  const [answered, setAnswered] = useState<{ over: Endpoint; endpoint: Endpoint } | null>(null);
  const e = answered?.over === read ? answered.endpoint : read;
  const [pinged, ping] = useMutation(Ping);
  const [deleted, remove] = useMutation(DeleteEndpoint);
  const [deliveriesKey, setDeliveriesKey] = useState(0);
  const close = () => {
    setDialog(null);
    setSecret(null);
    refetch();
  };
  const flip = async () => {
    const res = await toggle({ id: e.id, enabled: !e.enabled });
    const endpoint = res.data?.update_webhook_endpoint;
    if (endpoint) setAnswered({ over: read, endpoint });
    if (!res.error)
      setNotice(e.enabled ? 'The endpoint is disabled: no event is sent to it until you enable it.' : 'The endpoint is enabled.');
  };
  const sendPing = async () => {
    const res = await ping({ id: e.id });
    if (!res.error) {
      setNotice('A test event (webhook.ping) is on its way: its delivery is listed below.');
      setDeliveriesKey((k) => k + 1);
    }
  };
  const confirmDelete = async () => {
    const res = await remove({ id: e.id });
    if (!res.error) navigate('/integrations/webhooks');
  };
  const title = e.description || e.url;
  return (
    <>
      <p className="breadcrumb">
        <Link to="/integrations/webhooks">Webhooks</Link> /
      </p>
      <PageTitle>{title}</PageTitle>
      <IntegrationsNav />
      <Alert tone="success">{notice}</Alert>
      <Alert>{messageOf(toggled.error) ?? messageOf(pinged.error)}</Alert>
      <div className="grid two-cols">
        <section className="card" aria-labelledby="endpoint-settings">
          <h2 id="endpoint-settings">Endpoint</h2>
          <dl className="facts">
            <dt>URL</dt>
            <dd className="mono">{e.url}</dd>
            <dt>Status</dt>
            <dd>
              <EndpointState e={e} />
              {e.disabled_reason && <div className="hint">{e.disabled_reason}</div>}
              {e.enabled && e.failing_since && <div className="hint">Failing since {formatDateTime(e.failing_since)}</div>}
            </dd>
            <dt>Events</dt>
            <dd>
              <Events types={e.event_types} />
            </dd>
            <dt>Signing secret</dt>
            <dd>
              {e.previous_secret_expires_at && Date.parse(e.previous_secret_expires_at) > Date.now()
                ? `Rotated: the old secret signs too until ${formatDateTime(e.previous_secret_expires_at)}`
                : 'One secret signs'}
            </dd>
            <dt>Added</dt>
            <dd>{formatDateTime(e.created_at)}</dd>
          </dl>
        </section>
        <section className="card" aria-labelledby="endpoint-actions">
          <h2 id="endpoint-actions">Actions</h2>
          <div className="toolbar-row">
            <button type="button" onClick={() => setDialog('edit')}>
              Edit…
            </button>
            <button type="button" onClick={() => void flip()} disabled={toggled.fetching}>
              {e.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" onClick={() => void sendPing()} disabled={pinged.fetching || !e.enabled}>
              Send a test event
            </button>
            <button type="button" onClick={() => setDialog('rotate')}>
              Rotate secret…
            </button>
            <button type="button" className="danger" onClick={() => setDialog('delete')}>
              Delete…
            </button>
          </div>
          <p className="hint">
            {e.enabled
              ? 'A test event goes to this endpoint whatever its events.'
              : 'While disabled, events are not sent to this endpoint (read them back from the events feed); enable it to send a test event.'}
          </p>
        </section>
      </div>
      <Deliveries key={deliveriesKey} endpointId={e.id} enabled={e.enabled} />
      <Dialog title={`Edit ${title}`} open={dialog === 'edit'} onClose={close}>
        {dialog === 'edit' && <EndpointForm endpoint={e} eventTypes={eventTypes} onSaved={close} />}
      </Dialog>
      <Dialog title={secret ? 'Your new signing secret' : 'Rotate the signing secret?'} open={dialog === 'rotate'} onClose={close}>
        {secret ? (
          <SecretOnce secret={secret} onDone={close} rotated />
        ) : (
          dialog === 'rotate' && <RotateForm endpoint={e} onRotated={setSecret} onCancel={close} />
        )}
      </Dialog>
      <ConfirmDialog
        title="Delete this endpoint?"
        open={dialog === 'delete'}
        onClose={close}
        confirm="Delete endpoint"
        onConfirm={() => void confirmDelete()}
        busy={deleted.fetching}
        error={deleted.error}
      >
        <p>
          Delete <strong className="mono">{e.url}</strong>? It receives no more events, and its delivery history is deleted with it. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}

const DEFAULT_OVERLAP_HOURS = 24;

function RotateForm({ endpoint, onRotated, onCancel }: { endpoint: Endpoint; onRotated: (s: Secret) => void; onCancel: () => void }) {
  const [hours, setHours] = useState(String(DEFAULT_OVERLAP_HOURS));
  const [local, setLocal] = useState<FieldErrors>({});
  const [result, rotate] = useMutation(RotateSecret);
  const errors = mergeErrors(local, fieldErrorsOf(result.error));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems = numberErrors({ overlap_hours: { text: hours, integer: true, required: true } });
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const res = await rotate({ id: endpoint.id, overlap_hours: Number(hours) });
    if (res.data) onRotated(res.data.rotate_webhook_secret);
  };
  const n = Number(hours);
  return (
    <form onSubmit={submit} noValidate>
      <p>
        A new secret signs every delivery from now on. For the overlap you choose, each delivery is also signed with the current secret, so
        your receiver keeps accepting them while you update it; then the current secret stops working.
      </p>
      <TextField
        label="Overlap (hours)"
        hint="0 to 168 (7 days); 0 stops the current secret at once"
        inputMode="numeric"
        value={hours}
        onChange={(e) => setHours(e.target.value)}
        errors={errors.overlap_hours}
      />
      {Number.isInteger(n) && n > 0 && <p className="hint">Both secrets sign for {formatDuration(n * 3600)}.</p>}
      <FormFooter errors={errors} shown={['overlap_hours']} error={result.error} busy={result.fetching} submit="Rotate secret" />
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const statusFilter = [
  { value: '', label: 'Every status' },
  { value: 'pending', label: 'Pending' },
  { value: 'succeeded', label: 'Delivered' },
  { value: 'failed', label: 'Failed' },
  { value: 'cancelled', label: 'Cancelled' },
];

/** The endpoint's deliveries, newest first: what was sent, how often, and what the receiver answered. */
function Deliveries({ endpointId, enabled }: { endpointId: string; enabled: boolean }) {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [{ data, error }, refetch] = useQuery({
    query: DeliveriesQuery,
    variables: { endpoint_id: endpointId, status: (status || null) as Delivery['status'] | null, page },
    requestPolicy: 'network-only',
  });
  const [redelivered, redeliver] = useMutation(Redeliver);
  const [notice, setNotice] = useState<string | null>(null);
  const again = async (d: Delivery) => {
    const res = await redeliver({ delivery_id: d.id });
    if (!res.error) {
      setNotice(`The ${d.event_type} event is queued again, with the same event id and body.`);
      refetch({ requestPolicy: 'network-only' });
    }
  };
  const list = data?.webhook_deliveries;
  return (
    <section aria-labelledby="deliveries">
      <div className="section-head">
        <h2 id="deliveries">Deliveries</h2>
        <div className="toolbar-row">
          <SelectField
            label="Status"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value);
              setPage(1);
            }}
            options={statusFilter}
          />
          <button type="button" onClick={() => refetch({ requestPolicy: 'network-only' })}>
            Refresh
          </button>
        </div>
      </div>
      <Alert tone="success">{notice}</Alert>
      <Alert>{messageOf(error) ?? messageOf(redelivered.error)}</Alert>
      <DataTable
        caption="Deliveries"
        rows={list?.data}
        rowKey={(d) => d.id}
        empty="No delivery yet."
        columns={[
          {
            header: 'Event',
            rowHeader: true,
            cell: (d) => (
              <>
                <span className="mono">{d.event_type}</span>
                <div className="hint mono">{d.event_id}</div>
              </>
            ),
          },
          {
            header: 'Status',
            cell: (d) => {
              const s = deliveryStates[d.status];
              return <Badge tone={s.tone} mark={s.mark} label={s.label} />;
            },
          },
          { header: 'Attempts', num: true, cell: (d) => formatNumber(d.attempts) },
          {
            header: 'Last answer',
            className: () => 'answer',
            cell: (d) =>
              d.attempts === 0 ? (
                'Not sent yet'
              ) : (
                <>
                  {d.last_status === null ? 'No answer' : `HTTP ${d.last_status}`}
                  {d.last_response && <div className="mono hint">{d.last_response}</div>}
                </>
              ),
          },
          { header: 'Last attempt', cell: (d) => formatDateTime(d.last_attempt_at), className: () => 'nowrap' },
          { header: 'Delivered', cell: (d) => formatDateTime(d.delivered_at), className: () => 'nowrap' },
          {
            header: 'Actions',
            hiddenHeader: true,
            className: () => 'row-actions',
            cell: (d) =>
              d.status !== 'pending' &&
              enabled && (
                <button
                  type="button"
                  onClick={() => void again(d)}
                  disabled={redelivered.fetching}
                  aria-label={`Redeliver ${d.event_type} ${d.event_id}`}
                >
                  Redeliver
                </button>
              ),
          },
        ]}
      />
      <Pager label="Deliveries" page={list?.meta.pagination} onPage={setPage} />
    </section>
  );
}
