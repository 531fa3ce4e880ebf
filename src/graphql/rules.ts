// An argument's or input field's rule is the zod schema the domain checks it with: `ruled`
// carries that schema into the GraphQL schema, as words in the description and as JSON Schema
// keywords in `extensions.jsonSchema`, which the OpenAPI document gives the REST parameter or
// body field (src/http/rest/openapi.ts). So a limit is written once, where it is enforced.
import { z } from 'zod';
import { identifierPattern, NOT_BLANK } from '../domain/shared/fields.js';

/** JSON Schema keywords of a rule, without the type (GraphQL's type gives it). */
export type RuleSchema = Record<string, unknown>;

// z.toJSONSchema bounds every .int() by the safe integers; GraphQL's Int (int32) is narrower.
// The structure (types, an input object's fields) is GraphQL's to say.
const SAFE = Number.MAX_SAFE_INTEGER;
const structure = new Set(['$schema', 'type', 'format', 'properties', 'required', 'additionalProperties']);

/** The constraint keywords of `schema` (its nullable branch unwrapped: GraphQL's nullability says that). */
function ruleSchema(schema: z.ZodType): RuleSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const branches = json.anyOf as Record<string, unknown>[] | undefined;
  if (branches?.length === 2 && branches.some((b) => b.type === 'null')) {
    return constraints({ ...branches.find((b) => b.type !== 'null'), ...(json.default !== undefined && { default: json.default }) });
  }
  return constraints(json);
}

function constraints(json: Record<string, unknown>): RuleSchema {
  const rule: RuleSchema = {};
  for (const [key, value] of Object.entries(json)) {
    if (structure.has(key) || (key === 'minimum' && value === -SAFE) || (key === 'maximum' && value === SAFE)) continue;
    if (key !== 'items') rule[key] = value;
    else {
      // a list's items: their own constraints, if any
      const items = constraints(value as Record<string, unknown>);
      if (Object.keys(items).length > 0) rule.items = items;
    }
  }
  return rule;
}

const number = (n: unknown) => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n));
/** Patterns whose words say more than the pattern. */
const patternWords: Record<string, string> = {
  [NOT_BLANK]: 'not blank',
  '^[A-Za-z]{3}$': '3 letters',
  [identifierPattern]: 'no control, format or invisible space characters, no space at either end',
};

/** A rule in words, for a description: `1 to 100; default 20`. */
function ruleWords(rule: RuleSchema): string {
  const words: string[] = [];
  const { minimum: min, maximum: max, minLength, maxLength, pattern, maxItems } = rule;
  if (min !== undefined && max !== undefined) words.push(`${number(min)} to ${number(max)}`);
  else if (min !== undefined) words.push(`at least ${number(min)}`);
  else if (max !== undefined) words.push(`at most ${number(max)}`);
  const not = (rule.not as { const?: unknown } | undefined)?.const;
  if (not !== undefined) words.push(`not ${number(not)}`);
  if (minLength !== undefined && maxLength !== undefined) words.push(`${number(minLength)} to ${number(maxLength)} characters`);
  else if (maxLength !== undefined) words.push(`at most ${number(maxLength)} characters`);
  else if (minLength === 1) words.push('not empty');
  if (typeof pattern === 'string') words.push(patternWords[pattern] ?? `matching \`${pattern}\``);
  if (maxItems !== undefined) words.push(`at most ${number(maxItems)} items`);
  if (rule.default !== undefined) words.push(`default ${number(rule.default)}`);
  return words.join('; ');
}

/** Options for `t.arg.*` / an input field: `description` with the rule's words, and the rule. */
export function ruled(schema: z.ZodType, description: string) {
  const rule = ruleSchema(schema);
  const words = ruleWords(rule);
  return { description: words ? `${description} (${words})` : description, extensions: { jsonSchema: rule } };
}
