// Earning rules ("ways to earn") with their conditions: list, create, edit, activate, deactivate.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { type FieldErrors, fieldErrorsOf } from '../../api';
import { formatDateTime, formatMoney, formatNumber, humanize } from '../../format';
import { graphql, type ResultOf } from '../../graphql';
import { useCurrency } from '../../session';
import { CheckboxField, CheckboxGroup, FormFooter, SelectField, StatusBadge, scheduleOf, TextAreaField, TextField } from '../../ui';
import {
  CAMPAIGN_TYPES,
  fromNumber,
  mergeErrors,
  NameWithImage,
  numberErrors,
  optionsOf,
  PRODUCT_FIELDS,
  ProductFields,
  pagedProps,
  productErrors,
  productInput,
  productValues,
  RecordList,
  toggleProps,
  toIso,
  toLocal,
  toNumber,
} from './kit';

const RulesQuery = graphql(`
  query AdminEarningRules($page: Int) {
    earning_rules(page: $page, per_page: 25) {
      data {
        id name description campaign_type is_active product_name product_image_url
        earning_rule { type value per_amount }
        conditions { min_order_subtotal max_points_per_order tier_ids product_ids excluded_product_ids limit { count period } starts_at ends_at }
      }
      meta { pagination { current_page last_page total } }
    }
    tiers(per_page: 100) { data { id name } }
  }
`);
const CreateRule = graphql(`
  mutation CreateEarningRule($input: EarningRuleInput!) { create_earning_rule(input: $input) { id name } }
`);
const UpdateRule = graphql(`
  mutation UpdateEarningRule($id: ID!, $input: EarningRulePatch!) { update_earning_rule(id: $id, input: $input) { id name } }
`);
const SetRuleActive = graphql(`
  mutation SetEarningRuleActive($id: ID!, $active: Boolean!) {
    activate_earning_rule(id: $id) @include(if: $active) { id is_active }
    deactivate_earning_rule(id: $id) @skip(if: $active) { id is_active }
  }
`);

type Rule = ResultOf<typeof RulesQuery>['earning_rules']['data'][number];
const PERIODS = ['day', 'week', 'month', 'year', 'lifetime'] as const;
const ids = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function describe(rule: Rule, currency: string) {
  const e = rule.earning_rule;
  if (!e) return '—';
  return e.type === 'variable' ? `${e.value} point(s) per ${formatMoney(e.per_amount, currency)} spent` : `${e.value} point(s)`;
}

function conditionsText(rule: Rule, currency: string) {
  const c = rule.conditions;
  if (!c) return 'None';
  const parts = [
    c.min_order_subtotal != null && `orders from ${formatMoney(c.min_order_subtotal, currency)}`,
    c.max_points_per_order != null && `at most ${formatNumber(c.max_points_per_order)} points per order`,
    c.limit && `${formatNumber(c.limit.count)} times per ${c.limit.period}`,
    c.tier_ids?.length && `${c.tier_ids.length} tier(s)`,
    c.product_ids?.length && `products ${rule.product_name ?? c.product_ids.join(', ')}`,
    c.excluded_product_ids?.length && `not ${c.excluded_product_ids.join(', ')}`,
    c.starts_at && `from ${formatDateTime(c.starts_at)}`,
    c.ends_at && `until ${formatDateTime(c.ends_at)}`,
  ].filter(Boolean);
  return parts.join('; ') || 'None';
}

const SHOWN = [
  'name',
  'description',
  'campaign_type',
  'earning_rule.type',
  'earning_rule.value',
  'earning_rule.per_amount',
  'conditions.min_order_subtotal',
  'conditions.max_points_per_order',
  'conditions.tier_ids',
  'conditions.product_ids',
  'conditions.excluded_product_ids',
  'conditions.limit.count',
  'conditions.limit.period',
  'conditions.starts_at',
  'conditions.ends_at',
  ...PRODUCT_FIELDS,
];

function RuleForm({ rule, tiers, onSaved }: { rule: Rule | null; tiers: { id: string; name: string }[]; onSaved: (name: string) => void }) {
  const c = rule?.conditions;
  const [v, setV] = useState({
    name: rule?.name ?? '',
    description: rule?.description ?? '',
    campaign_type: rule?.campaign_type ?? 'purchase',
    is_active: rule?.is_active ?? true,
    type: rule?.earning_rule?.type ?? 'fixed',
    value: fromNumber(rule?.earning_rule?.value),
    per_amount: fromNumber(rule?.earning_rule?.per_amount),
    min_order_subtotal: fromNumber(c?.min_order_subtotal),
    max_points_per_order: fromNumber(c?.max_points_per_order),
    tier_ids: c?.tier_ids ?? [],
    product_ids: c?.product_ids?.join(', ') ?? '',
    excluded_product_ids: c?.excluded_product_ids?.join(', ') ?? '',
    limit_count: fromNumber(c?.limit?.count),
    limit_period: c?.limit?.period ?? 'day',
    starts_at: toLocal(c?.starts_at),
    ends_at: toLocal(c?.ends_at),
    product: productValues(rule),
  });
  const set =
    <K extends keyof typeof v>(k: K) =>
    (value: (typeof v)[K]) =>
      setV((old) => ({ ...old, [k]: value }));
  const [local, setLocal] = useState<FieldErrors>({});
  const [created, create] = useMutation(CreateRule);
  const [updated, update] = useMutation(UpdateRule);
  const result = rule ? updated : created;
  const errors = mergeErrors(local, fieldErrorsOf(result.error));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems = {
      ...numberErrors({
        'earning_rule.value': { text: v.value, required: true, integer: v.type === 'fixed' },
        ...(v.type === 'variable' && { 'earning_rule.per_amount': { text: v.per_amount, required: true } }),
        'conditions.min_order_subtotal': { text: v.min_order_subtotal },
        'conditions.max_points_per_order': { text: v.max_points_per_order, integer: true },
        'conditions.limit.count': { text: v.limit_count, integer: true },
      }),
      ...productErrors(v.product),
    };
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const conditions = Object.fromEntries(
      Object.entries({
        min_order_subtotal: toNumber(v.min_order_subtotal),
        max_points_per_order: toNumber(v.max_points_per_order),
        tier_ids: v.tier_ids.length ? v.tier_ids : null,
        product_ids: ids(v.product_ids).length ? ids(v.product_ids) : null,
        excluded_product_ids: ids(v.excluded_product_ids).length ? ids(v.excluded_product_ids) : null,
        limit: v.limit_count.trim() ? { count: Number(v.limit_count), period: v.limit_period } : null,
        starts_at: toIso(v.starts_at),
        ends_at: toIso(v.ends_at),
      }).filter(([, value]) => value !== null),
    );
    const input = {
      name: v.name,
      description: v.description.trim() || null,
      campaign_type: v.campaign_type,
      is_active: v.is_active,
      earning_rule:
        v.type === 'variable'
          ? { type: 'variable', value: Number(v.value), per_amount: Number(v.per_amount) }
          : { type: 'fixed', value: Number(v.value) },
      conditions: Object.keys(conditions).length ? conditions : null,
      ...productInput(v.product),
    };
    const res = rule ? await update({ id: rule.id, input }) : await create({ input });
    const saved = res.data && ('create_earning_rule' in res.data ? res.data.create_earning_rule : res.data.update_earning_rule);
    if (saved) onSaved(saved.name);
  };

  return (
    <form onSubmit={submit} noValidate>
      <TextField label="Name" value={v.name} onChange={(e) => set('name')(e.target.value)} errors={errors.name} />
      <TextAreaField
        label="Description"
        rows={2}
        value={v.description}
        onChange={(e) => set('description')(e.target.value)}
        errors={errors.description}
      />
      <SelectField
        label="Action that earns points"
        value={v.campaign_type}
        onChange={(e) => set('campaign_type')(e.target.value as typeof v.campaign_type)}
        options={optionsOf(CAMPAIGN_TYPES)}
        errors={errors.campaign_type}
      />
      <fieldset className="field">
        <legend>Points</legend>
        <SelectField
          label="Calculation"
          value={v.type}
          onChange={(e) => set('type')(e.target.value as typeof v.type)}
          options={[
            { value: 'fixed', label: 'Fixed: the same points each time' },
            { value: 'variable', label: 'Variable: points per amount spent' },
          ]}
          errors={errors['earning_rule.type']}
        />
        <TextField
          label={v.type === 'variable' ? 'Points per amount' : 'Points'}
          inputMode="decimal"
          value={v.value}
          onChange={(e) => set('value')(e.target.value)}
          errors={errors['earning_rule.value']}
        />
        {v.type === 'variable' && (
          <TextField
            label="Amount spent"
            hint="e.g. 1 for points per dollar"
            inputMode="decimal"
            value={v.per_amount}
            onChange={(e) => set('per_amount')(e.target.value)}
            errors={errors['earning_rule.per_amount']}
          />
        )}
      </fieldset>
      <fieldset className="field">
        <legend>Conditions (all optional)</legend>
        <TextField
          label="Minimum order subtotal"
          inputMode="decimal"
          value={v.min_order_subtotal}
          onChange={(e) => set('min_order_subtotal')(e.target.value)}
          errors={errors['conditions.min_order_subtotal']}
        />
        <TextField
          label="Most points per order"
          inputMode="numeric"
          value={v.max_points_per_order}
          onChange={(e) => set('max_points_per_order')(e.target.value)}
          errors={errors['conditions.max_points_per_order']}
        />
        <div className="two">
          <TextField
            label="Times it can earn"
            hint="Empty: no limit"
            inputMode="numeric"
            value={v.limit_count}
            onChange={(e) => set('limit_count')(e.target.value)}
            errors={errors['conditions.limit.count']}
          />
          <SelectField
            label="Per"
            value={v.limit_period}
            onChange={(e) => set('limit_period')(e.target.value as typeof v.limit_period)}
            options={optionsOf(PERIODS)}
            errors={errors['conditions.limit.period']}
          />
        </div>
        <CheckboxGroup
          legend="Only for customers in these tiers"
          options={tiers.map((t) => ({ value: t.id, label: t.name }))}
          value={v.tier_ids}
          onChange={set('tier_ids')}
          errors={errors['conditions.tier_ids']}
        />
        <TextField
          label="Only for these products"
          hint="Product ids, comma-separated"
          value={v.product_ids}
          onChange={(e) => set('product_ids')(e.target.value)}
          errors={errors['conditions.product_ids']}
        />
        <TextField
          label="Never for these products"
          hint="Product ids, comma-separated"
          value={v.excluded_product_ids}
          onChange={(e) => set('excluded_product_ids')(e.target.value)}
          errors={errors['conditions.excluded_product_ids']}
        />
        {v.product_ids.trim() && <ProductFields values={v.product} onChange={set('product')} errors={errors} />}
        <div className="two">
          <TextField
            label="Starts"
            type="datetime-local"
            value={v.starts_at}
            onChange={(e) => set('starts_at')(e.target.value)}
            errors={errors['conditions.starts_at']}
          />
          <TextField
            label="Ends"
            type="datetime-local"
            value={v.ends_at}
            onChange={(e) => set('ends_at')(e.target.value)}
            errors={errors['conditions.ends_at']}
          />
        </div>
      </fieldset>
      <CheckboxField label="Active (awards points)" checked={v.is_active} onChange={(e) => set('is_active')(e.target.checked)} />
      <FormFooter
        errors={errors}
        shown={SHOWN}
        error={result.error}
        busy={result.fetching}
        submit={rule ? 'Save earning rule' : 'Create earning rule'}
      />
    </form>
  );
}

export function EarningRules() {
  const [page, setPage] = useState(1);
  const [{ data, error }, refetch] = useQuery({ query: RulesQuery, variables: { page } });
  const toggle = toggleProps<Rule>(useMutation(SetRuleActive));
  const currency = useCurrency();
  return (
    <RecordList<Rule>
      title="Earning rules"
      noun="earning rule"
      empty="No earning rules yet."
      {...pagedProps(data?.earning_rules, error, refetch, setPage)}
      toggle={toggle}
      columns={[
        { header: 'Name', rowHeader: true, cell: (r) => <NameWithImage record={r} /> },
        { header: 'Action', cell: (r) => humanize(r.campaign_type) },
        { header: 'Points', cell: (r) => describe(r, currency) },
        { header: 'Conditions', cell: (r) => conditionsText(r, currency) },
        { header: 'Status', cell: (r) => <StatusBadge state={scheduleOf(r.is_active, r.conditions?.starts_at, r.conditions?.ends_at)} /> },
      ]}
      form={(rule, onSaved) => <RuleForm rule={rule} tiers={data?.tiers.data ?? []} onSaved={onSaved} />}
    />
  );
}
