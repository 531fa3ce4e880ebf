// Customers: search by the platform's customer id or by email; newest first otherwise.
import { type FormEvent, useState } from 'react';
import { useQuery } from 'urql';
import { messageOf } from '../api';
import { formatDate, formatNumber, humanize } from '../format';
import { graphql } from '../graphql';
import { Link } from '../router';
import { Alert, DataTable, Pager, PageTitle, TextField } from '../ui';

const CustomersQuery = graphql(`
  query Customers($customer_id: String, $email: String, $page: Int) {
    customers(customer_id: $customer_id, email: $email, page: $page, per_page: 20) {
      data { id customer_id email first_name last_name status points_balance tier { name } created_at }
      meta { pagination { current_page last_page total } }
    }
  }
`);

export function Customers() {
  const [term, setTerm] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const byEmail = search.includes('@');
  const [{ data, error, fetching }] = useQuery({
    query: CustomersQuery,
    variables: { customer_id: search && !byEmail ? search : null, email: byEmail ? search : null, page },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSearch(term.trim());
    setPage(1);
  };
  const list = data?.customers;
  // after an erasure the customer's page is gone: this list says it was done
  const erased = new URLSearchParams(window.location.search).has('erased');

  return (
    <>
      <PageTitle>Customers</PageTitle>
      <Alert tone="success">{erased && "The customer's personal data was erased. The erasure is recorded in the audit log."}</Alert>
      {/* biome-ignore lint/a11y/useSemanticElements: <search> is too new for the browsers the app supports */}
      <form className="search" role="search" onSubmit={submit}>
        <TextField
          label="Find a customer"
          hint="Their id on your store platform, or their email address."
          type="search"
          value={term}
          onChange={(e) => setTerm(e.target.value)}
        />
        <button type="submit" className="primary">
          Search
        </button>
        {search && (
          <button
            type="button"
            onClick={() => {
              setTerm('');
              setSearch('');
              setPage(1);
            }}
          >
            Show all
          </button>
        )}
      </form>
      <Alert>{messageOf(error)}</Alert>
      {fetching && !list && <p>Loading…</p>}
      {list && (
        <>
          <p role="status">
            {search
              ? `${formatNumber(list.meta.pagination.total)} customer(s) matching “${search}”`
              : `${formatNumber(list.meta.pagination.total)} customers`}
          </p>
          <DataTable
            caption="Customers"
            rows={list.data}
            rowKey={(c) => c.id}
            empty="No customer found."
            columns={[
              {
                header: 'Customer id',
                rowHeader: true,
                cell: (c) => <Link to={`/customers/${encodeURIComponent(c.id)}`}>{c.customer_id}</Link>,
              },
              { header: 'Name', cell: (c) => [c.first_name, c.last_name].filter(Boolean).join(' ') || '—' },
              { header: 'Email', cell: (c) => c.email },
              { header: 'Tier', cell: (c) => c.tier?.name ?? '—' },
              { header: 'Balance', num: true, cell: (c) => formatNumber(c.points_balance) },
              { header: 'Status', cell: (c) => humanize(c.status) },
              { header: 'Joined', cell: (c) => formatDate(c.created_at) },
            ]}
          />
          <Pager label="Customers" page={list.meta.pagination} onPage={setPage} />
        </>
      )}
    </>
  );
}
