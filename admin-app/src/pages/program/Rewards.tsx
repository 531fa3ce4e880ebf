// The reward catalogue: every reward, active or not; create, edit, activate, deactivate.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../../api';
import { formatNumber, humanize } from '../../format';
import { type ResultOf, graphql } from '../../graphql';
import { Alert, CheckboxField, Dialog, OtherErrors, Pager, SelectField, StatusBadge, TextAreaField, TextField } from '../../ui';
import {
  REWARD_TYPES,
  type RewardType,
  RuleFields,
  ToggleButton,
  describeRule,
  emptyRule,
  fromNumber,
  mergeErrors,
  numberErrors,
  optionsOf,
  ruleInput,
  ruleNumberErrors,
  ruleValues,
} from './kit';

const RewardsQuery = graphql(`
  query AdminRewards($page: Int) {
    rewards(page: $page, per_page: 25) {
      data {
        id name description reward_type points_cost is_active
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
  const [local, setLocal] = useState<FieldErrors>({});
  const [created, create] = useMutation(CreateReward);
  const [updated, update] = useMutation(UpdateReward);
  const result = reward ? updated : created;
  const errors = mergeErrors(local, fieldErrorsOf(result.error));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems = { ...numberErrors({ points_cost: { text: cost, integer: true, required: true } }), ...ruleNumberErrors(type, rule, 'reward_rule') };
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const input = {
      name,
      description: description.trim() || null,
      reward_type: type,
      points_cost: Number(cost),
      reward_rule: ruleInput(type, rule),
      is_active: active,
    };
    const res = reward ? await update({ id: reward.id, input }) : await create({ input });
    const saved = res.data && ('create_reward' in res.data ? res.data.create_reward : res.data.update_reward);
    if (saved) onSaved(saved.name);
  };

  return (
    <form onSubmit={submit} noValidate>
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} errors={errors.name} />
      <TextAreaField label="Description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} errors={errors.description} />
      <SelectField label="Reward type" value={type} onChange={(e) => setType(e.target.value as RewardType)} options={optionsOf(REWARD_TYPES)} errors={errors.reward_type} />
      <TextField label="Points cost" inputMode="numeric" value={cost} onChange={(e) => setCost(e.target.value)} errors={errors.points_cost} />
      <RuleFields type={type} values={rule} onChange={setRule} errors={errors} prefix="reward_rule" />
      <CheckboxField label="Active (customers can redeem it)" checked={active} onChange={(e) => setActive(e.target.checked)} />
      <OtherErrors errors={errors} shown={[...SHOWN, ...Object.keys(errors).filter((k) => k.startsWith('reward_rule.'))]} />
      {!Object.keys(errors).length && <Alert>{messageOf(result.error)}</Alert>}
      <div className="actions">
        <button type="submit" className="primary" disabled={result.fetching}>
          {reward ? 'Save reward' : 'Create reward'}
        </button>
      </div>
    </form>
  );
}

export function Rewards() {
  const [page, setPage] = useState(1);
  const [{ data, error }, refetch] = useQuery({ query: RewardsQuery, variables: { page } });
  const [editing, setEditing] = useState<Reward | 'new' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [toggle, setToggle] = useMutation(SetRewardActive);

  const saved = (name: string) => {
    setNotice(`Saved “${name}”.`);
    setEditing(null);
    refetch({ requestPolicy: 'network-only' });
  };
  const flip = async (r: Reward) => {
    const res = await setToggle({ id: r.id, active: !r.is_active });
    if (!res.error) setNotice(`“${r.name}” is now ${r.is_active ? 'inactive' : 'active'}.`);
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section aria-labelledby="rewards-title">
      <div className="section-head">
        <h2 id="rewards-title">Rewards</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New reward
        </button>
      </div>
      <Alert tone="success">{notice}</Alert>
      <Alert>{messageOf(error) ?? messageOf(toggle.error)}</Alert>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Reward</th>
              <th scope="col" className="num">
                Points
              </th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data?.rewards.data.length === 0 && (
              <tr>
                <td colSpan={6}>No rewards yet.</td>
              </tr>
            )}
            {data?.rewards.data.map((r) => (
              <tr key={r.id}>
                <th scope="row">{r.name}</th>
                <td>{humanize(r.reward_type)}</td>
                <td>{describeRule(r.reward_type, r.reward_rule)}</td>
                <td className="num">{formatNumber(r.points_cost)}</td>
                <td>
                  <StatusBadge active={r.is_active} />
                </td>
                <td className="row-actions">
                  <button type="button" onClick={() => setEditing(r)} aria-label={`Edit ${r.name}`}>
                    Edit
                  </button>
                  <ToggleButton active={r.is_active} name={r.name} busy={toggle.fetching} onToggle={() => void flip(r)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager label="Rewards" page={data?.rewards.meta.pagination} onPage={setPage} />
      <Dialog title={editing === 'new' ? 'New reward' : `Edit ${editing?.name ?? ''}`} open={editing !== null} onClose={() => setEditing(null)}>
        {editing !== null && <RewardForm key={editing === 'new' ? 'new' : editing.id} reward={editing === 'new' ? null : editing} onSaved={saved} />}
      </Dialog>
    </section>
  );
}
