// The public schema: each resource module adds its types and fields to the builder.
import { builder } from './builder.js';
import './types/activities.js';
import './types/boosters.js';
import './types/customer-rewards.js';
import './types/customers.js';
import './types/earning-rules.js';
import './types/estimate.js';
import './types/referrals.js';
import './types/rewards.js';
import './types/tiers.js';
import './types/transactions.js';

export const schema = builder.toSchema({ sortSchema: false });
