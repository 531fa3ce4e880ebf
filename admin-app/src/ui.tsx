// The few building blocks every page uses, in plain semantic HTML: labelled fields that show
// their validation errors next to them (aria-invalid, aria-describedby), alerts, a modal dialog
// (the native <dialog>: focus kept inside, Escape closes), and a pager.
import {
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import type { CombinedError } from 'urql';
import { fieldLabel } from '../../src/domain/shared/messages';
import { type FieldErrors, messageOf } from './api';
import { Link } from './router';

interface FieldProps {
  label: string;
  /** Messages to show under the field (a validation error). */
  errors?: string[];
  hint?: string;
}

/** The label, hint and errors around one control; `render` gets the ids to wire them. */
function FieldShell({
  label,
  errors,
  hint,
  render,
}: FieldProps & { render: (ids: { id: string; describedBy?: string; invalid: boolean }) => ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={errors?.length ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      {render({ id, describedBy, invalid: !!errors?.length })}
      {errorId && (
        <p className="field-error" id={errorId}>
          {errors!.join('; ')}
        </p>
      )}
    </div>
  );
}

export function TextField({ label, errors, hint, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <FieldShell
      label={label}
      errors={errors}
      hint={hint}
      render={({ id, describedBy, invalid }) => (
        <input id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...input} />
      )}
    />
  );
}

export function TextAreaField({ label, errors, hint, ...input }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <FieldShell
      label={label}
      errors={errors}
      hint={hint}
      render={({ id, describedBy, invalid }) => (
        <textarea id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...input} />
      )}
    />
  );
}

export function SelectField({
  label,
  errors,
  hint,
  options,
  ...select
}: FieldProps & SelectHTMLAttributes<HTMLSelectElement> & { options: { value: string; label: string }[] }) {
  return (
    <FieldShell
      label={label}
      errors={errors}
      hint={hint}
      render={({ id, describedBy, invalid }) => (
        <select id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...select}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

export function CheckboxField({ label, errors, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field field-checkbox">
      <input id={id} type="checkbox" aria-describedby={errors?.length ? `${id}-error` : undefined} {...input} />
      <label htmlFor={id}>{label}</label>
      {!!errors?.length && (
        <p className="field-error" id={`${id}-error`}>
          {errors.join('; ')}
        </p>
      )}
    </div>
  );
}

/** A group of checkboxes (a list value) under one legend. */
export function CheckboxGroup({
  legend,
  options,
  value,
  onChange,
  errors,
}: {
  legend: string;
  options: { value: string; label: string }[];
  value: string[];
  onChange: (value: string[]) => void;
  errors?: string[];
}) {
  const id = useId();
  return (
    <fieldset className="field checkbox-group" aria-describedby={errors?.length ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {options.length === 0 && <p className="hint">None yet.</p>}
      {options.map((o) => (
        <label key={o.value} className="inline">
          <input
            type="checkbox"
            checked={value.includes(o.value)}
            onChange={(e) => onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))}
          />{' '}
          {o.label}
        </label>
      ))}
      {!!errors?.length && (
        <p className="field-error" id={`${id}-error`}>
          {errors.join('; ')}
        </p>
      )}
    </fieldset>
  );
}

export function Alert({ children, tone = 'error' }: { children: ReactNode; tone?: 'error' | 'success' | 'info' }) {
  if (!children) return null;
  return (
    <div className={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** Errors the form has no field for (e.g. a conflict), listed above its buttons. */
function OtherErrors({ errors, shown }: { errors: FieldErrors; shown: string[] | ((field: string) => boolean) }) {
  const isShown = typeof shown === 'function' ? shown : (field: string) => shown.includes(field);
  const rest = Object.entries(errors).filter(([field]) => !isShown(field));
  if (!rest.length) return null;
  return (
    <Alert>
      <ul className="plain">
        {rest.map(([field, messages]) => (
          <li key={field}>
            {fieldLabel(field)}: {messages.join(' ')}
          </li>
        ))}
      </ul>
    </Alert>
  );
}

/** A modal dialog: opened with showModal (focus moves in and stays in; Escape and Cancel close it). */
export function Dialog({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open && (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="icon-button" onClick={onClose} aria-label="Close">
              ×
            </button>
          </header>
          {children}
        </>
      )}
    </dialog>
  );
}

export interface PageInfo {
  current_page: number;
  last_page: number;
  total: number;
}

export function Pager({ label, page, onPage }: { label: string; page: PageInfo | undefined; onPage: (page: number) => void }) {
  if (!page || page.last_page <= 1) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={page.current_page <= 1} onClick={() => onPage(page.current_page - 1)}>
        Previous
      </button>
      <span>
        Page {page.current_page} of {page.last_page} ({page.total})
      </span>
      <button type="button" disabled={page.current_page >= page.last_page} onClick={() => onPage(page.current_page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** Where a record stands in time: turned off, yet to start, running, or over. */
export type Schedule = 'inactive' | 'scheduled' | 'active' | 'ended';

/** The schedule of a record with an on/off switch and optional start and end (ISO 8601). */
export function scheduleOf(isActive: boolean, startsAt?: string | null, endsAt?: string | null, now = Date.now()): Schedule {
  if (!isActive) return 'inactive';
  if (startsAt && Date.parse(startsAt) > now) return 'scheduled';
  if (endsAt && Date.parse(endsAt) <= now) return 'ended';
  return 'active';
}

const scheduleText: Record<Schedule, { label: string; mark: string }> = {
  inactive: { label: 'Inactive', mark: '○' },
  scheduled: { label: 'Scheduled', mark: '◷' },
  active: { label: 'Active', mark: '●' },
  ended: { label: 'Ended', mark: '■' },
};

/** A badge saying the schedule in words (with a shape beside it): never colour alone, and no state reads as an error. */
export function StatusBadge({ state }: { state: Schedule }) {
  const { label, mark } = scheduleText[state];
  return <Badge tone={state} mark={mark} label={label} />;
}

/** A state in words with a shape beside it; `tone` picks its colours (badge-<tone>). */
export function Badge({ tone, mark, label }: { tone: Schedule | 'failed'; mark: string; label: string }) {
  return (
    <span className={`badge badge-${tone}`}>
      <span aria-hidden="true">{mark}</span> {label}
    </span>
  );
}

/** The page for a path the app does not have. */
export function NotFound() {
  return (
    <>
      <PageTitle>Page not found</PageTitle>
      <p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
      <p>
        <Link to="/dashboard">Go to the dashboard</Link>
      </p>
    </>
  );
}

/** The page title, focused after a navigation so screen readers announce the new page. */
export function PageTitle({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${typeof children === 'string' ? children : 'Loyalty'} · Loyalty admin`;
    if (document.activeElement === document.body || document.activeElement?.tagName === 'A') ref.current?.focus();
  }, [children]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** The end of a form: errors no field shows, the API's other failure, and the submit button. */
export function FormFooter({
  errors,
  shown,
  error,
  busy,
  submit,
}: {
  errors: FieldErrors;
  shown: string[] | ((field: string) => boolean);
  error: CombinedError | undefined;
  busy: boolean;
  submit: string;
}) {
  return (
    <>
      <OtherErrors errors={errors} shown={shown} />
      {!Object.keys(errors).length && <Alert>{messageOf(error)}</Alert>}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {submit}
        </button>
      </div>
    </>
  );
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** Right-aligned figures. */
  num?: boolean;
  /** The cell that names the row (a row header). */
  rowHeader?: boolean;
  /** A header only screen readers read (e.g. the actions column). */
  hiddenHeader?: boolean;
  className?: (row: T) => string | undefined;
}

/** A table of rows with column headers, a row header per row, and a line when there is no row. */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty,
  rowClass,
  bare = false,
  wide = false,
}: {
  caption?: string;
  columns: Column<T>[];
  rows: readonly T[] | undefined;
  rowKey: (row: T) => string;
  empty: string;
  rowClass?: (row: T) => string | undefined;
  /** Without the scrolling frame (inside a card). */
  bare?: boolean;
  /** Wider than the page: the frame scrolls, and takes the focus so that the keyboard scrolls it. */
  wide?: boolean;
}) {
  const classOf = (column: Column<T>, row: T) => [column.num && 'num', column.className?.(row)].filter(Boolean).join(' ') || undefined;
  const table = (
    <table>
      {caption && <caption className="visually-hidden">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.header} scope="col" className={c.num ? 'num' : undefined}>
              {c.hiddenHeader ? <span className="visually-hidden">{c.header}</span> : c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {(!rows || rows.length === 0) && (
          <tr>
            <td colSpan={columns.length}>{rows ? empty : 'Loading…'}</td>
          </tr>
        )}
        {rows?.map((row) => (
          <tr key={rowKey(row)} className={rowClass?.(row)}>
            {columns.map((c) =>
              c.rowHeader ? (
                <th key={c.header} scope="row" className={classOf(c, row)}>
                  {c.cell(row)}
                </th>
              ) : (
                <td key={c.header} className={classOf(c, row)}>
                  {c.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
  if (bare) return table;
  return wide ? (
    // a region that scrolls takes the focus, so a keyboard can scroll it (axe: scrollable-region-focusable)
    // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
    // biome-ignore lint/a11y/useSemanticElements: a <section> would add a landmark per table
    <div className="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      {table}
    </div>
  ) : (
    <div className="table-wrap">{table}</div>
  );
}

/**
 * A secret shown this once (an API key, a signing secret): the warning, the value in a read-only
 * field with a copy button, and the button that closes it.
 */
export function SecretShownOnce({
  label,
  value,
  warning,
  done,
}: {
  label: string;
  value: string;
  warning: ReactNode;
  done: { label: string; onClick: () => void };
}) {
  const id = useId();
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('Copying was refused: select the text and copy it yourself.');
    }
  };
  return (
    <div>
      <Alert tone="info">{warning}</Alert>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <div className="copy-row">
          <input id={id} readOnly value={value} onFocus={(e) => e.target.select()} className="mono" />
          <button type="button" onClick={() => void copy()}>
            Copy
          </button>
        </div>
        <p role="status" className="hint">
          {copied}
        </p>
      </div>
      <div className="actions">
        <button type="button" className="primary" onClick={done.onClick}>
          {done.label}
        </button>
      </div>
    </div>
  );
}

/** A question before a change that cannot be taken back: what it does, Cancel, and the button that does it. */
export function ConfirmDialog({
  title,
  open,
  onClose,
  children,
  confirm,
  onConfirm,
  busy,
  error,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
  confirm: string;
  onConfirm: () => void;
  busy?: boolean;
  error?: CombinedError;
}) {
  return (
    <Dialog title={title} open={open} onClose={onClose}>
      {children}
      <Alert>{messageOf(error)}</Alert>
      <div className="actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {confirm}
        </button>
      </div>
    </Dialog>
  );
}
