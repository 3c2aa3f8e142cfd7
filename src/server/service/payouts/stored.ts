/**
 * Payouts on a real chain (money out): one nonce and one stored signed transaction per
 * withdrawal, broadcast and followed until it has its confirmations.
 *
 * 1. Sign and store. A claimed withdrawal without a live transaction is prepared (fees and gas from
 *    the node; a transfer that would revert fails the withdrawal at once, its funds returned, no
 *    nonce taken). Then, in ONE short transaction: the hot wallet's next nonce is taken under its row
 *    lock (`payout_nonces … FOR UPDATE`, shared by every instance and by `paylink sweep`), the
 *    transfer is signed with it (locally: no node call), and the signed bytes are stored with their
 *    hash. Nonces therefore follow each other without gaps or twins, however many instances run.
 * 2. Broadcast and follow. Every unfinished stored transaction is claimed in turn (`SKIP LOCKED`),
 *    lowest nonce first, and its receipt read. Not mined: the stored bytes are broadcast (again,
 *    after `rebroadcastMs`): never re-signed, so a retry, a crash between signing and broadcast, or
 *    a restart sends the same transaction, never a second. The node's "already known" and "nonce too
 *    low" both mean "look at the receipt". Mined: followed to N confirmations, then the withdrawal
 *    succeeds (or, reverted, fails and its funds come back), in one transaction with the stored row.
 *
 * Two rare cases keep the nonce sequence whole. A nonce used by a transaction the service did not
 * sign (someone else used the hot wallet's key) leaves the stored one unminable for ever: it is
 * marked `replaced` and the withdrawal signed again with a fresh nonce (only one of the two can ever
 * be mined, and the first never will). A transaction the node refuses for good is marked `rejected`,
 * its withdrawal fails (funds back), and a filler (1 wei to itself) takes its nonce, or every later
 * payout would wait behind the gap. A stored transaction is never re-priced: fees are fixed with
 * headroom when it is signed.
 *
 * At start the worker's first round follows every unfinished transaction: the reconciliation of
 * what a crash or a node outage left pending.
 */
import { randomUUID } from 'node:crypto';
import { networkChain, PayoutError, type ChainAdapter, type OutgoingChain, type PreparedTransaction } from '../../chain/types.js';
import { compareDecimal } from '../../../core/money.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { assetAmount } from '../ledger/index.js';
import { lockForPayout, releaseClaim, setPayoutHash, type ClaimedWithdrawal } from '../withdrawals/index.js';
import {
  claimUnfinished,
  finishStored,
  hasNonceSequence,
  insertStored,
  liveTransactionOf,
  markBroadcast,
  markMined,
  raiseNonce,
  seedNonce,
  takeNonce,
  type StoredTransaction,
  type TransactionPurpose,
} from './repository.js';
import { finishPayout, type PayoutOutcome } from './finish.js';

export interface StoredPayoutOptions {
  /** How often each unfinished transaction's receipt is read, in ms (default 1000). */
  checkMs?: number | undefined;
  /** How long a sent transaction without a receipt waits before it is broadcast again, in ms (default 15 s). */
  rebroadcastMs?: number | undefined;
  /** Where unclear chain errors are reported (default: console.error). */
  log?: ((line: string, error?: unknown) => void) | undefined;
  /** Where what the operator must know is logged (a payout that delivered less than it sent); default stderr. */
  logger?: Logger | undefined;
}

/** When each stored transaction's wait was last reported: one line a minute, not one a round, while a node is down. */
const reported = new Map<string, number>();

function reportOnce(log: (line: string, error?: unknown) => void, key: string, line: string, error?: unknown) {
  const now = Date.now();
  if ((reported.get(key) ?? 0) > now - 60_000) return;
  if (reported.size > 1_000) reported.clear();
  reported.set(key, now);
  log(line, error);
}

interface Deps {
  db: Database;
  chain: ChainAdapter;
  now: () => Date;
}

/** The payouts of network `blockchainId`; throws where there are none (the sandbox, no payout key, a network not configured). */
export function outgoingOf(chain: ChainAdapter, blockchainId: string): OutgoingChain {
  const outgoing = networkChain(chain, blockchainId)?.outgoing;
  if (!outgoing) throw new Error(`network ${blockchainId} has no stored payouts (the sandbox, or no payout key)`);
  return outgoing;
}

/** The networks whose payouts this worker sends: those with a hot wallet. */
function payingNetworks(chain: ChainAdapter): OutgoingChain[] {
  return chain.kind === 'real' ? chain.chains.flatMap((c) => (c.outgoing ? [c.outgoing] : [])) : [];
}

/** Starts the hot wallet's nonce sequence on `outgoing`'s network from the chain (its next nonce, mempool included), once. */
export async function ensureNonceSequence(deps: Deps, outgoing: OutgoingChain): Promise<void> {
  if (await hasNonceSequence(deps.db, outgoing.blockchainId, outgoing.hotWallet)) return;
  await seedNonce(deps.db, outgoing.blockchainId, outgoing.hotWallet, await outgoing.pendingNonce(), deps.now());
}

/**
 * Signs `prepared` with the hot wallet's next nonce and stores it, in one transaction that holds the
 * nonce's row lock throughout. `withdrawal` also gets the hash shown (`txHash` while `processing`).
 */
export async function signAndStore(
  deps: Deps,
  outgoing: OutgoingChain,
  prepared: PreparedTransaction,
  meta: { purpose: TransactionPurpose; withdrawalId: string | null; toAddress: string },
): Promise<StoredTransaction> {
  return deps.db.transaction(async (tx) => {
    const now = deps.now();
    const nonce = await takeNonce(tx, outgoing.blockchainId, outgoing.hotWallet, now);
    if (nonce === undefined) throw new Error('the hot wallet has no nonce sequence yet (ensureNonceSequence)');
    const signed = await outgoing.sign(prepared, nonce);
    const row = await insertStored(
      tx,
      {
        id: randomUUID(),
        blockchainId: outgoing.blockchainId,
        fromAddress: outgoing.hotWallet,
        nonce,
        purpose: meta.purpose,
        withdrawalId: meta.withdrawalId,
        toAddress: meta.toAddress,
        rawTransaction: signed.rawTransaction,
        txHash: signed.txHash.toLowerCase(),
      },
      now,
    );
    if (meta.withdrawalId) await setPayoutHash(tx, meta.withdrawalId, row.tx_hash, now);
    return row;
  });
}

/** Fails a withdrawal for good (its funds come back), in a transaction of its own. */
async function failWithdrawal(deps: Deps, withdrawalId: string, reason: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const withdrawal = await lockForPayout(tx, withdrawalId);
    if (withdrawal?.status !== 'processing') return;
    await finishPayout(tx, withdrawal, { ok: false, reason: reason.slice(0, 500) }, deps.now());
  });
}

/** Prepares, signs and stores the payout of a claimed withdrawal that has no live transaction. */
async function storePayout(deps: Deps, withdrawal: ClaimedWithdrawal): Promise<StoredTransaction | null> {
  const outgoing = outgoingOf(deps.chain, withdrawal.blockchain_id);
  let prepared: PreparedTransaction;
  try {
    prepared = await outgoing.preparePayout({
      withdrawalId: withdrawal.id,
      blockchainId: withdrawal.blockchain_id,
      assetId: withdrawal.asset_id,
      address: withdrawal.address,
      amount: assetAmount(withdrawal.amount),
    });
  } catch (error) {
    if (!(error instanceof PayoutError)) throw error;
    await failWithdrawal(deps, withdrawal.id, error.message);
    return null;
  }
  try {
    return await signAndStore(deps, outgoing, prepared, { purpose: 'withdrawal', withdrawalId: withdrawal.id, toAddress: withdrawal.address });
  } catch (error) {
    // A second attempt of the same withdrawal (an old lease) lost the race: one live transaction each.
    if ((error as { code?: string }).code === '23505' && (await liveTransactionOf(deps.db, withdrawal.id))) return null;
    throw error;
  }
}

/**
 * Ends a stored transaction that reached its confirmations, and its withdrawal with it, recording
 * what the recipient received according to the receipt (`received`). A recipient who received less
 * than the amount sent (a token that charges a fee on transfers) is logged: the withdrawal shows both.
 */
async function finishMined(deps: Deps, row: StoredTransaction, status: 'success' | 'reverted', confirmations: number, received: string | undefined, options: StoredPayoutOptions): Promise<void> {
  const finished = await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const withdrawal = row.withdrawal_id ? await lockForPayout(tx, row.withdrawal_id) : undefined;
    if (!(await finishStored(tx, row.id, status, now, confirmations))) return undefined;
    if (withdrawal?.status !== 'processing') return undefined;
    const outcome: PayoutOutcome =
      status === 'success'
        ? { ok: true, txHash: row.tx_hash, sandbox: false, receivedAmount: received }
        : { ok: false, reason: `The transfer reverted on chain (transaction ${row.tx_hash}); the funds are back in the balance` };
    return (await finishPayout(tx, withdrawal, outcome, now)) ? withdrawal : undefined;
  });
  if (finished && status === 'success' && received !== undefined && compareDecimal(received, finished.amount) !== 0) {
    (options.logger ?? defaultLogger).warn('payout_shortfall', 'a payout delivered another amount than it sent (a token that charges a fee on transfers): the withdrawal shows what was received', {
      withdrawalId: finished.id,
      blockchainId: finished.blockchain_id,
      assetId: finished.asset_id,
      txHash: row.tx_hash,
      amount: assetAmount(finished.amount),
      receivedAmount: received,
    });
  }
}

/** The node refused the stored transaction for good: fail its withdrawal and fill its nonce. */
async function rejectStored(deps: Deps, row: StoredTransaction, reason: string): Promise<void> {
  const outgoing = outgoingOf(deps.chain, row.blockchain_id);
  const filler = await outgoing.prepareNonceFiller();
  await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const withdrawal = row.withdrawal_id ? await lockForPayout(tx, row.withdrawal_id) : undefined;
    if (!(await finishStored(tx, row.id, 'rejected', now))) return;
    const signed = await outgoing.sign(filler, row.nonce);
    await insertStored(
      tx,
      {
        id: randomUUID(),
        blockchainId: row.blockchain_id,
        fromAddress: row.from_address,
        nonce: row.nonce,
        purpose: 'nonce_filler',
        withdrawalId: null,
        toAddress: outgoing.hotWallet,
        rawTransaction: signed.rawTransaction,
        txHash: signed.txHash.toLowerCase(),
      },
      now,
    );
    if (withdrawal?.status === 'processing') await finishPayout(tx, withdrawal, { ok: false, reason: reason.slice(0, 500) }, now);
  });
}

/**
 * Another transaction of the hot wallet used this one's nonce: it can never be mined. Marks it
 * `replaced`, moves the sequence past the chain's, and signs the withdrawal again (a gas top-up is
 * left to the next sweep).
 */
async function replaceStored(deps: Deps, row: StoredTransaction, minedNonce: number): Promise<void> {
  const ended = await deps.db.transaction(async (tx) => finishStored(tx, row.id, 'replaced', deps.now()));
  if (!ended) return;
  await raiseNonce(deps.db, row.blockchain_id, row.from_address, minedNonce, deps.now());
  if (!row.withdrawal_id) return;
  const withdrawal = await deps.db.transaction((tx) => lockForPayout(tx, row.withdrawal_id!));
  if (withdrawal?.status === 'processing') await storePayout(deps, withdrawal);
}

/**
 * One look at a stored transaction: its receipt, and what follows from it. Resolves with whether
 * anything changed (the worker then looks for more work at once).
 */
async function follow(deps: Deps, row: StoredTransaction, options: StoredPayoutOptions): Promise<boolean> {
  const outgoing = outgoingOf(deps.chain, row.blockchain_id);
  // A withdrawal's payout is asked about with its recipient: the receipt says what they received.
  const state = await outgoing.state(row.tx_hash, row.asset_id ? { assetId: row.asset_id, to: row.to_address } : undefined);
  if (state.status !== 'pending') {
    if (state.confirmations >= outgoing.confirmations) {
      await finishMined(deps, row, state.status, state.confirmations, state.received, options);
      return true;
    }
    return markMined(deps.db, row.id, state.blockNumber, state.confirmations, deps.now());
  }
  // Not mined (or no longer: a reorg dropped it): send the stored bytes, when due.
  const now = deps.now();
  const due = row.status !== 'sent' || !row.last_broadcast_at || now.getTime() - row.last_broadcast_at.getTime() >= (options.rebroadcastMs ?? 15_000);
  if (!due) return false;
  let outcome;
  try {
    outcome = await outgoing.broadcast(row.raw_transaction);
  } catch (error) {
    if (!(error instanceof PayoutError)) throw error;
    await rejectStored(deps, row, error.message);
    return true;
  }
  if (outcome === 'sent' || outcome === 'already_known') {
    await markBroadcast(deps.db, row.id, now);
    return row.status === 'signed';
  }
  if (outcome === 'nonce_too_low') {
    // Its nonce is used: by this very transaction (its receipt is about to show) or by another one.
    const mined = await outgoing.minedNonce();
    if (mined > row.nonce && (await outgoing.state(row.tx_hash)).status === 'pending') {
      await replaceStored(deps, row, mined);
      return true;
    }
    await markBroadcast(deps.db, row.id, now);
    return false;
  }
  // replacement_underpriced: a transaction the service did not sign holds this nonce in the mempool.
  reportOnce(options.log ?? console.error, row.tx_hash, `[paylink] payout ${row.tx_hash}: another transaction holds nonce ${row.nonce} of the hot wallet in the mempool; waiting`);
  return false;
}

/**
 * One round of payouts on a real chain: signs and stores the claimed withdrawals, then follows up
 * to `limit` unfinished stored transactions. Resolves with how many things moved forward.
 */
export async function processStoredPayouts(deps: Deps, claimed: ClaimedWithdrawal[], options: StoredPayoutOptions & { limit?: number } = {}): Promise<number> {
  const log = options.log ?? ((line: string, error?: unknown) => console.error(line, error ?? ''));
  const networks = payingNetworks(deps.chain);
  let progress = 0;
  const fresh: ClaimedWithdrawal[] = [];
  for (const withdrawal of claimed) {
    if (!networks.some((n) => n.blockchainId === withdrawal.blockchain_id)) {
      // No hot wallet on its network (now): it waits, pending, until one is configured.
      await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now());
      continue;
    }
    if (!(await liveTransactionOf(deps.db, withdrawal.id))) fresh.push(withdrawal);
  }
  if (fresh.length) {
    // Preparing reads the node: in parallel. Storing takes the nonce lock: one after another.
    const prepared = await Promise.all(networks.map((outgoing) => ensureNonceSequence(deps, outgoing))).then(
      () => Promise.allSettled(fresh.map((withdrawal) => storePayout(deps, withdrawal))),
      (error: unknown) => fresh.map(() => ({ status: 'rejected', reason: error }) as PromiseRejectedResult),
    );
    for (const [i, result] of prepared.entries()) {
      const withdrawal = fresh[i]!;
      if (result.status === 'fulfilled') {
        progress++;
        continue;
      }
      // Nothing was signed: back to the queue for the next round, not after the lease.
      reportOnce(log, 'prepare', `[paylink] payouts wait: the chain did not answer while preparing withdrawal ${withdrawal.id}`, result.reason);
      await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now());
    }
  }
  for (const outgoing of networks) {
    const rows = await claimUnfinished(deps.db, outgoing.blockchainId, outgoing.hotWallet, options.checkMs ?? 1_000, options.limit ?? 100);
    for (const row of rows) {
      try {
        if (await follow(deps, row, options)) progress++;
      } catch (error) {
        reportOnce(log, row.tx_hash, `[paylink] payout transaction ${row.tx_hash} (nonce ${row.nonce}) waits: the chain did not answer`, error);
        // The node is failing: the other rows would only fail the same way this round.
        break;
      }
    }
  }
  return progress;
}

/**
 * Sends `value` wei of gas money from the hot wallet to `to` with a nonce from the payouts'
 * sequence, stored before it is broadcast (`paylink sweep`'s top-ups). Resolves with its hash once
 * a node took it; if not, the stored transaction is broadcast by the service's payout worker.
 */
export async function sendStoredGasTopUp(deps: Deps, blockchainId: string, to: string, value: bigint): Promise<string> {
  const outgoing = outgoingOf(deps.chain, blockchainId);
  await ensureNonceSequence(deps, outgoing);
  const prepared = await outgoing.prepareGasTopUp(to, value);
  const row = await signAndStore(deps, outgoing, prepared, { purpose: 'gas_top_up', withdrawalId: null, toAddress: to });
  await follow(deps, row, {});
  return row.tx_hash;
}
