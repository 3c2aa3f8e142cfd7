/**
 * Payouts on a real chain, second stage: broadcast the stored transactions (./round.ts runs the
 * stages), and what a node's refusal leaves to do.
 *
 * Broadcast the batch: the stored bytes, in parallel, lowest nonce first. Never re-signed: a retry,
 * a crash between storing and broadcasting, or a restart sends the same transactions, never a
 * second. One that fails leaves the others going: one the node did not take (an outage) stays
 * stored and is sent again later, with the very same bytes; one refused because an earlier nonce
 * had not reached the node yet is sent again, in nonce order, once the others are out.
 *
 * Two rare cases keep the nonce sequence whole. A nonce used by a transaction the service did not
 * sign (someone else used the hot wallet's key) leaves the stored one unminable for ever: it is
 * marked `replaced` and the withdrawal signed again with a fresh nonce (only one of the two can ever
 * be mined, and the first never will). A transaction the node refuses for good is marked `rejected`,
 * its withdrawal fails (funds back), and a filler (1 wei to itself) takes its nonce, or every later
 * payout would wait behind the gap. A stored transaction is never re-priced: fees are fixed with
 * headroom when it is signed.
 *
 * Both give a signed payout up, so both wait for certainty, never for one node's word: with several
 * nodes, the one asked may lag, or have the nonce moved on but not yet our transaction, or hold it in
 * a block a reorg then takes back, and a payout given up that was mined after all is paid twice.
 * "Nonce too low" replaces the stored transaction only when its nonce is used at a block that is final,
 * no node has its receipt nor the transaction, and that was found twice, minutes apart (one URL may be
 * a balancer over backends a block apart) (`OutgoingChain.sequence.replaced`); a refusal for good
 * rejects only a transaction no node was ever seen to take and none has now
 * (`OutgoingChain.transactionKnown`). Until then the stored transaction stays as it is (a node has
 * it, so the receipt watcher follows it), the operator is told (again when the reason changes, and as
 * an error after `WAIT_ALARM_MS`), and it is looked at again after `rebroadcastMs`.
 */
import { randomUUID } from 'node:crypto';
import { type BroadcastOutcome, HotWalletShortError, type OutgoingChain, PayoutError } from '../../chain/types.js';
import { lockForPayout } from '../withdrawals/index.js';
import { endSendLease, finishStored, insertStored, markBroadcast, raiseNonce, type StoredTransaction } from './repository.js';
import { finishPayout } from './finish.js';
import { logWait, notice } from './waits.js';
import { type Deps, nodeUnavailable, outgoingOf, type Round } from './context.js';
import { storeBatch } from './store.js';

/** The node refused the stored transaction for good: fail its withdrawal and fill its nonce. */
async function rejectStored(deps: Deps, row: StoredTransaction, reason: string): Promise<void> {
  const outgoing = outgoingOf(deps.chain, row.blockchain_id);
  const filler = await outgoing.prepareFiller();
  await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const withdrawal = row.withdrawal_id ? await lockForPayout(tx, row.withdrawal_id) : undefined;
    if (!(await finishStored(tx, row.id, 'rejected', now))) return;
    const signed = await outgoing.sign(filler, row.nonce);
    await insertStored(
      tx,
      [
        {
          id: randomUUID(),
          blockchainId: row.blockchain_id,
          fromAddress: row.from_address,
          nonce: row.nonce,
          purpose: 'nonce_filler',
          withdrawalId: null,
          toAddress: outgoing.hotWallet,
          rawTransaction: signed.rawTransaction,
          txHash: signed.txHash,
        },
      ],
      now,
    );
    if (withdrawal?.status === 'processing') await finishPayout(tx, withdrawal, { ok: false, reason: reason.slice(0, 500) }, now);
  });
}

/**
 * Another transaction of the hot wallet used this one's nonce for good (`OutgoingChain.sequence.replaced`
 * said so): it can never be mined. Marks it `replaced`, moves the sequence up to `nextNonce` (the hot
 * wallet's transactions in the finalized block), and signs the withdrawal again (a gas top-up is left
 * to the next sweep).
 */
async function replaceStored(deps: Deps, row: StoredTransaction, nextNonce: number, round: Round): Promise<void> {
  const ended = await deps.db.transaction(async (tx) => finishStored(tx, row.id, 'replaced', deps.now()));
  if (!ended) return;
  round.logger.error(
    'payout_replaced',
    "another transaction of the hot wallet used this payout transaction's nonce for good (someone else holds the hot wallet's key?): it is replaced and its payout signed again",
    {
      blockchainId: row.blockchain_id,
      withdrawalId: row.withdrawal_id ?? undefined,
      txHash: row.tx_hash,
      nonce: row.nonce,
    },
  );
  await raiseNonce(deps.db, row.blockchain_id, row.from_address, nextNonce, deps.now());
  if (!row.withdrawal_id) return;
  const withdrawal = await deps.db.transaction((tx) => lockForPayout(tx, row.withdrawal_id!));
  if (withdrawal?.status === 'processing') await storeBatch(deps, outgoingOf(deps.chain, row.blockchain_id), [withdrawal], round);
}

/**
 * Broadcasts stored transactions of one network (their exact stored bytes), in parallel, lowest
 * nonce first, then again, one by one in nonce order, those the node refused because an earlier
 * nonce had not reached it yet. What the node took is recorded in one statement, and its withdrawals
 * no longer wait; one the node did not take waits, saying why: the hot wallet cannot pay its gas
 * (`hot_wallet_gas`), or no node answered (`node_unavailable`). Resolves with how many moved forward,
 * the ids of those a node now has, and why each of the others was not taken.
 */
export async function broadcastBatch(
  deps: Deps,
  outgoing: OutgoingChain,
  rows: readonly StoredTransaction[],
  round: Round,
): Promise<{ progress: number; taken: Set<string>; failures: unknown[] }> {
  let progress = 0;
  const taken = new Set<string>();
  const gaps: StoredTransaction[] = [];
  const tooLow: StoredTransaction[] = [];
  const failures: unknown[] = [];
  const handle = async (row: StoredTransaction, result: PromiseSettledResult<BroadcastOutcome>) => {
    if (result.status === 'rejected') {
      failures.push(result.reason);
      if (result.reason instanceof HotWalletShortError) {
        // The same bytes go again on a later round, once the hot wallet is topped up (./hot-wallet.ts says so).
        round.stalls.row(row, result.reason.short === 'gas' ? 'hot_wallet_gas' : 'hot_wallet_token');
        return;
      }
      if (!(result.reason instanceof PayoutError)) {
        // An outage or a refusal for now (a fee the node finds too low): the same bytes go again on a later round.
        waitingToBeTaken(round, row, result.reason);
        return;
      }
      // Refused for good by the node asked. A node that took these bytes before may still have them
      // mined (or have them in a block already): only bytes no node was seen to take, and none has, are
      // given up.
      if (row.status !== 'signed') {
        notice(
          round.logger,
          'warn',
          'payout_refusal_unsettled',
          row,
          'a node refuses a payout transaction that a node took before: it may still be mined, so it stays as it is and is sent again later',
          result.reason.message,
        );
        return;
      }
      if (await outgoing.transactionKnown(row.tx_hash)) {
        taken.add(row.id); // a node took it after all (before a crash, or its answer was lost)
        return;
      }
      await rejectStored(deps, row, result.reason.message);
      progress++;
      return;
    }
    const outcome = result.value;
    if (outcome === 'sent' || outcome === 'already_known') {
      taken.add(row.id);
      if (row.status === 'signed') progress++;
    } else if (outcome === 'nonce_gap') {
      gaps.push(row);
    } else if (outcome === 'nonce_too_low') {
      // Its nonce is used: by this very transaction (most often: sent before, mined since) or by another
      // one. Looked into once the batch is handled (`settleTooLow`).
      tooLow.push(row);
    } else {
      // replacement_underpriced: a transaction the service did not sign holds this nonce in the mempool.
      logWait(
        round.logger,
        row.tx_hash,
        'warn',
        'payout_nonce_held',
        'another transaction (not signed by the service) holds the nonce of a payout in the mempool, with a higher fee: the payout waits for it to be mined or dropped',
        {
          blockchainId: row.blockchain_id,
          withdrawalId: row.withdrawal_id ?? undefined,
          txHash: row.tx_hash,
          nonce: row.nonce,
        },
      );
    }
  };
  const sorted = [...rows].sort((a, b) => a.nonce - b.nonce);
  let results: Array<PromiseSettledResult<BroadcastOutcome>>;
  try {
    results = await outgoing.broadcastMany(sorted.map((row) => row.raw_transaction));
  } catch (error) {
    results = sorted.map((): PromiseRejectedResult => ({ status: 'rejected', reason: error }));
  }
  for (const [i, row] of sorted.entries()) {
    try {
      await handle(row, results[i]!);
    } catch (error) {
      failures.push(error);
      waitingToBeTaken(round, row, error);
    }
  }
  progress += await settleTooLow(deps, outgoing, tooLow.splice(0), taken, round);
  // The node holds no earlier nonce for these: now that the batch is out, they can follow it, in order.
  if (taken.size > 0) {
    for (const row of gaps.splice(0)) {
      try {
        const [result] = await Promise.allSettled([outgoing.broadcast(row.raw_transaction)]);
        await handle(row, result);
      } catch (error) {
        failures.push(error);
        waitingToBeTaken(round, row, error);
      }
    }
  }
  // Also a "nonce too low" met among the gaps.
  progress += await settleTooLow(deps, outgoing, tooLow, taken, round);
  await markBroadcast(deps.db, [...taken], deps.now());
  for (const row of sorted) if (taken.has(row.id)) round.stalls.row(row, null);
  // Those no node took are due again, for anyone, after the usual wait: their storer has had its try.
  await endSendLease(
    deps.db,
    rows.filter((row) => !taken.has(row.id)).map((row) => row.id),
    deps.now(),
  );
  return { progress, taken, failures };
}

/**
 * A stored transaction no node took, for now: no node answered (`node_unavailable`, logged once a
 * minute per network), or a node refused it for now (a fee it finds too low; logged once a minute
 * per transaction). Its same bytes go again on a later round.
 */
function waitingToBeTaken(round: Round, row: StoredTransaction, error: unknown) {
  if (isOutage(error)) {
    round.stalls.row(row, 'node_unavailable');
    nodeUnavailable(round, row.blockchain_id, 'sent', error);
    return;
  }
  logWait(
    round.logger,
    row.tx_hash,
    'warn',
    'payout_broadcast_refused',
    'a node refused a payout transaction for now: the same transaction is sent again later',
    {
      blockchainId: row.blockchain_id,
      withdrawalId: row.withdrawal_id ?? undefined,
      txHash: row.tx_hash,
      nonce: row.nonce,
      error,
    },
  );
}

/** Whether an error is a node that did not answer (down, slow, failing), not its refusal of the transaction. */
function isOutage(error: unknown): boolean {
  const code = (error as { code?: unknown; retryable?: unknown } | null)?.code;
  return !(typeof code === 'string' && ['fee_too_low', 'nonce_too_high', 'insufficient_funds', 'reverted', 'rejected'].includes(code));
}

/**
 * Stored transactions whose nonce a node says is used ("nonce too low"): most often by the
 * transaction itself, sent before (by this instance, another, or a broadcast whose answer was lost)
 * and mined since. Their receipts are read together first: one in a canonical block is taken, and
 * its receipt finishes it. Only the others (no node shows them mined) are asked, one by one, whether
 * another transaction used their nonce for good (`OutgoingChain.sequence.replaced`: every node asked,
 * several calls each): that alone lets a payout be signed again, and until it is certain the stored
 * transaction stays as it is, taken. Resolves with how many moved forward.
 */
async function settleTooLow(deps: Deps, outgoing: OutgoingChain, rows: readonly StoredTransaction[], taken: Set<string>, round: Round): Promise<number> {
  if (rows.length === 0) return 0;
  let progress = 0;
  let unmined: StoredTransaction[] = [...rows];
  try {
    const states = await outgoing.states(
      rows.map((row) => ({ txHash: row.tx_hash })),
      await outgoing.latestBlock(),
    );
    unmined = rows.filter((row, i) => {
      const state = states[i]!;
      return state.status === 'rejected' || state.value.status === 'pending';
    });
  } catch {
    // No receipts read: each is asked about on its own below.
  }
  for (const row of rows) if (!unmined.includes(row)) taken.add(row.id);
  for (const row of unmined) {
    try {
      const verdict = await outgoing.sequence.replaced(row.nonce, row.tx_hash);
      if (verdict.replaced) {
        await replaceStored(deps, row, verdict.next, round);
        progress++;
        continue;
      }
      if (verdict.mined)
        notice(
          round.logger,
          'info',
          'payout_nonce_unsettled',
          row,
          'a node says the nonce of a payout transaction is used: by this very transaction, which a node shows mined; it is followed by its receipt',
          verdict.why,
        );
      else
        notice(
          round.logger,
          'warn',
          'payout_nonce_unsettled',
          row,
          'a node says the nonce of a payout transaction is used, and no node shows this transaction mined: it is not certain yet that another transaction used the nonce for good, so it stays as it is and is looked at again',
          verdict.why,
        );
      taken.add(row.id);
    } catch (error) {
      round.stalls.row(row, 'node_unavailable');
      nodeUnavailable(round, row.blockchain_id, 'followed', error, { txHash: row.tx_hash });
    }
  }
  return progress;
}
