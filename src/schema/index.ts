// The public schema: each resource module adds its types and fields to the builder.
import { builder } from './builder.js';
import './customers.js';
import './earning-rules.js';
import './rewards.js';
import './transactions.js';

export const schema = builder.toSchema({ sortSchema: false });
