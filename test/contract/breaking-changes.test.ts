// The contract clients pin: no breaking change to schema.graphql or openapi.json
// against the last release (api/released/) unless CHANGELOG.md names it under "Unreleased".
import { describe, expect, it } from 'vitest';
import {
  type BreakingChange,
  breakingGraphQLChanges,
  breakingRestChanges,
  contractFiles,
  unreleasedNotes,
} from '../../scripts/contract.js';

const unlisted = async (changes: BreakingChange[]) => {
  const notes = await unreleasedNotes();
  return changes.filter((c) => !notes.includes(`\`${c.subject}\``)).map((c) => `${c.subject}: ${c.message}`);
};

describe('breaking changes against the last release', () => {
  it('to schema.graphql are each named in CHANGELOG.md under Unreleased', async () => {
    expect(await unlisted(await breakingGraphQLChanges(...(await contractFiles('schema.graphql'))))).toEqual([]);
  });

  it('to openapi.json are each named in CHANGELOG.md under Unreleased', async () => {
    expect(await unlisted(breakingRestChanges(...(await contractFiles('openapi.json'))))).toEqual([]);
  });
});

describe('what counts as breaking', () => {
  const before = 'type Query { customer(id: ID!): Customer }  type Customer { id: ID! email: String! tier: String }';

  it('GraphQL: a removed field or a narrowed argument is breaking; an added field is not', async () => {
    const added = before.replace('tier: String', 'tier: String birthday: String');
    expect(await breakingGraphQLChanges(before, added)).toEqual([]);
    const removed = before.replace(' email: String!', '');
    expect((await breakingGraphQLChanges(before, removed)).map((c) => c.subject)).toEqual(['Customer.email']);
    const required = before.replace('type Query { customer(id: ID!)', 'type Query { customer(id: ID!, shop: ID!)');
    expect((await breakingGraphQLChanges(before, required)).map((c) => c.subject)).toEqual(['Query.customer.shop']);
  });

  it('REST: a removed response field or operation, a changed type, a new required parameter are breaking', async () => {
    const [released] = await contractFiles('openapi.json');
    const doc = JSON.parse(released);
    const mutate = (change: (d: any) => void) => {
      const copy = JSON.parse(released);
      change(copy);
      return breakingRestChanges(released, JSON.stringify(copy)).map((c) => `${c.subject}: ${c.message}`);
    };
    expect(mutate(() => {})).toEqual([]);
    // an added optional parameter is not breaking
    expect(mutate((d) => d.paths['/tiers'].get.parameters.push({ name: 'sort', in: 'query', required: false }))).toEqual([]);
    expect(mutate((d) => d.paths['/customers/balance'].get.parameters.push({ name: 'shop', in: 'query', required: true }))).toEqual([
      'GET /customers/balance: parameter query:shop is now required',
    ]);
    expect(mutate((d) => delete d.paths['/booster-campaigns'])).toEqual(['GET /booster-campaigns: the operation was removed']);
    const balance = Object.keys(doc.components.schemas).find((n) => n === 'Balance')!;
    expect(mutate((d) => delete d.components.schemas[balance].properties.points_pending)).toContain(
      'GET /customers/balance: response 200.data.points_pending was removed',
    );
    expect(mutate((d) => (d.components.schemas[balance].properties.points_balance = { type: 'string' }))).toContain(
      'GET /customers/balance: response 200.data.points_balance changed type from integer to string',
    );
    // OpenAPI 3.1's null, in both its forms
    expect(mutate((d) => (d.components.schemas[balance].properties.points_balance.type = ['integer', 'null']))).toEqual([
      'GET /customers/balance: response 200.data.points_balance may now be null',
    ]);
    expect(
      mutate((d) => (d.components.schemas[balance].properties.points_pending = { anyOf: [{ type: 'integer' }, { type: 'null' }] })),
    ).toEqual(['GET /customers/balance: response 200.data.points_pending may now be null']);
  });
});
