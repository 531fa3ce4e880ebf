// The measure behind the similar_email check, as docs/admin.md states it: an address is read as
// its mailbox (lower case, no plus-tag, no dots at providers that ignore them), and two local
// parts are 1 − edit distance ÷ the longer length alike.
import { describe, expect, it } from 'vitest';
import { mailbox, similarity } from '../../src/domain/referrals/fraud-signals.js';

describe('a mailbox', () => {
  it.each([
    ['Ada.Lovelace+shop@Gmail.com', 'adalovelace@gmail.com'],
    ['ada.lovelace@googlemail.com', 'adalovelace@gmail.com'],
    ['Ada.Lovelace+a+b@example.com', 'ada.lovelace@example.com'],
    ['"odd@local"@example.com', '"odd@local"@example.com'],
  ])('%s is %s', (email, address) => {
    expect(mailbox(email).address).toBe(address);
  });
});

describe('the similarity of two local parts', () => {
  it.each([
    ['adalovelace', 'adalovelace', 1],
    ['adalovelace', 'adalovelace1', 1 - 1 / 12],
    ['jsmith', 'jsmith85', 1 - 2 / 8],
    ['anna.smith', 'anne.smith', 1 - 1 / 10],
    ['mary', 'mark', 1 - 1 / 4],
    ['alice', 'bob', 0],
    ['', '', 1],
  ])('%s and %s: %d', (a, b, expected) => {
    expect(similarity(a, b)).toBeCloseTo(expected, 10);
    expect(similarity(b, a)).toBeCloseTo(expected, 10);
  });
});
