// The limits and units more than one part of the domain relies on, each named once with the
// reason for its value. Changing one moves an accept/refuse boundary of the API.

/** The largest balance (and points earned or spent) a customer can have: PostgreSQL `integer`. */
export const MAX_BALANCE = 2_147_483_647;

/**
 * The most points a configured value can be (a reward's cost, a referral's reward): a round
 * billion, under MAX_BALANCE.
 */
export const MAX_POINTS = 1_000_000_000;

/**
 * The largest money amount an order speaks of, in the shop currency: a cart's subtotal and line
 * prices, a refund, and what is compared with them (a reward's discount or minimum order, a
 * rule's per_amount). A billion fits orders.subtotal (DECIMAL(14,2)) with room for the sums of
 * amount_spent (DECIMAL(18,2)); an absurd amount is 422, never a 500 (git 6f8ee5d).
 */
export const MAX_AMOUNT = 1_000_000_000;

/**
 * The largest whole amount a DECIMAL(14,2) column holds (twelve integer digits): the bound
 * of an amount that is stored but never added to an order (the referral program's minimum).
 */
export const MAX_DECIMAL_14_2 = 999_999_999_999;

/** A day in milliseconds (UTC days: no daylight saving). */
export const DAY_MS = 86_400_000;
