// The committed schema.graphql, admin.graphql and openapi.json match the code
// (`npm run schema:write` rewrites them), and every REST route has its root field.
import { describe, expect, it } from 'vitest';
import { readSnapshot, snapshotFiles } from '../../scripts/snapshots.js';
import { restSchema } from '../../src/graphql/public.js';
import { unresolvedRoutes } from '../../src/http/rest/routes.js';

describe('committed API descriptions', () => {
  it.each(Object.keys(snapshotFiles) as (keyof typeof snapshotFiles)[])('%s is up to date (npm run schema:write)', async (name) => {
    expect(await snapshotFiles[name]()).toBe(await readSnapshot(name));
  });

  it('serves every route of the spec index from a root field', () => {
    expect(unresolvedRoutes(restSchema).map((r) => r.path)).toEqual([]);
  });
});
