// The merchant's settings: the shop's name, currency, time zone, points expiry, the pending
// window of order points and how late an order may still earn.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { type FieldErrors, fieldErrorsOf, messageOf } from '../api';
import { formatNumber } from '../format';
import { graphql, type ResultOf } from '../graphql';
import { useSession } from '../session';
import { Alert, CheckboxField, FormFooter, PageTitle, TextField } from '../ui';
import { numberErrors } from './program/kit';
import { LocalePicker, TimeZonePicker } from './settings-pickers';

const MerchantQuery = graphql(`
  query Merchant { merchant { id slug name currency timezone locale points_expiry_days points_pending_days late_earning_days } }
`);
const UpdateSettings = graphql(`
  mutation UpdateSettings(
    $name: String, $currency: String, $timezone: String, $locale: String, $points_expiry_days: Int, $points_pending_days: Int,
    $late_earning_days: Int
  ) {
    update_merchant_settings(
      name: $name, currency: $currency, timezone: $timezone, locale: $locale, points_expiry_days: $points_expiry_days,
      points_pending_days: $points_pending_days, late_earning_days: $late_earning_days
    ) {
      id name currency timezone locale points_expiry_days points_pending_days late_earning_days
    }
  }
`);

export function Settings() {
  const [{ data, error }] = useQuery({ query: MerchantQuery });
  return (
    <>
      <PageTitle>Settings</PageTitle>
      <Alert>{messageOf(error)}</Alert>
      {/* the form starts from the stored settings: nothing typed before they arrive is overwritten */}
      {data ? <SettingsForm merchant={data.merchant} /> : !error && <p>Loading…</p>}
    </>
  );
}

function SettingsForm({ merchant: m }: { merchant: ResultOf<typeof MerchantQuery>['merchant'] }) {
  const { updateMerchant } = useSession();
  const [v, setV] = useState({
    name: m.name,
    currency: m.currency,
    timezone: m.timezone,
    locale: m.locale,
    expires: m.points_expiry_days !== null,
    days: String(m.points_expiry_days ?? 365),
    pending: String(m.points_pending_days),
    late: String(m.late_earning_days),
  });
  const [local, setLocal] = useState<FieldErrors>({});
  const [result, save] = useMutation(UpdateSettings);
  const [saved, setSaved] = useState(false);
  const errors = { ...fieldErrorsOf(result.error), ...local };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const problems = {
      ...(v.expires ? numberErrors({ points_expiry_days: { text: v.days, integer: true, required: true } }) : {}),
      ...numberErrors({
        points_pending_days: { text: v.pending, integer: true, required: true },
        late_earning_days: { text: v.late, integer: true, required: true },
      }),
    };
    setLocal(problems);
    if (Object.keys(problems).length) return;
    const res = await save({
      name: v.name,
      currency: v.currency.trim().toUpperCase(),
      timezone: v.timezone,
      locale: v.locale,
      points_expiry_days: v.expires ? Number(v.days) : null,
      points_pending_days: Number(v.pending),
      late_earning_days: Number(v.late),
    });
    if (res.data) {
      updateMerchant(res.data.update_merchant_settings);
      setSaved(true);
    }
  };

  return (
    <form className="card narrow" onSubmit={submit} noValidate>
      <p className="hint">
        Shop: <code>{m.slug}</code>
      </p>
      <TextField label="Shop name" value={v.name} onChange={(e) => setV({ ...v, name: e.target.value })} errors={errors.name} />
      <TextField
        label="Currency"
        hint="ISO 4217 code, e.g. USD"
        maxLength={3}
        value={v.currency}
        onChange={(e) => setV({ ...v, currency: e.target.value })}
        errors={errors.currency}
      />
      <LocalePicker
        value={v.locale}
        currency={v.currency.trim().toUpperCase()}
        onChange={(locale) => setV({ ...v, locale })}
        errors={errors.locale}
      />
      <TimeZonePicker value={v.timezone} onChange={(timezone) => setV({ ...v, timezone })} errors={errors.timezone} />
      <fieldset className="field">
        <legend>Points expiry</legend>
        <CheckboxField
          label="Points expire after a period without activity"
          checked={v.expires}
          onChange={(e) => setV({ ...v, expires: e.target.checked })}
        />
        {v.expires && (
          <TextField
            label="Days without activity"
            hint={`${formatNumber(1)} to ${formatNumber(36_500)}`}
            inputMode="numeric"
            value={v.days}
            onChange={(e) => setV({ ...v, days: e.target.value })}
            errors={errors.points_expiry_days}
          />
        )}
      </fieldset>
      <TextField
        label="Pending days for order points"
        hint={`${formatNumber(0)} to ${formatNumber(365)}: an order's points stay pending (not spendable) this many days, its return window; 0 credits them at once`}
        inputMode="numeric"
        value={v.pending}
        onChange={(e) => setV({ ...v, pending: e.target.value })}
        errors={errors.points_pending_days}
      />
      <TextField
        label="Late earning days"
        hint={`${formatNumber(0)} to ${formatNumber(36_500)}: an order or action recorded up to this many days after it happened earns as it would have then; an older one is refused (import it as history)`}
        inputMode="numeric"
        value={v.late}
        onChange={(e) => setV({ ...v, late: e.target.value })}
        errors={errors.late_earning_days}
      />
      <Alert tone="success">{saved && 'Settings saved.'}</Alert>
      <FormFooter
        errors={errors}
        shown={['name', 'currency', 'timezone', 'locale', 'points_expiry_days', 'points_pending_days', 'late_earning_days']}
        error={result.error}
        busy={result.fetching}
        submit="Save settings"
      />
    </form>
  );
}
