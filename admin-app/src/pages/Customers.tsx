// Customers: search by the platform's customer id or by email; newest first otherwise.
import { type FormEvent, useState } from 'react';
import { useQuery } from 'urql';
import { messageOf } from '../api';
import { formatDate, formatNumber, humanize } from '../format';
import { graphql } from '../graphql';
import { Link } from '../router';
import { Alert, PageTitle, Pager, TextField } from '../ui';

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

  return (
    <>
      <PageTitle>Customers</PageTitle>
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
            {search ? `${formatNumber(list.meta.pagination.total)} customer(s) matching “${search}”` : `${formatNumber(list.meta.pagination.total)} customers`}
          </p>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Customers</caption>
              <thead>
                <tr>
                  <th scope="col">Customer id</th>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Tier</th>
                  <th scope="col" className="num">
                    Balance
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Joined</th>
                </tr>
              </thead>
              <tbody>
                {list.data.length === 0 && (
                  <tr>
                    <td colSpan={7}>No customer found.</td>
                  </tr>
                )}
                {list.data.map((c) => (
                  <tr key={c.id}>
                    <th scope="row">
                      <Link to={`/customers/${encodeURIComponent(c.id)}`}>{c.customer_id}</Link>
                    </th>
                    <td>{[c.first_name, c.last_name].filter(Boolean).join(' ') || '—'}</td>
                    <td>{c.email}</td>
                    <td>{c.tier?.name ?? '—'}</td>
                    <td className="num">{formatNumber(c.points_balance)}</td>
                    <td>{humanize(c.status)}</td>
                    <td>{formatDate(c.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Customers" page={list.meta.pagination} onPage={setPage} />
        </>
      )}
    </>
  );
}
