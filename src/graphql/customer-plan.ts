// Planning a document's reads of its customers, the way PostGraphile plans a query: a field that
// finds customers (`customer`, `me`, `customers`…) looks ahead at what the document selects of
// them, and every selected link of the graph (balance, tier status, lists: customer-links.ts)
// gives the part it reads beside its customer (domain/customers/customer-parts.ts). The field
// then reads its customers and all those parts in one statement; each link answers from what its
// customer carries. A link the plan did not read (a field that finds customers without planning,
// or a selection that differs between two places of the document) reads on its own.
import {
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  getNamedType,
  isObjectType,
} from 'graphql';
import { collectSubfields } from 'graphql/execution/collectFields.js';
import { getArgumentValues } from 'graphql/execution/values.js';
import { allows, type ScopeGrant } from '../domain/access/scopes.js';
import type { CustomerPart } from '../domain/customers/customer-parts.js';
import type { CustomerProfile } from '../domain/customers/customer-records.js';
import { type Program, readProgram } from '../domain/merchants/program.js';
import type { MaybePromise } from '../domain/shared/maybe-promise.js';
import type { Context } from './builder.js';

/**
 * What a link's part is built with: whether the document selects the list's total, which
 * properties of the list's rows its items' fields read (undefined: all, or not a list), the
 * merchant's program, and the moment.
 */
export interface LinkNeeds {
  total: boolean;
  fields?: readonly string[];
  /** The merchant's program (cached), for links that say they use it. */
  program?: Program;
  now: Date;
}

/** A link of Customer: the scope its REST twin needs, and the part it reads for its arguments (throwing fails the link alone). */
export interface CustomerLink {
  scope: ScopeGrant;
  /** The field of the link's own type that shows the list's total (`meta`, `total_count`): read only when selected. */
  totalField?: string;
  /** Where the list's items are below the link's own type (`['data']`, `['edges', 'node']`). */
  items?: readonly string[];
  /** The part reads the merchant's time zone, points expiry or tier ladder. */
  usesProgram?: boolean;
  part(ctx: Context, args: Record<string, unknown>, needs: LinkNeeds): CustomerPart;
}

const links = new Map<string, CustomerLink>();

/** Declares Customer's field `name` as a link the plan reads. */
export function registerLink(name: string, link: CustomerLink) {
  links.set(name, link);
}

const PROGRAM = Symbol('loyalty.program');

/** The merchant's program, once per request: at once when the instance's cache holds it. */
export function programOf(ctx: Context): MaybePromise<Program> {
  const held = ctx as Context & { [PROGRAM]?: MaybePromise<Program> };
  return (held[PROGRAM] ??= ctx.programs ? ctx.programs.get(ctx.merchantId, ctx.programRevision) : readProgram(ctx.db, ctx.merchantId));
}

/** The links a field's customers are read with: their parts, and where each selected link's value is. */
export interface LinkPlan {
  parts: CustomerPart[];
  /** A selected link's response name to its part's index. */
  index: Map<string, number>;
  /** A selected link whose arguments were refused before any read. */
  failed: Map<string, Error>;
}

const PLAN = Symbol('loyalty.linkPlan');
type Planned = CustomerProfile & { [PLAN]?: LinkPlan };

const NONE: LinkPlan = { parts: [], index: new Map(), failed: new Map() };

/** The value the plan read for the link at `responseName` of `customer` (an Error fails it), or undefined. */
export function plannedLink(customer: CustomerProfile, responseName: string): unknown {
  const plan = (customer as Planned)[PLAN];
  if (!plan) return undefined;
  const failed = plan.failed.get(responseName);
  if (failed) return failed;
  const i = plan.index.get(responseName);
  return i === undefined ? undefined : customer.linked?.[i];
}

/** `customer`, read with `plan`'s parts, answering its links from them. */
export function withPlan<C extends CustomerProfile>(customer: C, plan: LinkPlan): C {
  if (plan !== NONE) (customer as Planned)[PLAN] = plan;
  return customer;
}

type Selection = { type: GraphQLObjectType; nodes: readonly FieldNode[] };
type Variables = GraphQLResolveInfo['variableValues'];

/** The nodes of the subfields of `at` named `name`, under every alias. */
function subfieldNodes(info: GraphQLResolveInfo, variables: Variables, at: Selection, name: string): FieldNode[] {
  return [...collectSubfields(info.schema, info.fragments, variables, at.type, at.nodes).values()]
    .flat()
    .filter((n) => n.name.value === name);
}

/**
 * The properties of a list's rows that the fields selected of its items (at `items` below `of`)
 * expose, or undefined when one of them resolves otherwise (it may read any) or none is found.
 */
function exposedFields(info: GraphQLResolveInfo, variables: Variables, of: Selection, items: readonly string[]): string[] | undefined {
  let at: Selection = of;
  for (const name of items) {
    const nodes: FieldNode[] = subfieldNodes(info, variables, at, name);
    const type: GraphQLNamedType | undefined = getNamedType(at.type.getFields()[name]?.type);
    if (nodes.length === 0 || !isObjectType(type)) return undefined;
    at = { type, nodes };
  }
  const fields = new Set<string>();
  for (const nodes of collectSubfields(info.schema, info.fragments, variables, at.type, at.nodes).values()) {
    const name = nodes[0]!.name.value;
    if (name === '__typename') continue;
    const exposed = at.type.getFields()[name]?.extensions?.pothosExposedField;
    if (typeof exposed !== 'string') return undefined;
    fields.add(exposed);
  }
  return [...fields];
}

/** A link the document selects of the customers, under one response name. */
interface SelectedLink {
  responseName: string;
  link: CustomerLink;
  field: GraphQLField<unknown, unknown>;
  nodes: readonly FieldNode[];
  /** It selects the list's total. */
  total: boolean;
  /** The properties of the list's rows its items' selected fields expose (undefined: all). */
  fields?: string[];
}

/**
 * The links the document selects of the customers at `path` below the resolving field: the same
 * for every execution of a document unless a directive reads a variable (`@include(if: $x)`), so
 * kept per document (its field nodes) when none did.
 */
const selections = new WeakMap<readonly FieldNode[], SelectedLink[]>();

function selectedLinks(info: GraphQLResolveInfo, path: readonly string[]): SelectedLink[] {
  const kept = selections.get(info.fieldNodes);
  if (kept) return kept;
  // a directive's variable is read by name (own property checks, then the value)
  let readsVariables = false;
  const noted =
    <A extends unknown[], R>(trap: (...args: A) => R) =>
    (...args: A) => {
      readsVariables = true;
      return trap(...args);
    };
  const variables = new Proxy<Variables>(info.variableValues ?? {}, {
    get: noted(Reflect.get),
    has: noted(Reflect.has),
    getOwnPropertyDescriptor: noted(Reflect.getOwnPropertyDescriptor),
  });
  const type = getNamedType(info.returnType);
  let at: Selection | null = isObjectType(type) ? { type, nodes: info.fieldNodes } : null;
  for (const name of path) {
    if (!at) break;
    const nodes = subfieldNodes(info, variables, at, name);
    const next = getNamedType(at.type.getFields()[name]?.type);
    at = nodes.length > 0 && isObjectType(next) ? { type: next, nodes } : null;
  }
  const selected: SelectedLink[] = [];
  if (at) {
    for (const [responseName, nodes] of collectSubfields(info.schema, info.fragments, variables, at.type, at.nodes)) {
      const link = links.get(nodes[0]!.name.value);
      if (!link) continue;
      const field = at.type.getFields()[nodes[0]!.name.value]!;
      const of = { type: getNamedType(field.type) as GraphQLObjectType, nodes };
      const total = link.totalField !== undefined && subfieldNodes(info, variables, of, link.totalField).length > 0;
      selected.push({ responseName, link, field, nodes, total, fields: link.items && exposedFields(info, variables, of, link.items) });
    }
  }
  if (!readsVariables) selections.set(info.fieldNodes, selected);
  return selected;
}

/**
 * The plan of the customers the resolving field answers, found at `path` below it (`['data']`
 * for a `{ data }` envelope, `[]` when it returns them itself): a part for each link the
 * document selects of them that the request may read.
 */
export async function planLinks(ctx: Context, info: GraphQLResolveInfo, path: readonly string[]): Promise<LinkPlan> {
  // a link the request may not read fails on its own scope, unread
  const selected = selectedLinks(info, path).filter(({ link }) => allows(ctx.principal?.scopes ?? [], link.scope));
  if (selected.length === 0) return NONE;
  const program = selected.some(({ link }) => link.usesProgram) ? await programOf(ctx) : undefined;
  const plan: LinkPlan = { parts: [], index: new Map(), failed: new Map() };
  const now = new Date();
  for (const { responseName, link, field, nodes, total, fields } of selected) {
    const args = getArgumentValues(field, nodes[0]!, info.variableValues);
    // one response name with other arguments elsewhere (under another alias of the parent): read alone
    if (
      nodes.length > 1 &&
      nodes.some((node) => JSON.stringify(getArgumentValues(field, node, info.variableValues)) !== JSON.stringify(args))
    ) {
      continue;
    }
    try {
      plan.index.set(responseName, plan.parts.push(link.part(ctx, args, { total, fields, program, now })) - 1);
    } catch (err) {
      plan.failed.set(responseName, err as Error);
    }
  }
  return plan;
}

/** Whether the link resolving in `info` selects its `totalField`. */
export function selectsTotal(info: GraphQLResolveInfo, link: CustomerLink): boolean {
  const type = getNamedType(info.returnType);
  return (
    link.totalField !== undefined &&
    isObjectType(type) &&
    subfieldNodes(info, info.variableValues, { type, nodes: info.fieldNodes }, link.totalField).length > 0
  );
}
