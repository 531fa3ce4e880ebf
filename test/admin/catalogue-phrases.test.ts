// The rules' own phrases that the API keys, webhooks, storefront, finance and referral pages can meet, as the
// catalogue's sentences (the admin API answers them in these words; the pages show them).
import { describe, expect, it } from 'vitest';
import { messages, sentence } from '../../src/domain/shared/messages.js';

describe('catalogue sentences for the API key, webhook, storefront, finance, date and referral rules', () => {
  it.each([
    ['must be an absolute URL', messages.url],
    ['must start with https://', messages.url],
    ['must start with https:// or http://', messages.url],
    ['must be at most 168 (7 days)', messages.atMost(168)],
    ['must be at most 1 (every point redeemed)', messages.atMost(1)],
    ['must be 0 or more', messages.atLeast(0)],
    ['must be a whole number of hours', messages.wholeNumber],
    ['must be more than 0', messages.above(0)],
    ['must be an origin like https://shop.example.com (scheme, host and port only)', messages.origin],
    ['at most 20 origins', messages.maxItems(20)],
    ['must be an IP address', messages.ipAddress],
    ['must be an IP address or range', messages.ipRange],
    ['must be a domain', messages.domain],
    ['must be on or after from', messages.onOrAfter('From')],
    ['a custom key needs at least one scope', messages.noScope],
    ['a merchant has at most 20 live publishable keys: revoke one first', messages.tooManyLiveKeys(20)],
    ['gives more than 750 periods: choose a shorter range or a longer grouping', messages.tooManyPeriods(750)],
    ['must be a date, YYYY-MM-DD', messages.date],
    ['must be a date and time with its offset, YYYY-MM-DDThh:mm:ssZ or ±hh:mm (e.g. 2026-11-21T08:30:00Z)', messages.dateTime],
    [
      'must be a date, YYYY-MM-DD, or a date and time with its offset, YYYY-MM-DDThh:mm:ssZ or ±hh:mm (e.g. 2026-11-21T08:30:00Z)',
      messages.dateOrDateTime,
    ],
    ['is not a date: February 2026 has 28 days', 'This is not a date: February 2026 has 28 days.'],
    ['is not a time: hours run from 00 to 23', 'This is not a time: hours run from 00 to 23.'],
    [
      'is not a GraphQL document: Syntax Error: Expected Name, found <EOF>.',
      'This is not a GraphQL document (Syntax Error: Expected Name, found <EOF>): paste the whole query or mutation.',
    ],
  ])('%s', (phrase, expected) => {
    expect(sentence(phrase)).toBe(expected);
  });
});
