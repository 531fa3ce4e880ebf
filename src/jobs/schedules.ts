// The registry of scheduled jobs: each is a name, a cron (UTC) and a domain function. Adding
// one is one line here; the queue (queue.ts) schedules and works every entry, and drops
// schedules no longer listed.
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { payCalendarRules } from '../domain/earning/calendar-rules.js';
import { foldLedgerBuckets } from '../domain/finance/ledger-buckets.js';
import { pruneReplayJobs } from '../domain/finance/replay-jobs.js';
import { expirePoints, remindExpiringPoints } from '../domain/ledger/expiry.js';
import { approvePendingPoints } from '../domain/ledger/pending.js';
import { rejudgeChangedMerchants, rejudgeTiers } from '../domain/tiers/rejudge.js';
import { pruneEvents } from '../domain/webhooks/deliveries.js';
import { queueEstimates } from './rate-estimates.js';

export interface ScheduledJob {
  name: string;
  cron: (config: Config) => string;
  run: (ctx: { db: Db; config: Config }) => Promise<unknown>;
}

export const schedules: ScheduledJob[] = [
  { name: 'points-expiry', cron: (c) => c.EXPIRY_CRON, run: ({ db }) => expirePoints(db) },
  {
    name: 'points-expiring-reminders',
    cron: (c) => c.EXPIRY_CRON,
    run: ({ db, config }) => remindExpiringPoints(db, { days: config.POINTS_EXPIRING_DAYS }),
  },
  // hourly, each merchant in the first hour of its local day: a local New Year within the hour
  { name: 'tier-rejudge', cron: () => '0 * * * *', run: ({ db }) => rejudgeTiers(db, new Date(), { justAfterLocalMidnight: true }) },
  // every minute: a merchant's changed tier ladder reaches its customers soon after the change
  { name: 'tier-changes', cron: () => '* * * * *', run: ({ db }) => rejudgeChangedMerchants(db) },
  { name: 'calendar-rules', cron: (c) => c.CALENDAR_CRON, run: ({ db }) => payCalendarRules(db) },
  { name: 'webhook-events-prune', cron: () => '30 4 * * *', run: ({ db, config }) => pruneEvents(db, config.WEBHOOK_EVENT_RETENTION_DAYS) },
  // the liability report's sums: each quarter hour the day behind it, each night the whole history
  { name: 'ledger-buckets', cron: () => '1,16,31,46 * * * *', run: ({ db }) => foldLedgerBuckets(db) },
  { name: 'ledger-buckets-history', cron: () => '45 3 * * *', run: ({ db }) => foldLedgerBuckets(db, { since: null }) },
  // what-if replays' jobs and reports are kept a day
  { name: 'replay-jobs-prune', cron: () => '20 * * * *', run: ({ db }) => pruneReplayJobs(db) },
  // each merchant's redemption rate estimate, one job per merchant on its own queue
  { name: 'redemption-rate-estimates-nightly', cron: () => '10 4 * * *', run: ({ db }) => queueEstimates(db) },
  { name: 'pending-points-approval', cron: (c) => c.PENDING_POINTS_CRON, run: ({ db }) => approvePendingPoints(db) },
];
