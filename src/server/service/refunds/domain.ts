/**
 * Refunds as the merchant's API serves them: made (`POST /v1/refund`, `Idempotency-Key`), read, listed
 * and cancelled with the key; finished when their payout is.
 *
 * Money: a refund's amount leaves the `available` balance of the session's asset on the network the
 * session was paid on when the refund is made (ledger `refund_reserve`: available → pending), whether
 * or not its address is known, so the merchant can't withdraw it meanwhile. It is never more than what
 * the session brought in there (its credited transfers, final, not reversed) less its earlier refunds
 * not failed or cancelled: every refund of a session takes the session's row lock first, so two made at
 * once are weighed one after the other, and the balance's own conditional update refuses what
 * `available` doesn't cover. With an address, the refund's payout is queued at once: a withdrawal the
 * payout workers pay like any other (one nonce, one stored signed transaction, never sent twice); its
 * outcome is the refund's (`refund_payout`, or `refund_release` and its amount back). A cancelled refund's
 * amount is back too (`refund_release`).
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { RefundEventType } from '../../../core/rules/webhooks.js';
import { fromUnits, toUnits } from '../../../core/money.js';
import { isUuid } from '../../../core/rules/limits.js';
import { checkRefund } from '../../../core/rules/refund.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import type { CreateRefundInput, ListRefundsQuery, Refund, RefundList } from '../../../core/schemas.js';
import { statementParams, type Database, type Queryable } from '../../db/index.js';
import { pageMeta } from '../context.js';
import type { ErrorCode } from '../../../core/errors.js';
import { ApiError, notFound, ruleError, validationError } from '../errors.js';
import { announce, recordEvent } from '../events/index.js';
import { runIdempotent, type IdempotencyState, type StoredResponse } from '../idempotency/index.js';
import type { Principal } from '../keys/index.js';
import { applyCoveredLedgerChange, applyLedgerChange, assetAmount } from '../ledger/index.js';
import { depositAddressOfSql, lockSessionForSettlement, sessionFunds } from '../sessions/index.js';
import { insertRefundPayout } from '../withdrawals/index.js';
import { hashClaimToken, newClaimToken, openClaimToken, sealClaimToken } from './claim-token.js';
import {
  findRefund,
  insertRefund,
  listRefundRows,
  lockRefund,
  refundedByNetwork,
  setRefundCancelled,
  setRefundsFinished,
  type RefundRow,
} from './repository.js';

/** What the refund operations need of the service. */
export interface RefundDeps {
  db: Database;
  /** The spec's `{paylink_url}`: a claim link is `${publicUrl}/refund/<id>#<token>`. */
  publicUrl: string;
  now: () => Date;
  /** Wakes this instance's payout worker once a refund's payout is queued. */
  onWithdrawalCreated: () => void;
}

/** The customer's claim page of refund `id`, with the token in its fragment (never sent to a server). */
export function claimUrlOf(publicUrl: string, id: string, token: string): string {
  return `${publicUrl}/refund/${id}#${token}`;
}

/** A refund as the API returns it; `claimUrl` only where the caller could open it (see `claimUrlFor`). */
export function toRefund(row: RefundRow, claimUrl: string | null = null): Refund {
  return {
    id: row.id,
    sessionId: row.session_id,
    orderId: row.order_id,
    assetId: row.asset_id,
    blockchainId: row.blockchain_id,
    amount: assetAmount(row.amount),
    address: row.address,
    status: row.status,
    claimUrl: row.status === 'awaiting_address' ? claimUrl : null,
    txHash: row.tx_hash,
    failureReason: row.failure_reason,
    stalledReason: row.status === 'pending' || row.status === 'processing' ? row.stalled_reason : null,
    reason: row.reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The claim link of a refund awaiting its address, for the API key that made it; null for any other key. */
function claimUrlFor(row: RefundRow, apiKey: string, publicUrl: string): string | null {
  if (row.status !== 'awaiting_address' || !row.claim_token_sealed) return null;
  const token = openClaimToken(row.claim_token_sealed, apiKey, row.id);
  return token === null ? null : claimUrlOf(publicUrl, row.id, token);
}

const units = (value: string) => toUnits(assetAmount(value), CRYPTO_DIGITS);
const amountOf = (value: bigint) => fromUnits(value, CRYPTO_DIGITS);

/** Why a payment can't be refunded (422), said the same way wherever it is found. */
function refused(code: ErrorCode, message: string): ApiError {
  return new ApiError(422, code, message);
}

/**
 * Which network a refund of the session goes out on, and how much is still refundable there: the
 * network with the most refundable (the session's own first on a tie). Throws the 422 that says why
 * when nothing is, or when `requested` is more than that.
 */
async function refundableFunds(tx: Queryable, sessionId: string, assetId: string, requested: string | null): Promise<{ blockchainId: string; amount: string }> {
  const funds = await sessionFunds(tx, sessionId);
  if (funds.length === 0) throw refused('nothing_to_refund', 'This payment brought nothing in: there is nothing to refund');
  const refunded = await refundedByNetwork(tx, sessionId);
  let best: { blockchainId: string; refundable: bigint; unfinal: bigint } | undefined;
  for (const network of funds) {
    const refundable = units(network.final_amount) - units(refunded.get(network.blockchain_id) ?? '0');
    if (!best || refundable > best.refundable) best = { blockchainId: network.blockchain_id, refundable, unfinal: units(network.unfinal_amount) };
  }
  const { blockchainId, refundable, unfinal } = best!;
  const wanted = requested === null ? refundable : units(requested);
  if (refundable > 0n && wanted <= refundable) return { blockchainId, amount: amountOf(wanted) };
  if (wanted <= refundable + unfinal && unfinal > 0n)
    throw refused(
      'payment_not_final',
      `${amountOf(unfinal)} ${assetId} of this payment is not final yet on ${blockchainId}: it can be refunded once it is (what is refundable now: ${amountOf(refundable > 0n ? refundable : 0n)} ${assetId})`,
    );
  throw refused(
    'refund_exceeds_payment',
    refundable > 0n
      ? `At most ${amountOf(refundable)} ${assetId} of this payment can still be refunded: what it brought in, less its earlier refunds`
      : 'Everything this payment brought in has been refunded already',
  );
}

/** Whether `address` is where one of the integrator's sessions on `blockchainId` is paid: a refund there would come back as a payment. */
export async function isOwnDepositAddress(tx: Queryable, integratorId: string, blockchainId: string, address: string): Promise<boolean> {
  const { params, param } = statementParams();
  const { rows } = await tx.query<{ own: boolean }>(`SELECT ${depositAddressOfSql(param, integratorId, blockchainId, param(address))} AS own`, params);
  return rows[0]?.own === true;
}

/** 422 for a refund to one of the merchant's own deposit addresses (the scanner would credit it back as a payment). */
export function ownDepositAddress(): ApiError {
  return new ApiError(
    422,
    'own_deposit_address',
    'This address is one of the merchant’s own deposit addresses: a refund sent there would come back as a payment. Give a wallet the customer holds',
  );
}

/** Queues the payout of a refund that has its address (a withdrawal the payout workers pay), in `tx`. */
export async function queueRefundPayout(
  tx: Queryable,
  refund: { id: string; integratorId: string; amount: string; assetId: RefundRow['asset_id']; blockchainId: string; address: string },
  now: Date,
): Promise<void> {
  await insertRefundPayout(tx, { ...refund, id: randomUUID(), refundId: refund.id, now });
  await recordEvent(tx, { type: 'withdrawals.due' });
}

/** Announces `refund.*` events about refunds in the transaction `tx` that changed them: each as `GET /v1/refund/{id}` shows it then. */
export async function announceRefunds(
  tx: Queryable,
  announcements: ReadonlyArray<{ type: RefundEventType; id: string; integratorId: string }>,
  at: Date,
): Promise<void> {
  await announce(tx, announcements, at, async (id, integratorId) => {
    const row = await findRefund(tx, id, integratorId);
    // A webhook never carries the claim link: it is the merchant's to send, to the customer only.
    return row && toRefund(row);
  });
}

/**
 * `POST /v1/refund` (see the module comment): in one transaction, the `Idempotency-Key` (if any), the
 * session's lock, what is still refundable, the refund, its reservation and (with an address) its
 * payout, and `refund.created`. 201 with the refund; without an address it carries its `claimUrl`.
 */
export async function createRefund(
  deps: RefundDeps,
  principal: Principal,
  apiKey: string,
  input: z.output<typeof CreateRefundInput>,
  idempotency: IdempotencyState | undefined,
): Promise<StoredResponse> {
  const sessionId = input.sessionId.trim().toLowerCase();
  if (!isUuid(sessionId)) throw validationError([{ path: 'sessionId', message: 'sessionId must be a checkout session id (a UUID)' }]);
  const check = checkRefund(input);
  if (!check.ok) throw ruleError(check.errors);
  const { amount: requested, address } = check.request;
  const reason = input.reason?.trim() || null;
  const id = randomUUID();
  const token = address === null ? newClaimToken() : null;
  const now = deps.now();
  const fingerprint = [
    'POST /v1/refund',
    { sessionId, amount: requested === null ? null : assetAmount(requested), address: address?.toLowerCase() ?? null, reason },
  ];
  const answer = await deps.db.transaction((tx) =>
    runIdempotent(tx, idempotency, principal.integratorId, fingerprint, async () => {
      const session = await lockSessionForSettlement(tx, sessionId);
      if (!session || session.integrator_id !== principal.integratorId) throw notFound('Checkout session');
      const { blockchainId, amount } = await refundableFunds(tx, sessionId, session.asset_id, requested);
      if (address !== null && (await isOwnDepositAddress(tx, principal.integratorId, blockchainId, address))) throw ownDepositAddress();
      const refund = { id, integratorId: principal.integratorId, amount, assetId: session.asset_id, blockchainId };
      await insertRefund(tx, {
        ...refund,
        sessionId,
        orderId: session.order_id,
        address,
        claimTokenHash: token && hashClaimToken(token),
        claimTokenSealed: token && sealClaimToken(token, apiKey, id),
        reason,
        now,
      });
      const reserved = await applyCoveredLedgerChange(tx, {
        integratorId: principal.integratorId,
        assetId: session.asset_id,
        blockchainId,
        kind: 'refund_reserve',
        availableDelta: `-${amount}`,
        pendingDelta: amount,
        refundId: id,
      });
      if (!reserved)
        throw new ApiError(
          422,
          'insufficient_balance',
          `The available ${session.asset_id} balance on ${blockchainId} does not cover ${amount} ${session.asset_id}`,
        );
      if (address !== null) await queueRefundPayout(tx, { ...refund, address }, now);
      await announceRefunds(tx, [{ type: 'refund.created', id, integratorId: principal.integratorId }], now);
      return { statusCode: 201, body: { ...toRefund((await findRefund(tx, id))!) } };
    }),
  );
  if (answer.statusCode !== 201) return answer;
  const body = answer.body as Refund;
  if (body.id === id) {
    if (address !== null) deps.onWithdrawalCreated();
    return token ? { statusCode: 201, body: { ...body, claimUrl: claimUrlOf(deps.publicUrl, id, token) } } : answer;
  }
  // A replay: the link, if the refund still waits for its address (the stored answer never holds it).
  const row = body.status === 'awaiting_address' ? await findRefund(deps.db, body.id, principal.integratorId) : undefined;
  return row ? { statusCode: 201, body: { ...body, claimUrl: claimUrlFor(row, apiKey, deps.publicUrl) } } : answer;
}

/** `GET /v1/refund/{id}`: the caller's own refund, else 404. */
export async function getRefund(deps: Pick<RefundDeps, 'db' | 'publicUrl'>, principal: Principal, apiKey: string, id: string): Promise<Refund> {
  const row = isUuid(id) ? await findRefund(deps.db, id, principal.integratorId) : undefined;
  if (!row) throw notFound('Refund');
  return toRefund(row, claimUrlFor(row, apiKey, deps.publicUrl));
}

/** `GET /v1/refund`: the caller's refunds, newest first, filtered and paged. */
export async function listRefunds(
  deps: Pick<RefundDeps, 'db' | 'publicUrl'>,
  principal: Principal,
  apiKey: string,
  query: z.output<typeof ListRefundsQuery>,
): Promise<RefundList> {
  const sessionId = query.sessionId?.trim();
  const orderId = query.orderId?.trim();
  const errors = [
    ...(sessionId !== undefined && !isUuid(sessionId) ? [{ path: 'sessionId', message: 'sessionId must be a checkout session id (a UUID)' }] : []),
    ...(orderId !== undefined && !isUuid(orderId) ? [{ path: 'orderId', message: 'orderId must be an order id (a UUID)' }] : []),
  ];
  if (errors.length) throw validationError(errors);
  const { rows, totalItems } = await listRefundRows(deps.db, principal.integratorId, { status: query.status, sessionId, orderId }, query);
  return { items: rows.map((row) => toRefund(row, claimUrlFor(row, apiKey, deps.publicUrl))), meta: pageMeta(totalItems, rows.length, query) };
}

/**
 * `POST /v1/refund/{id}/cancel`: a refund awaiting its address is cancelled and its amount is back in
 * the balance (`refund_release`), in one transaction under its lock, so a customer's claim at the same
 * moment either came first (then 409: it is on its way) or finds it cancelled. A cancelled refund is
 * answered as it is (a retried cancel is safe).
 */
export async function cancelRefund(deps: RefundDeps, principal: Principal, id: string): Promise<Refund> {
  if (!isUuid(id)) throw notFound('Refund');
  return deps.db.transaction(async (tx) => {
    const locked = await lockRefund(tx, id, principal.integratorId);
    if (!locked) throw notFound('Refund');
    const row = (await findRefund(tx, id))!;
    if (locked.stored_status === 'cancelled') return toRefund(row);
    if (locked.stored_status !== 'awaiting_address')
      throw new ApiError(409, 'refund_not_cancellable', `Only a refund awaiting the customer’s address can be cancelled: this one is ${row.status}`);
    const now = deps.now();
    await setRefundCancelled(tx, id, now);
    await applyLedgerChange(tx, {
      integratorId: row.integrator_id,
      assetId: row.asset_id,
      blockchainId: row.blockchain_id,
      kind: 'refund_release',
      availableDelta: assetAmount(row.amount),
      pendingDelta: `-${assetAmount(row.amount)}`,
      refundId: id,
    });
    return toRefund((await findRefund(tx, id))!);
  });
}

/**
 * The refunds among payouts just finished, in the payouts room's transaction `tx`: each becomes
 * `success` or `failed` and is announced (`refund.succeeded`, `refund.failed`). The ledger entries that
 * go with them (`refund_payout`, `refund_release`) are the payouts room's, written with its others.
 */
export async function finishRefundPayouts(
  tx: Queryable,
  finished: ReadonlyArray<{ refundId: string; integratorId: string; ok: boolean }>,
  now: Date,
): Promise<void> {
  if (finished.length === 0) return;
  await setRefundsFinished(
    tx,
    finished.map(({ refundId, ok }) => ({ id: refundId, ok })),
    now,
  );
  await announceRefunds(
    tx,
    finished.map(({ refundId, integratorId, ok }) => ({ type: ok ? 'refund.succeeded' : 'refund.failed', id: refundId, integratorId })),
    now,
  );
}
