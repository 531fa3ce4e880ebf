// The typed clients of docs/graphql.md, generated from the committed documents (npm run
// clients:generate: swagger-typescript-api for openapi.json, gql.tada for schema.graphql),
// compile with the project's TypeScript against code that uses them, and types that do not
// match the API are refused. The REST client also runs against the service.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateClients } from '../../scripts/generate-clients.js';
import { client, newCustomer, newKey, newMerchant, testApp } from '../harness.js';

const root = path.resolve(import.meta.dirname, '../..');
// inside node_modules: the generated files resolve gql.tada from the project
const dir = path.join(root, 'node_modules/.cache/loyalty-test/typed-clients');

const files = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2023',
      lib: ['ES2023', 'DOM'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      skipLibCheck: false,
      types: [],
    },
    include: ['*.ts'],
  }),
  'use-rest.ts': `
import { Api, type Balance, type Customer } from './loyalty-api.ts';

export async function balanceOf(api: Api<unknown>, customerId: string): Promise<number> {
  const res = await api.customers.customerBalanceQuery({ customer_id: customerId });
  const points: number = res.data.data.points_balance;
  // @ts-expect-error: the balance has no such field
  void res.data.data.no_such_field;
  // @ts-expect-error: customer_id is a string
  await api.customers.customerBalanceQuery({ customer_id: 42 });
  return points;
}

export const email = (c: Customer): string => c.email;
// dates are strings on the wire (ISO 8601), and a field the API may send as null is typed so
export const created = (c: Customer): string => c.created_at;
export const birthday = (c: Customer): string | null => c.birthday;
// @ts-expect-error: a customer may have no tier
export const tierName = (c: Customer): string => c.tier.name;
export const expiry = (b: Balance): string | undefined => b.next_expiry?.expires_at;
// @ts-expect-error: next_expiry may be null
export const expiryPoints = (b: Balance): number => b.next_expiry.points;

export async function credit(api: Api<unknown>, customerId: string): Promise<'credit' | 'debit'> {
  const res = await api.customers.createCustomerTransactionMutation(
    { customer_id: customerId },
    { points: 5, description: 'Thanks' },
    { headers: { 'Idempotency-Key': 'typed-client-1' } },
  );
  return res.data.data.type;
}
`,
  'use-graphql.ts': `
import { graphql, type ResultOf, type VariablesOf } from './graphql.ts';

export const Balance = graphql(\`
  query Balance($id: String) {
    customer_balance(customer_id: $id) { data { customer_id points_balance next_expiry { expires_at } } }
  }
\`);

export const points = (r: ResultOf<typeof Balance>): number => r.customer_balance.data.points_balance;
export const expiry = (r: ResultOf<typeof Balance>): string | undefined => r.customer_balance.data.next_expiry?.expires_at;
export const variables: VariablesOf<typeof Balance> = { id: 'c-1' };
// @ts-expect-error: not selected, so not in the result
export const tier = (r: ResultOf<typeof Balance>) => r.customer_balance.data.points_earned;
// @ts-expect-error: $id is a String
export const wrong: VariablesOf<typeof Balance> = { id: 42 };
`,
};

function tsc() {
  return spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
}

beforeAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await generateClients(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
}, 120_000);

describe('typed clients from openapi.json and schema.graphql', () => {
  it('compile with code that uses them (tsc)', () => {
    const result = tsc();
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);

  it('refuse code that does not match the API', () => {
    writeFileSync(
      path.join(dir, 'use-wrong.ts'),
      `import { graphql, type ResultOf } from './graphql.ts';\n` +
        `const Q = graphql('{ customer_balance(customer_id: "x") { data { no_such_field } } }');\n` +
        `export const n = (r: ResultOf<typeof Q>): number => r.customer_balance.data.no_such_field;\n` +
        `import type { Balance } from './loyalty-api.ts';\nexport const b: Balance = { customer_id: 1 };\n`,
    );
    try {
      const result = tsc();
      expect(result.status).not.toBe(0);
      // line 3: a field the schema lacks types as unknown; line 5: customer_id is a string
      expect(result.stdout).toMatch(/use-wrong\.ts\(3,\d+\): error TS2322: Type 'unknown'/);
      expect(result.stdout).toMatch(/use-wrong\.ts\(5,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
    } finally {
      rmSync(path.join(dir, 'use-wrong.ts'));
    }
  }, 120_000);

  it('the REST client talks to the service', async () => {
    const app = await testApp();
    const merchant = await newMerchant(app, 'typed');
    const key = await newKey(app, merchant.id);
    const customer = await newCustomer(app, merchant.id, { points: 75 });
    const { Api } = await import(path.join(dir, 'loyalty-api.ts'));
    const api = new Api({
      baseUrl: 'http://loyalty.test/v1',
      baseApiParams: { headers: { authorization: `Bearer ${key}` } },
      customFetch: (url: string, init?: RequestInit) => app.fetch(new URL(url).pathname + new URL(url).search, init),
    });
    const res = await api.customers.customerBalanceQuery({ customer_id: customer.platformId });
    expect(res.data.data.points_balance).toBe(75);
    // the same answer as a plain request
    const plain = await client(app, key).rest('GET', `/v1/customers/balance?customer_id=${customer.platformId}`);
    expect(res.data).toEqual(plain.body);
    // a POST with its query parameter, body and Idempotency-Key, as generated
    const credited = await api.customers.createCustomerTransactionMutation(
      { customer_id: customer.platformId },
      { points: 5, description: 'Thanks' },
      { headers: { 'Idempotency-Key': 'typed-client-1' } },
    );
    expect(credited.status).toBe(201);
    expect(credited.data.data).toMatchObject({ points: 5, type: 'credit' });
  });
});
