// Dates and times as every face reads them (src/domain/shared/dates.ts): impossible dates and
// times are 422 validation_error naming the field, never rolled over (2026-02-30 is not 2 March),
// through REST query strings, GraphQL variables and literals, the admin API's arguments and
// inputs; the forms docs/rest.md lists are taken, no others. And a date literal in a document
// runs without graphql-jit's warning on the console.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { dateProblem, dateTimeProblem } from '../../src/domain/shared/dates.js';
import { adminClient, client, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let admin: ReturnType<typeof adminClient>;

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'dates');
  api = client(app, await newKey(app, merchant.id));
  admin = adminClient(app, merchant.admin_token);
});

const taken = [
  '2026-11-21T08:30:00Z',
  '2026-11-21T08:30:00.000Z',
  '2026-11-21T08:30:00.123456789Z',
  '2026-11-21T09:30:00+01:00',
  '2026-11-21T03:00:00-05:30',
  '2026-11-21T08:30:00-00:00',
  '2026-11-21t08:30:00z',
  '2024-02-29T00:00:00Z',
  '2000-02-29T23:59:59Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
];
const refused: [text: string, reason: string][] = [
  ['2026-02-30T10:00:00Z', 'is not a date: February 2026 has 28 days'],
  ['2026-02-29T10:00:00Z', 'is not a date: February 2026 has 28 days'],
  ['1900-02-29T10:00:00Z', 'is not a date: February 1900 has 28 days'],
  ['2026-11-31T10:00:00Z', 'is not a date: November 2026 has 30 days'],
  ['2026-13-01T10:00:00Z', 'is not a date: months run from 01 to 12'],
  ['2026-00-10T10:00:00Z', 'is not a date: months run from 01 to 12'],
  ['2026-01-00T10:00:00Z', 'is not a date: January 2026 has 31 days'],
  ['0000-01-01T10:00:00Z', 'is not a date: years run from 0001 to 9999'],
  ['2026-01-01T24:00:00Z', 'is not a time: hours run from 00 to 23'],
  ['2026-01-01T10:60:00Z', 'is not a time: minutes run from 00 to 59'],
  ['2026-12-31T23:59:60Z', 'is not a time: seconds run from 00 to 59'],
  ['2026-01-01T10:00:00+24:00', 'is not a UTC offset: it runs from -23:59 to +23:59'],
  ['2026-01-01T10:00:00+01:60', 'is not a UTC offset: it runs from -23:59 to +23:59'],
  ['9999-12-31T23:00:00-01:00', 'is out of range: from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z in UTC'],
  ['0001-01-01T00:30:00+01:00', 'is out of range: from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z in UTC'],
];
const FORM = 'must be a date and time with its offset, YYYY-MM-DDThh:mm:ssZ or ±hh:mm (e.g. 2026-11-21T08:30:00Z)';
const notForms = [
  '2026-11-21',
  '2026-11-21T08:30:00',
  '2026-11-21T08:30Z',
  '2026-11-21 08:30:00Z',
  '2026-11-21T08:30:00+0100',
  '2026-11-21T08:30:00+01',
  '20261121T083000Z',
  '2026-W47-6T08:30:00Z',
  '+002026-11-21T08:30:00Z',
  'Sat, 21 Nov 2026 08:30:00 GMT',
  '1764059400000',
  ' 2026-11-21T08:30:00Z',
  '',
];

describe('DateTime', () => {
  it('the reader takes exactly the documented forms', () => {
    for (const text of taken) expect(dateTimeProblem(text), text).toBeNull();
    for (const [text, reason] of refused) expect(dateTimeProblem(text), text).toBe(reason);
    for (const text of notForms) expect(dateTimeProblem(text), text).toBe(FORM);
  });

  const events = (query: string) => api.rest('GET', `/v1/events?${query}`);

  it.each(refused)('REST refuses %s in a query string: 422 validation_error "%s"', async (text, reason) => {
    const res = await events(`created_after=${encodeURIComponent(text)}`);
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([422, 'validation_error', { created_after: [reason] }]);
  });

  it('REST refuses the other forms and takes the documented ones', async () => {
    for (const text of notForms.filter(Boolean)) {
      const res = await events(`created_before=${encodeURIComponent(text)}`);
      expect([res.status, res.body.error?.details], text).toEqual([422, { created_before: [FORM] }]);
    }
    for (const text of taken) expect((await events(`created_after=${encodeURIComponent(text)}`)).status, text).toBe(200);
  });

  it('GraphQL refuses an impossible one in a variable and in a literal alike: 422 validation_error naming the argument', async () => {
    for (const [text, reason] of refused) {
      const variable = await api.gql('query ($at: DateTime) { events(created_after: $at) { data { id } } }', { at: text });
      expect([variable.status, variable.body.errors![0].extensions], text).toEqual([
        422,
        { code: 'validation_error', details: { at: [reason] } },
      ]);
      const literal = await api.gql(`{ events(created_before: ${JSON.stringify(text)}) { data { id } } }`);
      expect([literal.status, literal.body.errors![0].extensions], text).toEqual([
        422,
        { code: 'validation_error', details: { created_before: [reason] } },
      ]);
      expect(literal.body.data).toBeUndefined();
    }
    const ok = await api.gql('{ events(created_after: "2024-02-29T00:00:00+05:30") { data { id } } }');
    expect([ok.status, ok.body.errors]).toEqual([200, undefined]);
  });

  it('a date literal runs without graphql-jit warning on the console (its parseLiteral takes no variables)', async () => {
    const error = vi.spyOn(console, 'error');
    const warn = vi.spyOn(console, 'warn');
    // a document never compiled before in this process
    const res = await api.gql(`{ fresh_${Date.now()}: events(created_after: "2026-01-01T00:00:00Z") { data { id } } }`);
    expect([res.status, res.body.errors]).toEqual([200, undefined]);
    expect([...error.mock.calls, ...warn.mock.calls]).toEqual([]);
  });
});

describe('Date', () => {
  const LIABILITY = 'query ($from: Date!, $to: Date!) { points_liability(from: $from, to: $to) { from to } }';

  it('the reader takes days of the calendar only', () => {
    for (const text of ['2026-02-28', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31']) expect(dateProblem(text), text).toBeNull();
    expect(dateProblem('2026-02-29')).toBe('is not a date: February 2026 has 28 days');
    expect(dateProblem('2100-02-29')).toBe('is not a date: February 2100 has 28 days');
    expect(dateProblem('2026-04-31')).toBe('is not a date: April 2026 has 30 days');
    for (const text of ['2026-2-1', '2026-02-01T00:00:00Z', '20260201', '2026/02/01', ''])
      expect(dateProblem(text), text).toBe('must be a date, YYYY-MM-DD');
  });

  it('the admin API refuses points_liability(from: "2026-02-30") in a variable and in a literal, in the catalogue words', async () => {
    const variable = await admin(LIABILITY, { from: '2026-02-30', to: '2026-03-31' });
    expect(variable.status).toBe(422);
    expect(variable.body.errors![0].extensions).toMatchObject({
      code: 'validation_error',
      details: { from: ['This is not a date: February 2026 has 28 days.'] },
    });
    const literal = await admin('{ points_liability(from: "2026-02-30", to: "2026-03-31") { from to } }');
    expect(literal.status).toBe(422);
    expect(literal.body.errors![0].extensions).toMatchObject({
      code: 'validation_error',
      details: { from: ['This is not a date: February 2026 has 28 days.'] },
    });
    // the same document again (its validation is cached): the same answer
    const again = await admin('{ points_liability(from: "2026-02-30", to: "2026-03-31") { from to } }');
    expect([again.status, again.body.errors]).toEqual([422, literal.body.errors]);
    const ok = await admin(LIABILITY, { from: '2026-02-28', to: '2026-03-31' });
    expect(ok.body.data.points_liability).toEqual({ from: '2026-02-28', to: '2026-03-31' });
  });

  it('the admin API refuses program_replay(to: "2026-11-31"), never reads it as 1 December', async () => {
    const res = await admin('{ program_replay(from: "2026-11-01", to: "2026-11-31", draft: {}) { from to } }');
    expect(res.status).toBe(422);
    expect(res.body.errors![0].extensions).toMatchObject({
      code: 'validation_error',
      details: { to: ['This is not a date: November 2026 has 30 days.'] },
    });
    const job = await admin('mutation ($to: Date!) { start_program_replay(from: "2026-11-01", to: $to, draft: {}) { id } }', {
      to: '2026-11-31',
    });
    expect(job.status).toBe(422);
    expect(job.body.errors![0].extensions.details).toEqual({ to: ['This is not a date: November 2026 has 30 days.'] });
  });
});

describe("the admin API's inputs that hold dates", () => {
  const errorOf = (res: { body: { errors?: any[] } }) => res.body.errors?.[0]?.extensions;

  it('names a date written inside an input object by its path', async () => {
    const res = await admin(
      'mutation { record_activity(input: { event_id: "e-1", customer_id: "c-1", campaign_type: review, occurred_at: "2026-04-31T10:00:00Z" }) { points_awarded } }',
    );
    expect(res.status).toBe(422);
    expect(errorOf(res)).toMatchObject({
      code: 'validation_error',
      details: { 'input.occurred_at': ['This is not a date: April 2026 has 30 days.'] },
    });
  });

  it('refuses a booster starting on 30 February, a rule ending on 31 April and a birthday on 29 February 2026', async () => {
    const booster = await admin('mutation ($i: BoosterCampaignInput!) { create_booster_campaign(input: $i) { id } }', {
      i: { name: 'Leap', multiplier: 2, campaign_types: ['purchase'], starts_at: '2026-02-30T00:00:00Z' },
    });
    expect(errorOf(booster)).toMatchObject({
      code: 'validation_error',
      details: { starts_at: ['This is not a date: February 2026 has 28 days.'] },
    });
    const rule = await admin('mutation ($i: EarningRuleInput!) { create_earning_rule(input: $i) { id } }', {
      i: { name: 'Spring', campaign_type: 'purchase', earning_rule: { type: 'fixed', value: 5 }, conditions: { ends_at: '2026-04-31' } },
    });
    expect(errorOf(rule)).toMatchObject({
      code: 'validation_error',
      details: { 'conditions.ends_at': ['This is not a date: April 2026 has 30 days.'] },
    });
    const customer = await admin('mutation ($i: CustomerInput!) { create_customer(input: $i) { id } }', {
      i: { customer_id: 'leap-1', email: 'leap@example.com', birthday: '2026-02-29' },
    });
    expect(errorOf(customer)).toMatchObject({
      code: 'validation_error',
      details: { birthday: ['This is not a date: February 2026 has 28 days.'] },
    });
    expect(await app.db.boosterCampaign.count({ where: { name: 'Leap' } })).toBe(0);
  });

  it('takes a rule date as a local date or a date and time with its offset (lower-case t and z too)', async () => {
    const rule = await admin('mutation ($i: EarningRuleInput!) { create_earning_rule(input: $i) { conditions { starts_at ends_at } } }', {
      i: {
        name: 'Leap day',
        campaign_type: 'purchase',
        earning_rule: { type: 'fixed', value: 5 },
        conditions: { starts_at: '2028-02-29', ends_at: '2028-03-01t12:00:00z' },
      },
    });
    expect(rule.body.errors).toBeUndefined();
    expect(rule.body.data.create_earning_rule.conditions).toMatchObject({ starts_at: '2028-02-29T00:00:00.000Z' });
  });
});
