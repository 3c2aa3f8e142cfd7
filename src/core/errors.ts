/**
 * The one error shape of Paylink: every non-2xx body is
 * `{status: "error", statusCode, code, message, errors?: [{path, message}]}`. `errorBody` is the one
 * place that builds it (the service's `ApiError`, the proxy's refusals) and `readErrorBody` the one
 * place that reads it back (the client's two transports), tolerating anything a broken upstream sends.
 * Isomorphic, no zod and tiny: the checkout bundle carries `readErrorBody`.
 */

/**
 * A field the server named as wrong: `path` is dotted (`cart.items.0.quantity`). The one type of a
 * field error: the service's `errors[]`, the client's `PaylinkError.errors`, the forms' mapping, and
 * the `FieldError` schema of `core/schemas.ts` (checked against it).
 */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * Every `code` the service answers with, by status. Code that branches on a code (the checkout on
 * `link_inactive` and `rate_unavailable`, the client's callers) names it from here, so a renamed code
 * is a compile error rather than a branch that silently never runs. The proxy in front adds its own
 * (`cross_site_request`, `upstream_unavailable`, …), and a broken upstream may send anything: readers
 * keep `string` (see `readErrorBody`).
 */
export type ErrorCode =
  // 400
  | 'validation_failed'
  | 'invalid_json'
  | 'invalid_body'
  | 'unreadable_body'
  | 'claim_token_required'
  // 401
  | 'missing_api_key'
  | 'invalid_api_key'
  // 404
  | 'not_found'
  | 'unknown_deposit_address'
  // 409
  | 'idempotency_conflict'
  | 'idempotency_in_progress'
  | 'reference_in_use'
  | 'tx_hash_conflict'
  | 'already_paid'
  | 'nothing_paid'
  | 'payment_confirming'
  | 'payment_reversed'
  | 'order_paid'
  | 'order_cancelled'
  | 'address_already_set'
  | 'refund_not_cancellable'
  // 410
  | 'link_closed'
  | 'order_expired'
  | 'refund_cancelled'
  // 413, 415
  | 'body_too_large'
  | 'unsupported_media_type'
  // 422
  | 'link_inactive'
  | 'amount_too_large'
  | 'asset_mismatch'
  | 'invalid_transfer'
  | 'insufficient_balance'
  | 'own_deposit_address'
  | 'hot_wallet_address'
  | 'token_contract_address'
  | 'nothing_to_refund'
  | 'payment_not_final'
  | 'refund_exceeds_payment'
  // 429
  | 'rate_limited'
  | 'too_many_streams'
  // 500
  | 'internal_error'
  // 503
  | 'withdrawal_outcome_unknown'
  | 'rate_unavailable'
  | 'rates_stale'
  | 'shutting_down'
  | 'server_busy'
  | 'too_many_connections'
  | 'streams_unavailable';

/** The body of every non-2xx response. */
export interface ErrorBodyShape {
  status: 'error';
  statusCode: number;
  code: string;
  message: string;
  errors?: FieldError[];
}

/** Builds the error body; `errors` is left out when there are none. */
export function errorBody(statusCode: number, code: string, message: string, errors?: readonly FieldError[]): ErrorBodyShape {
  return { status: 'error', statusCode, code, message, ...(errors?.length ? { errors: errors.map(({ path, message }) => ({ path, message })) } : {}) };
}

/**
 * Reads an error body of a `status` response: its code (`http_<status>` when absent), message and
 * field errors, whatever shape `body` has.
 */
export function readErrorBody(status: number, body: unknown): { code: string; message: string; errors: FieldError[] } {
  const data = (typeof body == 'object' && body ? body : {}) as Record<string, unknown>;
  return {
    code: typeof data.code == 'string' ? data.code : `http_${status}`,
    message: typeof data.message == 'string' ? data.message : `Request failed with status ${status}`,
    errors: Array.isArray(data.errors)
      ? data.errors.filter((e) => typeof e == 'object' && e).map((e) => ({ path: String(e.path ?? ''), message: String(e.message ?? '') }))
      : [],
  };
}
