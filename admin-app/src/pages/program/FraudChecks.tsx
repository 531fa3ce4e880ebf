// The referral program's fraud checks as form fields: each check on or off with its threshold,
// and the blocklist one entry a line. What each catches, and may catch wrongly, is said beside it
// (docs/admin.md says it at length).
import type { FieldErrors } from '../../api';
import { CheckboxField, TextAreaField, TextField } from '../../ui';
import { fromNumber, numberErrors, toNumber } from './kit';

interface Velocity {
  enabled: boolean;
  max_referrals: number;
  window_days: number;
}

/** The checks as the admin API answers them. */
export interface StoredChecks {
  similar_email: { enabled: boolean; similarity: number };
  shared_identifier: { enabled: boolean; window_days: number };
  not_first_order: { enabled: boolean };
  referrer_velocity: Velocity;
  address_velocity: Velocity;
  blocklist: { enabled: boolean; emails: string[]; domains: string[]; addresses: string[] };
}

type VelocityText = { enabled: boolean; max: string; days: string };

/** The checks as form text. */
export interface ChecksValues {
  email: { enabled: boolean; similarity: string };
  shared: { enabled: boolean; days: string };
  notFirst: boolean;
  referrer: VelocityText;
  address: VelocityText;
  blocklist: { enabled: boolean; emails: string; domains: string; addresses: string };
}

const velocityText = (v: Velocity): VelocityText => ({
  enabled: v.enabled,
  max: fromNumber(v.max_referrals),
  days: fromNumber(v.window_days),
});
const lines = (list: string[]) => list.join('\n');
const entries = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

export function checksValues(c: StoredChecks): ChecksValues {
  return {
    email: { enabled: c.similar_email.enabled, similarity: fromNumber(c.similar_email.similarity) },
    shared: { enabled: c.shared_identifier.enabled, days: fromNumber(c.shared_identifier.window_days) },
    notFirst: c.not_first_order.enabled,
    referrer: velocityText(c.referrer_velocity),
    address: velocityText(c.address_velocity),
    blocklist: {
      enabled: c.blocklist.enabled,
      emails: lines(c.blocklist.emails),
      domains: lines(c.blocklist.domains),
      addresses: lines(c.blocklist.addresses),
    },
  };
}

/** The defaults of a new program (the service's own: fraud-signals.ts). */
export const defaultChecks: ChecksValues = {
  email: { enabled: true, similarity: '0.8' },
  shared: { enabled: true, days: '30' },
  notFirst: false,
  referrer: { enabled: true, max: '10', days: '7' },
  address: { enabled: true, max: '10', days: '7' },
  blocklist: { enabled: true, emails: '', domains: '', addresses: '' },
};

const velocityInput = (v: VelocityText) => ({ enabled: v.enabled, max_referrals: toNumber(v.max), window_days: toNumber(v.days) });

export function checksInput(v: ChecksValues) {
  return {
    similar_email: { enabled: v.email.enabled, similarity: toNumber(v.email.similarity) },
    shared_identifier: { enabled: v.shared.enabled, window_days: toNumber(v.shared.days) },
    not_first_order: { enabled: v.notFirst },
    referrer_velocity: velocityInput(v.referrer),
    address_velocity: velocityInput(v.address),
    blocklist: {
      enabled: v.blocklist.enabled,
      emails: entries(v.blocklist.emails),
      domains: entries(v.blocklist.domains),
      addresses: entries(v.blocklist.addresses),
    },
  };
}

const P = 'fraud_checks';
export function checksNumberErrors(v: ChecksValues): FieldErrors {
  return numberErrors({
    [`${P}.similar_email.similarity`]: { text: v.email.similarity, required: true },
    [`${P}.shared_identifier.window_days`]: { text: v.shared.days, integer: true, required: true },
    [`${P}.referrer_velocity.max_referrals`]: { text: v.referrer.max, integer: true, required: true },
    [`${P}.referrer_velocity.window_days`]: { text: v.referrer.days, integer: true, required: true },
    [`${P}.address_velocity.max_referrals`]: { text: v.address.max, integer: true, required: true },
    [`${P}.address_velocity.window_days`]: { text: v.address.days, integer: true, required: true },
  });
}

/** The messages for a field and every entry under it (a blocklist's lines: fraud_checks.blocklist.domains.2). */
const under = (errors: FieldErrors, path: string) => {
  const found = Object.entries(errors)
    .filter(([k]) => k === path || k.startsWith(`${path}.`))
    .flatMap(([k, list]) => {
      const line = /\.(\d+)$/.exec(k.slice(path.length));
      return line ? list.map((m) => `Line ${Number(line[1]) + 1}: ${m}`) : list;
    });
  return found.length ? found : undefined;
};

/** Whether the fields below show the error of `path`. */
export const checksShow = (path: string) => path.startsWith(`${P}.`);

function VelocityFields({
  name,
  label,
  hint,
  value,
  onChange,
  errors,
}: {
  name: string;
  label: string;
  hint: string;
  value: VelocityText;
  onChange: (v: VelocityText) => void;
  errors: FieldErrors;
}) {
  return (
    <fieldset className="field">
      <legend>{label}</legend>
      <CheckboxField label={hint} checked={value.enabled} onChange={(e) => onChange({ ...value, enabled: e.target.checked })} />
      <TextField
        label="Referrals allowed"
        inputMode="numeric"
        value={value.max}
        onChange={(e) => onChange({ ...value, max: e.target.value })}
        errors={under(errors, `${P}.${name}.max_referrals`)}
      />
      <TextField
        label="Within days"
        inputMode="numeric"
        value={value.days}
        onChange={(e) => onChange({ ...value, days: e.target.value })}
        errors={under(errors, `${P}.${name}.window_days`)}
      />
    </fieldset>
  );
}

export function FraudCheckFields({
  value: v,
  onChange,
  errors,
}: {
  value: ChecksValues;
  onChange: (v: ChecksValues) => void;
  errors: FieldErrors;
}) {
  return (
    <fieldset className="field">
      <legend>Fraud checks</legend>
      <p className="hint">
        A referral a check flags is held for your review (Program › Referrals under review): neither side is rewarded until you approve it.
      </p>
      <fieldset className="field">
        <legend>Similar emails</legend>
        <CheckboxField
          label="Hold when the friend’s email is the referrer’s mailbox, or looks like it (may flag family members and role addresses such as info@)"
          checked={v.email.enabled}
          onChange={(e) => onChange({ ...v, email: { ...v.email, enabled: e.target.checked } })}
        />
        <TextField
          label="Similarity"
          hint="0.5 to 1: how alike the parts before the @ must be (1: the same)"
          inputMode="decimal"
          value={v.email.similarity}
          onChange={(e) => onChange({ ...v, email: { ...v.email, similarity: e.target.value } })}
          errors={under(errors, `${P}.similar_email.similarity`)}
        />
      </fieldset>
      <fieldset className="field">
        <legend>Shared address or device</legend>
        <CheckboxField
          label="Hold when the friend orders from the referrer’s address, device, card or shipping address (may flag a household or an office)"
          checked={v.shared.enabled}
          onChange={(e) => onChange({ ...v, shared: { ...v.shared, enabled: e.target.checked } })}
        />
        <TextField
          label="Referrer’s orders of the last days"
          inputMode="numeric"
          value={v.shared.days}
          onChange={(e) => onChange({ ...v, shared: { ...v.shared, days: e.target.value } })}
          errors={under(errors, `${P}.shared_identifier.window_days`)}
        />
      </fieldset>
      <CheckboxField
        label="Hold when the friend’s qualifying order is not their first order (may flag a friend whose first order was under the minimum)"
        checked={v.notFirst}
        onChange={(e) => onChange({ ...v, notFirst: e.target.checked })}
        errors={under(errors, `${P}.not_first_order`)}
      />
      <VelocityFields
        name="referrer_velocity"
        label="Referrals by one referrer"
        hint="Hold a referrer’s referrals past this many (may flag a popular referrer)"
        value={v.referrer}
        onChange={(referrer) => onChange({ ...v, referrer })}
        errors={errors}
      />
      <VelocityFields
        name="address_velocity"
        label="Referrals from one address"
        hint="Hold referrals sent from one client address past this many (may flag a shared network)"
        value={v.address}
        onChange={(address) => onChange({ ...v, address })}
        errors={errors}
      />
      <fieldset className="field">
        <legend>Blocklist</legend>
        <CheckboxField
          label="Hold referrals naming these emails, domains or addresses"
          checked={v.blocklist.enabled}
          onChange={(e) => onChange({ ...v, blocklist: { ...v.blocklist, enabled: e.target.checked } })}
        />
        <TextAreaField
          label="Emails"
          hint="One a line"
          rows={2}
          value={v.blocklist.emails}
          onChange={(e) => onChange({ ...v, blocklist: { ...v.blocklist, emails: e.target.value } })}
          errors={under(errors, `${P}.blocklist.emails`)}
        />
        <TextAreaField
          label="Email domains"
          hint="One a line, e.g. mailinator.com (its subdomains too)"
          rows={2}
          value={v.blocklist.domains}
          onChange={(e) => onChange({ ...v, blocklist: { ...v.blocklist, domains: e.target.value } })}
          errors={under(errors, `${P}.blocklist.domains`)}
        />
        <TextAreaField
          label="Client addresses"
          hint="One a line: an IP address or a range, e.g. 203.0.113.0/24"
          rows={2}
          value={v.blocklist.addresses}
          onChange={(e) => onChange({ ...v, blocklist: { ...v.blocklist, addresses: e.target.value } })}
          errors={under(errors, `${P}.blocklist.addresses`)}
        />
      </fieldset>
    </fieldset>
  );
}
