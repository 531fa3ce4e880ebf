// The referral program: what a referrer earns, what the referred friend gets, and the fraud
// checks that hold a referral for review.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { urlRules } from '../../../../src/domain/shared/urls';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../../api';
import { graphql, type ResultOf } from '../../graphql';
import { Alert, CheckboxField, FormFooter, SelectField, TextField } from '../../ui';
import { checksInput, checksNumberErrors, checksShow, checksValues, defaultChecks, FraudCheckFields } from './FraudChecks';
import {
  emptyRule,
  fromNumber,
  mergeErrors,
  numberErrors,
  optionsOf,
  REWARD_TYPES,
  type RewardType,
  RuleFields,
  ruleInput,
  ruleNumberErrors,
  ruleValues,
  toNumber,
  urlErrors,
} from './kit';

const ProgramQuery = graphql(`
  query AdminReferralProgram {
    referral_program {
      is_active min_order_subtotal share_url_template
      referrer_reward { points }
      referee_reward {
        reward_type
        reward_rule { discount_value max_discount_amount max_shipping_amount product_id variant_id credit_value min_order_subtotal expires_after_days }
      }
      fraud_checks {
        similar_email { enabled similarity }
        shared_identifier { enabled window_days }
        not_first_order { enabled }
        referrer_velocity { enabled max_referrals window_days }
        address_velocity { enabled max_referrals window_days }
        blocklist { enabled emails domains addresses }
      }
    }
  }
`);
const SetProgram = graphql(`
  mutation SetReferralProgram($input: ReferralProgramInput!) { set_referral_program(input: $input) { is_active } }
`);

type Program = ResultOf<typeof ProgramQuery>['referral_program'];

export function Referral() {
  const [{ data, error }] = useQuery({ query: ProgramQuery });
  return (
    <section aria-labelledby="referral-title">
      <h2 id="referral-title">Referral program</h2>
      <Alert>{messageOf(error)}</Alert>
      {/* the form starts from the stored program: nothing typed before it arrives is overwritten */}
      {data ? <ReferralForm program={data.referral_program} /> : !error && <p>Loading…</p>}
    </section>
  );
}

function ReferralForm({ program }: { program: Program }) {
  const [v, setV] = useState(() =>
    // the admin API answers null, never a program without rewards (that is the public API's answer)
    program?.referrer_reward && program.referee_reward
      ? {
          is_active: program.is_active,
          points: fromNumber(program.referrer_reward.points),
          type: program.referee_reward.reward_type as RewardType,
          rule: ruleValues(program.referee_reward.reward_rule),
          min: fromNumber(program.min_order_subtotal),
          url: program.share_url_template ?? '',
          checks: checksValues(program.fraud_checks),
        }
      : { is_active: true, points: '500', type: 'fixed_discount' as RewardType, rule: emptyRule, min: '', url: '', checks: defaultChecks },
  );
  const [local, setLocal] = useState<FieldErrors>({});
  const [result, save] = useMutation(SetProgram);
  const [saved, setSaved] = useState(false);
  const errors = mergeErrors(local, fieldErrorsOf(result.error));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const problems = {
      ...numberErrors({ 'referrer_reward.points': { text: v.points, integer: true, required: true }, min_order_subtotal: { text: v.min } }),
      ...ruleNumberErrors(v.type, v.rule, 'referee_reward.reward_rule'),
      ...checksNumberErrors(v.checks),
      ...urlErrors({ share_url_template: { text: v.url, rule: urlRules.shareLink } }),
    };
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const res = await save({
      input: {
        is_active: v.is_active,
        referrer_reward: { points: Number(v.points) },
        referee_reward: { reward_type: v.type, reward_rule: ruleInput(v.type, v.rule) },
        min_order_subtotal: toNumber(v.min),
        share_url_template: v.url.trim() || null,
        fraud_checks: checksInput(v.checks),
      },
    });
    setSaved(!res.error);
  };

  const shown = [
    'referrer_reward.points',
    'referee_reward.reward_type',
    'min_order_subtotal',
    'share_url_template',
    ...Object.keys(errors).filter((k) => k.startsWith('referee_reward.reward_rule.') || checksShow(k)),
  ];
  return (
    <>
      {!program && <p>No referral program yet: fill this in to start one.</p>}
      <form className="card narrow" onSubmit={submit} noValidate>
        <CheckboxField
          label="Active (customers can refer friends)"
          checked={v.is_active}
          onChange={(e) => setV({ ...v, is_active: e.target.checked })}
        />
        <TextField
          label="Points for the referrer"
          hint="Per completed referral"
          inputMode="numeric"
          value={v.points}
          onChange={(e) => setV({ ...v, points: e.target.value })}
          errors={errors['referrer_reward.points']}
        />
        <fieldset className="field">
          <legend>The friend's reward</legend>
          <SelectField
            label="Reward type"
            value={v.type}
            onChange={(e) => setV({ ...v, type: e.target.value as RewardType })}
            options={optionsOf(REWARD_TYPES)}
            errors={errors['referee_reward.reward_type']}
          />
          <RuleFields
            type={v.type}
            values={v.rule}
            onChange={(rule) => setV({ ...v, rule })}
            errors={errors}
            prefix="referee_reward.reward_rule"
          />
        </fieldset>
        <TextField
          label="Minimum first order subtotal"
          hint="Optional: the friend's order that completes a referral"
          inputMode="decimal"
          value={v.min}
          onChange={(e) => setV({ ...v, min: e.target.value })}
          errors={errors.min_order_subtotal}
        />
        <TextField
          label="Share link template"
          hint="Optional, e.g. https://shop.example.com/?ref={referral_code}"
          value={v.url}
          onChange={(e) => setV({ ...v, url: e.target.value })}
          errors={errors.share_url_template}
        />
        <FraudCheckFields value={v.checks} onChange={(checks) => setV({ ...v, checks })} errors={errors} />
        <Alert tone="success">{saved && 'Referral program saved.'}</Alert>
        <FormFooter errors={errors} shown={shown} error={result.error} busy={result.fetching} submit="Save referral program" />
      </form>
    </>
  );
}
