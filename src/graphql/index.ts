// The public schema: each resource module adds its types and fields to the builder.
import { builder } from './builder.js';
import './activities.js';
import './boosters.js';
import './customer-rewards.js';
import './customers.js';
import './earning-rules.js';
import './estimate.js';
import './referrals.js';
import './rewards.js';
import './tiers.js';
import './transactions.js';

export const schema = builder.toSchema({ sortSchema: false });
