// Booster campaigns: multiply the points of some actions for a while.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { messages } from '../../../../src/domain/shared/messages';
import { type FieldErrors, fieldErrorsOf } from '../../api';
import { formatDateTime, humanize } from '../../format';
import { graphql, type ResultOf } from '../../graphql';
import { CheckboxField, CheckboxGroup, FormFooter, StatusBadge, scheduleOf, TextAreaField, TextField } from '../../ui';
import {
  CAMPAIGN_TYPES,
  fromNumber,
  mergeErrors,
  numberErrors,
  optionsOf,
  pagedProps,
  RecordList,
  toggleProps,
  toIso,
  toLocal,
} from './kit';

const BoostersQuery = graphql(`
  query AdminBoosters($page: Int) {
    booster_campaigns(page: $page, per_page: 25) {
      data { id name description multiplier campaign_types starts_at ends_at is_active }
      meta { pagination { current_page last_page total } }
    }
  }
`);
const CreateBooster = graphql(`
  mutation CreateBooster($input: BoosterCampaignInput!) { create_booster_campaign(input: $input) { id name } }
`);
const UpdateBooster = graphql(`
  mutation UpdateBooster($id: ID!, $input: BoosterCampaignPatch!) { update_booster_campaign(id: $id, input: $input) { id name } }
`);
const SetBoosterActive = graphql(`
  mutation SetBoosterActive($id: ID!, $active: Boolean!) {
    activate_booster_campaign(id: $id) @include(if: $active) { id is_active }
    deactivate_booster_campaign(id: $id) @skip(if: $active) { id is_active }
  }
`);

type Booster = ResultOf<typeof BoostersQuery>['booster_campaigns']['data'][number];
type CampaignType = Booster['campaign_types'][number];
const SHOWN = ['name', 'description', 'multiplier', 'campaign_types', 'starts_at', 'ends_at'];

function BoosterForm({ booster, onSaved }: { booster: Booster | null; onSaved: (name: string) => void }) {
  const [v, setV] = useState({
    name: booster?.name ?? '',
    description: booster?.description ?? '',
    multiplier: fromNumber(booster?.multiplier ?? 2),
    campaign_types: (booster?.campaign_types ?? ['purchase']) as CampaignType[],
    starts_at: toLocal(booster?.starts_at ?? new Date().toISOString()),
    ends_at: toLocal(booster?.ends_at),
    is_active: booster?.is_active ?? true,
  });
  const set =
    <K extends keyof typeof v>(k: K) =>
    (value: (typeof v)[K]) =>
      setV((old) => ({ ...old, [k]: value }));
  const [local, setLocal] = useState<FieldErrors>({});
  const [created, create] = useMutation(CreateBooster);
  const [updated, update] = useMutation(UpdateBooster);
  const result = booster ? updated : created;
  const errors = mergeErrors(local, fieldErrorsOf(result.error));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems = numberErrors({ multiplier: { text: v.multiplier, required: true } });
    if (!v.starts_at) problems.starts_at = [messages.required];
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const input = {
      name: v.name,
      description: v.description.trim() || null,
      multiplier: Number(v.multiplier),
      campaign_types: v.campaign_types,
      starts_at: toIso(v.starts_at)!,
      ends_at: toIso(v.ends_at),
      is_active: v.is_active,
    };
    const res = booster ? await update({ id: booster.id, input }) : await create({ input });
    const saved = res.data && ('create_booster_campaign' in res.data ? res.data.create_booster_campaign : res.data.update_booster_campaign);
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
      <TextField
        label="Multiplier"
        hint="e.g. 2 for double points"
        inputMode="decimal"
        value={v.multiplier}
        onChange={(e) => set('multiplier')(e.target.value)}
        errors={errors.multiplier}
      />
      <CheckboxGroup
        legend="Actions it boosts"
        options={optionsOf(CAMPAIGN_TYPES)}
        value={v.campaign_types}
        onChange={(value) => set('campaign_types')(value as CampaignType[])}
        errors={errors.campaign_types}
      />
      <div className="two">
        <TextField
          label="Starts"
          type="datetime-local"
          value={v.starts_at}
          onChange={(e) => set('starts_at')(e.target.value)}
          errors={errors.starts_at}
        />
        <TextField
          label="Ends"
          hint="Empty: no end"
          type="datetime-local"
          value={v.ends_at}
          onChange={(e) => set('ends_at')(e.target.value)}
          errors={errors.ends_at}
        />
      </div>
      <CheckboxField label="Active" checked={v.is_active} onChange={(e) => set('is_active')(e.target.checked)} />
      <FormFooter
        errors={errors}
        shown={SHOWN}
        error={result.error}
        busy={result.fetching}
        submit={booster ? 'Save booster' : 'Create booster'}
      />
    </form>
  );
}

export function Boosters() {
  const [page, setPage] = useState(1);
  const [{ data, error }, refetch] = useQuery({ query: BoostersQuery, variables: { page } });
  const toggle = toggleProps<Booster>(useMutation(SetBoosterActive));
  return (
    <RecordList<Booster>
      title="Booster campaigns"
      noun="booster"
      empty="No booster campaigns yet."
      {...pagedProps(data?.booster_campaigns, error, refetch, setPage)}
      toggle={toggle}
      columns={[
        { header: 'Name', rowHeader: true, cell: (b) => b.name },
        { header: 'Multiplier', cell: (b) => `×${b.multiplier}` },
        { header: 'Boosts', cell: (b) => b.campaign_types.map(humanize).join(', ') },
        { header: 'Runs', cell: (b) => `${formatDateTime(b.starts_at)} – ${b.ends_at ? formatDateTime(b.ends_at) : 'no end'}` },
        { header: 'Status', cell: (b) => <StatusBadge state={scheduleOf(b.is_active, b.starts_at, b.ends_at)} /> },
      ]}
      form={(booster, onSaved) => <BoosterForm booster={booster} onSaved={onSaved} />}
    />
  );
}
