/**
 * Payouts on a real chain (money out), in batches: one nonce and one stored signed transaction per
 * withdrawal, broadcast and followed until it has its confirmations. Each round works on every
 * network with a hot wallet at once, and on each in three steps.
 *
 * 1. Sign and store the batch. The claimed withdrawals without a live transaction are prepared
 *    together (one fee quote and every transfer's gas estimated, at once; a transfer that would revert
 *    fails its withdrawal at once, funds returned, no nonce taken). While the estimates run, the
 *    batch is signed ahead (`presign`): drafts priced with the gas its token's transfers needed in the
 *    batch before, with the nonces it will most likely take. Then, in ONE short transaction, under
 *    the hot wallet's nonce lock (`payout_nonces … FOR UPDATE`, shared by every instance and by
 *    `paylink sweep`): the batch's nonces are taken, each transfer is signed with its own (locally: no
 *    node call; a signature made ahead is kept only where it was made for this very transaction and
 *    nonce) and every signed transaction is stored with its hash, in one statement. Nonces follow each
 *    other without gaps or twins however many instances run, and the lock is taken once a batch, not
 *    once a payout.
 * 2. Broadcast the batch: the stored bytes, in parallel, lowest nonce first. Never re-signed: a retry,
 *    a crash between storing and broadcasting, or a restart sends the same transactions, never a
 *    second. One that fails leaves the others going: one the node did not take (an outage) stays
 *    stored and is sent again later, with the very same bytes; one refused because an earlier nonce
 *    had not reached the node yet is sent again, in nonce order, once the others are out.
 * 3. Follow. The unfinished transactions that are due are claimed (`SKIP LOCKED`), lowest nonce
 *    first, and their receipts read in parallel against one head. Mined: followed to N confirmations,
 *    then their withdrawals succeed (or, reverted, fail and their funds come back), in one transaction
 *    with their stored rows. Not mined: the stored bytes are broadcast again after `rebroadcastMs`.
 *    The node's "already known" and "nonce too low" both mean "look at the receipt". One in no block
 *    2 s after it was sent also has the adapter release what a local anvil node queued for ever
 *    (`OutgoingChain.releaseQueued`). A transaction just broadcast is due at once (on a fast chain its
 *    receipt is there already), then every `checkMs`.
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
 * a balancer over backends a block apart) (`OutgoingChain.nonceReplaced`); a refusal for good
 * rejects only a transaction no node was ever seen to take and none has now
 * (`OutgoingChain.transactionKnown`). Until then the stored transaction stays as it is (a node has
 * it, so the receipt watcher follows it), the operator is told (again when the reason changes, and as
 * an error after `WAIT_ALARM_MS`), and it is looked at again after `rebroadcastMs`.
 *
 * At start the worker's first round follows every unfinished transaction: the reconciliation of
 * what a crash or a node outage left pending.
 */
import { randomUUID } from 'node:crypto';
import {
  networkChain,
  PayoutError,
  type BroadcastOutcome,
  type ChainAdapter,
  type OutgoingChain,
  type PayoutRequest,
  type PreparedTransaction,
  type SignedRawTransaction,
  type TransactionState,
} from '../../chain/types.js';
import { compareDecimal } from '../../../core/money.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { assetAmount } from '../ledger/index.js';
import { lockForPayout, lockManyForPayout, releaseClaim, type ClaimedWithdrawal } from '../withdrawals/index.js';
import {
  claimUnfinished,
  finishStored,
  finishStoredMany,
  hasNonceSequence,
  insertStored,
  lockNonce,
  endSendLease,
  markBroadcast,
  markMined,
  peekNonce,
  raiseNonce,
  seedNonce,
  withLiveTransaction,
  type StoredTransaction,
  type TransactionPurpose,
} from './repository.js';
import { presign, type PayoutsAhead, type Presigned, type TakenAhead } from './ahead.js';
import { finishPayout, finishPayouts, type PayoutOutcome } from './finish.js';

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

type Report = (line: string, error?: unknown) => void;

/** When each stored transaction's wait was last reported: one line a minute, not one a round, while a node is down. */
const reported = new Map<string, number>();

function reportOnce(log: Report, key: string, line: string, error?: unknown) {
  const now = Date.now();
  if ((reported.get(key) ?? 0) > now - 60_000) return;
  if (reported.size > 1_000) reported.clear();
  reported.set(key, now);
  log(line, error);
}

/** How long a sent transaction without a receipt waits before it is broadcast again, by default (ms). */
const REBROADCAST_MS = 15_000;

/** How long a payout may wait for certainty before the wait is logged as an error: someone must look. */
export const WAIT_ALARM_MS = 30 * 60_000;

/** Waits already logged, by code and transaction: since when, the reason as last told, and whether it was raised to an error. */
const noticed = new Map<string, { since: number; reason: string; alarmed: boolean }>();

/**
 * Logs a payout transaction's wait for certainty (by `code` and hash): the first time this process
 * sees it, again when its reason changes (block numbers aside), and once at error level when it has
 * waited `WAIT_ALARM_MS`.
 */
function notice(logger: Logger, level: 'warn' | 'info', code: string, row: StoredTransaction, message: string, reason: string) {
  const key = `${code} ${row.tx_hash}`;
  const shape = reason.replace(/\d+/g, '#');
  const now = Date.now();
  const seen = noticed.get(key);
  const fields = { blockchainId: row.blockchain_id, withdrawalId: row.withdrawal_id ?? undefined, txHash: row.tx_hash, nonce: row.nonce, reason };
  if (!seen || seen.reason !== shape) {
    if (noticed.size > 10_000) noticed.clear();
    noticed.set(key, { since: seen?.since ?? now, reason: shape, alarmed: seen?.alarmed ?? false });
    logger[level](code, message, fields);
    return;
  }
  if (level === 'warn' && !seen.alarmed && now - seen.since >= WAIT_ALARM_MS) {
    seen.alarmed = true;
    logger.error(code, `${message} (waiting for ${Math.round((now - seen.since) / 60_000)} minutes)`, fields);
  }
}

interface Deps {
  db: Database;
  chain: ChainAdapter;
  now: () => Date;
  /** What the intake prepared ahead of the claims (./ahead.ts), where it does. */
  ahead?: PayoutsAhead | undefined;
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

/** A prepared transaction to sign and store, and what it is for. */
export interface TransactionToStore {
  prepared: PreparedTransaction;
  purpose: TransactionPurpose;
  withdrawalId: string | null;
  toAddress: string;
}

/**
 * Signs `items` with the hot wallet's next nonces, one each in their order, and stores them, in ONE
 * transaction that holds the nonce lock throughout. A withdrawal that has a live transaction already
 * (another instance stored it first, an old lease's attempt) is left out, under the lock, so it
 * takes no nonce. Each withdrawal also gets its hash shown (`txHash` while `processing`). Resolves
 * with the stored rows, lowest nonce first. `presigned`: signatures made ahead (`presign`), each
 * used only for the transaction and the nonce it was made with. `sendLeaseMs`: how long the stored
 * transactions are the caller's to broadcast (it does so at once), before others may (`insertStored`).
 */
export async function signAndStore(deps: Deps, outgoing: OutgoingChain, items: readonly TransactionToStore[], presigned?: Presigned, sendLeaseMs = 0): Promise<StoredTransaction[]> {
  if (items.length === 0) return [];
  const { stored, next } = await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const first = await lockNonce(tx, outgoing.blockchainId, outgoing.hotWallet);
    if (first === undefined) throw new Error('the hot wallet has no nonce sequence yet (ensureNonceSequence)');
    const live = await withLiveTransaction(tx, items.flatMap((item) => (item.withdrawalId ? [item.withdrawalId] : [])));
    const signing = items.filter((item) => !item.withdrawalId || !live.has(item.withdrawalId));
    if (signing.length === 0) return { stored: [], next: first };
    // A signature made ahead (`presign`) is this very transaction with this very nonce: the same bytes.
    // The others are all asked at once (they are made off this thread).
    const signatures = await Promise.all(
      signing.map((item, i) => {
        const ahead = presigned?.get(item.prepared);
        return ahead?.nonce === first + i ? ahead.signed : outgoing.sign(item.prepared, first + i);
      }),
    );
    const rows = [];
    for (const [i, item] of signing.entries()) {
      const signed = signatures[i]!;
      rows.push({
        id: randomUUID(),
        blockchainId: outgoing.blockchainId,
        fromAddress: outgoing.hotWallet,
        nonce: first + i,
        purpose: item.purpose,
        withdrawalId: item.withdrawalId,
        toAddress: item.toAddress,
        rawTransaction: signed.rawTransaction,
        txHash: signed.txHash,
      });
    }
    // One statement: the rows stored, the sequence moved on past them, each withdrawal's hash shown.
    const stored = await insertStored(tx, rows, now, { nextNonce: first + signing.length, sendLeaseMs });
    return { stored, next: first + signing.length };
  });
  deps.ahead?.stored(outgoing, next);
  return stored;
}

/** Fails a withdrawal for good (its funds come back), in a transaction of its own. */
async function failWithdrawal(deps: Deps, withdrawalId: string, reason: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const withdrawal = await lockForPayout(tx, withdrawalId);
    if (withdrawal?.status !== 'processing') return;
    await finishPayout(tx, withdrawal, { ok: false, reason: reason.slice(0, 500) }, deps.now());
  });
}

function payoutRequest(withdrawal: ClaimedWithdrawal): PayoutRequest {
  return {
    withdrawalId: withdrawal.id,
    blockchainId: withdrawal.blockchain_id,
    assetId: withdrawal.asset_id,
    address: withdrawal.address,
    amount: assetAmount(withdrawal.amount),
  };
}

/**
 * Prepares, signs and stores the payouts of claimed withdrawals of one network that have no live
 * transaction. One that would revert fails at once (funds back); one the node could not prepare
 * goes back to the queue (nothing was signed). Resolves with how many were settled (stored or
 * failed) and the stored rows, lowest nonce first.
 */
async function storeBatch(deps: Deps, outgoing: OutgoingChain, claimed: readonly ClaimedWithdrawal[], log: Report, sendLeaseMs = 0): Promise<{ settled: number; rows: StoredTransaction[] }> {
  let prepared: Array<PromiseSettledResult<PreparedTransaction>>;
  const presigned: Presigned = new Map();
  let presigning: Promise<void> | undefined;
  let withdrawals: readonly ClaimedWithdrawal[] = claimed;
  try {
    // What the intake had prepared (./ahead.ts) comes first, in the order of the nonces its signatures
    // were made with; the rest is prepared now, its drafts signed ahead with the nonces after those.
    // The sequence is needed only once the batch is prepared, the drafts' likely nonces once the fees
    // are known: all go at once.
    const sequence = ensureNonceSequence(deps, outgoing);
    sequence.catch(() => {}); // awaited below; not an unhandled rejection while `take` waits
    const ahead = deps.ahead ? await deps.ahead.take(outgoing, claimed.map(payoutRequest)) : new Map<string, TakenAhead>();
    const early = claimed.filter((withdrawal) => ahead.has(withdrawal.id)).sort((a, b) => (ahead.get(a.id)!.nonce ?? 0) - (ahead.get(b.id)!.nonce ?? 0));
    const rest = claimed.filter((withdrawal) => !ahead.has(withdrawal.id));
    withdrawals = [...early, ...rest];
    for (const { presigned: signed } of ahead.values()) for (const [draft, signature] of signed) presigned.set(draft, signature);
    const next = peekNonce(deps.db, outgoing.blockchainId, outgoing.hotWallet).then(
      (first) => (first === undefined ? undefined : first + early.length),
      () => undefined,
    );
    const sign = (drafts: ReadonlyArray<PreparedTransaction | undefined>) => {
      presigning = presign(outgoing, drafts, next, presigned);
    };
    const [, later] = await Promise.all([sequence, rest.length > 0 ? outgoing.preparePayouts(rest.map(payoutRequest), sign) : []]);
    prepared = [...early.map((withdrawal) => ahead.get(withdrawal.id)!.result), ...later];
  } catch (error) {
    prepared = withdrawals.map((): PromiseRejectedResult => ({ status: 'rejected', reason: error }));
  }
  await presigning;
  let settled = 0;
  const ready: Array<TransactionToStore & { withdrawal: ClaimedWithdrawal }> = [];
  for (const [i, result] of prepared.entries()) {
    const withdrawal = withdrawals[i]!;
    if (result.status === 'fulfilled') {
      ready.push({ withdrawal, prepared: result.value, purpose: 'withdrawal', withdrawalId: withdrawal.id, toAddress: withdrawal.address });
    } else if (result.reason instanceof PayoutError) {
      await failWithdrawal(deps, withdrawal.id, result.reason.message);
      settled++;
    } else {
      // Nothing was signed: back to the queue for the next round, not after the lease.
      reportOnce(log, 'prepare', `[paylink] payouts wait: the chain did not answer while preparing withdrawal ${withdrawal.id}`, result.reason);
      await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now());
    }
  }
  if (ready.length === 0) return { settled, rows: [] };
  try {
    const rows = await signAndStore(deps, outgoing, ready, presigned, sendLeaseMs);
    return { settled: settled + rows.length, rows };
  } catch (error) {
    // The transaction rolled back: nothing was signed for good, no nonce taken.
    reportOnce(log, 'store', `[paylink] payouts wait: ${ready.length} payout(s) could not be stored`, error);
    for (const { withdrawal } of ready) await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now());
    return { settled, rows: [] };
  }
}

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
async function finishMined(deps: Deps, final: readonly FinalTransaction[], options: StoredPayoutOptions, log: Report): Promise<number> {
  const finishAll = (items: readonly FinalTransaction[]) =>
    deps.db.transaction(async (tx) => {
      const now = deps.now();
      const withdrawals = await lockManyForPayout(tx, items.flatMap((item) => (item.row.withdrawal_id ? [item.row.withdrawal_id] : [])));
      const ended = await finishStoredMany(tx, items.map((item) => ({ id: item.row.id, status: item.status, confirmations: item.confirmations })), now);
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
        reportOnce(log, `finish ${item.row.tx_hash}`, `[paylink] payout transaction ${item.row.tx_hash} is mined but could not be recorded; trying again`, itemError);
      }
    }
  }
  for (const { item, withdrawal } of results.flatMap((result) => result.paid)) {
    if (item.received === undefined || compareDecimal(item.received, withdrawal.amount) === 0) continue;
    (options.logger ?? defaultLogger).warn('payout_shortfall', 'a payout delivered another amount than it sent (a token that charges a fee on transfers): the withdrawal shows what was received', {
      withdrawalId: withdrawal.id,
      blockchainId: withdrawal.blockchain_id,
      assetId: withdrawal.asset_id,
      txHash: item.row.tx_hash,
      amount: assetAmount(withdrawal.amount),
      receivedAmount: item.received,
    });
  }
  return results.reduce((sum, result) => sum + result.ended, 0);
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
 * Another transaction of the hot wallet used this one's nonce for good (`OutgoingChain.nonceReplaced`
 * said so): it can never be mined. Marks it `replaced`, moves the sequence up to `nextNonce` (the hot
 * wallet's transactions in the finalized block), and signs the withdrawal again (a gas top-up is left
 * to the next sweep).
 */
async function replaceStored(deps: Deps, row: StoredTransaction, nextNonce: number, log: Report, logger: Logger): Promise<void> {
  const ended = await deps.db.transaction(async (tx) => finishStored(tx, row.id, 'replaced', deps.now()));
  if (!ended) return;
  logger.error('payout_replaced', "another transaction of the hot wallet used this payout transaction's nonce for good (someone else holds the hot wallet's key?): it is replaced and its payout signed again", {
    blockchainId: row.blockchain_id,
    withdrawalId: row.withdrawal_id ?? undefined,
    txHash: row.tx_hash,
    nonce: row.nonce,
  });
  await raiseNonce(deps.db, row.blockchain_id, row.from_address, nextNonce, deps.now());
  if (!row.withdrawal_id) return;
  const withdrawal = await deps.db.transaction((tx) => lockForPayout(tx, row.withdrawal_id!));
  if (withdrawal?.status === 'processing') await storeBatch(deps, outgoingOf(deps.chain, row.blockchain_id), [withdrawal], log);
}

/**
 * Broadcasts stored transactions of one network (their exact stored bytes), in parallel, lowest
 * nonce first, then again, one by one in nonce order, those the node refused because an earlier
 * nonce had not reached it yet. What the node took is recorded in one statement. Resolves with how
 * many moved forward and the ids of those a node now has.
 */
async function broadcastBatch(deps: Deps, outgoing: OutgoingChain, rows: readonly StoredTransaction[], log: Report, logger: Logger): Promise<{ progress: number; taken: Set<string> }> {
  let progress = 0;
  const taken = new Set<string>();
  const gaps: StoredTransaction[] = [];
  const tooLow: StoredTransaction[] = [];
  const handle = async (row: StoredTransaction, result: PromiseSettledResult<BroadcastOutcome>) => {
    if (result.status === 'rejected') {
      if (!(result.reason instanceof PayoutError)) {
        // An outage or a refusal for now (fees, funds): the same bytes go again on a later round.
        reportOnce(log, row.tx_hash, `[paylink] payout transaction ${row.tx_hash} (nonce ${row.nonce}) waits: the chain did not take it`, result.reason);
        return;
      }
      // Refused for good by the node asked. A node that took these bytes before may still have them
      // mined (or have them in a block already): only bytes no node was seen to take, and none has, are
      // given up.
      if (row.status !== 'signed') {
        notice(logger, 'warn', 'payout_refusal_unsettled', row, 'a node refuses a payout transaction that a node took before: it may still be mined, so it stays as it is and is sent again later', result.reason.message);
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
      reportOnce(log, row.tx_hash, `[paylink] payout ${row.tx_hash}: another transaction holds nonce ${row.nonce} of the hot wallet in the mempool; waiting`);
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
      reportOnce(log, row.tx_hash, `[paylink] payout transaction ${row.tx_hash} (nonce ${row.nonce}) waits: the chain did not answer`, error);
    }
  }
  progress += await settleTooLow(deps, outgoing, tooLow.splice(0), taken, log, logger);
  // The node holds no earlier nonce for these: now that the batch is out, they can follow it, in order.
  if (taken.size > 0) {
    for (const row of gaps.splice(0)) {
      try {
        const [result] = await Promise.allSettled([outgoing.broadcast(row.raw_transaction)]);
        await handle(row, result);
      } catch (error) {
        reportOnce(log, row.tx_hash, `[paylink] payout transaction ${row.tx_hash} (nonce ${row.nonce}) waits: the chain did not answer`, error);
      }
    }
  }
  // Also a "nonce too low" met among the gaps.
  progress += await settleTooLow(deps, outgoing, tooLow, taken, log, logger);
  await markBroadcast(deps.db, [...taken], deps.now());
  // Those no node took are due again, for anyone, after the usual wait: their storer has had its try.
  await endSendLease(
    deps.db,
    rows.filter((row) => !taken.has(row.id)).map((row) => row.id),
    deps.now(),
  );
  return { progress, taken };
}

/**
 * Stored transactions whose nonce a node says is used ("nonce too low"): most often by the
 * transaction itself, sent before (by this instance, another, or a broadcast whose answer was lost)
 * and mined since. Their receipts are read together first: one in a canonical block is taken, and
 * its receipt finishes it. Only the others (no node shows them mined) are asked, one by one, whether
 * another transaction used their nonce for good (`OutgoingChain.nonceReplaced`: every node asked,
 * several calls each): that alone lets a payout be signed again, and until it is certain the stored
 * transaction stays as it is, taken. Resolves with how many moved forward.
 */
async function settleTooLow(deps: Deps, outgoing: OutgoingChain, rows: readonly StoredTransaction[], taken: Set<string>, log: Report, logger: Logger): Promise<number> {
  if (rows.length === 0) return 0;
  let progress = 0;
  let unmined: StoredTransaction[] = [...rows];
  try {
    const states = await outgoing.states(rows.map((row) => ({ txHash: row.tx_hash })), await outgoing.latestBlock());
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
      const verdict = await outgoing.nonceReplaced(row.nonce, row.tx_hash);
      if (verdict.replaced) {
        await replaceStored(deps, row, verdict.nextNonce, log, logger);
        progress++;
        continue;
      }
      if (verdict.mined) notice(logger, 'info', 'payout_nonce_unsettled', row, 'a node says the nonce of a payout transaction is used: by this very transaction, which a node shows mined; it is followed by its receipt', verdict.why);
      else notice(logger, 'warn', 'payout_nonce_unsettled', row, 'a node says the nonce of a payout transaction is used, and no node shows this transaction mined: it is not certain yet that another transaction used the nonce for good, so it stays as it is and is looked at again', verdict.why);
      taken.add(row.id);
    } catch (error) {
      reportOnce(log, row.tx_hash, `[paylink] payout transaction ${row.tx_hash} (nonce ${row.nonce}) waits: the chain did not answer`, error);
    }
  }
  return progress;
}

/** How long a sent payout may stay out of every block before the node is asked whether it holds it for ever. */
const HELD_AFTER_MS = 2_000;
/** When each network's node was last asked so (at most once per `HELD_AFTER_MS`). */
const heldChecked = new Map<string, number>();

/**
 * A payout sent `HELD_AFTER_MS` ago is in no block yet: a local anvil node may hold it queued for ever
 * (`OutgoingChain.releaseQueued`: its queue is dropped and the same bytes sent again; nothing on any
 * other node). Asked at most once per `HELD_AFTER_MS` per network.
 */
async function releaseHeld(outgoing: OutgoingChain, log: Report): Promise<void> {
  const now = Date.now(); // the wall clock: a service's own clock may be set back (tests)
  if (now - (heldChecked.get(outgoing.blockchainId) ?? 0) < HELD_AFTER_MS) return;
  heldChecked.set(outgoing.blockchainId, now);
  try {
    await outgoing.releaseQueued();
  } catch (error) {
    reportOnce(log, `release ${outgoing.blockchainId}`, `[paylink] payouts on ${outgoing.blockchainId}: a payout sent a while ago is in no block, and asking the node whether it holds it for ever failed; asked again later`, error);
  }
}

/**
 * Follows claimed unfinished transactions of one network: reads the receipts of those a node may
 * have (in parallel, against one head read first, so a confirmation is never over-counted), ends
 * those with their confirmations, records the others' progress, and broadcasts again those not
 * mined that are due. A transaction no node has taken yet is broadcast without a receipt read: if
 * one took it after all (a crash before that was recorded), the node says "nonce too low" and its
 * receipt is read then. Resolves with how many moved forward.
 */
async function followBatch(deps: Deps, outgoing: OutgoingChain, rows: readonly StoredTransaction[], options: StoredPayoutOptions, log: Report): Promise<number> {
  let progress = 0;
  const now = deps.now();
  const toSend = rows.filter((row) => row.status === 'signed');
  const toRead = rows.filter((row) => row.status !== 'signed');
  if (toRead.length > 0) {
    let latest: number | undefined;
    try {
      latest = await outgoing.latestBlock();
    } catch (error) {
      reportOnce(log, `head ${outgoing.blockchainId}`, `[paylink] payouts on ${outgoing.blockchainId} wait: the chain did not answer`, error);
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
    let waitingLong = false;
    for (const [i, row] of toRead.entries()) {
      const result = states[i]!;
      if (result.status === 'rejected') {
        reportOnce(log, row.tx_hash, `[paylink] payout transaction ${row.tx_hash} (nonce ${row.nonce}) waits: the chain did not answer`, result.reason);
        continue;
      }
      const state: TransactionState = result.value;
      if (state.status !== 'pending') {
        if (state.confirmations >= outgoing.confirmations) final.push({ row, status: state.status, confirmations: state.confirmations, received: state.received });
        else mined.push({ id: row.id, blockNumber: state.blockNumber, confirmations: state.confirmations });
        continue;
      }
      if (row.last_broadcast_at && now.getTime() - row.last_broadcast_at.getTime() >= HELD_AFTER_MS) waitingLong = true;
      // Not mined (or no longer: a reorg dropped it): send the stored bytes again, when due.
      const due = row.status !== 'sent' || !row.last_broadcast_at || now.getTime() - row.last_broadcast_at.getTime() >= (options.rebroadcastMs ?? REBROADCAST_MS);
      if (due) toSend.push(row);
    }
    progress += await markMined(deps.db, mined, now);
    if (final.length > 0) progress += await finishMined(deps, final, options, log);
    if (waitingLong) await releaseHeld(outgoing, log);
  }
  if (toSend.length > 0) progress += (await broadcastBatch(deps, outgoing, toSend, log, options.logger ?? defaultLogger)).progress;
  return progress;
}

/**
 * One network's part of a round: its fresh payouts are stored and broadcast while what is due of the
 * earlier ones is followed (the receipts of the batch before this one are read as this one is
 * signed), so a burst of withdrawals flows through batch after batch without waiting for itself.
 */
async function payNetwork(deps: Deps, outgoing: OutgoingChain, fresh: readonly ClaimedWithdrawal[], options: StoredPayoutOptions & { limit?: number }, log: Report): Promise<number> {
  const sending = async () => {
    if (fresh.length === 0) return 0;
    // Broadcast here at once: the other instances leave them to this one until its first try is over.
    const stored = await storeBatch(deps, outgoing, fresh, log, options.rebroadcastMs ?? REBROADCAST_MS);
    if (stored.rows.length > 0) await broadcastBatch(deps, outgoing, stored.rows, log, options.logger ?? defaultLogger);
    return stored.settled;
  };
  const following = async () => {
    const rows = await claimUnfinished(deps.db, outgoing.blockchainId, outgoing.hotWallet, options.checkMs ?? 1_000, options.limit ?? 100);
    return rows.length > 0 ? followBatch(deps, outgoing, rows, options, log) : 0;
  };
  const [sent, followed] = await Promise.allSettled([sending(), following()]);
  if (sent.status === 'rejected') throw sent.reason;
  if (followed.status === 'rejected') throw followed.reason;
  return sent.value + followed.value;
}

/**
 * One round of payouts on a real chain: on every network at once, signs and stores the claimed
 * withdrawals as one batch, broadcasts it, then follows up to `limit` unfinished stored
 * transactions. Resolves with how many things moved forward.
 */
export async function processStoredPayouts(deps: Deps, claimed: ClaimedWithdrawal[], options: StoredPayoutOptions & { limit?: number } = {}): Promise<number> {
  const log = options.log ?? ((line: string, error?: unknown) => console.error(line, error ?? ''));
  const networks = payingNetworks(deps.chain);
  const live = await withLiveTransaction(deps.db, claimed.map((withdrawal) => withdrawal.id));
  const fresh = new Map<string, ClaimedWithdrawal[]>();
  for (const withdrawal of claimed) {
    if (!networks.some((n) => n.blockchainId === withdrawal.blockchain_id)) {
      // No hot wallet on its network (now): it waits, pending, until one is configured.
      await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now());
      continue;
    }
    if (live.has(withdrawal.id)) continue;
    fresh.set(withdrawal.blockchain_id, [...(fresh.get(withdrawal.blockchain_id) ?? []), withdrawal]);
  }
  const rounds = await Promise.all(networks.map((outgoing) => payNetwork(deps, outgoing, fresh.get(outgoing.blockchainId) ?? [], options, log)));
  return rounds.reduce((sum, n) => sum + n, 0);
}

/**
 * Sends `value` wei of gas money from the hot wallet to `to` with a nonce from the payouts'
 * sequence, stored before it is broadcast (`paylink sweep`'s top-ups). Resolves with its hash once
 * a node took it; if none did, it throws, and the stored transaction is broadcast by the service's
 * payout worker (or the sweep's next run).
 */
export async function sendStoredGasTopUp(deps: Deps, blockchainId: string, to: string, value: bigint): Promise<string> {
  const outgoing = outgoingOf(deps.chain, blockchainId);
  await ensureNonceSequence(deps, outgoing);
  const prepared = await outgoing.prepareGasTopUp(to, value);
  const [row] = await signAndStore(deps, outgoing, [{ prepared, purpose: 'gas_top_up', withdrawalId: null, toAddress: to }]);
  const failures: unknown[] = [];
  const { taken } = await broadcastBatch(deps, outgoing, [row!], (_line, error) => failures.push(error), defaultLogger);
  if (!taken.has(row!.id)) throw failures[0] ?? new Error(`the gas top-up ${row!.tx_hash} is stored but no node took it yet`);
  return row!.tx_hash;
}
