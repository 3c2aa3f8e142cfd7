/**
 * Payouts on a real chain (money out), in batches: one nonce and one stored signed transaction per
 * withdrawal, broadcast and followed until it has its confirmations. Each round works on every
 * network with a hot wallet at once, and on each in three steps.
 *
 * 1. Sign and store the batch. The claimed withdrawals without a live transaction are prepared
 *    together (one fee quote and every transfer's gas estimated, at once; a transfer that would revert
 *    fails its withdrawal at once, funds returned, no nonce taken), and held against what the hot
 *    wallet holds, read meanwhile: one it cannot pay waits, unsigned (`hot_wallet_token`,
 *    `hot_wallet_gas`; ./hot-wallet.ts lets it go once the wallet is topped up). While the estimates run, the
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
 *
 * A network whose payouts are halted (`payoutsHalted`: a block held as final changed) is left alone:
 * nothing is claimed, signed, sent or followed there, and its withdrawals say `chain_halted`. Why a
 * payout waits is gathered during a round and written at its end, only where it changed (./waits.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  HotWalletShortError,
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
import { compareDecimal, roundDown, toUnits, type AssetId } from '../../../core/money.js';
import type { StalledReason } from '../../../core/schemas.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { payoutsHalted } from '../alerts/index.js';
import { assetAmount } from '../ledger/index.js';
import { lockForPayout, lockManyForPayout, markHalted, releaseClaim, type ClaimedWithdrawal } from '../withdrawals/index.js';
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
  unsentPayouts,
  withLiveTransaction,
  type StoredTransaction,
  type TransactionPurpose,
} from './repository.js';
import { presign, type PayoutsAhead, type Presigned, type TakenAhead } from './ahead.js';
import { finishPayout, finishPayouts, type PayoutOutcome } from './finish.js';
import { logWait, notice, Stalls } from './waits.js';

export interface StoredPayoutOptions {
  /** How often each unfinished transaction's receipt is read, in ms (default 1000). */
  checkMs?: number | undefined;
  /** How long a sent transaction without a receipt waits before it is broadcast again, in ms (default 15 s). */
  rebroadcastMs?: number | undefined;
  /** Where the payouts' lines go (default: the process's logger, stderr). */
  logger?: Logger | undefined;
  /** The networks whose payouts are halted, when the caller has read them (`haltedNetworks`) already. */
  halted?: ReadonlySet<string> | undefined;
  /** Told of each network where a payout started or stopped waiting for the hot wallet (./hot-wallet.ts checks it then). */
  onHotWallet?: ((blockchainId: string) => void) | undefined;
}

/** How long a sent transaction without a receipt waits before it is broadcast again, by default (ms). */
const REBROADCAST_MS = 15_000;

export { WAIT_ALARM_MS } from './waits.js';

/** What one round of one network works with: where its lines go, and what it learns of why payouts wait. */
interface Round {
  logger: Logger;
  stalls: Stalls;
}

/** A node that did not answer, logged once a minute per network and step (not once per payout). */
function nodeUnavailable(round: Round, blockchainId: string, step: string, error: unknown, fields: Record<string, string | number | undefined> = {}) {
  logWait(round.logger, `node ${blockchainId} ${step}`, 'warn', 'payout_node_unavailable', `no node answered while payouts were ${step}: they wait (stalledReason node_unavailable) and are tried again`, {
    blockchainId,
    step,
    ...fields,
    error,
  });
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

/** What the hot wallet can spend on a batch: its gas money, and per asset its tokens less what stored payouts no node took yet will take. */
interface Spendable {
  gas: bigint;
  tokens: Map<AssetId, bigint>;
}

/** Token amounts compared in units of 10^-18 (a balance's extra digits round down). */
const tokenUnits = (amount: string) => toUnits(roundDown(amount, 18), 18);

/** What the hot wallet can spend on a batch of `assetIds` now, or undefined when it could not be read (the batch is not held back then). */
async function spendable(deps: Deps, outgoing: OutgoingChain, assetIds: readonly AssetId[]): Promise<Spendable | undefined> {
  try {
    const [holdings, unsent] = await Promise.all([outgoing.holdings(assetIds), unsentPayouts(deps.db, outgoing.blockchainId, outgoing.hotWallet)]);
    const tokens = new Map(assetIds.map((assetId) => [assetId, tokenUnits(holdings.tokens[assetId] ?? '0') - tokenUnits(unsent.get(assetId) ?? '0')]));
    return { gas: holdings.native, tokens };
  } catch {
    return undefined;
  }
}

/**
 * Why the hot wallet cannot pay `withdrawal` out of what is left of `left` (then left as it was), or
 * null, having taken its tokens and its transaction's most costly gas (`cost`, when prepared) from it.
 */
function shortfall(left: Spendable, withdrawal: ClaimedWithdrawal, cost: bigint | undefined): StalledReason | null {
  const tokens = left.tokens.get(withdrawal.asset_id) ?? 0n;
  const amount = tokenUnits(withdrawal.amount);
  if (amount > tokens) return 'hot_wallet_token';
  if (cost !== undefined && cost > left.gas) return 'hot_wallet_gas';
  left.tokens.set(withdrawal.asset_id, tokens - amount);
  if (cost !== undefined) left.gas -= cost;
  return null;
}

/**
 * Prepares, signs and stores the payouts of claimed withdrawals of one network that have no live
 * transaction. One that would revert fails at once (funds back); one the node could not prepare
 * goes back to the queue (nothing was signed), saying so (`node_unavailable`). Before anything is
 * signed, the batch is held against what the hot wallet holds (read while the batch is prepared):
 * those it cannot pay, in their order, go back to the queue held (`hot_wallet_token`,
 * `hot_wallet_gas`: out of the claims until ./hot-wallet.ts finds it topped up) rather than be signed
 * to wait, or be sent to revert (a transfer of more tokens than the wallet holds fails its dry run:
 * that says nothing against the payout). Resolves with how many were settled (stored or failed) and
 * the stored rows, lowest nonce first.
 */
async function storeBatch(deps: Deps, outgoing: OutgoingChain, claimed: readonly ClaimedWithdrawal[], round: Round, sendLeaseMs = 0): Promise<{ settled: number; rows: StoredTransaction[] }> {
  let prepared: Array<PromiseSettledResult<PreparedTransaction>>;
  const presigned: Presigned = new Map();
  let presigning: Promise<void> | undefined;
  let withdrawals: readonly ClaimedWithdrawal[] = claimed;
  const holdings = spendable(deps, outgoing, [...new Set(claimed.map((withdrawal) => withdrawal.asset_id))]);
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
  const left = await holdings;
  let settled = 0;
  const ready: Array<TransactionToStore & { withdrawal: ClaimedWithdrawal }> = [];
  const held = async (withdrawal: ClaimedWithdrawal, reason: StalledReason) => {
    // Nothing was signed: back to the queue, saying why (held out of the claims for the hot wallet).
    if ((await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now(), reason)) && reason !== 'node_unavailable' && withdrawal.stalled_reason !== reason) {
      round.stalls.held(outgoing.blockchainId);
    }
  };
  for (const [i, result] of prepared.entries()) {
    const withdrawal = withdrawals[i]!;
    const cost = result.status === 'fulfilled' ? outgoing.maxCost(result.value) : undefined;
    const short = left && (result.status === 'fulfilled' || result.reason instanceof PayoutError) ? shortfall(left, withdrawal, cost) : null;
    if (short) {
      await held(withdrawal, short);
    } else if (result.status === 'fulfilled') {
      ready.push({ withdrawal, prepared: result.value, purpose: 'withdrawal', withdrawalId: withdrawal.id, toAddress: withdrawal.address });
    } else if (result.reason instanceof PayoutError) {
      await failWithdrawal(deps, withdrawal.id, result.reason.message);
      settled++;
    } else if (result.reason instanceof HotWalletShortError) {
      await held(withdrawal, result.reason.short === 'gas' ? 'hot_wallet_gas' : 'hot_wallet_token');
    } else {
      nodeUnavailable(round, outgoing.blockchainId, 'prepared', result.reason);
      await held(withdrawal, 'node_unavailable');
    }
  }
  if (ready.length === 0) return { settled, rows: [] };
  try {
    const rows = await signAndStore(deps, outgoing, ready, presigned, sendLeaseMs);
    return { settled: settled + rows.length, rows };
  } catch (error) {
    // The transaction rolled back: nothing was signed for good, no nonce taken.
    logWait(round.logger, `store ${outgoing.blockchainId}`, 'error', 'payout_store_failed', 'payouts could not be signed and stored (the database?): they go back to the queue and are tried again', {
      blockchainId: outgoing.blockchainId,
      payouts: ready.length,
      error,
    });
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
async function finishMined(deps: Deps, final: readonly FinalTransaction[], round: Round): Promise<number> {
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
        logWait(round.logger, `finish ${item.row.tx_hash}`, 'error', 'payout_finish_failed', 'a payout transaction is mined but could not be recorded (the database?): tried again', {
          blockchainId: item.row.blockchain_id,
          withdrawalId: item.row.withdrawal_id ?? undefined,
          txHash: item.row.tx_hash,
          error: itemError,
        });
      }
    }
  }
  for (const { item, withdrawal } of results.flatMap((result) => result.paid)) {
    if (item.received === undefined || compareDecimal(item.received, withdrawal.amount) === 0) continue;
    round.logger.warn('payout_shortfall', 'a payout delivered another amount than it sent (a token that charges a fee on transfers): the withdrawal shows what was received', {
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
async function replaceStored(deps: Deps, row: StoredTransaction, nextNonce: number, round: Round): Promise<void> {
  const ended = await deps.db.transaction(async (tx) => finishStored(tx, row.id, 'replaced', deps.now()));
  if (!ended) return;
  round.logger.error('payout_replaced', "another transaction of the hot wallet used this payout transaction's nonce for good (someone else holds the hot wallet's key?): it is replaced and its payout signed again", {
    blockchainId: row.blockchain_id,
    withdrawalId: row.withdrawal_id ?? undefined,
    txHash: row.tx_hash,
    nonce: row.nonce,
  });
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
async function broadcastBatch(deps: Deps, outgoing: OutgoingChain, rows: readonly StoredTransaction[], round: Round): Promise<{ progress: number; taken: Set<string>; failures: unknown[] }> {
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
        notice(round.logger, 'warn', 'payout_refusal_unsettled', row, 'a node refuses a payout transaction that a node took before: it may still be mined, so it stays as it is and is sent again later', result.reason.message);
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
      logWait(round.logger, row.tx_hash, 'warn', 'payout_nonce_held', 'another transaction (not signed by the service) holds the nonce of a payout in the mempool, with a higher fee: the payout waits for it to be mined or dropped', {
        blockchainId: row.blockchain_id,
        withdrawalId: row.withdrawal_id ?? undefined,
        txHash: row.tx_hash,
        nonce: row.nonce,
      });
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
  logWait(round.logger, row.tx_hash, 'warn', 'payout_broadcast_refused', 'a node refused a payout transaction for now: the same transaction is sent again later', {
    blockchainId: row.blockchain_id,
    withdrawalId: row.withdrawal_id ?? undefined,
    txHash: row.tx_hash,
    nonce: row.nonce,
    error,
  });
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
 * another transaction used their nonce for good (`OutgoingChain.nonceReplaced`: every node asked,
 * several calls each): that alone lets a payout be signed again, and until it is certain the stored
 * transaction stays as it is, taken. Resolves with how many moved forward.
 */
async function settleTooLow(deps: Deps, outgoing: OutgoingChain, rows: readonly StoredTransaction[], taken: Set<string>, round: Round): Promise<number> {
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
        await replaceStored(deps, row, verdict.nextNonce, round);
        progress++;
        continue;
      }
      if (verdict.mined) notice(round.logger, 'info', 'payout_nonce_unsettled', row, 'a node says the nonce of a payout transaction is used: by this very transaction, which a node shows mined; it is followed by its receipt', verdict.why);
      else notice(round.logger, 'warn', 'payout_nonce_unsettled', row, 'a node says the nonce of a payout transaction is used, and no node shows this transaction mined: it is not certain yet that another transaction used the nonce for good, so it stays as it is and is looked at again', verdict.why);
      taken.add(row.id);
    } catch (error) {
      round.stalls.row(row, 'node_unavailable');
      nodeUnavailable(round, row.blockchain_id, 'followed', error, { txHash: row.tx_hash });
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
async function releaseHeld(outgoing: OutgoingChain, round: Round): Promise<void> {
  const now = Date.now(); // the wall clock: a service's own clock may be set back (tests)
  if (now - (heldChecked.get(outgoing.blockchainId) ?? 0) < HELD_AFTER_MS) return;
  heldChecked.set(outgoing.blockchainId, now);
  try {
    await outgoing.releaseQueued();
  } catch (error) {
    logWait(round.logger, `release ${outgoing.blockchainId}`, 'warn', 'dev_node_release_failed', 'a payout sent a while ago is in no block, and asking the node whether it holds it for ever failed: asked again later', {
      blockchainId: outgoing.blockchainId,
      error,
    });
  }
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
async function followBatch(deps: Deps, outgoing: OutgoingChain, rows: readonly StoredTransaction[], options: StoredPayoutOptions, round: Round): Promise<number> {
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
    let waitingLong = false;
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
    if (final.length > 0) progress += await finishMined(deps, final, round);
    if (waitingLong) await releaseHeld(outgoing, round);
  }
  if (toSend.length > 0) progress += (await broadcastBatch(deps, outgoing, toSend, round)).progress;
  return progress;
}

/**
 * One network's part of a round: its fresh payouts are stored and broadcast while what is due of the
 * earlier ones is followed (the receipts of the batch before this one are read as this one is
 * signed), so a burst of withdrawals flows through batch after batch without waiting for itself.
 */
async function payNetwork(deps: Deps, outgoing: OutgoingChain, fresh: readonly ClaimedWithdrawal[], options: StoredPayoutOptions & { limit?: number }, round: Round): Promise<number> {
  const sending = async () => {
    if (fresh.length === 0) return 0;
    // Broadcast here at once: the other instances leave them to this one until its first try is over.
    const stored = await storeBatch(deps, outgoing, fresh, round, options.rebroadcastMs ?? REBROADCAST_MS);
    if (stored.rows.length > 0) await broadcastBatch(deps, outgoing, stored.rows, round);
    return stored.settled;
  };
  const following = async () => {
    const rows = await claimUnfinished(deps.db, outgoing.blockchainId, outgoing.hotWallet, options.checkMs ?? 1_000, options.limit ?? 100);
    return rows.length > 0 ? followBatch(deps, outgoing, rows, options, round) : 0;
  };
  const [sent, followed] = await Promise.allSettled([sending(), following()]);
  if (sent.status === 'rejected') throw sent.reason;
  if (followed.status === 'rejected') throw followed.reason;
  return sent.value + followed.value;
}

/** Networks whose payouts this process has seen halted (their withdrawals said so), to be told when they resume. */
const haltSeen = new Set<string>();
/** Databases whose withdrawals were looked at for a halt that ended while no instance ran. */
const haltLookedAt = new WeakSet<object>();

/**
 * The networks of `chain` with a hot wallet whose payouts are halted (`payoutsHalted`: a block held as
 * final changed): nothing is claimed, signed, sent or followed there until an operator resumes them.
 */
export async function haltedNetworks(db: Database, chain: ChainAdapter): Promise<Set<string>> {
  const networks = payingNetworks(chain).map((outgoing) => outgoing.blockchainId);
  const halted = await Promise.all(networks.map((blockchainId) => payoutsHalted(db, blockchainId)));
  return new Set(networks.filter((_, i) => halted[i]));
}

/**
 * One round of payouts on a real chain: on every network at once, signs and stores the claimed
 * withdrawals as one batch, broadcasts it, then follows up to `limit` unfinished stored
 * transactions. A network whose payouts are halted is left alone (its withdrawals say
 * `chain_halted`). At its end, why each withdrawal waits is recorded where it changed. Resolves with
 * how many things moved forward.
 */
export async function processStoredPayouts(deps: Deps, claimed: ClaimedWithdrawal[], options: StoredPayoutOptions & { limit?: number } = {}): Promise<number> {
  const logger = options.logger ?? defaultLogger;
  const stalls = new Stalls();
  const halted = options.halted ?? (await haltedNetworks(deps.db, deps.chain));
  const networks = payingNetworks(deps.chain);
  const live = await withLiveTransaction(deps.db, claimed.map((withdrawal) => withdrawal.id));
  const fresh = new Map<string, ClaimedWithdrawal[]>();
  for (const withdrawal of claimed) {
    const paying = networks.some((n) => n.blockchainId === withdrawal.blockchain_id);
    if (!paying || halted.has(withdrawal.blockchain_id)) {
      // No hot wallet on its network (now), or payouts there halted: it waits, pending, saying so where it is a halt.
      await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now(), paying ? 'chain_halted' : undefined);
      continue;
    }
    if (live.has(withdrawal.id)) continue;
    fresh.set(withdrawal.blockchain_id, [...(fresh.get(withdrawal.blockchain_id) ?? []), withdrawal]);
  }
  // Halted networks' withdrawals say so; those of a network that resumed no longer do (looked at once
  // per database, for a halt that ended while this process did not run, then after each halt it saw).
  const resumed = networks.map((n) => n.blockchainId).filter((id) => !halted.has(id) && (haltSeen.has(id) || !haltLookedAt.has(deps.db)));
  if (halted.size > 0 || resumed.length > 0) {
    await markHalted(deps.db, [...halted], resumed, deps.now());
    haltLookedAt.add(deps.db);
    for (const id of resumed) haltSeen.delete(id);
    for (const id of halted) haltSeen.add(id);
  }
  const rounds = await Promise.all(
    networks
      .filter((outgoing) => !halted.has(outgoing.blockchainId))
      .map((outgoing) => payNetwork(deps, outgoing, fresh.get(outgoing.blockchainId) ?? [], options, { logger, stalls })),
  );
  await stalls.flush(deps.db, deps.now());
  for (const blockchainId of stalls.hotWallet) options.onHotWallet?.(blockchainId);
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
  if (await payoutsHalted(deps.db, blockchainId)) throw new Error(`payouts on ${blockchainId} are halted (a block held as final changed): nothing is signed there until an operator resumes them`);
  await ensureNonceSequence(deps, outgoing);
  const prepared = await outgoing.prepareGasTopUp(to, value);
  const [row] = await signAndStore(deps, outgoing, [{ prepared, purpose: 'gas_top_up', withdrawalId: null, toAddress: to }]);
  const { taken, failures } = await broadcastBatch(deps, outgoing, [row!], { logger: defaultLogger, stalls: new Stalls() });
  if (!taken.has(row!.id)) throw failures[0] ?? new Error(`the gas top-up ${row!.tx_hash} is stored but no node took it yet`);
  return row!.tx_hash;
}
