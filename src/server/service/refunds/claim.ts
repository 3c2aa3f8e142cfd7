/**
 * The customer's claim of a refund (keyless): `GET /v1/checkout/refunds/{id}` shows what is given back,
 * by whom and on which network; `POST /v1/checkout/refunds/{id}/address` says where it goes, once. Both
 * need the refund's claim token in the `Paylink-Claim` header (./claim-token.ts): without one, 400; with
 * a wrong one, or for an unknown refund, the same 404 (a guess learns nothing). The address is checked
 * (EIP-55 for a mixed-case one, not the zero address, not one of the merchant's deposit addresses) and
 * set under the refund's lock, so it is set once whatever arrives at the same time, and the refund's
 * payout is queued in the same transaction.
 */
import { checkPayoutAddress } from '../../../core/rules/refund.js';
import { isUuid } from '../../../core/rules/limits.js';
import { RuleErrors } from '../../../core/rules/types.js';
import type { PublicRefund } from '../../../core/schemas.js';
import { ClaimRefundInput } from '../../../core/schemas.js';
import type { ChainAdapter } from '../../chain/types.js';
import { parseWith } from '../context.js';
import { ApiError, notFound, ruleError } from '../errors.js';
import { readOrder } from '../orders/index.js';
import { readSessionRecord } from '../sessions/index.js';
import { claimTokenMatches } from './claim-token.js';
import { isOwnDepositAddress, ownDepositAddress, queueRefundPayout, toRefund, type RefundDeps } from './domain.js';
import { findRefund, lockRefund, merchantNameOf, setRefundAddress, type RefundRow } from './repository.js';

/** What the claim routes need of the service: the refund operations' and the chain's networks. */
export interface ClaimDeps extends RefundDeps {
  chain: ChainAdapter;
}

/** 400 without a token; the token as sent otherwise. */
function tokenOf(header: string | undefined): string {
  const token = header?.trim();
  if (!token) throw new ApiError(400, 'claim_token_required', 'Send the refund’s claim token (the part of its link after #) in the Paylink-Claim header');
  return token;
}

const noSuchClaim = () => new ApiError(404, 'not_found', 'No refund has this id and claim token: check the link, or ask the merchant for a new one');

/** The refund `id` when `token` is its claim token; the one 404 otherwise. */
async function claimable(deps: Pick<RefundDeps, 'db'>, id: string, token: string): Promise<RefundRow> {
  const row = isUuid(id) ? await findRefund(deps.db, id) : undefined;
  if (!row || !row.claim_token_hash || !claimTokenMatches(token, row.claim_token_hash)) throw noSuchClaim();
  return row;
}

/** The customer's view of a refund: what, by whom (the link's or order's title, the merchant's name), where. */
async function publicRefund(deps: ClaimDeps, row: RefundRow): Promise<PublicRefund> {
  const session = await readSessionRecord(deps.db, row.session_id);
  let title = session?.linkTitle ?? '';
  let merchantName: string | null = null;
  if (row.order_id) {
    const order = await readOrder(deps.db, row.order_id, deps.now()).catch(() => undefined);
    title = order?.title ?? '';
    merchantName = order?.merchant_name || null;
  } else {
    merchantName = (await merchantNameOf(deps.db, row.integrator_id)) || null;
  }
  const network = deps.chain.networks.find((candidate) => candidate.id === row.blockchain_id);
  const refund = toRefund(row);
  return {
    id: refund.id,
    status: refund.status,
    amount: refund.amount,
    assetId: refund.assetId,
    blockchainId: refund.blockchainId,
    networkName: network?.name ?? session?.networkName ?? row.blockchain_id,
    chainId: network?.chainId ?? null,
    title,
    merchantName,
    address: refund.address,
    txHash: refund.txHash,
    explorerUrl: network?.explorerUrl ?? null,
    sandbox: deps.chain.sandbox,
    createdAt: refund.createdAt,
  };
}

/** `GET /v1/checkout/refunds/{id}` with `Paylink-Claim`. */
export async function readClaimableRefund(deps: ClaimDeps, id: string, header: string | undefined): Promise<PublicRefund> {
  return publicRefund(deps, await claimable(deps, id, tokenOf(header)));
}

/**
 * `POST /v1/checkout/refunds/{id}/address` with `Paylink-Claim`: the token first (400, 404), then the
 * body (400), then, under the refund's lock, its state: 410 `refund_cancelled`, 409 `address_already_set`
 * (an address is set once: a second one, even the same, is refused), 422 `own_deposit_address`. Then the
 * refund is `pending` and its payout queued; the answer is the customer's view after it.
 */
export async function claimRefund(deps: ClaimDeps, id: string, header: string | undefined, readBody: () => Promise<unknown>): Promise<PublicRefund> {
  const token = tokenOf(header);
  const refund = await claimable(deps, id, token);
  const input = parseWith(ClaimRefundInput, await readBody());
  const errors = new RuleErrors();
  const address = checkPayoutAddress(input.address, 'address', errors);
  if (address === null) throw ruleError(errors.list);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const locked = await lockRefund(tx, refund.id);
    if (!locked?.claim_token_hash || !claimTokenMatches(token, locked.claim_token_hash)) throw noSuchClaim();
    if (locked.stored_status === 'cancelled') throw new ApiError(410, 'refund_cancelled', 'The merchant cancelled this refund: ask them about it');
    if (locked.stored_status !== 'awaiting_address') throw new ApiError(409, 'address_already_set', 'This refund already has its address: it is set once');
    if (await isOwnDepositAddress(tx, refund.integrator_id, refund.blockchain_id, address)) throw ownDepositAddress();
    await setRefundAddress(tx, refund.id, address, now);
    await queueRefundPayout(
      tx,
      { id: refund.id, integratorId: refund.integrator_id, amount: refund.amount, assetId: refund.asset_id, blockchainId: refund.blockchain_id, address },
      now,
    );
  });
  deps.onWithdrawalCreated();
  const after = await findRefund(deps.db, refund.id);
  if (!after) throw notFound('Refund');
  return publicRefund(deps, after);
}
