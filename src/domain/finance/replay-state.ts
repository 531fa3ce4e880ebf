// What the what-if replay (replay.ts) keeps of each customer in memory, both lanes side by side:
// the credits and amounts its tiers are judged from, folded as soon as every later judgement
// counts them whole, and the limit slots taken.
import type { LadderTier } from '../tiers/standing.js';
import type { Program } from './replay-draft.js';

const DAY_MS = 86_400_000;
/** Credits older than this before the moment judged can be in no window but lifetime. */
const WINDOW_MS = 367 * DAY_MS;

/** What a tier's window needs kept of a customer's history: nothing, a lifetime sum, or a year of it. */
export type Keep = 'nothing' | 'lifetime' | 'window';

export function keepFor(programs: Program[], qualification: LadderTier['qualification']): Keep {
  const tiers = programs.flatMap((p) => p.tiers).filter((t) => t.qualification === qualification);
  if (tiers.length === 0) return 'nothing';
  return tiers.some((t) => t.window !== 'lifetime') ? 'window' : 'lifetime';
}

/**
 * One customer, both lanes side by side (0: the program as it stands, 1: the draft): what its
 * tiers and limits are judged from. The history is kept in flat arrays of numbers, not an object
 * per credit or order: a million orders' state is then a few arrays the collector does not trace.
 */
export class CustomerState {
  /**
   * Credits that may still fall in a tier's window: when the ledger posted it (from then it
   * counts), when what earned it was placed (the window it counts in), lane 0's points, lane 1's.
   */
  credits: number[] = [];
  /** The sum of the credits folded out of `credits`, per lane. */
  older: [number, number] = [0, 0];
  /** Orders' amounts that may still count differently: placed at, subtotal in cents, refunded at (NaN: never), recorded at. */
  spent: number[] = [];
  /** The amount of orders folded out of `spent` (never refunded). */
  olderSpent = 0;
  /** Entries kept after the last fold: the next one waits until there are twice as many. */
  keptCredits = 0;
  keptSpent = 0;
  /** Limit slots taken per lane: slot (rule and period), count; null until a limited rule pays. */
  usage: [number[] | null, number[] | null] = [null, null];
  issued: [number, number] = [0, 0];

  constructor(
    readonly id: string,
    public platformId: string | null,
    public excluded: boolean,
  ) {}

  credit(postedAt: number, placedAt: number, points0: number, points1: number) {
    if (points0 > 0 || points1 > 0) this.credits.push(postedAt, placedAt, Math.max(points0, 0), Math.max(points1, 0));
  }

  /**
   * Folds into the lifetime sums the credits every later judgement counts whole: posted by
   * `settled` (the earliest moment a later judgement looks at) and, where a window counts,
   * placed before any later window starts.
   */
  foldCredits(settled: number, keep: Keep) {
    const c = this.credits;
    if (c.length / 4 < 2 * this.keptCredits + 16) return;
    const horizon = keep === 'window' ? settled - WINDOW_MS : settled;
    let n = 0;
    for (let i = 0; i < c.length; i += 4) {
      if (keep === 'nothing' || (c[i]! <= settled && c[i + 1]! <= horizon)) {
        this.older[0] += c[i + 2]!;
        this.older[1] += c[i + 3]!;
      } else {
        for (let k = 0; k < 4; k++) c[n++] = c[i + k]!;
      }
    }
    c.length = n;
    this.keptCredits = n / 4;
  }

  /** Folds the amounts every later judgement counts whole, and drops those a refund took out before it. */
  foldSpent(settled: number, keep: Keep) {
    const s = this.spent;
    if (s.length / 4 < 2 * this.keptSpent + 16) return;
    const horizon = keep === 'window' ? settled - WINDOW_MS : settled;
    let n = 0;
    for (let i = 0; i < s.length; i += 4) {
      const refundedAt = s[i + 2]!;
      if (refundedAt <= settled) continue;
      if (Number.isNaN(refundedAt) && s[i]! < horizon && s[i + 3]! <= settled) {
        this.olderSpent += s[i + 1]!;
        continue;
      }
      for (let k = 0; k < 4; k++) s[n++] = s[i + k]!;
    }
    s.length = n;
    this.keptSpent = n / 4;
  }

  /** Slots of limited rules taken in `lane`: the count for `slot`. */
  used(lane: 0 | 1, slot: number) {
    const u = this.usage[lane];
    if (u) for (let i = u.length - 2; i >= 0; i -= 2) if (u[i] === slot) return u[i + 1]!;
    return 0;
  }

  take(lane: 0 | 1, slot: number, count: number) {
    const u = (this.usage[lane] ??= []);
    for (let i = u.length - 2; i >= 0; i -= 2) {
      if (u[i] === slot) {
        u[i + 1] = count;
        return;
      }
    }
    u.push(slot, count);
  }
}

/** An order's replayed points until the ledger's credit for it is read. */
export interface Awaiting {
  customer: CustomerState;
  points: [number, number];
  recorded: number;
}
