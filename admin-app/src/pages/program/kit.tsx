// What the program's editors share: number fields read from text inputs and web addresses
// (checked here before anything is sent, the addresses by the API's own rule; every other rule
// is the API's, shown next to its field), date-time inputs,
// the reward rule's fields (rewards and the referral program's reward), and the list's buttons.
import { Fragment, type ReactNode, useId, useState } from 'react';
import type { CombinedError } from 'urql';
import { messages, sentence } from '../../../../src/domain/shared/messages';
import { type UrlRule, urlProblem, urlRules } from '../../../../src/domain/shared/urls';
import { CampaignType as campaignTypes, RewardType as rewardTypes } from '../../../../src/generated/prisma/enums';
import { type FieldErrors, messageOf } from '../../api';
import { formatMoney, formatPercent, humanize } from '../../format';
import { Alert, type Column, DataTable, Dialog, type PageInfo, Pager, TextField } from '../../ui';

// the schema's own lists (Prisma's enums, which the GraphQL schema is built from), in their order
export const REWARD_TYPES = Object.values(rewardTypes);
export type RewardType = (typeof REWARD_TYPES)[number];
export const CAMPAIGN_TYPES = Object.values(campaignTypes);

export const optionsOf = (values: readonly string[]) => values.map((value) => ({ value, label: humanize(value) }));

/** '' → null; otherwise the number (NaN when it is not one: reported by `numberErrors`). */
export const toNumber = (text: string): number | null => (text.trim() === '' ? null : Number(text.trim()));
export const fromNumber = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));

/** Fields that must be numbers (and whole numbers where said), keyed as the API names them. */
export function numberErrors(fields: Record<string, { text: string; integer?: boolean; required?: boolean }>): FieldErrors {
  const errors: FieldErrors = {};
  for (const [name, { text, integer, required }] of Object.entries(fields)) {
    const n = toNumber(text);
    if (n === null) {
      if (required) errors[name] = [messages.required];
    } else if (Number.isNaN(n)) errors[name] = [messages.number];
    else if (integer && !Number.isInteger(n)) errors[name] = [messages.wholeNumber];
  }
  return errors;
}

/** Web address fields (an empty one is none), held to the rule the API holds them to, keyed as the API names them. */
export function urlErrors(fields: Record<string, { text: string; rule: UrlRule }>): FieldErrors {
  const errors: FieldErrors = {};
  for (const [name, { text, rule }] of Object.entries(fields)) {
    const problem = text.trim() ? urlProblem(text.trim(), rule) : null;
    if (problem) errors[name] = [sentence(problem)];
  }
  return errors;
}

/** datetime-local value (the browser's time zone) ↔ ISO 8601 UTC. */
export const toIso = (local: string) => (local ? new Date(local).toISOString() : null);
export function toLocal(iso: string | null | undefined) {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The reward rule's fields as form text. */
export interface RuleValues {
  discount_value: string;
  max_discount_amount: string;
  max_shipping_amount: string;
  product_id: string;
  variant_id: string;
  credit_value: string;
  min_order_subtotal: string;
  expires_after_days: string;
}

export const emptyRule: RuleValues = {
  discount_value: '',
  max_discount_amount: '',
  max_shipping_amount: '',
  product_id: '',
  variant_id: '',
  credit_value: '',
  min_order_subtotal: '',
  expires_after_days: '',
};

type StoredRule = Partial<Record<keyof RuleValues, string | number | null>>;

export function ruleValues(rule: StoredRule | null | undefined): RuleValues {
  const out = { ...emptyRule };
  for (const k of Object.keys(out) as (keyof RuleValues)[]) out[k] = rule?.[k] == null ? '' : String(rule[k]);
  return out;
}

/** Which rule fields a reward type has. */
const ruleFields: Record<RewardType, (keyof RuleValues)[]> = {
  fixed_discount: ['discount_value'],
  percentage_discount: ['discount_value', 'max_discount_amount'],
  free_shipping: ['max_shipping_amount'],
  free_product: ['product_id', 'variant_id'],
  store_credit: ['credit_value'],
};
const common: (keyof RuleValues)[] = ['min_order_subtotal', 'expires_after_days'];
const textFields = new Set<keyof RuleValues>(['product_id', 'variant_id']);

/** The reward_rule to send: only the type's fields that are filled in. */
export function ruleInput(type: RewardType, values: RuleValues): Record<string, string | number> {
  const rule: Record<string, string | number> = {};
  for (const field of [...ruleFields[type], ...common]) {
    const text = values[field].trim();
    if (text !== '') rule[field] = textFields.has(field) ? text : Number(text);
  }
  return rule;
}

export function ruleNumberErrors(type: RewardType, values: RuleValues, prefix: string): FieldErrors {
  const fields: Record<string, { text: string; integer?: boolean }> = {};
  for (const field of [...ruleFields[type], ...common]) {
    if (!textFields.has(field)) fields[`${prefix}.${field}`] = { text: values[field], integer: field === 'expires_after_days' };
  }
  return numberErrors(fields);
}

const labels = (type: RewardType): Record<keyof RuleValues, { label: string; hint?: string }> => ({
  discount_value:
    type === 'percentage_discount'
      ? { label: 'Discount (%)', hint: '1 to 100' }
      : { label: 'Discount amount', hint: 'In the shop currency' },
  max_discount_amount: { label: 'Largest discount amount', hint: 'Optional cap on the percentage discount' },
  max_shipping_amount: { label: 'Largest shipping amount covered', hint: 'Optional' },
  product_id: { label: 'Product id', hint: 'The free product, as your store platform names it' },
  variant_id: { label: 'Variant id', hint: 'Optional' },
  credit_value: { label: 'Store credit amount' },
  min_order_subtotal: { label: 'Minimum order subtotal', hint: 'Optional: the code applies to orders from this amount' },
  expires_after_days: { label: 'Code valid for (days)', hint: 'Optional: how long an issued code stays valid' },
});

/** The reward rule's inputs for a reward type; errors under `${prefix}.<field>`. */
export function RuleFields({
  type,
  values,
  onChange,
  errors,
  prefix,
}: {
  type: RewardType;
  values: RuleValues;
  onChange: (values: RuleValues) => void;
  errors: FieldErrors;
  prefix: string;
}) {
  const text = labels(type);
  return (
    <>
      {[...ruleFields[type], ...common].map((field) => (
        <TextField
          key={field}
          label={text[field].label}
          hint={text[field].hint}
          inputMode={textFields.has(field) ? undefined : 'decimal'}
          value={values[field]}
          onChange={(e) => onChange({ ...values, [field]: e.target.value })}
          errors={errors[`${prefix}.${field}`]}
        />
      ))}
    </>
  );
}

/** A short description of a reward rule for the list, amounts in the shop's currency. */
export function describeRule(type: string, rule: StoredRule, currency: string, productName?: string | null): string {
  const money = (amount: StoredRule[keyof StoredRule]) => formatMoney(amount, currency);
  const min = rule.min_order_subtotal ? ` on orders from ${money(rule.min_order_subtotal)}` : '';
  switch (type) {
    case 'fixed_discount':
      return `${money(rule.discount_value)} off${min}`;
    case 'percentage_discount':
      return `${formatPercent(Number(rule.discount_value) / 100)} off${rule.max_discount_amount ? ` (up to ${money(rule.max_discount_amount)})` : ''}${min}`;
    case 'free_shipping':
      return `Free shipping${rule.max_shipping_amount ? ` up to ${money(rule.max_shipping_amount)}` : ''}${min}`;
    case 'free_product':
      // the store's name for it; its ids only when the reward was given none
      return `Free ${productName ?? `product ${rule.product_id}${rule.variant_id ? ` / ${rule.variant_id}` : ''}`}${min}`;
    case 'store_credit':
      return `${money(rule.credit_value)} store credit`;
    default:
      return humanize(type);
  }
}

export interface ProductValues {
  product_name: string;
  product_image_url: string;
}

export const productValues = (
  r: { product_name?: string | null; product_image_url?: string | null } | null | undefined,
): ProductValues => ({
  product_name: r?.product_name ?? '',
  product_image_url: r?.product_image_url ?? '',
});

/** The product image's address, checked as the API checks it. */
export const productErrors = (v: ProductValues) =>
  urlErrors({ product_image_url: { text: v.product_image_url, rule: urlRules.productImage } });

/** What to send: an empty field clears it. */
export const productInput = (v: ProductValues) => ({
  product_name: v.product_name.trim() || null,
  product_image_url: v.product_image_url.trim() || null,
});

export const PRODUCT_FIELDS = ['product_name', 'product_image_url'];

/**
 * The product's display name and image address, as the store shows them. The list shows both:
 * the image small, beside the record's name (ProductImage).
 */
export function ProductFields({
  values,
  onChange,
  errors,
}: {
  values: ProductValues;
  onChange: (v: ProductValues) => void;
  errors: FieldErrors;
}) {
  return (
    <div className="two">
      <TextField
        label="Product name"
        hint="Optional: the name your store shows, e.g. Canvas tote"
        value={values.product_name}
        onChange={(e) => onChange({ ...values, product_name: e.target.value })}
        errors={errors.product_name}
      />
      <TextField
        label="Product image address"
        hint="Optional: https://…"
        type="url"
        value={values.product_image_url}
        onChange={(e) => onChange({ ...values, product_image_url: e.target.value })}
        errors={errors.product_image_url}
      />
    </div>
  );
}

/**
 * A product's image, small, its alt text the product's name. Only an address the API takes now
 * (https; a row stored before that rule may hold another) is loaded:
 * the page's CSP allows images from elsewhere over https alone (an http one would be refused
 * and logged). One that is not https or that fails to load leaves a neutral square in its
 * place, named the same, so the rows stay aligned and nothing is lost to a screen reader.
 */
function ProductImage({ src, name }: { src: string | null | undefined; name: string }) {
  const [failed, setFailed] = useState<string | null>(null);
  if (!src) return null;
  if (failed === src || urlProblem(src, urlRules.productImage)) {
    return <span className="product-image product-image-missing" role="img" aria-label={name} />;
  }
  return (
    <img
      className="product-image"
      src={src}
      alt={name}
      width={32}
      height={32}
      loading="lazy"
      decoding="async"
      referrerPolicy="no-referrer"
      onError={() => setFailed(src)}
    />
  );
}

/** A record's name with its product's image before it, when it has one. */
export function NameWithImage({ record }: { record: { name: string; product_name?: string | null; product_image_url?: string | null } }) {
  return (
    <span className="with-image">
      <ProductImage src={record.product_image_url} name={record.product_name || record.name} />
      {record.name}
    </span>
  );
}

/** Merges the form's own checks with the API's errors (the form's win: they were not sent). */
export const mergeErrors = (local: FieldErrors, server: FieldErrors): FieldErrors => ({ ...server, ...local });

function ToggleButton({ active, name, busy, onToggle }: { active: boolean; name: string; busy?: boolean; onToggle: () => void }) {
  return (
    <button type="button" onClick={onToggle} disabled={busy} aria-label={`${active ? 'Deactivate' : 'Activate'} ${name}`}>
      {active ? 'Deactivate' : 'Activate'}
    </button>
  );
}

/** One kind of program record: its list (with Edit, and Activate/Deactivate where it has a state), and its form in a dialog. */
export function RecordList<T extends { id: string; name: string; is_active?: boolean }>({
  title,
  noun,
  empty,
  columns,
  rows,
  pagination,
  onPage,
  error,
  refetch,
  toggle,
  form,
}: {
  title: string;
  /** "reward": the New button, the dialog titles. */
  noun: string;
  empty: string;
  columns: Column<T>[];
  rows: readonly T[] | undefined;
  pagination?: PageInfo;
  onPage?: (page: number) => void;
  error?: CombinedError;
  refetch: () => void;
  toggle?: { run: (row: T, active: boolean) => Promise<{ error?: CombinedError }>; busy: boolean; error?: CombinedError };
  form: (row: T | null, onSaved: (name: string) => void) => ReactNode;
}) {
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const headingId = useId();
  const saved = (name: string) => {
    setNotice(`Saved “${name}”.`);
    setEditing(null);
    refetch();
  };
  const flip = async (row: T) => {
    const res = await toggle!.run(row, !row.is_active);
    if (!res.error) setNotice(`“${row.name}” is now ${row.is_active ? 'inactive' : 'active'}.`);
    refetch();
  };
  const actions: Column<T> = {
    header: 'Actions',
    hiddenHeader: true,
    className: () => 'row-actions',
    cell: (row) => (
      <>
        <button type="button" onClick={() => setEditing(row)} aria-label={`Edit ${row.name}`}>
          Edit
        </button>
        {toggle && row.is_active !== undefined && (
          <ToggleButton active={row.is_active} name={row.name} busy={toggle.busy} onToggle={() => void flip(row)} />
        )}
      </>
    ),
  };
  return (
    <section aria-labelledby={headingId}>
      <div className="section-head">
        <h2 id={headingId}>{title}</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New {noun}
        </button>
      </div>
      <Alert tone="success">{notice}</Alert>
      <Alert>{messageOf(error) ?? messageOf(toggle?.error)}</Alert>
      <DataTable columns={[...columns, actions]} rows={rows} rowKey={(r) => r.id} empty={empty} />
      {onPage && <Pager label={title} page={pagination} onPage={onPage} />}
      <Dialog
        title={editing === 'new' ? `New ${noun}` : `Edit ${editing?.name ?? ''}`}
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing !== null && (
          <Fragment key={editing === 'new' ? 'new' : editing.id}>{form(editing === 'new' ? null : editing, saved)}</Fragment>
        )}
      </Dialog>
    </section>
  );
}

type Refetch = (options: { requestPolicy: 'network-only' }) => void;

/** A paged list's props from its query: rows, pages, error, and a refetch past the cache. */
export function pagedProps<T>(
  list: { data: readonly T[]; meta: { pagination: PageInfo } } | undefined,
  error: CombinedError | undefined,
  refetch: Refetch,
  onPage: (page: number) => void,
) {
  return { rows: list?.data, pagination: list?.meta.pagination, onPage, error, refetch: () => refetch({ requestPolicy: 'network-only' }) };
}

/** The Activate/Deactivate props from a mutation taking { id, active }. */
export function toggleProps<T extends { id: string }>([state, run]: [
  { fetching: boolean; error?: CombinedError },
  (variables: { id: string; active: boolean }) => Promise<{ error?: CombinedError }>,
]) {
  return { run: (row: T, active: boolean) => run({ id: row.id, active }), busy: state.fetching, error: state.error };
}
