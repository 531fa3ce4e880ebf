// The settings page's pickers: the time zone (every IANA zone this browser knows, searchable,
// each with its offset from UTC now) and the language and region numbers, money and dates are
// shown in.
import { useId, useMemo, useState } from 'react';
import { zoneOffset } from '../format';
import { SelectField } from '../ui';

const allZones = (): string[] => {
  const zones = Intl.supportedValuesOf('timeZone');
  // some engines leave UTC out of the list: it is the default, so it is always offered
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
};

export function TimeZonePicker({ value, onChange, errors }: { value: string; onChange: (zone: string) => void; errors?: string[] }) {
  const id = useId();
  const [query, setQuery] = useState('');
  const zones = useMemo(() => allZones().map((zone) => ({ zone, offset: zoneOffset(zone) })), []);
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = zones.filter(({ zone, offset }) => {
    const text = `${zone.replace(/_/g, ' ')} ${offset}`.toLowerCase();
    return zone === value || words.every((w) => text.includes(w));
  });
  const errorId = errors?.length ? `${id}-error` : undefined;
  return (
    <fieldset className={errors?.length ? 'field field-invalid' : 'field'} aria-describedby={errorId}>
      <legend>Time zone</legend>
      <p className="hint" id={`${id}-hint`}>
        Days, weeks, years and expiry dates of the program follow it. Now: {value} ({zoneOffset(value)}).
      </p>
      <label htmlFor={`${id}-search`}>Search time zones</label>
      <input
        id={`${id}-search`}
        type="search"
        placeholder="City or region, e.g. Paris"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <label htmlFor={`${id}-zone`}>
        Time zone <span className="hint">({shown.length} shown)</span>
      </label>
      <select
        id={`${id}-zone`}
        size={6}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={`${id}-hint`}
        aria-invalid={errorId ? true : undefined}
      >
        {shown.map(({ zone, offset }) => (
          <option key={zone} value={zone}>
            {zone.replace(/_/g, ' ')} ({offset})
          </option>
        ))}
      </select>
      {errorId && (
        <p className="field-error" id={errorId}>
          {errors!.join(' ')}
        </p>
      )}
    </fieldset>
  );
}

const LOCALES = [
  'en-US',
  'en-GB',
  'en-CA',
  'en-AU',
  'fr-FR',
  'fr-CA',
  'de-DE',
  'de-CH',
  'es-ES',
  'es-MX',
  'it-IT',
  'nl-NL',
  'pt-BR',
  'pt-PT',
  'sv-SE',
  'da-DK',
  'nb-NO',
  'fi-FI',
  'pl-PL',
  'ja-JP',
  'ko-KR',
  'zh-CN',
];

/** Each locale named in its own language: Deutsch (Deutschland). */
const localeName = (code: string) => new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code;

export function LocalePicker({
  value,
  currency,
  onChange,
  errors,
}: {
  value: string;
  currency: string;
  onChange: (locale: string) => void;
  errors?: string[];
}) {
  const options = (LOCALES.includes(value) ? LOCALES : [value, ...LOCALES]).map((code) => ({
    value: code,
    label: `${localeName(code)} — ${code}`,
  }));
  let sample = '';
  try {
    sample = `${new Intl.NumberFormat(value).format(1234567.5)} · ${new Intl.NumberFormat(value, { style: 'currency', currency }).format(15)} · ${new Intl.DateTimeFormat(value, { dateStyle: 'medium' }).format(new Date())}`;
  } catch {
    // a currency code not yet valid while it is typed: no sample
  }
  return (
    <SelectField
      label="Language and region"
      hint={`How numbers, money and dates are shown here${sample ? `, e.g. ${sample}` : ''}`}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      options={options}
      errors={errors}
    />
  );
}
