// Referrals under review: those a fraud check held, newest first, with the signals that held
// them. Approve (the rewards are issued now; without the friend's order yet, it waits for it) or
// reject (nothing is issued), each after a confirmation and sent with its own Idempotency-Key, so
// a double click or a retry decides once.
import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { idempotent, messageOf } from '../../api';
import { formatDateTime } from '../../format';
import { graphql, type ResultOf } from '../../graphql';
import { Link } from '../../router';
import { Alert, ConfirmDialog, DataTable, Pager } from '../../ui';

const HeldQuery = graphql(`
  query HeldReferrals($page: Int) {
    referrals(status: held, page: $page, per_page: 20) {
      data {
        id referee_email order_id held_at
        signals { signal detail }
        referrer { customer_id email first_name last_name }
        referee { customer_id }
      }
      meta { pagination { current_page last_page total } }
    }
  }
`);
const Approve = graphql(`mutation ApproveReferral($id: ID!) { approve_referral(id: $id) { id status } }`);
const Reject = graphql(`mutation RejectReferral($id: ID!) { reject_referral(id: $id) { id status } }`);

type Held = ResultOf<typeof HeldQuery>['referrals']['data'][number];
type Decision = { kind: 'approve' | 'reject'; referral: Held; key: string };

/** Each check in a merchant's words (the settings' names, Program › Referral program). */
const signalLabels: Record<string, string> = {
  similar_email: 'Similar emails',
  shared_identifier: 'Shared address or device',
  not_first_order: 'Not the first order',
  referrer_velocity: 'Many referrals by the referrer',
  address_velocity: 'Many referrals from one address',
  blocklist: 'Blocklist',
};

/** A random Idempotency-Key for one decision (crypto.randomUUID needs a secure context; this does not). */
function newKey(kind: string) {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `${kind}-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

const nameOf = (c: Held['referrer']) => [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email;

export function ReferralReview() {
  const [page, setPage] = useState(1);
  const [{ data, error }, refetch] = useQuery({ query: HeldQuery, variables: { page } });
  const [deciding, setDeciding] = useState<Decision | null>(null);
  const [approveResult, approve] = useMutation(Approve);
  const [rejectResult, reject] = useMutation(Reject);
  const [notice, setNotice] = useState<string | null>(null);
  const result = deciding?.kind === 'reject' ? rejectResult : approveResult;

  const open = (kind: Decision['kind'], referral: Held) => {
    setNotice(null);
    setDeciding({ kind, referral, key: newKey(kind) });
  };
  const decide = async () => {
    if (!deciding) return;
    const { kind, referral, key } = deciding;
    const res = await (kind === 'approve' ? approve : reject)({ id: referral.id }, idempotent(key));
    if (res.error) return;
    const status = res.data && ('approve_referral' in res.data ? res.data.approve_referral.status : res.data.reject_referral.status);
    setNotice(
      kind === 'reject'
        ? `The referral of ${referral.referee_email} is rejected: nothing was issued.`
        : status === 'completed'
          ? `The referral of ${referral.referee_email} is approved: the friend’s reward and the referrer’s points are issued.`
          : status === 'pending'
            ? `The referral of ${referral.referee_email} is approved: the friend’s first qualifying order completes it.`
            : `The referral of ${referral.referee_email} is approved, and reversed at once: the friend’s order was refunded.`,
    );
    setDeciding(null);
    refetch({ requestPolicy: 'network-only' });
  };

  const r = deciding?.referral;
  return (
    <section aria-labelledby="review-title">
      <h2 id="review-title">Referrals under review</h2>
      <p className="lead">
        A fraud check held these referrals (the checks are set in the referral program): neither the referrer nor the friend is rewarded
        until you approve one. The shopper sees “under review”.
      </p>
      <Alert tone="success">{notice}</Alert>
      <Alert>{messageOf(error)}</Alert>
      <DataTable<Held>
        caption="Referrals under review, newest first"
        rows={data?.referrals.data}
        rowKey={(h) => h.id}
        empty="No referral is waiting for review."
        wide
        columns={[
          { header: 'Friend', rowHeader: true, cell: (h) => h.referee_email },
          {
            header: 'Referred by',
            cell: (h) => <Link to={`/customers/${encodeURIComponent(h.referrer.customer_id)}`}>{nameOf(h.referrer)}</Link>,
          },
          {
            header: 'Friend’s order',
            cell: (h) => (h.order_id ? h.order_id : 'None yet'),
          },
          {
            header: 'Signals',
            cell: (h) => (
              <ul className="plain">
                {h.signals.map((s) => (
                  <li key={s.signal}>
                    <strong>{signalLabels[s.signal] ?? s.signal}:</strong> {s.detail}
                  </li>
                ))}
              </ul>
            ),
          },
          { header: 'Held', cell: (h) => formatDateTime(h.held_at), className: () => 'nowrap' },
          {
            header: 'Actions',
            hiddenHeader: true,
            cell: (h) => (
              <div className="row-actions">
                <button type="button" onClick={() => open('approve', h)} aria-label={`Approve the referral of ${h.referee_email}`}>
                  Approve
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() => open('reject', h)}
                  aria-label={`Reject the referral of ${h.referee_email}`}
                >
                  Reject
                </button>
              </div>
            ),
          },
        ]}
      />
      <Pager label="Referrals under review" page={data?.referrals.meta.pagination} onPage={setPage} />
      <ConfirmDialog
        title={deciding?.kind === 'reject' ? 'Reject this referral?' : 'Approve this referral?'}
        open={!!deciding}
        onClose={() => setDeciding(null)}
        confirm={deciding?.kind === 'reject' ? 'Reject referral' : 'Approve referral'}
        onConfirm={() => void decide()}
        busy={result.fetching}
        error={result.error}
      >
        {r && deciding?.kind === 'approve' && (
          <p>
            Approve the referral of <strong>{r.referee_email}</strong> by {nameOf(r.referrer)}?{' '}
            {r.order_id
              ? 'The friend’s reward code and the referrer’s points are issued now.'
              : 'The friend has not ordered yet: their first qualifying order completes it without another check.'}{' '}
            This cannot be undone.
          </p>
        )}
        {r && deciding?.kind === 'reject' && (
          <p>
            Reject the referral of <strong>{r.referee_email}</strong> by {nameOf(r.referrer)}? Nothing is issued to either of them, and the
            friend cannot be referred again. This cannot be undone.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
