// What-if replay as a job, for the admin app: starting one checks its input as program_replay
// does and records it (replay_jobs, keyed by the merchant and the job's id) with a queued job;
// a worker runs it (runReplayJob) writing its progress after each page read, and its report
// when done. That write is also where the worker learns of a cancel: a job no longer running
// stops at the end of the page, and keeps no report. A worker whose process dies stops writing:
// a running job whose last progress is older than STALE_AFTER_MS reads as failed.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { Prisma, type ReplayJob } from '../../generated/prisma/client.js';
import { AppError, notFound } from '../shared/errors.js';
import { rowKey } from '../shared/keys.js';
import { newestFirst, type PageArgs, type Paginated, paginate } from '../shared/pagination.js';
import { prepareReplay, type ReplayInput, type ReplayReport, replayProgram } from './replay.js';

export type ReplayJobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export const replayJobStates: ReplayJobState[] = ['queued', 'running', 'done', 'failed', 'cancelled'];

/** A page of 5,000 orders takes well under a second: a worker silent for this long is gone. */
const STALE_AFTER_MS = 120_000;
/** Jobs are forgotten this long after they were started. */
const REPLAY_JOB_RETENTION_MS = 86_400_000;

/** What the queue carries: the job's id is the row's. */
export interface ReplayJobData {
  merchant_id: string;
}

/** Puts the job on the queue inside the transaction that records it (the queue lives in src/jobs). */
export type EnqueueReplay = (job: { id: string; merchantId: string }, tx: Prisma.TransactionClient) => Promise<void>;

export interface ReplayJobView {
  id: string;
  state: ReplayJobState;
  from: string;
  to: string;
  orders_read: number;
  /** The share of the period read, 0 to 1 (history before it counts as none of it). */
  progress: number;
  /** When the last order read was recorded. */
  read_up_to: Date | null;
  /** Undefined when not read (a job of a list): read when asked for. */
  report: ReplayReport | null | undefined;
  /** The sections the draft changes, with how many records each holds (a section left out stays as it stands). */
  draft_sections: { section: string; items: number }[];
  error: { code: string; message: string } | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIED = { code: 'internal_error', message: 'The replay stopped: the process running it ended before it finished' };

const isStale = (job: Pick<ReplayJob, 'state' | 'heartbeatAt'>, now: number) =>
  job.state === 'running' && (job.heartbeatAt?.getTime() ?? 0) < now - STALE_AFTER_MS;

/** The draft's sections, in the order the draft documents them. */
const DRAFT_SECTIONS = ['earning_rules', 'booster_campaigns', 'tiers'];

function view(job: Omit<ReplayJob, 'report'> & { report?: ReplayJob['report'] }, now = Date.now()): ReplayJobView {
  const input = job.input as unknown as ReplayInput;
  const stale = isStale(job, now);
  const span = job.periodEnd.getTime() - job.periodStart.getTime();
  const read = job.readUpTo ? (job.readUpTo.getTime() - job.periodStart.getTime()) / span : 0;
  return {
    id: job.id,
    state: stale ? 'failed' : (job.state as ReplayJobState),
    from: input.from,
    to: input.to,
    orders_read: job.ordersRead,
    progress: job.state === 'done' ? 1 : Math.min(1, Math.max(0, read)),
    read_up_to: job.readUpTo,
    report: job.state !== 'done' ? null : job.report === undefined ? undefined : (job.report as unknown as ReplayReport),
    draft_sections: draftSections(input.draft),
    error: stale ? DIED : ((job.error as ReplayJobView['error']) ?? null),
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
  };
}

function draftSections(draft: unknown) {
  const given = (draft ?? {}) as Record<string, unknown>;
  return DRAFT_SECTIONS.flatMap((section) => {
    const items = given[section];
    return Array.isArray(items) ? [{ section, items: items.length }] : [];
  });
}

/** The merchant's replay jobs, newest first, a page at a time; their reports are not read (`replayReport` reads one). */
export function listReplayJobs(db: Db, merchantId: string, args: PageArgs): Promise<Paginated<ReplayJobView>> {
  const now = Date.now();
  return paginate(
    args,
    async ({ skip, take }) =>
      (await db.replayJob.findMany({ where: { merchantId }, omit: { report: true }, orderBy: newestFirst, skip, take })).map((job) =>
        view(job, now),
      ),
    () => db.replayJob.count({ where: { merchantId } }),
  );
}

/** A done job's report, for a job of a list (null if it is gone or not done). */
export async function replayReport(db: Db, merchantId: string, id: string): Promise<ReplayReport | null> {
  const job = await db.replayJob.findUnique({ where: rowKey(merchantId, id), select: { state: true, report: true } });
  return job?.state === 'done' ? (job.report as unknown as ReplayReport) : null;
}

async function findJob(db: Db, merchantId: string, id: string) {
  const job = UUID.test(id) ? await db.replayJob.findUnique({ where: rowKey(merchantId, id) }) : null;
  if (!job) throw notFound('Replay job');
  return job;
}

/** Checks the input as program_replay does (the same 422 and 404), then records the job and queues it. */
export async function startReplayJob(db: Db, merchantId: string, input: ReplayInput, enqueue: EnqueueReplay): Promise<ReplayJobView> {
  const prepared = await prepareReplay(db, merchantId, input);
  const id = randomUUID();
  const job = await db.$transaction(async (tx) => {
    const row = await tx.replayJob.create({
      data: {
        id,
        merchantId,
        input: { from: prepared.from, to: prepared.to, top: prepared.top, draft: (input.draft ?? {}) as Prisma.InputJsonValue },
        periodStart: prepared.start,
        periodEnd: prepared.end,
      },
    });
    await enqueue({ id, merchantId }, tx);
    return row;
  });
  return view(job);
}

export async function replayJob(db: Db, merchantId: string, id: string): Promise<ReplayJobView> {
  return view(await findJob(db, merchantId, id));
}

/**
 * Cancels a queued or running job: it keeps no report, and a running one stops at the end of
 * the page it is reading. Cancelling it again answers the same; a job that is over (done or
 * failed) is 409 conflict.
 */
export async function cancelReplayJob(db: Db, merchantId: string, id: string): Promise<ReplayJobView> {
  await findJob(db, merchantId, id);
  const now = new Date();
  await db.replayJob.updateMany({
    where: {
      merchantId,
      id,
      OR: [{ state: 'queued' }, { state: 'running', heartbeatAt: { gte: new Date(now.getTime() - STALE_AFTER_MS) } }],
    },
    data: { state: 'cancelled', finishedAt: now, report: Prisma.DbNull },
  });
  const job = view(await findJob(db, merchantId, id));
  if (job.state !== 'cancelled')
    throw new AppError('conflict', `The replay job is ${job.state}: only a queued or running one can be cancelled`);
  return job;
}

/** Thrown through the replay when its job is found cancelled. */
class Cancelled extends Error {}

export interface RunOptions {
  /** The worker stopping: the job stops at the end of the page, as failed (it is not retried). */
  signal?: AbortSignal;
  /** Orders read a page at a time (the replay's default otherwise). */
  pageSize?: number;
  /** After each page's progress is written (tests: look at a job between two pages). */
  onPage?: () => Promise<void>;
}

/**
 * Runs a queued job to its end: done with its report, failed with its error, or stopped when
 * found cancelled. A job that is not queued (cancelled before it started, already run, or purged: null) is left as it is.
 */
export async function runReplayJob(db: Db, merchantId: string, id: string, opts: RunOptions = {}): Promise<ReplayJobState | null> {
  const started = new Date();
  const claimed = await db.replayJob.updateMany({
    where: { merchantId, id, state: 'queued' },
    data: { state: 'running', startedAt: started, heartbeatAt: started },
  });
  if (claimed.count === 0) {
    const left = await db.replayJob.findUnique({ where: rowKey(merchantId, id) });
    return left && view(left).state;
  }
  const job = await findJob(db, merchantId, id);
  const abort = new AbortController();
  const stopping = () => abort.abort(new AppError('service_unavailable', 'The replay stopped: its worker was shut down'));
  opts.signal?.addEventListener('abort', stopping, { once: true });
  const running = { merchantId, id, state: 'running' };
  try {
    const report = await replayProgram(db, merchantId, job.input as unknown as ReplayInput, {
      signal: abort.signal,
      pageSize: opts.pageSize,
      onProgress: async (p) => {
        const { count } = await db.replayJob.updateMany({
          where: running,
          data: { ordersRead: p.orders_read, readUpTo: p.at, heartbeatAt: new Date() },
        });
        if (count === 0) abort.abort(new Cancelled());
        else await opts.onPage?.();
      },
    });
    const { count } = await db.replayJob.updateMany({
      where: running,
      data: { state: 'done', report: report as unknown as Prisma.InputJsonValue, ordersRead: report.orders_read, finishedAt: new Date() },
    });
    return count === 1 ? 'done' : 'cancelled';
  } catch (err) {
    if (err instanceof Cancelled) return 'cancelled';
    // an unexpected error's text stays in the worker's log, not in what the admin app reads
    const error =
      err instanceof AppError ? { code: err.code, message: err.message } : { code: 'internal_error', message: 'The replay failed' };
    await db.replayJob.updateMany({ where: running, data: { state: 'failed', error, finishedAt: new Date() } });
    if (!(err instanceof AppError)) throw err;
    return 'failed';
  } finally {
    opts.signal?.removeEventListener('abort', stopping);
  }
}

/** Forgets jobs started more than a day ago. Returns how many went. */
export async function pruneReplayJobs(db: Db, now = new Date()) {
  const { count } = await db.replayJob.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - REPLAY_JOB_RETENTION_MS) } } });
  return count;
}
