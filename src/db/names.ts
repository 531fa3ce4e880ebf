// The schema's one naming rule: a model's camelCase field is its snake_case column
// (`pointsCost` ↔ `points_cost`), which is also the API's name for it. Here, so that the SQL
// written beside Prisma (sql.ts) and the domain's field mappings convert names the same way.

/** `points_cost` → `pointsCost`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
/** `pointsCost` → `points_cost`. */
export type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;

export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
