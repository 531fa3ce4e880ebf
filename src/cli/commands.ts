// The operator commands. Each takes parsed options and an open database and returns a
// JSON-able result; src/cli/index.ts prints it (as text, or as one JSON document).
import { readFile } from 'node:fs/promises';
import type { Db } from '../db/client.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/access/api-keys.js';
import { demoProgram } from './seed/demo-program.js';
import { expirePoints } from '../domain/ledger/expiry.js';
import { validationError } from '../domain/shared/errors.js';
import { createMerchant, merchantBySlug, rotateAdminToken } from '../domain/merchants/merchants.js';
import { importProgram } from '../domain/program-import/program-import.js';
import { type KeyType, keyTypes } from '../domain/access/scopes.js';
import { rotateSessionSecret, storefrontSettings, updateStorefrontSettings } from '../domain/storefront/storefront-settings.js';

export class UsageError extends Error {}

export interface Options {
  positionals: string[];
  values: { merchant?: string; slug?: string; name?: string; type?: string; scope?: string[]; file?: string; origin?: string[] };
}

export interface Command {
  usage: string;
  summary: string;
  /** Whether the command needs the database (all but help). */
  run(db: Db, opts: Options, applied: string[]): Promise<unknown>;
  /** Text for people; JSON output prints the result itself. */
  text(result: any): string;
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`missing --${flag}`);
  return value;
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

export const commands: Record<string, Command> = {
  migrate: {
    usage: 'migrate',
    summary: 'Apply pending database migrations',
    run: async (_db, _opts, applied) => ({ applied }),
    text: (r: { applied: string[] }) =>
      r.applied.length ? `Applied: ${r.applied.join(', ')}` : 'Database is up to date.',
  },
  'merchants create': {
    usage: 'merchants create --slug <slug> [--name <name>]',
    summary: 'Create a merchant (prints its admin token once)',
    run: (db, { values }) => createMerchant(db, { slug: required(values.slug, 'slug'), name: values.name }),
    text: (m) => `Merchant ${m.slug} (${m.id}) created.\nAdmin token (shown once): ${m.admin_token}`,
  },
  'merchants token': {
    usage: 'merchants token --merchant <slug>',
    summary: "Rotate a merchant's admin token (prints the new one once)",
    run: (db, { values }) => rotateAdminToken(db, required(values.merchant, 'merchant')),
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
      const key = await createApiKey(db, { merchantId: merchant.id, type: type as KeyType, name: values.name, levels });
      return { id: key.id, key: key.key, name: key.name, type: key.type, prefix: key.prefix, scopes: key.scopes };
    },
    text: (k) => `API key ${k.id} (${k.type}) created with scopes: ${k.scopes.join(' ')}\nKey (shown once): ${k.key}`,
  },
  'keys list': {
    usage: 'keys list --merchant <slug>',
    summary: "List a merchant's API keys (never the keys themselves)",
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      return listApiKeys(db, merchant.id);
    },
    text: (keys: Awaited<ReturnType<typeof listApiKeys>>) =>
      keys.length
        ? keys
            .map((k) => `${k.id}  ${k.prefix}…  ${k.type.padEnd(9)}  ${k.revoked_at ? 'revoked' : 'active '}  ${k.name}  [${k.scopes.join(' ')}]`)
            .join('\n')
        : 'No API keys.',
  },
  'keys revoke': {
    usage: 'keys revoke --merchant <slug> <id>',
    summary: 'Revoke an API key (effective on its next request)',
    async run(db, { values, positionals }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      const id = positionals[0];
      if (!id) throw new UsageError('missing the key id');
      return revokeApiKey(db, merchant.id, id);
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
  import: {
    usage: 'import --merchant <slug> --file <program.json>',
    summary: 'Import a loyalty program (all or nothing)',
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
      return importProgram(db, merchant.id, data);
    },
    text: (s) => `Imported: ${Object.entries(s).map(([k, v]) => `${k}=${v}`).join(', ')}`,
  },
  seed: {
    usage: 'seed --merchant <slug>',
    summary: 'Load the demo program into a merchant',
    async run(db, { values }) {
      const merchant = await merchantBySlug(db, required(values.merchant, 'merchant'));
      return importProgram(db, merchant.id, demoProgram());
    },
    text: (s) => `Seeded: ${Object.entries(s).map(([k, v]) => `${k}=${v}`).join(', ')}`,
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
};
