/**
 * Payouts on a real chain, last stage: follow the stored transactions to their confirmations and
 * finish their withdrawals (./round.ts runs the stages).
 *
 * Follow. The unfinished transactions that are due are claimed (`SKIP LOCKED`), lowest nonce
 * first, and their receipts read in parallel against one head. Mined: followed to N confirmations,
 * then their withdrawals succeed (or, reverted, fail and their funds come back), in one transaction
 * with their stored rows. Not mined: the stored bytes are broadcast again after `rebroadcastMs`.
 * The node's "already known" and "nonce too low" both mean "look at the receipt". A transaction
 * just broadcast is due at once (on a fast chain its receipt is there already), then every `checkMs`.
 * Whatever a family's nodes need while a transaction stays in no block (a local anvil node's stuck
 * queue) the family's adapter sees to itself, from the states read here.
 */
import type { OutgoingChain, TransactionState } from '../../chain/types.js';
import { compareDecimal } from '../../../core/money.js';
import { assetAmount } from '../ledger/index.js';
import { type ClaimedWithdrawal, lockManyForPayout } from '../withdrawals/index.js';
import { finishStoredMany, markMined, type StoredTransaction } from './repository.js';
import { finishPayouts, type PayoutOutcome } from './finish.js';
import { logWait } from './waits.js';
import { type Deps, nodeUnavailable, REBROADCAST_MS, type Round, type StoredPayoutOptions } from './context.js';
import { broadcastBatch } from './broadcast.js';

/** A stored transaction whose receipt shows it mined with enough confirmations. */
interface FinalTransaction {
  row: StoredTransaction;
  status: 'success' | 'reverted';
  confirmations: number;
  received: string | undefined;
}

/**
 * Ends stored transactions that reached their confirmations, and their withdrawals with them, in ONE
 * transaction (the withdrawals locked first, in id order), recording what each recipient received
 * according to its receipt. Should that fail, each is ended in a transaction of its own, so that one
 * that cannot be finished holds up none of the others. Resolves with how many were ended.
 */
async function finishMined(deps: Deps, final: readonly FinalTransaction[], round: Round): Promise<number> {
  const finishAll = (items: readonly FinalTransaction[]) =>
    deps.db.transaction(async (tx) => {
      const now = deps.now();
      const withdrawals = await lockManyForPayout(
        tx,
        items.flatMap((item) => (item.row.withdrawal_id ? [item.row.withdrawal_id] : [])),
      );
      const ended = await finishStoredMany(
        tx,
        items.map((item) => ({ id: item.row.id, status: item.status, confirmations: item.confirmations })),
        now,
      );
      const payouts: Array<{ withdrawal: ClaimedWithdrawal; outcome: PayoutOutcome; item: FinalTransaction }> = [];
      for (const item of items) {
        if (!ended.has(item.row.id)) continue;
        const withdrawal = item.row.withdrawal_id ? withdrawals.get(item.row.withdrawal_id) : undefined;
        if (withdrawal?.status !== 'processing') continue;
        const outcome: PayoutOutcome =
          item.status === 'success'
            ? { ok: true, txHash: item.row.tx_hash, sandbox: false, receivedAmount: item.received }
            : { ok: false, reason: `The transfer reverted on chain (transaction ${item.row.tx_hash}); the funds are back in the balance` };
        payouts.push({ withdrawal, outcome, item });
      }
      const finished = await finishPayouts(tx, payouts, now);
      const paid = payouts.filter(({ withdrawal, outcome }) => outcome.ok && finished.has(withdrawal.id));
      return { ended: ended.size, paid };
    });
  let results: Array<Awaited<ReturnType<typeof finishAll>>>;
  try {
    results = [await finishAll(final)];
  } catch (error) {
    if (final.length === 1) throw error;
    results = [];
    for (const item of final) {
      try {
        results.push(await finishAll([item]));
      } catch (itemError) {
        logWait(
          round.logger,
          `finish ${item.row.tx_hash}`,
          'error',
          'payout_finish_failed',
          'a payout transaction is mined but could not be recorded (the database?): tried again',
          {
            blockchainId: item.row.blockchain_id,
            withdrawalId: item.row.withdrawal_id ?? undefined,
            txHash: item.row.tx_hash,
            error: itemError,
          },
        );
      }
    }
  }
  for (const { item, withdrawal } of results.flatMap((result) => result.paid)) {
    if (item.received === undefined || compareDecimal(item.received, withdrawal.amount) === 0) continue;
    round.logger.warn(
      'payout_shortfall',
      'a payout delivered another amount than it sent (a token that charges a fee on transfers): the withdrawal shows what was received',
      {
        withdrawalId: withdrawal.id,
        blockchainId: withdrawal.blockchain_id,
        assetId: withdrawal.asset_id,
        txHash: item.row.tx_hash,
        amount: assetAmount(withdrawal.amount),
        receivedAmount: item.received,
      },
    );
  }
  return results.reduce((sum, result) => sum + result.ended, 0);
}

/**
 * Follows claimed unfinished transactions of one network: reads the receipts of those a node may
 * have (in parallel, against one head read first, so a confirmation is never over-counted), ends
 * those with their confirmations, records the others' progress, and broadcasts again those not
 * mined that are due. A transaction no node has taken yet is broadcast without a receipt read: if
 * one took it after all (a crash before that was recorded), the node says "nonce too low" and its
 * receipt is read then. A receipt no node answered for has its withdrawal wait `node_unavailable`;
 * one read, pending or mined, none. Resolves with how many moved forward.
 */
export async function followBatch(
  deps: Deps,
  outgoing: OutgoingChain,
  rows: readonly StoredTransaction[],
  options: StoredPayoutOptions,
  round: Round,
): Promise<number> {
  let progress = 0;
  const now = deps.now();
  const toSend = rows.filter((row) => row.status === 'signed');
  const toRead = rows.filter((row) => row.status !== 'signed');
  if (toRead.length > 0) {
    let latest: number | undefined;
    try {
      latest = await outgoing.latestBlock();
    } catch (error) {
      for (const row of rows) round.stalls.row(row, 'node_unavailable');
      nodeUnavailable(round, outgoing.blockchainId, 'followed', error);
      return 0;
    }
    // A withdrawal's payout is asked about with its recipient: the receipt says what they received.
    let states: Array<PromiseSettledResult<TransactionState>>;
    try {
      states = await outgoing.states(
        toRead.map((row) => ({ txHash: row.tx_hash, payout: row.asset_id ? { assetId: row.asset_id, to: row.to_address } : undefined })),
        latest,
      );
    } catch (error) {
      states = toRead.map((): PromiseRejectedResult => ({ status: 'rejected', reason: error }));
    }
    const mined: Array<{ id: string; blockNumber: number; confirmations: number }> = [];
    const final: FinalTransaction[] = [];
    for (const [i, row] of toRead.entries()) {
      const result = states[i]!;
      if (result.status === 'rejected') {
        round.stalls.row(row, 'node_unavailable');
        nodeUnavailable(round, outgoing.blockchainId, 'followed', result.reason, { txHash: row.tx_hash });
        continue;
      }
      round.stalls.row(row, null);
      const state: TransactionState = result.value;
      if (state.status !== 'pending') {
        if (state.confirmations >= outgoing.confirmations)
          final.push({ row, status: state.status, confirmations: state.confirmations, received: state.received });
        else mined.push({ id: row.id, blockNumber: state.blockNumber, confirmations: state.confirmations });
        continue;
      }
      // Not mined (or no longer: a reorg dropped it): send the stored bytes again, when due.
      const due =
        row.status !== 'sent' || !row.last_broadcast_at || now.getTime() - row.last_broadcast_at.getTime() >= (options.rebroadcastMs ?? REBROADCAST_MS);
      if (due) toSend.push(row);
    }
    progress += await markMined(deps.db, mined, now);
    if (final.length > 0) progress += await finishMined(deps, final, round);
  }
  if (toSend.length > 0) progress += (await broadcastBatch(deps, outgoing, toSend, round)).progress;
  return progress;
}
