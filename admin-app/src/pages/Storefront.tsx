// Integrations → Storefront: what the shop's headless storefront may do from a shopper's
// browser. The origins whose pages may call the storefront API, the mode in which it runs only
// the saved (persisted) operations and their list, and the rotation of the secret that signs
// shopper sessions (after a confirmation: every shopper is signed out). And the publishable
// keys a storefront page reads the public program with: public, so shown in full.
import { type FormEvent, useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { messages } from '../../../src/domain/shared/messages';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../api';
import { formatDateTime } from '../format';
import { graphql, type ResultOf } from '../graphql';
import { Alert, Badge, ConfirmDialog, DataTable, Dialog, FormFooter, Pager, PageTitle, TextAreaField, TextField } from '../ui';
import { IntegrationsNav } from './integrations-nav';
import { mergeErrors } from './program/kit';

const SettingsQuery = graphql(`
  query Storefront { storefront_settings { allowed_origins persisted_operations_only updated_at } }
`);

const OperationsQuery = graphql(`
  query PersistedOperations($page: Int) {
    persisted_operations(page: $page, per_page: 20) {
      data { hash name query created_at }
      meta { pagination { current_page last_page total } }
    }
  }
`);

const UpdateSettings = graphql(`
  mutation UpdateStorefront($allowed_origins: [String!], $persisted_operations_only: Boolean) {
    update_storefront_settings(allowed_origins: $allowed_origins, persisted_operations_only: $persisted_operations_only) {
      allowed_origins persisted_operations_only updated_at
    }
  }
`);

const AddOperation = graphql(`
  mutation AddPersistedOperation($name: String, $query: String!) { add_persisted_operation(name: $name, query: $query) { hash name } }
`);

const RemoveOperation = graphql(`
  mutation RemovePersistedOperation($hash: String!) { remove_persisted_operation(hash: $hash) { hash removed } }
`);

const RotateSessions = graphql(`
  mutation RotateCustomerSessionSecret { rotate_customer_session_secret { rotated_at } }
`);

const KeysQuery = graphql(`
  query StorefrontKeys { storefront_keys { id name key created_at revoked_at } }
`);

const CreateKey = graphql(`
  mutation CreateStorefrontKey($name: String) { create_storefront_key(name: $name) { id name key created_at revoked_at } }
`);

const RevokeKey = graphql(`
  mutation RevokeStorefrontKey($id: ID!) { revoke_storefront_key(id: $id) { id revoked_at } }
`);

type Key = ResultOf<typeof KeysQuery>['storefront_keys'][number];

type Settings = ResultOf<typeof SettingsQuery>['storefront_settings'];
type Operation = ResultOf<typeof OperationsQuery>['persisted_operations']['data'][number];

/**
 * The settings as last saved: a change's answer, until the page's read of the settings (sent
 * again after each change) brings them or later ones. A change computed from the read alone
 * before it lands would undo the one just saved (an origin added, then another removed).
 */
function newest(settings: Settings, saved: Settings | undefined): Settings {
  if (!saved?.updated_at) return settings;
  return !settings.updated_at || Date.parse(saved.updated_at) > Date.parse(settings.updated_at) ? saved : settings;
}

/** The allowed origins: each with its Remove button, and a field to add one (each change saved at once). */
function Origins({ settings }: { settings: Settings }) {
  const [origin, setOrigin] = useState('');
  const [local, setLocal] = useState<FieldErrors>({});
  const [result, update] = useMutation(UpdateSettings);
  const [notice, setNotice] = useState<string | null>(null);
  const origins = newest(settings, result.data?.update_storefront_settings).allowed_origins;
  // the API names a bad origin by its place in the list: the new one is the last
  const server = fieldErrorsOf(result.error);
  const errors = mergeErrors(local, { origin: Object.entries(server).flatMap(([k, v]) => (k.startsWith('allowed_origins') ? v : [])) });
  const save = async (list: string[], done: string) => {
    setNotice(null);
    const res = await update({ allowed_origins: list });
    if (!res.error) setNotice(done);
    return !res.error;
  };
  const add = async (event: FormEvent) => {
    event.preventDefault();
    const value = origin.trim();
    setLocal(value ? {} : { origin: [messages.required] });
    if (!value) return;
    if (await save([...origins, value], `${value} may now call the storefront API.`)) setOrigin('');
  };
  return (
    <section className="card" aria-labelledby="origins">
      <h2 id="origins">Allowed origins</h2>
      <p className="hint">
        The sites whose pages may call the storefront API from a shopper’s browser with a shopper session. Any other site is refused.
      </p>
      <Alert tone="success">{notice}</Alert>
      {origins.length === 0 ? (
        <p>No site is allowed yet.</p>
      ) : (
        <ul className="origin-list">
          {origins.map((o) => (
            <li key={o}>
              <span className="mono">{o}</span>
              <button
                type="button"
                className="danger"
                disabled={result.fetching}
                onClick={() =>
                  void save(
                    origins.filter((x) => x !== o),
                    `${o} may no longer call the storefront API.`,
                  )
                }
                aria-label={`Remove ${o}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={add} noValidate className="toolbar-row">
        <TextField
          label="Add an origin"
          hint="Scheme and host, and the port if not the usual one, e.g. https://shop.example.com"
          value={origin}
          onChange={(e) => setOrigin(e.target.value)}
          errors={errors.origin?.length ? errors.origin : undefined}
        />
        <button type="submit" disabled={result.fetching}>
          Add origin
        </button>
      </form>
      {!errors.origin?.length && <Alert>{messageOf(result.error)}</Alert>}
    </section>
  );
}

/** The mode in which the storefront API runs only the saved operations. */
function PersistedOnly({ settings, saved }: { settings: Settings; saved: number | undefined }) {
  const [result, update] = useMutation(UpdateSettings);
  const on = newest(settings, result.data?.update_storefront_settings).persisted_operations_only;
  return (
    <section className="card" aria-labelledby="persisted-mode">
      <h2 id="persisted-mode">Saved operations only</h2>
      <p>
        {on ? <Badge tone="active" mark="●" label="On" /> : <Badge tone="inactive" mark="○" label="Off" />}{' '}
        {on
          ? 'The storefront API runs only the operations saved below: any other request is refused.'
          : 'The storefront API runs any request a shopper’s browser sends.'}
      </p>
      <p className="hint">
        Turned on, nobody can send the storefront API a request your storefront does not make: save every operation your storefront uses
        first.
        {!on && saved === 0 && ' No operation is saved yet: turning this on now would refuse every request.'}
      </p>
      <Alert>{messageOf(result.error)}</Alert>
      <button
        type="button"
        className={on ? undefined : 'primary'}
        disabled={result.fetching}
        onClick={() => void update({ persisted_operations_only: !on })}
      >
        {on ? 'Turn off: run any request' : 'Turn on: run saved operations only'}
      </button>
    </section>
  );
}

function AddOperationForm({ onAdded }: { onAdded: (op: { hash: string; name?: string | null }) => void }) {
  const [name, setName] = useState('');
  const [query, setQuery] = useState('');
  const [local, setLocal] = useState<FieldErrors>({});
  const [result, add] = useMutation(AddOperation);
  const errors = mergeErrors(local, fieldErrorsOf(result.error));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems: FieldErrors = query.trim() ? {} : { query: [messages.required] };
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const res = await add({ name: name.trim() || null, query });
    if (res.data) onAdded(res.data.add_persisted_operation);
  };
  return (
    <form onSubmit={submit} noValidate>
      <TextField
        label="Name"
        hint="Optional: to recognise it, e.g. “Rewards page”"
        value={name}
        onChange={(e) => setName(e.target.value)}
        errors={errors.name}
      />
      <TextAreaField
        label="GraphQL document"
        hint="The query or mutation exactly as your storefront sends it: clients send its SHA-256 hash"
        rows={8}
        className="mono"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        errors={errors.query}
      />
      <FormFooter errors={errors} shown={['name', 'query']} error={result.error} busy={result.fetching} submit="Save operation" />
    </form>
  );
}

function Operations({ onCount }: { onCount: (n: number) => void }) {
  const [page, setPage] = useState(1);
  const [{ data, error }, refetch] = useQuery({ query: OperationsQuery, variables: { page }, requestPolicy: 'network-only' });
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Operation | null>(null);
  const [removed, remove] = useMutation(RemoveOperation);
  const [notice, setNotice] = useState<string | null>(null);
  const list = data?.persisted_operations;
  const total = list?.meta.pagination.total;
  useEffect(() => {
    if (total !== undefined) onCount(total);
  }, [total, onCount]);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const confirmRemove = async () => {
    if (!removing) return;
    const res = await remove({ hash: removing.hash });
    if (!res.error) {
      setNotice(`Removed “${removing.name ?? removing.hash.slice(0, 12)}”: the storefront can no longer run it.`);
      setRemoving(null);
      reload();
    }
  };
  return (
    <section aria-labelledby="operations">
      <div className="section-head">
        <h2 id="operations">Saved operations</h2>
        <button type="button" className="primary" onClick={() => setAdding(true)}>
          Save an operation
        </button>
      </div>
      <Alert tone="success">{notice}</Alert>
      <Alert>{messageOf(error)}</Alert>
      <DataTable
        caption="Saved operations"
        rows={list?.data}
        rowKey={(o) => o.hash}
        empty="No operation saved yet."
        columns={[
          { header: 'Name', rowHeader: true, cell: (o) => o.name ?? 'Unnamed' },
          { header: 'Hash (SHA-256)', cell: (o) => <span className="mono" title={o.hash}>{`${o.hash.slice(0, 16)}…`}</span> },
          {
            header: 'Document',
            cell: (o) => (
              <details>
                <summary>Show</summary>
                <pre className="json">{o.query}</pre>
              </details>
            ),
          },
          { header: 'Saved', cell: (o) => formatDateTime(o.created_at), className: () => 'nowrap' },
          {
            header: 'Actions',
            hiddenHeader: true,
            className: () => 'row-actions',
            cell: (o) => (
              <button type="button" className="danger" onClick={() => setRemoving(o)} aria-label={`Remove ${o.name ?? o.hash}`}>
                Remove
              </button>
            ),
          },
        ]}
      />
      <Pager label="Saved operations" page={list?.meta.pagination} onPage={setPage} />
      <Dialog title="Save an operation" open={adding} onClose={() => setAdding(false)}>
        {adding && (
          <AddOperationForm
            onAdded={(op) => {
              setAdding(false);
              setNotice(`Saved “${op.name ?? op.hash.slice(0, 12)}” (hash ${op.hash.slice(0, 12)}…).`);
              reload();
            }}
          />
        )}
      </Dialog>
      <ConfirmDialog
        title="Remove this operation?"
        open={!!removing}
        onClose={() => setRemoving(null)}
        confirm="Remove operation"
        onConfirm={() => void confirmRemove()}
        busy={removed.fetching}
        error={removed.error}
      >
        <p>
          Remove <strong>{removing?.name ?? removing?.hash}</strong>? While saved operations only is on, the storefront can no longer run
          it.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** The key in a read-only field with its copy button: it is public, so always shown in full. */
function KeyValue({ item }: { item: Key }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(item.key);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused: select the key and copy it yourself.');
    }
  };
  return (
    <div className="copy-row">
      <input
        readOnly
        value={item.key}
        size={item.key.length}
        aria-label={`Key ${item.name}`}
        onFocus={(e) => e.target.select()}
        className="mono"
      />
      <button type="button" onClick={() => void copy()} aria-label={`Copy ${item.name}`}>
        Copy
      </button>
      <span role="status" className="hint">
        {copied}
      </span>
    </div>
  );
}

/** The publishable keys: created with an optional name, revoked after a confirmation. */
function PublishableKeys({ origins }: { origins: string[] }) {
  const [{ data, error }, refetch] = useQuery({ query: KeysQuery, requestPolicy: 'network-only' });
  const [name, setName] = useState('');
  const [created, create] = useMutation(CreateKey);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [revoked, revoke] = useMutation(RevokeKey);
  const [notice, setNotice] = useState<string | null>(null);
  const errors = fieldErrorsOf(created.error);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const add = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const res = await create({ name: name.trim() || null });
    if (res.data) {
      setNotice(`Created the key “${res.data.create_storefront_key.name}”.`);
      setName('');
      reload();
    }
  };
  const confirmRevoke = async () => {
    if (!revoking) return;
    const res = await revoke({ id: revoking.id });
    if (!res.error) {
      setNotice(`Revoked “${revoking.name}”: pages using it can no longer read the program.`);
      setRevoking(null);
      reload();
    }
  };
  const keys = data?.storefront_keys;
  return (
    <section aria-labelledby="publishable-keys">
      <h2 id="publishable-keys">Publishable keys</h2>
      <p className="hint">
        A storefront page reads the public program (rewards, ways to earn, tiers, the referral program) with one of these keys. They are not
        secrets: put them in your pages’ source.{' '}
        {origins.length
          ? `A key works only from the allowed origins above (${origins.join(', ')}).`
          : 'A key works only from the allowed origins above: add your storefront’s origin first.'}
      </p>
      <Alert tone="success">{notice}</Alert>
      <Alert>{messageOf(error)}</Alert>
      <form onSubmit={add} noValidate className="toolbar-row">
        <TextField
          label="Key name"
          hint="Optional: where it is used, e.g. “Theme”"
          value={name}
          onChange={(e) => setName(e.target.value)}
          errors={errors.name ?? errors.key}
        />
        <button type="submit" disabled={created.fetching}>
          Create key
        </button>
      </form>
      {!errors.name && !errors.key && <Alert>{messageOf(created.error)}</Alert>}
      <DataTable
        caption="Publishable keys"
        rows={keys}
        rowKey={(k) => k.id}
        empty="No publishable key yet."
        rowClass={(k) => (k.revoked_at ? 'muted' : undefined)}
        columns={[
          { header: 'Name', rowHeader: true, cell: (k) => k.name },
          { header: 'Key', cell: (k) => (k.revoked_at ? <span className="mono">{k.key}</span> : <KeyValue item={k} />) },
          {
            header: 'State',
            cell: (k) =>
              k.revoked_at ? (
                <Badge tone="ended" mark="■" label={`Revoked ${formatDateTime(k.revoked_at)}`} />
              ) : (
                <Badge tone="active" mark="●" label="Live" />
              ),
          },
          { header: 'Created', cell: (k) => formatDateTime(k.created_at), className: () => 'nowrap' },
          {
            header: 'Actions',
            hiddenHeader: true,
            className: () => 'row-actions',
            cell: (k) =>
              !k.revoked_at && (
                <button type="button" className="danger" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>
                  Revoke
                </button>
              ),
          },
        ]}
      />
      <ConfirmDialog
        title="Revoke this key?"
        open={!!revoking}
        onClose={() => setRevoking(null)}
        confirm="Revoke key"
        onConfirm={() => void confirmRevoke()}
        busy={revoked.fetching}
        error={revoked.error}
      >
        <p>
          Revoke <strong>{revoking?.name}</strong>? <strong>Every page using it stops reading the program at once.</strong> This cannot be
          undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function ShopperSessions() {
  const [asking, setAsking] = useState(false);
  const [result, rotate] = useMutation(RotateSessions);
  const [notice, setNotice] = useState<string | null>(null);
  const confirm = async () => {
    const res = await rotate({});
    if (res.data) {
      setNotice(`Every shopper was signed out at ${formatDateTime(res.data.rotate_customer_session_secret.rotated_at)}.`);
      setAsking(false);
    }
  };
  return (
    <section className="card" aria-labelledby="sessions">
      <h2 id="sessions">Shopper sessions</h2>
      <p className="hint">
        Shopper sessions are signed with a secret only the service knows. If it may have leaked, replace it: every session signed with the
        old one ends.
      </p>
      <Alert tone="success">{notice}</Alert>
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Rotate the session secret…
      </button>
      <ConfirmDialog
        title="Sign every shopper out?"
        open={asking}
        onClose={() => setAsking(false)}
        confirm="Rotate and sign everyone out"
        onConfirm={() => void confirm()}
        busy={result.fetching}
        error={result.error}
      >
        <p>
          A new session secret is made now. <strong>Every shopper signed in on your storefront is signed out</strong> and must sign in
          again. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

export function Storefront() {
  const [{ data, error }] = useQuery({ query: SettingsQuery });
  const [saved, setSaved] = useState<number>();
  const settings = data?.storefront_settings;
  return (
    <>
      <PageTitle>Storefront</PageTitle>
      <IntegrationsNav />
      <p className="lead">
        What your headless storefront may do from a shopper’s browser.
        {settings?.updated_at && ` Last changed ${formatDateTime(settings.updated_at)}.`}
      </p>
      <Alert>{messageOf(error)}</Alert>
      {settings ? (
        <>
          <div className="grid two-cols">
            <Origins settings={settings} />
            <PersistedOnly settings={settings} saved={saved} />
          </div>
          <PublishableKeys origins={settings.allowed_origins} />
          <Operations onCount={setSaved} />
          <ShopperSessions />
        </>
      ) : (
        !error && <p>Loading…</p>
      )}
    </>
  );
}
