/**
 * The longest a customer session's token may live (CUSTOMER_SESSION_MAX_TTL_SECONDS is at most
 * this): what ends every session of a customer (erasure) is kept this long, after which no token
 * issued before it can be alive.
 */
export const LONGEST_CUSTOMER_SESSION_SECONDS = 7 * 86_400;
