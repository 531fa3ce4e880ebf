// The public schema's list and single-record envelopes (spec 2.4), from schema/common.ts.
import { builder } from './builder.js';
import { envelopes } from './envelopes.js';

export const { listOf, resultOf, pageArgs } = envelopes(builder);
