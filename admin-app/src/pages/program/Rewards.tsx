// The reward catalogue: every reward, active or not; create, edit, activate, deactivate.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { type FieldErrors, fieldErrorsOf } from '../../api';
import { formatNumber, humanize } from '../../format';
import { graphql, type ResultOf } from '../../graphql';
import { useCurrency } from '../../session';
import { CheckboxField, FormFooter, SelectField, StatusBadge, scheduleOf, TextAreaField, TextField } from '../../ui';
import {
  describeRule,
  emptyRule,
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
  REWARD_TYPES,
  RecordList,
  type RewardType,
  RuleFields,
  ruleInput,
  ruleNumberErrors,
  ruleValues,
  toggleProps,
} from './kit';

const RewardsQuery = graphql(`
  query AdminRewards($page: Int) {
    rewards(page: $page, per_page: 25) {
      data {
        id name description reward_type points_cost is_active product_name product_image_url
        reward_rule { discount_value max_discount_amount max_shipping_amount product_id variant_id credit_value min_order_subtotal expires_after_days }
      }
      meta { pagination { current_page last_page total } }
    }
  }
`);
const CreateReward = graphql(`
  mutation CreateReward($input: RewardInput!) { create_reward(input: $input) { id name } }
`);
const UpdateReward = graphql(`
  mutation UpdateReward($id: ID!, $input: RewardPatch!) { update_reward(id: $id, input: $input) { id name } }
`);
const SetRewardActive = graphql(`
  mutation SetRewardActive($id: ID!, $active: Boolean!) {
    activate_reward(id: $id) @include(if: $active) { id is_active }
    deactivate_reward(id: $id) @skip(if: $active) { id is_active }
  }
`);

type Reward = ResultOf<typeof RewardsQuery>['rewards']['data'][number];
const SHOWN = ['name', 'description', 'reward_type', 'points_cost'];

function RewardForm({ reward, onSaved }: { reward: Reward | null; onSaved: (name: string) => void }) {
  const [name, setName] = useState(reward?.name ?? '');
  const [description, setDescription] = useState(reward?.description ?? '');
  const [type, setType] = useState<RewardType>((reward?.reward_type as RewardType) ?? 'fixed_discount');
  const [cost, setCost] = useState(fromNumber(reward?.points_cost));
  const [rule, setRule] = useState(reward ? ruleValues(reward.reward_rule) : emptyRule);
  const [active, setActive] = useState(reward?.is_active ?? true);
  const [product, setProduct] = useState(productValues(reward));
  const [local, setLocal] = useState<FieldErrors>({});
  const [created, create] = useMutation(CreateReward);
  const [updated, update] = useMutation(UpdateReward);
  const result = reward ? updated : created;
  const errors = mergeErrors(local, fieldErrorsOf(result.error));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems = {
      ...numberErrors({ points_cost: { text: cost, integer: true, required: true } }),
      ...ruleNumberErrors(type, rule, 'reward_rule'),
      ...productErrors(product),
    };
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const input = {
      name,
      description: description.trim() || null,
      reward_type: type,
      points_cost: Number(cost),
      reward_rule: ruleInput(type, rule),
      ...productInput(product),
      is_active: active,
    };
    const res = reward ? await update({ id: reward.id, input }) : await create({ input });
    const saved = res.data && ('create_reward' in res.data ? res.data.create_reward : res.data.update_reward);
    if (saved) onSaved(saved.name);
  };

  return (
    <form onSubmit={submit} noValidate>
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} errors={errors.name} />
      <TextAreaField
        label="Description"
        rows={2}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        errors={errors.description}
      />
      <SelectField
        label="Reward type"
        value={type}
        onChange={(e) => setType(e.target.value as RewardType)}
        options={optionsOf(REWARD_TYPES)}
        errors={errors.reward_type}
      />
      <TextField
        label="Points cost"
        inputMode="numeric"
        value={cost}
        onChange={(e) => setCost(e.target.value)}
        errors={errors.points_cost}
      />
      <RuleFields type={type} values={rule} onChange={setRule} errors={errors} prefix="reward_rule" />
      {type === 'free_product' && <ProductFields values={product} onChange={setProduct} errors={errors} />}
      <CheckboxField label="Active (customers can redeem it)" checked={active} onChange={(e) => setActive(e.target.checked)} />
      <FormFooter
        errors={errors}
        shown={(field) => SHOWN.includes(field) || PRODUCT_FIELDS.includes(field) || field.startsWith('reward_rule.')}
        error={result.error}
        busy={result.fetching}
        submit={reward ? 'Save reward' : 'Create reward'}
      />
    </form>
  );
}

export function Rewards() {
  const [page, setPage] = useState(1);
  const [{ data, error }, refetch] = useQuery({ query: RewardsQuery, variables: { page } });
  const toggle = toggleProps<Reward>(useMutation(SetRewardActive));
  const currency = useCurrency();
  return (
    <RecordList<Reward>
      title="Rewards"
      noun="reward"
      empty="No rewards yet."
      {...pagedProps(data?.rewards, error, refetch, setPage)}
      toggle={toggle}
      columns={[
        { header: 'Name', rowHeader: true, cell: (r) => <NameWithImage record={r} /> },
        { header: 'Type', cell: (r) => humanize(r.reward_type) },
        { header: 'Reward', cell: (r) => describeRule(r.reward_type, r.reward_rule, currency, r.product_name) },
        { header: 'Points', num: true, cell: (r) => formatNumber(r.points_cost) },
        { header: 'Status', cell: (r) => <StatusBadge state={scheduleOf(r.is_active)} /> },
      ]}
      form={(reward, onSaved) => <RewardForm reward={reward} onSaved={onSaved} />}
    />
  );
}
