// The operator commands, one table (command.ts says what a command is; finance-commands.ts adds
// the liability reports). Each takes parsed options and an open database and returns a JSON-able
// result; src/cli/index.ts prints it (as text, or as one JSON document).
import { readFile, writeFile } from 'node:fs/promises';
import { loadConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { distribute, distributeText, hasCitus } from '../db/cluster.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/access/api-keys.js';
import { type KeyType, keyTypes } from '../domain/access/scopes.js';
import { audited, type Change } from '../domain/audit/audit.js';
import { payCalendarRules } from '../domain/earning/calendar-rules.js';
import { expirePoints } from '../domain/ledger/expiry.js';
import { approvePendingPoints } from '../domain/ledger/pending.js';
import { createMerchant, merchantBySlug, rotateAdminToken, updateMerchantSettings } from '../domain/merchants/merchants.js';
import { eraseCustomer } from '../domain/privacy/erasure.js';
import { exportCustomer } from '../domain/privacy/export.js';
import { importProgram } from '../domain/program-import/program-import.js';
import { validationError } from '../domain/shared/errors.js';
import { apiFields } from '../domain/shared/model-fields.js';
import { createStorefrontKey, listStorefrontKeys, revokeStorefrontKey } from '../domain/storefront/storefront-keys.js';
import { rotateSessionSecret, storefrontSettings, updateStorefrontSettings } from '../domain/storefront/storefront-settings.js';
import { rejudgeTiers } from '../domain/tiers/rejudge.js';
import { listDeliveries, pingEndpoint, redeliver } from '../domain/webhooks/deliveries.js';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  replacedSecretSignsUntil,
  rotateSecret,
  updateEndpoint,
} from '../domain/webhooks/endpoints.js';
import type { ApiKey, Prisma, StorefrontKey, WebhookEndpoint } from '../generated/prisma/client.js';
import { type Command, moment, type Options, required, UsageError } from './command.js';
import { financeCommands } from './finance-commands.js';
import { demoProgram } from './seed/demo-program.js';

/** A change made from the CLI, recorded in the merchant's audit log like the admin API's. */
const byCli =
  (db: Db, change: Omit<Change, 'actor'>) =>
  <T>(run: () => Promise<T>) =>
    audited(db, { ...change, actor: 'cli' }, run);

/** The --merchant and the id the command names (`what`: key, customer). */
async function merchantAnd(db: Db, values: Options['values'], positionals: string[], what: string) {
  const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
  const id = positionals[0];
  if (!id) throw new UsageError(`missing the ${what} id`);
  return { merchant, id };
}

function parseScopeFlags(flags: string[] = []): Record<string, string> {
  const levels: Record<string, string> = {};
  for (const flag of flags) {
    const match = /^([a-z_]+)=(none|read|write)$/.exec(flag);
    if (!match) throw new UsageError(`--scope takes <name>=none|read|write, got "${flag}"`);
    levels[match[1]!] = match[2]!;
  }
  return levels;
}

function storefrontText(s: Awaited<ReturnType<typeof storefrontSettings>>) {
  return `Allowed origins: ${s.allowed_origins.join(' ') || '(none)'}\nPersisted operations only: ${s.persisted_operations_only}`;
}

function positional(positionals: string[], what: string): string {
  const value = positionals[0];
  if (!value) throw new UsageError(`missing the ${what}`);
  return value;
}

const allowPrivateUrls = () => loadConfig().WEBHOOK_ALLOW_PRIVATE_URLS;
const eventTypes = (events?: string[]) =>
  events
    ?.flatMap((e) => e.split(','))
    .map((e) => e.trim())
    .filter(Boolean);

// The views the CLI prints (as text, or whole with --json): the fields listed, in the model's
// order, under the API's names; a column not listed (a secret, a hash, the merchant) is not
// printed.
const apiKeyView = (k: ApiKey) => apiFields(k, ['id', 'name', 'type', 'prefix', 'scopes', 'createdAt', 'lastUsedAt', 'revokedAt']);
type ApiKeyView = ReturnType<typeof apiKeyView>;
const storefrontKeyView = (k: StorefrontKey) => apiFields(k, ['id', 'name', 'key', 'createdAt', 'revokedAt']);
type StorefrontKeyView = ReturnType<typeof storefrontKeyView>;
const endpointView = (e: WebhookEndpoint) => ({
  ...apiFields(e, ['id', 'url', 'description', 'eventTypes']),
  // the replaced secret's overlap only while that secret still signs
  previous_secret_expires_at: replacedSecretSignsUntil(e),
  ...apiFields(e, ['enabled', 'disabledReason', 'disabledAt', 'failingSince', 'createdAt', 'updatedAt']),
});
/** An endpoint whose secret was just set (created, rotated): the secret is shown this once. */
const endpointWithSecret = (e: WebhookEndpoint) => ({ ...endpointView(e), secret: e.secret });
type Delivery = Prisma.WebhookDeliveryGetPayload<{ include: { event: { select: { type: true } } } }>;
const deliveryView = (d: Delivery) => ({
  ...apiFields(d, [
    'id',
    'endpointId',
    'eventId',
    'status',
    'attempts',
    'lastAttemptAt',
    'lastStatus',
    'lastResponse',
    'deliveredAt',
    'createdAt',
  ]),
  event_type: d.event.type,
});
type DeliveryView = ReturnType<typeof deliveryView>;

type Endpoint = ReturnType<typeof endpointView>;
const endpointLine = (e: Endpoint) =>
  `${e.id}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}  [${e.event_types.length ? e.event_types.join(' ') : 'all events'}]${e.disabled_reason ? `  (${e.disabled_reason})` : ''}`;

/**
 * A calendar job as a command: run at `--at` (default now), for every merchant or only
 * `--merchant <slug>`.
 */
function calendarJob<T>(
  usage: string,
  summary: string,
  label: string,
  job: (db: Db, at: Date, opts: { merchantId?: string }) => Promise<T>,
): Command {
  return {
    usage,
    summary,
    async run(db, { values }) {
      const at = moment(values.at);
      return job(db, at, values.merchant ? { merchantId: (await merchantBySlug(db, values.merchant)).id } : {});
    },
    text: (r) => `${label}: ${JSON.stringify(r)}`,
  };
}

export const commands: Record<string, Command> = {
  migrate: {
    usage: 'migrate',
    summary: 'Apply pending database migrations (on Citus, then distribute the tables they added)',
    // connect() distributes after applying migrations; on Citus this run also hands over what
    // is left (migrations applied elsewhere) and reports the layout
    run: async (db, _opts, applied) => ({ applied, ...((await hasCitus(db)) && { cluster: await distribute(db) }) }),
    text: (r: { applied: string[]; cluster?: Awaited<ReturnType<typeof distribute>> }) =>
      [
        r.applied.length ? `Applied: ${r.applied.join(', ')}` : 'Database is up to date.',
        ...(r.cluster ? [distributeText(r.cluster)] : []),
      ].join('\n'),
  },
  'cluster distribute': {
    usage: 'cluster distribute',
    summary: 'On Citus: reference and distributed tables, the delegated ledger function (idempotent)',
    run: (db) => distribute(db),
    text: distributeText,
  },
  'merchants create': {
    usage: 'merchants create --slug <slug> [--name <name>] [--timezone <IANA zone>]',
    summary: 'Create a merchant (prints its admin token once); time zone default UTC',
    run: (db, { values }) => createMerchant(db, { slug: required(values.slug, 'slug'), name: values.name, timezone: values.timezone }),
    text: (m) => `Merchant ${m.slug} (${m.id}, ${m.timezone}) created.\nAdmin token (shown once): ${m.admin_token}`,
  },
  'merchants settings': {
    usage: 'merchants settings --merchant <slug> [--name <name>] [--timezone <IANA zone>] [--points-pending-days <days>]',
    summary: "Change a merchant's name, time zone (it governs periods that start after) or pending days for order points",
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      const days = values['points-pending-days'];
      if (days !== undefined && !/^\d{1,9}$/.test(days)) throw new UsageError('--points-pending-days takes a whole number of days');
      const patch = {
        ...(values.name !== undefined && { name: values.name }),
        ...(values.timezone !== undefined && { timezone: values.timezone }),
        ...(days !== undefined && { points_pending_days: Number(days) }),
      };
      if (Object.keys(patch).length === 0) throw new UsageError('give --name, --timezone and/or --points-pending-days');
      const m = await updateMerchantSettings(db, merchant.id, patch);
      return {
        id: m.id,
        slug: m.slug,
        name: m.name,
        currency: m.currency,
        timezone: m.timezone,
        points_expiry_days: m.pointsExpiryDays,
        points_pending_days: m.pointsPendingDays,
      };
    },
    text: (m) => `Merchant ${m.slug}: name ${m.name}, time zone ${m.timezone}, points pending ${m.points_pending_days} days.`,
  },
  'merchants token': {
    usage: 'merchants token --merchant <slug>',
    summary: "Rotate a merchant's admin token (prints the new one once)",
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      const change = { merchantId: merchant.id, action: 'rotate_admin_token', type: 'Merchant', id: null, args: {} };
      return byCli(db, change)(() => rotateAdminToken(db, merchant.slug));
    },
    text: (m) => `New admin token for ${m.slug} (shown once): ${m.admin_token}`,
  },
  'keys create': {
    usage: `keys create --merchant <slug> --type ${keyTypes.join('|')} [--scope <name>=read|write]... [--name <label>]`,
    summary: 'Create an API key (prints the key once)',
    async run(db, { values }) {
      const type = required(values.type, 'type');
      if (!keyTypes.includes(type as KeyType)) throw new UsageError(`--type must be one of ${keyTypes.join(', ')}`);
      if (type !== 'custom' && values.scope?.length) throw new UsageError('--scope is only for --type custom');
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      const levels = parseScopeFlags(values.scope);
      if (type === 'custom' && Object.keys(levels).length === 0) {
        throw validationError({ scopes: ['a custom key needs at least one --scope <name>=read|write'] });
      }
      const change = {
        merchantId: merchant.id,
        action: 'create_api_key',
        type: 'ApiKey',
        id: null,
        args: { type, name: values.name, levels },
      };
      const key = await byCli(
        db,
        change,
      )(() => createApiKey(db, { merchantId: merchant.id, type: type as KeyType, name: values.name, levels }));
      return apiFields(key, ['id', 'key', 'name', 'type', 'prefix', 'scopes']);
    },
    text: (k) => `API key ${k.id} (${k.type}) created with scopes: ${k.scopes.join(' ')}\nKey (shown once): ${k.key}`,
  },
  'keys list': {
    usage: 'keys list --merchant <slug>',
    summary: "List a merchant's API keys (never the keys themselves)",
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      return (await listApiKeys(db, merchant.id)).map(apiKeyView);
    },
    text: (keys: ApiKeyView[]) =>
      keys.length
        ? keys
            .map(
              (k) =>
                `${k.id}  ${k.prefix}…  ${k.type.padEnd(9)}  ${k.revoked_at ? 'revoked' : 'active '}  ${k.name}  [${k.scopes.join(' ')}]`,
            )
            .join('\n')
        : 'No API keys.',
  },
  'keys revoke': {
    usage: 'keys revoke --merchant <slug> <id>',
    summary: 'Revoke an API key (effective on its next request)',
    async run(db, { values, positionals }) {
      const { merchant, id } = await merchantAnd(db, values, positionals, 'key');
      const key = await byCli(db, { merchantId: merchant.id, action: 'revoke_api_key', type: 'ApiKey', id, args: { id } })(() =>
        revokeApiKey(db, merchant.id, id),
      );
      return apiFields(key, ['id', 'revokedAt']);
    },
    text: (r) => `API key ${r.id} revoked at ${new Date(r.revoked_at).toISOString()}.`,
  },
  'storefront show': {
    usage: 'storefront show --merchant <slug>',
    summary: "Show a merchant's storefront settings (allowed origins, persisted-operations-only mode)",
    async run(db, { values }) {
      return storefrontSettings(db, (await merchantBySlug(db, required(values.merchant, 'merchant'))).id);
    },
    text: (s) => storefrontText(s),
  },
  'storefront origins': {
    usage: 'storefront origins --merchant <slug> [--origin <https://shop.example.com>]...',
    summary: 'Set the origins whose pages may call /graphql with a customer session (none: no origin)',
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      return updateStorefrontSettings(db, merchant.id, { allowed_origins: values.origin ?? [] });
    },
    text: (s) => storefrontText(s),
  },
  'storefront rotate-secret': {
    usage: 'storefront rotate-secret --merchant <slug>',
    summary: "Rotate a merchant's customer session signing secret (ends every customer session)",
    async run(db, { values }) {
      return rotateSessionSecret(db, (await merchantBySlug(db, required(values.merchant, 'merchant'))).id);
    },
    text: (r) => `Customer sessions signing secret rotated at ${new Date(r.rotated_at).toISOString()}; every earlier session has ended.`,
  },
  'storefront key-create': {
    usage: 'storefront key-create --merchant <slug> [--name <label>]',
    summary: 'Create a publishable storefront key (reads the public program from the storefront origins)',
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      const change = {
        merchantId: merchant.id,
        action: 'create_storefront_key',
        type: 'StorefrontKey',
        id: null,
        args: { name: values.name },
      };
      return storefrontKeyView(await byCli(db, change)(() => createStorefrontKey(db, merchant.id, { name: values.name })));
    },
    text: (k: StorefrontKeyView) => `Publishable storefront key ${k.id} created: ${k.key}`,
  },
  'storefront keys': {
    usage: 'storefront keys --merchant <slug>',
    summary: "List a merchant's publishable storefront keys (in full: they are not secrets)",
    async run(db, { values }) {
      return (await listStorefrontKeys(db, (await merchantBySlug(db, required(values.merchant, 'merchant'))).id)).map(storefrontKeyView);
    },
    text: (keys: StorefrontKeyView[]) =>
      keys.length
        ? keys.map((k) => `${k.id}  ${k.key}  ${k.revoked_at ? 'revoked' : 'active '}  ${k.name}`).join('\n')
        : 'No publishable storefront keys.',
  },
  'storefront key-revoke': {
    usage: 'storefront key-revoke --merchant <slug> <id>',
    summary: 'Revoke a publishable storefront key (refused from its next request)',
    async run(db, { values, positionals }) {
      const { merchant, id } = await merchantAnd(db, values, positionals, 'key');
      const change = { merchantId: merchant.id, action: 'revoke_storefront_key', type: 'StorefrontKey', id, args: { id } };
      return storefrontKeyView(await byCli(db, change)(() => revokeStorefrontKey(db, merchant.id, id)));
    },
    text: (k: StorefrontKeyView) => `Publishable storefront key ${k.id} revoked at ${new Date(k.revoked_at!).toISOString()}.`,
  },
  import: {
    usage: 'import --merchant <slug> --file <program.json> [--award-points]',
    summary: 'Import a loyalty program (all or nothing), its past orders as history (with --award-points: earning as late orders)',
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      const path = required(values.file, 'file');
      const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${path}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
      });
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (err) {
        throw validationError({ file: [`is not valid JSON: ${(err as Error).message}`] });
      }
      return importProgram(db, merchant.id, data, { awardPoints: values['award-points'] ?? false });
    },
    text: (s) =>
      `Imported: ${Object.entries(s)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
  },
  seed: {
    usage: 'seed --merchant <slug>',
    summary: 'Load the demo program into a merchant',
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      return importProgram(db, merchant.id, demoProgram());
    },
    text: (s) =>
      `Seeded: ${Object.entries(s)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
  },
  'customers export': {
    usage: 'customers export --merchant <slug> <id> [--file <out.json>]',
    summary: 'Everything held about one customer (uuid or platform id), as one JSON document',
    async run(db, { values, positionals }) {
      const { merchant, id } = await merchantAnd(db, values, positionals, 'customer');
      const document = await exportCustomer(db, merchant.id, id);
      if (!values.file) return document;
      await writeFile(values.file, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
      return { file: values.file, customer_id: (document.customer as { id: string }).id };
    },
    text: (r) => (r.file ? `Export of customer ${r.customer_id} written to ${r.file}.` : JSON.stringify(r, null, 2)),
  },
  'customers erase': {
    usage: 'customers erase --merchant <slug> <id>',
    summary: "Erase a customer's personal data (keeps the ledger's amounts; audited); safe to re-run by uuid",
    async run(db, { values, positionals }) {
      const { merchant, id } = await merchantAnd(db, values, positionals, 'customer');
      const change = { merchantId: merchant.id, action: 'erase_customer', type: 'Customer', id, args: { id } };
      return byCli(db, change)(() => eraseCustomer(db, merchant.id, id));
    },
    text: (r) =>
      r.erased_now
        ? `Customer ${r.id} erased at ${new Date(r.erased_at).toISOString()} (balance kept: ${r.points_balance}).`
        : `Customer ${r.id} had already been erased at ${new Date(r.erased_at).toISOString()}.`,
  },
  expire: {
    usage: 'expire [--merchant <slug>]',
    summary: 'Expire inactive balances (merchants with points expiry on); safe to re-run',
    async run(db, { values }) {
      const merchantId = values.merchant ? (await merchantBySlug(db, values.merchant)).id : undefined;
      return expirePoints(db, { merchantId });
    },
    text: (r) => `Expiry: ${JSON.stringify(r)}`,
  },
  'approve-pending': {
    usage: 'approve-pending',
    summary: "Credit pending order points older than their merchant's points_pending_days; safe to re-run",
    run: (db) => approvePendingPoints(db),
    text: (r) => `Approved: ${r.approved} pending activities, ${r.points} points, ${r.customers} customers`,
  },
  worker: {
    usage: 'worker',
    summary: 'Run only the job workers (webhook deliveries, daily expiry) until SIGTERM',
    // run by src/cli/worker.ts: it never returns a result
    run: async () => {
      throw new UsageError('worker runs by itself');
    },
    text: () => '',
  },
  'webhooks create': {
    usage: 'webhooks create --merchant <slug> --url <https://…> [--event <type>]... [--description <text>]',
    summary: 'Register a webhook endpoint (prints its signing secret once; no --event: every type)',
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      const endpoint = await createEndpoint(
        db,
        merchant.id,
        { url: required(values.url, 'url'), event_types: eventTypes(values.event), description: values.description },
        allowPrivateUrls(),
      );
      return endpointWithSecret(endpoint);
    },
    text: (e) => `${endpointLine(e)}\nSigning secret (shown once): ${e.secret}`,
  },
  'webhooks list': {
    usage: 'webhooks list --merchant <slug>',
    summary: "List a merchant's webhook endpoints (never their secrets)",
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      return (await listEndpoints(db, merchant.id)).map(endpointView);
    },
    text: (list: Endpoint[]) => (list.length ? list.map(endpointLine).join('\n') : 'No webhook endpoints.'),
  },
  'webhooks update': {
    usage: 'webhooks update --merchant <slug> <id> [--url <url>] [--event <type>]... [--description <text>] [--enable|--disable]',
    summary: 'Change a webhook endpoint; --enable also clears why it was disabled',
    async run(db, { values, positionals }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      if (values.enable && values.disable) throw new UsageError('--enable or --disable, not both');
      const endpoint = await updateEndpoint(
        db,
        merchant.id,
        positional(positionals, 'endpoint id'),
        {
          url: values.url,
          event_types: eventTypes(values.event),
          description: values.description,
          enabled: values.enable ? true : values.disable ? false : undefined,
        },
        allowPrivateUrls(),
      );
      return endpointView(endpoint);
    },
    text: endpointLine,
  },
  'webhooks delete': {
    usage: 'webhooks delete --merchant <slug> <id>',
    summary: 'Delete a webhook endpoint and its deliveries',
    async run(db, { values, positionals }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      return endpointView(await deleteEndpoint(db, merchant.id, positional(positionals, 'endpoint id')));
    },
    text: (e) => `Deleted ${e.id} (${e.url}).`,
  },
  'webhooks deliveries': {
    usage: 'webhooks deliveries --merchant <slug> [--endpoint <id>] [--status pending|succeeded|failed|cancelled] [--page <n>]',
    summary: 'List webhook deliveries, newest first: status, attempts, last answer',
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      const status = values.status as 'pending' | 'succeeded' | 'failed' | 'cancelled' | undefined;
      if (status && !['pending', 'succeeded', 'failed', 'cancelled'].includes(status)) {
        throw new UsageError('--status must be pending, succeeded, failed or cancelled');
      }
      const page = await listDeliveries(
        db,
        merchant.id,
        { endpointId: values.endpoint, status },
        { page: values.page ? Number(values.page) : undefined },
      );
      return { ...page, data: page.data.map(deliveryView) };
    },
    text: (r: { data: DeliveryView[] }) =>
      r.data.length
        ? r.data
            .map(
              (d) =>
                `${d.id}  ${d.event_type.padEnd(18)}  ${d.status.padEnd(9)}  attempts=${d.attempts}  last=${d.last_status ?? '-'} ${(d.last_response ?? '').slice(0, 60)}`,
            )
            .join('\n')
        : 'No deliveries.',
  },
  'webhooks redeliver': {
    usage: 'webhooks redeliver --merchant <slug> <delivery-id>',
    summary: 'Send a delivery again (the same event id and body)',
    async run(db, { values, positionals }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      return deliveryView(await redeliver(db, merchant.id, positional(positionals, 'delivery id')));
    },
    text: (d) => `Delivery ${d.id} queued again.`,
  },
  'webhooks rotate-secret': {
    usage: 'webhooks rotate-secret --merchant <slug> <id> [--overlap-hours <n>]',
    summary:
      'Give an endpoint a new signing secret (printed once); the old one keeps signing too for --overlap-hours (default 24, 0 to 168)',
    async run(db, { values, positionals }) {
      const { merchant, id } = await merchantAnd(db, values, positionals, 'endpoint');
      const hours = values['overlap-hours'];
      if (hours !== undefined && !/^\d+$/.test(hours)) throw new UsageError('--overlap-hours takes a whole number of hours');
      const endpoint = await byCli(db, {
        merchantId: merchant.id,
        action: 'rotate_webhook_secret',
        type: 'WebhookEndpoint',
        id,
        args: { id, overlap_hours: hours },
      })(() => rotateSecret(db, merchant.id, id, { overlap_hours: hours === undefined ? undefined : Number(hours) }));
      return endpointWithSecret(endpoint);
    },
    text: (e) =>
      `${endpointLine(e)}\nNew signing secret (shown once): ${e.secret}` +
      (e.previous_secret_expires_at
        ? `\nThe previous secret also signs until ${e.previous_secret_expires_at.toISOString()}.`
        : '\nThe previous secret no longer signs.'),
  },
  'webhooks ping': {
    usage: 'webhooks ping --merchant <slug> <id>',
    summary: 'Send a webhook.ping event to an endpoint now; prints its delivery (see webhooks deliveries)',
    async run(db, { values, positionals }) {
      const { merchant, id } = await merchantAnd(db, values, positionals, 'endpoint');
      const change = { merchantId: merchant.id, action: 'ping_webhook_endpoint', type: 'WebhookDelivery', id, args: { id } };
      return deliveryView(await byCli(db, change)(() => pingEndpoint(db, merchant.id, id)));
    },
    text: (d) => `Delivery ${d.id} of ${d.event_type} (event ${d.event_id}) queued.`,
  },
  'calendar pay': calendarJob(
    'calendar pay [--merchant <slug>] [--at <ISO time>]',
    "Pay birthday and anniversary rules on each merchant's local day; pays once a day however often run",
    'Calendar rules',
    payCalendarRules,
  ),
  'tiers rejudge': calendarJob(
    'tiers rejudge [--merchant <slug>] [--at <ISO time>]',
    'Re-judge customers in calendar-year and rolling tiers whose window turned; safe to re-run',
    'Tiers',
    rejudgeTiers,
  ),
  ...financeCommands,
};
