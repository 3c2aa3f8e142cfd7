/**
 * Checkout sessions: a quote for one payment of one link, the deposit address to pay it at, and
 * the transfers that pay it (settled by ./settlement.ts). Starting one is ./start.ts's; the SQL is
 * ./repository.ts's.
 *
 * Lifecycle (status, `core/rules/session.ts`):
 * - `awaiting_payment`: nothing received yet; the quote holds until `expiresAt` (15 minutes).
 * - `confirming` (real chains): a transfer made before `expiresAt` was seen on chain and waits for
 *   its confirmations (`confirmations` of `requiredConfirmations`); it cannot expire meanwhile. The
 *   sandbox credits at once and never shows it. See ../money-in/scanner.ts.
 * - `underpaid`: part received; `remainingAmount` says what is left; further transfers top it up.
 * - `paid` / `overpaid`: the full amount (or more) arrived before expiry. Terminal. The link's
 *   `paymentCount` is incremented once, in the transaction of the settling transfer.
 * - `expired`: the quote ran out before the full amount arrived. Terminal. Evaluated lazily on every
 *   read and by a background sweep, against the service clock (`deps.now()`). On a real chain, only
 *   once the scanner has read the chain up to `expiresAt`: while the node is down, an unpaid session
 *   stays `awaiting_payment`, because a transfer made in time may not have been seen yet.
 */
import { compareDecimal, fromUnits } from '../../../core/money.js';
import { checkAmount } from '../../../core/rules/amount.js';
import { CRYPTO_DIGITS, isUuid } from '../../../core/rules/limits.js';
import { OPEN_STATUSES, SETTLED_STATUSES } from '../../../core/rules/session.js';
import { RuleErrors } from '../../../core/rules/types.js';
import { SimulatePaymentInput, type CheckoutSession } from '../../../core/schemas.js';
import { assetChainFacts, networkChain, type ChainAdapter } from '../../chain/types.js';
import { parseWith } from '../context.js';
import { ApiError, notFound, ruleError } from '../errors.js';
import { defaultLogger } from '../../log.js';
import { recordEvent } from '../events/index.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import { assetAmount } from '../ledger/index.js';
import { expireDueOrders } from '../orders/index.js';
import { announceSession } from './records.js';
import { expireDue, expireSession, findSession, findTransferSession, type SessionRow } from './repository.js';
import { quoteFields } from './wire.js';
import { settleIncomingTransfer, units } from '../money-in/index.js';

/** A session as the public API returns it. */
export function toCheckoutSession(row: SessionRow, chain: ChainAdapter): CheckoutSession {
  const crypto = units(row.crypto_amount);
  const paid = units(row.paid_amount);
  const remaining = row.status === 'expired' || crypto <= paid ? 0n : crypto - paid;
  const settled = SETTLED_STATUSES.has(row.status);
  const {
    decimals,
    addNetwork: _,
    ...facts
  } = assetChainFacts(
    chain.networks.find((n) => n.id === row.blockchain_id),
    row.asset_id,
  );
  return {
    id: row.id,
    slug: row.slug,
    ...quoteFields(row),
    paidAmount: assetAmount(row.paid_amount),
    remainingAmount: fromUnits(remaining, CRYPTO_DIGITS),
    payAddress: row.pay_address,
    // While confirming, the transfer being confirmed (its explorer link is what the customer wants).
    txHash: row.tx_hash ?? row.pending_tx_hash ?? null,
    paidBlockchainId: row.tx_hash ? row.paid_blockchain_id : (row.pending_blockchain_id ?? null),
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    sandbox: chain.sandbox,
    postpayAction: settled
      ? {
          redirect: row.redirect,
          showConfirmationPage: row.show_confirmation_page,
          successMessage: row.success_message,
          redirectUrl: row.redirect_url,
        }
      : null,
    ...facts,
    tokenDecimals: decimals,
    confirmations: row.status === 'confirming' ? (row.confirmations ?? 0) : null,
    requiredConfirmations:
      row.status === 'confirming' ? (networkChain(chain, row.pending_blockchain_id ?? row.blockchain_id)?.incoming.confirmations ?? null) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading and expiring

/**
 * `GET /v1/checkout/sessions/{id}`. A session whose quote ran out is marked `expired` here (and its
 * watchers notified) if the sweep has not done it yet.
 */
export async function getSession(deps: MoneyServiceDeps, id: string): Promise<CheckoutSession> {
  if (!isUuid(id)) throw notFound('Checkout session');
  let row = await findSession(deps.db, id);
  if (!row) throw notFound('Checkout session');
  const now = deps.now();
  if (OPEN_STATUSES.has(row.status) && row.expires_at.getTime() <= now.getTime()) {
    await expireIfDue(deps, id, now);
    row = (await findSession(deps.db, id))!;
  }
  return toCheckoutSession(row, deps.chain);
}

/** The networks whose scanners must have read past a session's expiry before it expires: every real one. */
function scannedNetworks(chain: ChainAdapter | undefined): string[] | undefined {
  return chain?.kind === 'real' ? chain.chains.map((c) => c.blockchainId) : undefined;
}

/**
 * Expires one open session whose quote has run out at `now` (on a real chain, once the scanner has
 * read past its expiry), if nothing else did first, announcing it (`session.changed`,
 * `checkout.session.expired`) in the same transaction. True when this call expired it.
 */
export async function expireIfDue(deps: Pick<MoneyServiceDeps, 'db'> & { chain?: ChainAdapter }, id: string, now: Date): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const expired = await expireSession(tx, id, now, scannedNetworks(deps.chain));
    if (!expired) return false;
    await recordEvent(tx, { type: 'session.changed', sessionId: id });
    await announceSession(tx, 'checkout.session.expired', expired, now);
    return true;
  });
}

/**
 * Marks every session whose quote has run out as `expired` (on a real chain, once the scanner has
 * read past its expiry); returns how many. Safe on many instances at once.
 */
export async function expireDueSessions(deps: Pick<MoneyServiceDeps, 'db' | 'now'> & { chain?: ChainAdapter }, batch = 500): Promise<number> {
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const expired = await expireDue(tx, now, batch, scannedNetworks(deps.chain));
    for (const session of expired) {
      await recordEvent(tx, { type: 'session.changed', sessionId: session.id });
      await announceSession(tx, 'checkout.session.expired', session, now);
    }
    return expired.length;
  });
}

/**
 * Runs `expireDueSessions`, then the orders room's `expireDueOrders` (an order expires once none of its
 * sessions can still pay it), every `intervalMs`; returns the stop function.
 */
export function startExpirySweep(deps: Pick<MoneyServiceDeps, 'db' | 'now' | 'log'> & { chain?: ChainAdapter }, intervalMs: number): () => Promise<void> {
  const log = deps.log ?? defaultLogger;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => expireDueSessions(deps))
      .then(() => expireDueOrders(deps))
      .catch((error: unknown) => log.error('expiry_sweep_failed', 'the expiry sweep of sessions and orders failed', { error }));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

// ---------------------------------------------------------------------------------------------
// Simulated payments

/**
 * `POST /v1/checkout/sessions/{id}/simulate-payment` (sandbox chain only): an incoming transfer of
 * `amount` (default: what is left to pay, or the full amount once expired). Idempotency:
 * - with `txHash`, a hash already recorded for this session changes nothing and returns the
 *   session (200); a hash recorded for another session is 409 `tx_hash_conflict`;
 * - a new transfer to a session that is already paid is 409 `already_paid`, decided under the
 *   session's row lock, so two concurrent simulations of the full amount credit once.
 */
export async function simulatePayment(deps: MoneyServiceDeps, id: string, body: unknown): Promise<CheckoutSession> {
  const { chain, db } = deps;
  if (chain.kind !== 'sandbox') throw new ApiError(404, 'not_found', 'simulate-payment exists only on the sandbox chain');
  const input = parseWith(SimulatePaymentInput, body);
  const session = await getSession(deps, id);

  let amount: string | undefined;
  if (input.amount !== undefined) {
    const errors = new RuleErrors();
    amount = checkAmount(input.amount, 'amount', { digits: CRYPTO_DIGITS, unit: session.assetId, positive: true }, errors) ?? undefined;
    if (!errors.empty) throw ruleError(errors.list);
  }

  const txHash = input.txHash?.toLowerCase();
  if (txHash) {
    const seenFor = await findTransferSession(db, session.blockchainId, txHash);
    if (seenFor === session.id) return session;
    if (seenFor !== undefined) throw new ApiError(409, 'tx_hash_conflict', 'This transaction hash was already recorded for another session');
  }
  if (SETTLED_STATUSES.has(session.status)) throw new ApiError(409, 'already_paid', 'This checkout session is already paid');

  if (amount === undefined) amount = compareDecimal(session.remainingAmount, '0') > 0 ? session.remainingAmount : session.cryptoAmount;
  const transfer = await chain.simulateIncomingTransfer({
    blockchainId: session.blockchainId,
    assetId: session.assetId,
    toAddress: session.payAddress,
    amount,
    txHash,
  });
  await settleIncomingTransfer(deps, transfer, { refuseWhenSettled: true });
  return getSession(deps, id);
}
