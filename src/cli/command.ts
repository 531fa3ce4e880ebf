// What an operator command is (commands.ts holds the table of them): its usage line, what it
// does with the parsed options and an open database, and how its result prints.
import type { Db } from '../db/client.js';
import { readDateTime } from '../domain/shared/dates.js';
import { validationError } from '../domain/shared/errors.js';

export class UsageError extends Error {}

export interface Options {
  positionals: string[];
  values: {
    merchant?: string;
    slug?: string;
    name?: string;
    type?: string;
    scope?: string[];
    file?: string;
    'points-pending-days'?: string;
    origin?: string[];
    url?: string;
    event?: string[];
    description?: string;
    endpoint?: string;
    status?: string;
    page?: string;
    'overlap-hours'?: string;
    enable?: boolean;
    disable?: boolean;
    'award-points'?: boolean;
    by?: string;
    timezone?: string;
    at?: string;
    from?: string;
    to?: string;
    group?: string;
    csv?: boolean;
  };
}

export interface Command {
  usage: string;
  summary: string;
  /** Whether the command needs the database (all but help). */
  run(db: Db, opts: Options, applied: string[]): Promise<unknown>;
  /** Text for people; JSON output prints the result itself. */
  // biome-ignore lint/suspicious/noExplicitAny: each command's own result: the table of commands holds them all
  text(result: any): string;
  /** `--csv`: the result as a table, for the commands that have one. */
  // biome-ignore lint/suspicious/noExplicitAny: as text()
  csv?(result: any): string;
}

export function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`missing --${flag}`);
  return value;
}

/**
 * `--at <ISO time>`: an instant (default now), read as the API reads a DateTime (an impossible
 * date or time is refused: validation_error naming `at`), e.g. a calendar job run as of a missed day.
 */
export function moment(at: string | undefined): Date {
  if (at === undefined) return new Date();
  const date = readDateTime(at);
  if (date instanceof Date) return date;
  throw validationError({ at: [date.problem] }, `--at takes an ISO 8601 time with its offset, e.g. 2026-11-23T12:00:00Z; got "${at}"`);
}
