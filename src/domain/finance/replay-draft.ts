// The what-if replay's two programs (replay.ts): the merchant's as it stands, as the engine
// loads it, and the draft, its sections in the admin API's own input shapes, validated as the
// admin mutations validate them.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { boosterCampaignInput, boosterRow } from '../earning/booster-campaigns.js';
import type { EarningProgramBooster, EarningProgramRule } from '../earning/calculator.js';
import { limitedRules } from '../earning/earning-program.js';
import { earningRuleInput, earningRuleRow } from '../earning/earning-rules.js';
import type { LimitedRule } from '../earning/limits.js';
import { type ErrorDetails, notFound, validationError } from '../shared/errors.js';
import { detailsFromZod } from '../shared/validation.js';
import type { LadderTier } from '../tiers/standing.js';
import { tierInput, tierRow } from '../tiers/tiers.js';

/**
 * A draft names the sections it changes, in the admin API's own input shapes (the program
 * import's section names): each section given replaces that part of the program; an item with
 * an `id` is that record changed, one without is a new one. Sections left out stay as they are.
 */
const draftSections = {
  earning_rules: earningRuleInput,
  booster_campaigns: boosterCampaignInput,
  tiers: tierInput,
} as const;
const section = z.array(z.unknown()).max(1000).nullish();
const draftShape = z.object({ earning_rules: section, booster_campaigns: section, tiers: section }).strict();

export interface ReplayTier extends LadderTier {
  id: string;
  name: string;
  earnMultiplier: number;
}

export interface Program {
  rules: EarningProgramRule[];
  limited: LimitedRule[];
  boosters: EarningProgramBooster[];
  tiers: ReplayTier[];
}

/** The merchant's program as it stands: what the engine loads (earning-program.ts), all at once. */
export async function currentProgram(db: Db, merchantId: string) {
  const [rules, boosters, tiers] = await Promise.all([
    db.earningRule.findMany({ where: { merchantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    db.boosterCampaign.findMany({ where: { merchantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    db.tier.findMany({ where: { merchantId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] }),
  ]);
  return { rules, boosters, tiers };
}
export type Current = Awaited<ReturnType<typeof currentProgram>>;

export function programOf(
  rules: { id: string; name: string; campaignType: string; earningRule: unknown; conditions: unknown; isActive: boolean }[],
  boosters: {
    id: string;
    name: string;
    multiplier: unknown;
    campaignTypes: string[];
    startsAt: Date;
    endsAt: Date | null;
    isActive: boolean;
  }[],
  tiers: {
    id: string;
    name: string;
    position: number;
    threshold: number;
    qualification: LadderTier['qualification'];
    window: LadderTier['window'];
    isDefault: boolean;
    isActive: boolean;
    earnMultiplier: unknown;
  }[],
): Program {
  const purchase = rules.filter((r) => r.isActive && r.campaignType === 'purchase') as EarningProgramRule[];
  return {
    rules: purchase.map(({ id, name, campaignType, earningRule, conditions }) => ({ id, name, campaignType, earningRule, conditions })),
    limited: limitedRules(purchase),
    boosters: boosters
      .filter((b) => b.isActive && b.campaignTypes.includes('purchase'))
      .map((b) => ({ id: b.id, name: b.name, multiplier: Number(b.multiplier), startsAt: b.startsAt, endsAt: b.endsAt })),
    // the ladder judgement reads: active tiers, lowest position first
    tiers: tiers
      .filter((t) => t.isActive)
      .sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((t) => ({ ...t, earnMultiplier: Number(t.earnMultiplier) })),
  };
}

/**
 * The draft's sections, each item validated as the admin mutations validate it (422 with every
 * problem, keyed `draft.<section>.<index>.<field>`); an `id` that names no record of the
 * merchant's is 404, as updating it would be.
 */
export function draftProgram(current: Current, raw: unknown, zone: string): Program {
  const shape = draftShape.safeParse(raw ?? {});
  if (!shape.success) throw validationError(detailsFromZod(shape.error, ['draft']));
  const details: ErrorDetails = {};
  const parse = <K extends keyof typeof draftSections>(section: K): z.output<(typeof draftSections)[K]>[] | null => {
    const items = shape.data[section];
    if (items == null) return null;
    return items.flatMap((item, i) => {
      const parsed = draftSections[section].safeParse(item);
      if (parsed.success) return [parsed.data as z.output<(typeof draftSections)[K]>];
      Object.assign(details, detailsFromZod(parsed.error, ['draft', section, i]));
      return [];
    });
  };
  const rules = parse('earning_rules');
  const boosters = parse('booster_campaigns');
  const tiers = parse('tiers');
  if (Object.keys(details).length) throw validationError(details);
  const known = <T extends { id: string }>(what: string, records: T[], id: string | undefined) => {
    if (id === undefined) return undefined;
    const found = records.find((r) => r.id === id);
    if (!found) throw notFound(what);
    return found;
  };
  const now = new Date();
  const draftRules = rules?.map((input) => {
    const existing = known('Earning rule', current.rules, input.id);
    return { id: existing?.id ?? randomUUID(), createdAt: existing?.createdAt ?? now, ...earningRuleRow(input, zone) };
  });
  const draftBoosters = boosters?.map((input) => {
    const existing = known('Booster campaign', current.boosters, input.id);
    return { id: existing?.id ?? randomUUID(), createdAt: existing?.createdAt ?? now, ...boosterRow(input) };
  });
  const draftTiers = tiers?.map((input) => ({ id: known('Tier', current.tiers, input.id)?.id ?? randomUUID(), ...tierRow(input) }));
  // the engine reads rules and boosters oldest first: a changed record keeps its place
  const byAge = <T extends { createdAt: Date; id: string }>(list: T[]) =>
    list
      .map((r, i) => ({ r, i }))
      .sort((a, b) => a.r.createdAt.getTime() - b.r.createdAt.getTime() || a.i - b.i)
      .map((x) => x.r);
  return programOf(
    draftRules ? byAge(draftRules) : current.rules,
    draftBoosters ? byAge(draftBoosters) : current.boosters,
    draftTiers ?? current.tiers,
  );
}
