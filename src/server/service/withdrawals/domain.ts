/**
 * Withdrawals: the rules on the request (`core/rules/withdrawal.ts`, against the chain's configured
 * networks) and the reads. The reservation of funds and idempotency are the intake's (./intake.ts);
 * the payout itself runs in the background (../payouts/).
 *
 * A request that passes the rules must still be covered by the available balance of its asset:
 * otherwise 422 `insufficient_balance`, which changes nothing (and is stored for its Idempotency-Key,
 * like a success: it is the answer to that request).
 */
import { isUuid } from '../../../core/rules/limits.js';
import type { WithdrawalEventType } from '../../../core/rules/webhooks.js';
import { checkWithdrawal, type WithdrawalInput, type WithdrawalRequest } from '../../../core/rules/withdrawal.js';
import type { FieldError, ListWithdrawalsQuery, Withdrawal, WithdrawalNetwork } from '../../../core/schemas.js';
import type { ChainAdapter } from '../../chain/types.js';
import type { Queryable } from '../../db/index.js';
import { listAlerts } from '../alerts/index.js';
import { creationRange, pageMeta } from '../context.js';
import type { ErrorCode } from '../../../core/errors.js';
import { ApiError, notFound, ruleError, validationError } from '../errors.js';
import { announce } from '../events/index.js';
import type { Principal } from '../keys/index.js';
import { assetAmount } from '../ledger/index.js';
import { findWithdrawal, listWithdrawals as listRows, type WithdrawalRow } from './repository.js';
import type { z } from 'zod';

export type { WithdrawalRequest } from '../../../core/rules/withdrawal.js';

/**
 * Applies the rules to a request body (types already checked); throws one 400 naming every offending
 * field, or a 422 for an address no withdrawal may go to (`refusedDestination`).
 */
export function parseWithdrawalRequest(input: WithdrawalInput, chain: ChainAdapter): WithdrawalRequest {
  const check = checkWithdrawal(input, chain.networks);
  if (!check.ok) throw ruleError(check.errors);
  const refused = refusedDestination(check.request.address, chain);
  if (refused) throw refused;
  return check.request;
}

/**
 * Why a well-formed address is still no place to withdraw to, or undefined when it is one:
 * - the service's own hot wallet (422 `hot_wallet_address`): the payout is sent from there to there,
 *   so the merchant's balance is debited while the tokens never leave the wallet that pays everyone;
 * - a configured token's contract (422 `token_contract_address`): tokens sent to a token contract are
 *   lost to everyone (a common paste mistake: the token's address copied from an explorer).
 * Addresses are compared in any case; every configured network counts (one address space on all of them).
 */
export function refusedDestination(address: string, chain: ChainAdapter): ApiError | undefined {
  const lower = address.toLowerCase();
  const refuse = (code: ErrorCode, message: string) => new ApiError(422, code, message, [{ path: 'address', message }]);
  if (chain.kind === 'real' && chain.chains.some((network) => network.outgoing?.hotWallet.toLowerCase() === lower))
    return refuse(
      'hot_wallet_address',
      `${address} is this service's hot wallet, the address every payout is sent from: a withdrawal there would debit your balance while the tokens never leave it. Withdraw to a wallet you hold`,
    );
  for (const network of chain.networks)
    for (const [assetId, token] of Object.entries(network.tokens ?? {}))
      if (token?.address.toLowerCase() === lower)
        return refuse(
          'token_contract_address',
          `${address} is the ${assetId} token contract on ${network.name}, not a wallet: tokens sent to it are lost for good. Withdraw to a wallet you hold`,
        );
  return undefined;
}

/**
 * The networks withdrawals can use, from the chain's configuration, each with the alerts that hold on
 * it (`GET /v1/withdrawal/networks`).
 */
export async function withdrawalNetworks(db: Queryable, chain: ChainAdapter): Promise<WithdrawalNetwork[]> {
  const alerts = await listAlerts(db);
  return chain.networks.map((network) => ({
    id: network.id,
    name: network.name,
    aliases: [...network.aliases],
    assets: [...network.assets],
    chainId: network.chainId ?? null,
    explorerUrl: network.explorerUrl ?? null,
    alerts: alerts
      .filter((alert) => alert.blockchainId === network.id)
      .map((alert) => ({ code: alert.code, message: alert.message, since: alert.raisedAt.toISOString() })),
  }));
}

/** A withdrawal as the API returns it. */
export function toWithdrawal(row: WithdrawalRow): Withdrawal {
  return {
    id: row.id,
    amount: assetAmount(row.amount),
    assetId: row.asset_id,
    blockchainId: row.blockchain_id,
    address: row.address,
    status: row.status,
    txHash: row.tx_hash,
    failureReason: row.failure_reason,
    receivedAmount: row.received_amount === null ? null : assetAmount(row.received_amount),
    stalledReason: row.stalled_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** `GET /v1/withdrawal/{id}`: the caller's own withdrawal, else 404. */
export async function getWithdrawal(db: Queryable, principal: Principal, id: string): Promise<Withdrawal> {
  if (!isUuid(id)) throw notFound('Withdrawal');
  const row = await findWithdrawal(db, principal.integratorId, id);
  if (!row) throw notFound('Withdrawal');
  return toWithdrawal(row);
}

/** `GET /v1/withdrawal`: the caller's withdrawals, newest first, filtered (dates inclusive) and paged. */
export async function listWithdrawals(db: Queryable, principal: Principal, query: z.output<typeof ListWithdrawalsQuery>) {
  const errors: FieldError[] = [];
  const created = creationRange(query, errors);
  if (errors.length) throw validationError(errors);
  const { rows, totalItems } = await listRows(db, principal.integratorId, { status: query.status, ...created }, query);
  return { items: rows.map(toWithdrawal), meta: pageMeta(totalItems, rows.length, query) };
}

/**
 * Announces what happened to withdrawals (`withdrawal.succeeded` or `withdrawal.failed` each) in the
 * transaction `tx` that finished them: their merchant's endpoints that listen receive each as
 * `GET /v1/withdrawal/{id}` shows it after the change.
 */
export async function announceWithdrawals(
  tx: Queryable,
  announcements: ReadonlyArray<{ type: WithdrawalEventType; id: string; integratorId: string }>,
  at: Date,
): Promise<void> {
  await announce(tx, announcements, at, async (id, integratorId) => {
    const row = await findWithdrawal(tx, integratorId, id);
    return row && toWithdrawal(row);
  });
}
