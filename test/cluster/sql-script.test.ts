// Cutting a migration script into statements (what a Citus coordinator needs): every `;` that
// ends a statement and none inside quotes, dollar quotes or comments; every migration cut into
// pieces that put back together are the script.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationsDir } from '../../src/db/schema-engine.js';
import { splitStatements } from '../../src/db/sql-script.js';

describe('splitStatements', () => {
  it('cuts at the semicolons that end statements only', () => {
    const script = `-- a comment's apostrophe; and a semicolon
CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'a;b'; RETURN 1; END $$;
/* a block; /* nested; */ still a comment; */ SELECT 'it''s; fine', "odd;name", E'\\'; still';
DO $body$ BEGIN EXECUTE $ddl$SELECT ';'$ddl$; END $body$;
SELECT $1::int;
-- trailing comment only`;
    expect(splitStatements(script).map((s) => s.trim().replace(/\s+/g, ' '))).toEqual([
      "-- a comment's apostrophe; and a semicolon CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'a;b'; RETURN 1; END $$;",
      `/* a block; /* nested; */ still a comment; */ SELECT 'it''s; fine', "odd;name", E'\\'; still';`,
      "DO $body$ BEGIN EXECUTE $ddl$SELECT ';'$ddl$; END $body$;",
      'SELECT $1::int;',
    ]);
  });

  it('cuts every migration into statements that together are the script', () => {
    for (const dir of readdirSync(migrationsDir).filter((d) => !d.includes('.'))) {
      const script = readFileSync(path.join(migrationsDir, dir, 'migration.sql'), 'utf8');
      const statements = splitStatements(script);
      expect(statements.length, dir).toBeGreaterThan(0);
      for (const s of statements)
        expect(s.trimEnd().endsWith(';') || !/\S/.test(s.replace(/--[^\n]*/g, '')), `${dir}: ${s.slice(0, 80)}`).toBe(true);
      expect(script.startsWith(statements.join('')), dir).toBe(true);
      expect(
        script
          .slice(statements.join('').length)
          .replace(/--[^\n]*/g, '')
          .trim(),
        dir,
      ).toBe('');
    }
  });
});
