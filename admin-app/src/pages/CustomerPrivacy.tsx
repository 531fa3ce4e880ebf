// A customer's privacy requests, from their page: export everything held about them (a JSON
// file), or erase their personal data. Each asks first, naming what it does; both are recorded
// in the audit log by the admin API.
import { useState } from 'react';
import { useClient, useMutation } from 'urql';
import { messageOf } from '../api';
import { formatNumber } from '../format';
import { graphql } from '../graphql';
import { navigate } from '../router';
import { Alert, Dialog } from '../ui';

const ExportQuery = graphql(`
  query CustomerExport($id: ID!) { customer_export(id: $id) }
`);
const EraseCustomer = graphql(`
  mutation EraseCustomer($id: ID!) { erase_customer(id: $id) { id erased_at erased_now points_balance } }
`);

/** Hands a JSON document to the browser as a file download. */
function download(name: string, document: unknown) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(document, null, 2)], { type: 'application/json' }));
  const link = Object.assign(window.document.createElement('a'), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function CustomerPrivacy({ id, platformId, name, balance }: { id: string; platformId: string; name: string; balance: number }) {
  const client = useClient();
  const [asking, setAsking] = useState<'export' | 'erase' | null>(null);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | undefined>();
  const [exported, setExported] = useState(false);
  const [erased, erase] = useMutation(EraseCustomer);

  const runExport = async () => {
    setExporting(true);
    setExportError(undefined);
    const res = await client.query(ExportQuery, { id }, { requestPolicy: 'network-only' }).toPromise();
    setExporting(false);
    if (res.error) return setExportError(messageOf(res.error));
    download(`customer-${platformId}.json`, res.data?.customer_export);
    setExported(true);
    setAsking(null);
  };

  const runErase = async () => {
    const res = await erase({ id });
    if (res.data) {
      setAsking(null);
      navigate(`/customers?erased=${encodeURIComponent(res.data.erase_customer.id)}`);
    }
  };

  return (
    <section className="card" aria-labelledby="privacy-title">
      <h2 id="privacy-title">Privacy requests</h2>
      <p className="hint">When {name} asks for a copy of their data, or for it to be deleted.</p>
      <Alert tone="success">{exported && 'The export was downloaded. It is recorded in the audit log.'}</Alert>
      <div className="actions">
        <button type="button" onClick={() => setAsking('export')}>
          Export data…
        </button>
        <button type="button" className="danger" onClick={() => setAsking('erase')}>
          Erase personal data…
        </button>
      </div>
      <Dialog title={`Export ${name}'s data?`} open={asking === 'export'} onClose={() => setAsking(null)}>
        <p>
          This downloads one file with everything held about {name}: profile, balance, every points transaction, activity, rewards,
          referrals, tiers and orders.
        </p>
        <ul>
          <li>The file holds personal data: keep it safe and send it only to the customer.</li>
          <li>The export is recorded in the audit log, with who made it and when.</li>
        </ul>
        <Alert>{exportError}</Alert>
        <div className="actions">
          <button type="button" onClick={() => setAsking(null)}>
            Cancel
          </button>
          <button type="button" className="primary" disabled={exporting} onClick={() => void runExport()}>
            {exporting ? 'Exporting…' : 'Download export'}
          </button>
        </div>
      </Dialog>
      <Dialog title={`Erase ${name}'s personal data?`} open={asking === 'erase'} onClose={() => setAsking(null)}>
        <p>
          <strong>This cannot be undone.</strong>
        </p>
        <ul>
          <li>
            Their email, names, birthday, customer id and referral code are deleted; the customer can no longer be found or earn points.
          </li>
          <li>Their {formatNumber(balance)} points stay in your totals and dashboard, but nobody can spend them.</li>
          <li>Copies in referrals, stored events and the audit log are scrubbed too.</li>
          <li>The erasure is recorded in the audit log.</li>
        </ul>
        <Alert>{messageOf(erased.error)}</Alert>
        <div className="actions">
          <button type="button" onClick={() => setAsking(null)}>
            Cancel
          </button>
          <button type="button" className="danger" disabled={erased.fetching} onClick={() => void runErase()}>
            {erased.fetching ? 'Erasing…' : 'Erase personal data'}
          </button>
        </div>
      </Dialog>
    </section>
  );
}
