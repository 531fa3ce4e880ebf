// The merchant admin schema (/admin/graphql): each resource module adds its types and
// fields to the admin builder. Never exposed as REST.
import { builder } from './builder.js';
import '../types/api-keys.js';
import './boosters.js';
import './customers.js';
import './earning-rules.js';
import '../types/events.js';
import '../types/merchant.js';
import './referral-program.js';
import './rewards.js';
import './tiers.js';

export const adminSchema = builder.toSchema({ sortSchema: false });
