// A migration script cut into its statements, for the one database that needs them apart: a
// Citus coordinator sends the text of a DDL statement on a distributed table (ALTER TABLE,
// CREATE TRIGGER, a foreign key to a reference table) on to its workers as one prepared
// statement, and a whole multi-statement script is refused there. Statements end at a `;` outside
// quotes ('…', "…"), dollar quotes ($$…$$, $tag$…$tag$) and comments (-- …, nested /* … */);
// strings follow standard_conforming_strings (a quote is doubled, a backslash is a character),
// except E'…' strings, whose backslash escapes the next character.

/** The statements of `script`, each with its text as written (comments and all); blank ones dropped. */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  const skipQuoted = (quote: string, backslash: boolean) => {
    i++;
    while (i < n) {
      const c = script[i]!;
      if (backslash && c === '\\') i += 2;
      else if (c === quote && script[i + 1] === quote) i += 2;
      else if (c === quote) return void i++;
      else i++;
    }
  };
  while (i < n) {
    const c = script[i]!;
    if (c === '-' && script[i + 1] === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && script[i + 1] === '*') {
      let depth = 0;
      do {
        if (script.startsWith('/*', i) || script.startsWith('*/', i)) {
          depth += script[i] === '/' ? 1 : -1;
          i += 2;
        } else i++;
      } while (depth > 0 && i < n);
    } else if (c === "'") {
      const escaped = (script[i - 1] === 'E' || script[i - 1] === 'e') && !/[\w$]/.test(script[i - 2] ?? ' ');
      skipQuoted("'", escaped);
    } else if (c === '"') {
      skipQuoted('"', false);
    } else if (c === '$' && !/[\w$]/.test(script[i - 1] ?? ' ')) {
      const tag = /^\$([A-Za-z_][\w]*)?\$/.exec(script.slice(i, i + 64))?.[0];
      if (tag) {
        const end = script.indexOf(tag, i + tag.length);
        i = end === -1 ? n : end + tag.length;
      } else i++;
    } else if (c === ';') {
      statements.push(script.slice(start, i + 1));
      start = ++i;
    } else i++;
  }
  statements.push(script.slice(start));
  return statements.filter((s) => /\S/.test(s.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, '')));
}
