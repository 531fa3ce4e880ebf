// The program import on the admin API: the file the CLI's `import` reads, sent as JSON (within
// the request body limit: a larger one through the CLI, or its orders in several calls, which
// skip the orders already recorded).
import { type ImportSummary, importProgram } from '../../domain/program-import/program-import.js';
import { builder } from '../builder.js';

const ProgramImportRef = builder.objectRef<ImportSummary>('ProgramImport').implement({
  subGraphs: ['admin'],
  description: 'What an import wrote',
  fields: (t) => ({
    customers: t.exposeInt('customers'),
    rewards: t.exposeInt('rewards'),
    earning_rules: t.exposeInt('earning_rules'),
    tiers: t.exposeInt('tiers'),
    booster_campaigns: t.exposeInt('booster_campaigns'),
    referral_program: t.exposeBoolean('referral_program'),
    settings: t.exposeBoolean('settings'),
    points_imported: t.exposeInt('points_imported', { description: 'Opening balances credited' }),
    orders: t.exposeInt('orders', { description: 'Past orders written: as history, or recorded with their points (award_points)' }),
    orders_skipped: t.exposeInt('orders_skipped', { description: 'Past orders of the file already recorded: left as they were' }),
    points_awarded: t.exposeInt('points_awarded', { description: 'Points the past orders earned (award_points only)' }),
  }),
});

builder.mutationFields((t) => ({
  import_program: t.field({
    subGraphs: ['admin'],
    type: ProgramImportRef,
    description:
      "Imports a program file (the CLI's import: customers, rewards, earning rules, tiers, boosters, referral program, settings, past orders), validated whole, all or nothing; past orders are history (no points) unless award_points, when each earns as a late order does",
    args: {
      file: t.arg({ type: 'JSON', required: true }),
      award_points: t.arg.boolean({ description: 'Past orders earn points as if recorded when placed (default false)' }),
    },
    resolve: (_root, args, ctx) => importProgram(ctx.db, ctx.merchantId, args.file, { awardPoints: args.award_points ?? false }),
  }),
}));
