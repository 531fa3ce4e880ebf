// Field shapes the program's inputs share (rewards, earning rules, tiers, boosters, the
// referral program), in the public field names. One definition serves the admin API, the
// import file and seed data.
import { z } from 'zod';
import { MAX_POINTS } from './limits.js';

export const field = {
  id: z.uuid(),
  name: z.string().trim().min(1, 'is required').max(200),
  description: z.string().trim().max(2000).nullish(),
  timestamp: z.iso.datetime({ offset: true }),
  points: z.number().int().min(0).max(MAX_POINTS),
};
