/**
 * The rules of a refund: its statuses, and what `POST /v1/refund` and the customer's claim
 * (`POST /v1/checkout/refunds/{id}/address`) may carry, run by the service and by the admin's refund
 * form and the claim page before they send:
 * - `amount` (optional: what the session brought in less earlier refunds): a number or decimal
 *   string, > 0, at most 6 decimals, at most `MAX_AMOUNT`;
 * - `address` (optional: without one the customer claims the refund): an EVM address, not the zero
 *   address, a mixed-case one passing its EIP-55 checksum (kept in its checksummed spelling).
 * Whether the payment and the balance cover the amount is the service's to say (422), not a rule of
 * the request. Isomorphic: no DOM, no Node, no zod.
 */
import { checkAmount } from './amount.js';
import { CRYPTO_DIGITS } from './limits.js';
import { RuleErrors, type RuleError } from './types.js';
import { checkEvmAddress, isZeroAddress } from './withdrawal.js';

/**
 * The statuses of a refund: `awaiting_address` (a claim link waits for the customer's address) →
 * `pending` → `processing` → `success` | `failed`, or `cancelled` by the merchant while it awaits an
 * address. A refund made with an address starts `pending`. A failed or cancelled refund's amount is
 * back in the merchant's balance.
 */
export const REFUND_STATUSES = ['awaiting_address', 'pending', 'processing', 'success', 'failed', 'cancelled'] as const;

/** One refund status. */
export type RefundStatusName = (typeof REFUND_STATUSES)[number];

/** The statuses of a refund whose amount is not back in the balance: it counts toward `refundedAmount`. */
export const LIVE_REFUND_STATUSES: ReadonlySet<RefundStatusName> = new Set(['awaiting_address', 'pending', 'processing', 'success']);

/** How the claim token travels from the claim page to the service: this request header. */
export const CLAIM_HEADER = 'Paylink-Claim';

/** A refund body, with its types already checked. */
export interface RefundInput {
  amount?: number | string | undefined;
  address?: string | undefined;
}

/** What the rules let through, canonical: null for what the request left out. */
export interface RefundRequest {
  amount: string | null;
  address: string | null;
}

/** Checks an address a payout will go to: adds an error on `path` and returns null, or its EIP-55 spelling. */
export function checkPayoutAddress(value: string, path: string, errors: RuleErrors): string | null {
  const address = checkEvmAddress(value, path, errors);
  return address !== null && isZeroAddress(address) ? errors.fail(path, 'address.format') : address;
}

/** Applies the rules to a refund's `amount` and `address`, naming every offending field. */
export function checkRefund(input: RefundInput): { ok: true; request: RefundRequest } | { ok: false; errors: RuleError[] } {
  const errors = new RuleErrors();
  const amount = input.amount === undefined ? null : checkAmount(input.amount, 'amount', { digits: CRYPTO_DIGITS, unit: 'Crypto', positive: true }, errors);
  const address = input.address === undefined || input.address.trim() === '' ? null : checkPayoutAddress(input.address, 'address', errors);
  return errors.empty ? { ok: true, request: { amount, address } } : { ok: false, errors: errors.list };
}
