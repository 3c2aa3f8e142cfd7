/**
 * `client.withdrawals`: crypto payouts from the integrator's balance (`/withdrawal`).
 *
 * Idempotency: `create` sends `Idempotency-Key` only when you pass `options.idempotencyKey`; the
 * client never invents one, because it never retries on its own (a key nobody can resend protects
 * nothing). To retry a payout safely after a timeout or a network error, pass your own key (e.g.
 * your payout's id) on the first call and the same key on every retry: the service applies it once
 * and replays the first answer; the same key with another body is a `PaylinkConflictError` (409).
 */
import { Withdrawal, WithdrawalCreated, WithdrawalList, WithdrawalNetworkList, type CreateWithdrawalInput, type WithdrawalStatus } from '../core/schemas.js';
import type { RequestOptions, Transport } from './http.js';
import { isoOf, pathOf } from './links.js';

/** Filters and paging of `withdrawals.list`. */
export interface ListWithdrawalsParams {
  page?: number;
  limit?: number;
  status?: WithdrawalStatus;
  /** ISO 8601 time or date; inclusive. */
  startDate?: string | Date;
  /** ISO 8601 time or date; inclusive. */
  endDate?: string | Date;
}

export interface WithdrawalsResource {
  /**
   * Starts a payout of `amount` of `assetId` to `address` on `blockchainId` (e.g. `bsc`).
   * Resolves with the service's acknowledgement carrying the new withdrawal's `id`.
   * Pass `options.idempotencyKey` to make retries safe (see the module comment).
   */
  create(params: CreateWithdrawalInput, options?: RequestOptions): Promise<WithdrawalCreated>;
  /** One page of the caller's withdrawals, newest first. */
  list(params?: ListWithdrawalsParams, options?: RequestOptions): Promise<WithdrawalList>;
  /** One withdrawal by id, with its current `status`, `txHash` and `failureReason`. */
  get(params: string | { id: string }, options?: RequestOptions): Promise<Withdrawal>;
  /** The networks a withdrawal can use (`blockchainId` is one of their ids or aliases), as the service is configured. */
  networks(options?: RequestOptions): Promise<WithdrawalNetworkList>;
}

export function createWithdrawalsResource(transport: Transport): WithdrawalsResource {
  return {
    create: (params, options = {}) => transport.request('POST', '/withdrawal', (data) => WithdrawalCreated.parse(data), { ...options, body: params }),
    list: (params = {}, options = {}) =>
      transport.request('GET', '/withdrawal', (data) => WithdrawalList.parse(data), {
        ...options,
        query: { ...params, startDate: isoOf(params.startDate), endDate: isoOf(params.endDate) },
      }),
    get: (params, options = {}) => transport.request('GET', pathOf('/withdrawal', params, 'withdrawals.get'), (data) => Withdrawal.parse(data), options),
    networks: (options = {}) => transport.request('GET', '/withdrawal/networks', (data) => WithdrawalNetworkList.parse(data), options),
  };
}
