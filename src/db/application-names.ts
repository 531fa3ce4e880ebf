// What each of the service's connections calls itself (pg_stat_activity.application_name), so
// an operator can tell the connections that answer requests from the job queue's, the outbox
// dispatcher's and the notification feed's. A name given in the database URL
// (`?application_name=`) takes precedence, as pg reads the URL after its options.
export const applicationNames = {
  requests: 'loyalty',
  jobs: 'loyalty-jobs',
  dispatcher: 'loyalty-dispatcher',
  notifications: 'loyalty-notifications',
  /** On a Citus cluster, the request connections to a merchant's worker (merchant-nodes.ts). */
  workerEntry: 'loyalty worker entry',
} as const;
