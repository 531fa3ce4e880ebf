// VIP tiers by position: create and edit; an inactive tier is skipped when customers' tiers are judged.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { type FieldErrors, fieldErrorsOf } from '../../api';
import { formatNumber, humanize } from '../../format';
import { graphql, type ResultOf } from '../../graphql';
import { CheckboxField, FormFooter, SelectField, StatusBadge, scheduleOf, TextAreaField, TextField } from '../../ui';
import { fromNumber, mergeErrors, numberErrors, optionsOf, RecordList } from './kit';

const TiersQuery = graphql(`
  query AdminTiers {
    tiers(per_page: 100) {
      data { id name description position threshold qualification window earn_multiplier benefits is_default is_active }
    }
  }
`);
const CreateTier = graphql(`
  mutation CreateTier($input: TierInput!) { create_tier(input: $input) { id name } }
`);
const UpdateTier = graphql(`
  mutation UpdateTier($id: ID!, $input: TierPatch!) { update_tier(id: $id, input: $input) { id name } }
`);

type Tier = ResultOf<typeof TiersQuery>['tiers']['data'][number];
const SHOWN = [
  'name',
  'description',
  'position',
  'threshold',
  'qualification',
  'window',
  'earn_multiplier',
  'benefits',
  'is_default',
  'is_active',
];

function TierForm({ tier, nextPosition, onSaved }: { tier: Tier | null; nextPosition: number; onSaved: (name: string) => void }) {
  const [v, setV] = useState({
    name: tier?.name ?? '',
    description: tier?.description ?? '',
    position: fromNumber(tier?.position ?? nextPosition),
    threshold: fromNumber(tier?.threshold ?? 0),
    qualification: tier?.qualification ?? 'points_earned',
    window: tier?.window ?? 'lifetime',
    earn_multiplier: fromNumber(tier?.earn_multiplier ?? 1),
    benefits: tier?.benefits.join('\n') ?? '',
    is_default: tier?.is_default ?? false,
    is_active: tier?.is_active ?? true,
  });
  const set =
    <K extends keyof typeof v>(k: K) =>
    (value: (typeof v)[K]) =>
      setV((old) => ({ ...old, [k]: value }));
  const [local, setLocal] = useState<FieldErrors>({});
  const [created, create] = useMutation(CreateTier);
  const [updated, update] = useMutation(UpdateTier);
  const result = tier ? updated : created;
  const errors = mergeErrors(local, fieldErrorsOf(result.error));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems = numberErrors({
      position: { text: v.position, integer: true, required: true },
      threshold: { text: v.threshold, integer: true, required: true },
      earn_multiplier: { text: v.earn_multiplier, required: true },
    });
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const input = {
      name: v.name,
      description: v.description.trim() || null,
      position: Number(v.position),
      threshold: Number(v.threshold),
      qualification: v.qualification,
      window: v.window,
      earn_multiplier: Number(v.earn_multiplier),
      benefits: v.benefits
        .split('\n')
        .map((b) => b.trim())
        .filter(Boolean),
      is_default: v.is_default,
      is_active: v.is_active,
    };
    const res = tier ? await update({ id: tier.id, input }) : await create({ input });
    const saved = res.data && ('create_tier' in res.data ? res.data.create_tier : res.data.update_tier);
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
      <div className="two">
        <TextField
          label="Position"
          hint="Higher is better; one tier per position"
          inputMode="numeric"
          value={v.position}
          onChange={(e) => set('position')(e.target.value)}
          errors={errors.position}
        />
        <TextField
          label="Threshold"
          hint="Points earned (or amount spent) in the window"
          inputMode="numeric"
          value={v.threshold}
          onChange={(e) => set('threshold')(e.target.value)}
          errors={errors.threshold}
        />
      </div>
      <div className="two">
        <SelectField
          label="Qualifies on"
          value={v.qualification}
          onChange={(e) => set('qualification')(e.target.value as typeof v.qualification)}
          options={optionsOf(['points_earned', 'amount_spent'])}
          errors={errors.qualification}
        />
        <SelectField
          label="Window"
          value={v.window}
          onChange={(e) => set('window')(e.target.value as typeof v.window)}
          options={optionsOf(['lifetime', 'calendar_year', 'rolling_12_months'])}
          errors={errors.window}
        />
      </div>
      <TextField
        label="Points multiplier"
        hint="Earning rules' points are multiplied by this"
        inputMode="decimal"
        value={v.earn_multiplier}
        onChange={(e) => set('earn_multiplier')(e.target.value)}
        errors={errors.earn_multiplier}
      />
      <TextAreaField
        label="Benefits"
        hint="One per line"
        rows={3}
        value={v.benefits}
        onChange={(e) => set('benefits')(e.target.value)}
        errors={errors.benefits}
      />
      <CheckboxField
        label="Default tier (customers below every threshold)"
        checked={v.is_default}
        onChange={(e) => set('is_default')(e.target.checked)}
        errors={errors.is_default}
      />
      <CheckboxField
        label="Active (customers can reach it)"
        checked={v.is_active}
        onChange={(e) => set('is_active')(e.target.checked)}
        errors={errors.is_active}
      />
      <FormFooter errors={errors} shown={SHOWN} error={result.error} busy={result.fetching} submit={tier ? 'Save tier' : 'Create tier'} />
    </form>
  );
}

export function Tiers() {
  const [{ data, error }, refetch] = useQuery({ query: TiersQuery });
  const tiers = data?.tiers.data;
  const nextPosition = (tiers ?? []).reduce((max, t) => Math.max(max, t.position + 1), 0);
  return (
    <RecordList<Tier>
      title="VIP tiers"
      noun="tier"
      empty="No tiers yet."
      rows={tiers}
      error={error}
      refetch={() => refetch({ requestPolicy: 'network-only' })}
      columns={[
        { header: 'Position', num: true, cell: (t) => t.position },
        {
          header: 'Name',
          rowHeader: true,
          cell: (t) => (
            <>
              {t.name} {t.is_default && <span className="badge">Default</span>}
            </>
          ),
        },
        {
          header: 'Qualifies at',
          cell: (t) => `${formatNumber(t.threshold)} ${humanize(t.qualification).toLowerCase()} (${humanize(t.window).toLowerCase()})`,
        },
        { header: 'Multiplier', cell: (t) => `×${t.earn_multiplier}` },
        { header: 'Benefits', cell: (t) => t.benefits.join('; ') || '—' },
        { header: 'Status', cell: (t) => <StatusBadge state={scheduleOf(t.is_active)} /> },
      ]}
      form={(tier, onSaved) => <TierForm tier={tier} nextPosition={nextPosition} onSaved={onSaved} />}
    />
  );
}
