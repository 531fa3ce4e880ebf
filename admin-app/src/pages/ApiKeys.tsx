// Integrations → REST API keys, as spec section 5: create a Full Access, Read-Only or Custom key
// (Custom: one control per scope with only that scope's levels, as the API lists them), see the
// key once with a copy button, list every key, revoke one after a confirmation. A key's scopes
// never change: to change them, create a new key and revoke the old one.
import { type FormEvent, useId, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { messages } from '../../../src/domain/shared/messages';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../api';
import { formatDateTime, humanize } from '../format';
import { graphql, type ResultOf } from '../graphql';
import { Alert, ConfirmDialog, DataTable, Dialog, FormFooter, PageTitle, SecretShownOnce, SelectField, TextField } from '../ui';
import { IntegrationsNav } from './integrations-nav';

const KeysQuery = graphql(`
  query ApiKeys {
    api_scopes { scope levels description }
    api_keys { id name type prefix created_at last_used_at revoked_at scopes { scope access } }
  }
`);

const CreateKey = graphql(`
  mutation CreateApiKey($type: ApiKeyType!, $name: String, $scopes: [ApiKeyScopeInput!]) {
    create_api_key(type: $type, name: $name, scopes: $scopes) { id key name type prefix }
  }
`);

const RevokeKey = graphql(`
  mutation RevokeApiKey($id: ID!) {
    revoke_api_key(id: $id) { id revoked_at }
  }
`);

type Key = ResultOf<typeof KeysQuery>['api_keys'][number];
type Scope = ResultOf<typeof KeysQuery>['api_scopes'][number];
type KeyType = 'full' | 'read_only' | 'custom';
type Access = 'none' | 'read' | 'write';

const typeLabels: Record<KeyType, string> = { full: 'Full Access', read_only: 'Read-Only', custom: 'Custom' };
const typeHints: Record<KeyType, string> = {
  full: 'The highest level of every scope: read and write where the scope has it.',
  read_only: 'Read access to every scope that can be read.',
  custom: 'Choose, per scope, No Access, Read or Read/Write where the scope allows it.',
};

/** The label of a level in a scope: write is Read/Write where the scope can be read, else Write. */
const levelLabel = (scope: Scope, level: Access) =>
  level === 'none' ? 'No Access' : level === 'read' ? 'Read' : scope.levels.includes('read') ? 'Read/Write' : 'Write';

/** The key's grants as stored (read:<scope> / write:<scope>), spec section 5's notation. */
function Grants({ k }: { k: Key }) {
  const grants = k.scopes.filter((s) => s.access !== 'none');
  if (!grants.length) return <>none</>;
  const chips = (
    <ul className="chips">
      {grants.map((s) => (
        <li key={s.scope} className="mono">
          {s.access}:{s.scope}
        </li>
      ))}
    </ul>
  );
  if (k.type === 'custom') return chips;
  return (
    <details>
      <summary>{k.type === 'full' ? 'Every scope, highest level' : 'Read of every scope'}</summary>
      {chips}
    </details>
  );
}

function CreateKeyForm({ scopes, onCreated }: { scopes: Scope[]; onCreated: (key: ResultOf<typeof CreateKey>['create_api_key']) => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<KeyType>('full');
  const [levels, setLevels] = useState<Record<string, Access>>({});
  const [result, create] = useMutation(CreateKey);
  const [local, setLocal] = useState<FieldErrors>({});
  // the form's own check wins: what it refused was not sent
  const errors = { ...fieldErrorsOf(result.error), ...local };
  const scopesErrorId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const custom = scopes.map((s) => ({ scope: s.scope, access: levels[s.scope] ?? 'none' }));
    const none = type === 'custom' && custom.every((s) => s.access === 'none');
    setLocal(none ? { scopes: [messages.noScope] } : {});
    if (none) return;
    const res = await create({ type, name: name.trim() || null, scopes: type === 'custom' ? custom : null });
    if (res.data) onCreated(res.data.create_api_key);
  };

  return (
    <form onSubmit={submit} noValidate>
      <TextField
        label="Name"
        hint="To recognise the key later, e.g. “Checkout integration”."
        value={name}
        onChange={(e) => setName(e.target.value)}
        errors={errors.name}
      />
      <fieldset className="field">
        <legend>Key type</legend>
        {(Object.keys(typeLabels) as KeyType[]).map((t) => (
          <label key={t} className="radio">
            <input type="radio" name="key-type" value={t} checked={type === t} onChange={() => setType(t)} />
            <span>
              <strong>{typeLabels[t]}</strong> <span className="hint">{typeHints[t]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {type === 'custom' && (
        <fieldset
          className={errors.scopes ? 'field scopes field-invalid' : 'field scopes'}
          aria-describedby={errors.scopes ? scopesErrorId : undefined}
          aria-invalid={errors.scopes ? true : undefined}
        >
          <legend>Access per scope</legend>
          {errors.scopes && (
            <p className="field-error" id={scopesErrorId}>
              {errors.scopes.join(' ')}
            </p>
          )}
          <div className="scope-grid">
            {scopes.map((scope) => (
              <SelectField
                key={scope.scope}
                label={scope.scope}
                hint={scope.description}
                value={levels[scope.scope] ?? 'none'}
                onChange={(e) => setLevels({ ...levels, [scope.scope]: e.target.value as Access })}
                options={(['none', ...scope.levels] as Access[]).map((level) => ({ value: level, label: levelLabel(scope, level) }))}
              />
            ))}
          </div>
        </fieldset>
      )}
      <p className="hint">Scopes cannot be changed after creation: to change them, create a new key and revoke the old one.</p>
      <FormFooter
        errors={errors}
        shown={type === 'custom' ? ['name', 'scopes'] : ['name']}
        error={result.error}
        busy={result.fetching}
        submit="Create key"
      />
    </form>
  );
}

function ShownOnce({ created, onDone }: { created: ResultOf<typeof CreateKey>['create_api_key']; onDone: () => void }) {
  return (
    <SecretShownOnce
      label={`${typeLabels[created.type as KeyType]} key “${created.name}”`}
      value={created.key}
      warning={
        <>
          <strong>Copy this key now: you will not see it again.</strong> Only a fingerprint of it is kept; if it is lost, create a new key.
        </>
      }
      done={{ label: 'I have copied the key', onClick: onDone }}
    />
  );
}

export function ApiKeys() {
  const [{ data, error }, refetch] = useQuery({ query: KeysQuery });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<ResultOf<typeof CreateKey>['create_api_key'] | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [revokeResult, revoke] = useMutation(RevokeKey);
  const [notice, setNotice] = useState<string | null>(null);

  const closeCreate = () => {
    setCreating(false);
    setCreated(null);
    refetch({ requestPolicy: 'network-only' });
  };

  const confirmRevoke = async () => {
    if (!revoking) return;
    const res = await revoke({ id: revoking.id });
    if (!res.error) {
      setNotice(`The key “${revoking.name}” is revoked: its next request is refused.`);
      setRevoking(null);
      refetch({ requestPolicy: 'network-only' });
    }
  };

  return (
    <>
      <PageTitle>REST API keys</PageTitle>
      <IntegrationsNav />
      <p className="lead">
        Keys let your other systems call the REST API (<code>/v1</code>) with <code>Authorization: Bearer &lt;key&gt;</code>. Each key has
        fixed scopes.
      </p>
      <div className="toolbar">
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create API key
        </button>
      </div>
      <Alert tone="success">{notice}</Alert>
      <Alert>{messageOf(error)}</Alert>
      <DataTable<Key>
        caption="API keys, newest first"
        rows={data?.api_keys}
        rowKey={(k) => k.id}
        rowClass={(k) => (k.revoked_at ? 'muted' : undefined)}
        empty="No keys yet."
        columns={[
          { header: 'Name', rowHeader: true, cell: (k) => k.name },
          { header: 'Key', cell: (k) => `${k.prefix}…`, className: () => 'mono' },
          { header: 'Type', cell: (k) => typeLabels[k.type as KeyType] ?? humanize(k.type) },
          { header: 'Scopes', cell: (k) => <Grants k={k} />, className: () => 'scopes-cell' },
          { header: 'Created', cell: (k) => formatDateTime(k.created_at), className: () => 'nowrap' },
          { header: 'Last used', cell: (k) => (k.last_used_at ? formatDateTime(k.last_used_at) : 'Never'), className: () => 'nowrap' },
          { header: 'Status', cell: (k) => (k.revoked_at ? `Revoked ${formatDateTime(k.revoked_at)}` : 'Active') },
          {
            header: 'Actions',
            hiddenHeader: true,
            cell: (k) =>
              !k.revoked_at && (
                <button type="button" className="danger" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>
                  Revoke
                </button>
              ),
          },
        ]}
      />
      <Dialog title={created ? 'Your new API key' : 'Create an API key'} open={creating} onClose={closeCreate}>
        {created ? (
          <ShownOnce created={created} onDone={closeCreate} />
        ) : data ? (
          <CreateKeyForm scopes={data.api_scopes} onCreated={setCreated} />
        ) : (
          <p role="status">Loading…</p>
        )}
      </Dialog>
      <ConfirmDialog
        title="Revoke this key?"
        open={!!revoking}
        onClose={() => setRevoking(null)}
        confirm="Revoke key"
        onConfirm={() => void confirmRevoke()}
        busy={revokeResult.fetching}
        error={revokeResult.error}
      >
        <p>
          Revoke <strong>{revoking?.name}</strong> ({revoking?.prefix}…)? Every request made with it is refused from now on. This cannot be
          undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
