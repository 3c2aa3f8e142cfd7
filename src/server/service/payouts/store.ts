/**
 * Payouts on a real chain, first stage: prepare, sign and store (./round.ts runs the stages).
 *
 * Sign and store the batch. The claimed withdrawals without a live transaction are prepared
 * together (one fee quote and every transfer's gas estimated, at once; a transfer that would revert
 * fails its withdrawal at once, funds returned, no nonce taken), and held against what the hot
 * wallet holds, read meanwhile: one it cannot pay waits, unsigned (`hot_wallet_token`,
 * `hot_wallet_gas`; ./hot-wallet.ts lets it go once the wallet is topped up). While the estimates run, the
 * batch is signed ahead (`presign`): drafts priced with the gas its token's transfers needed in the
 * batch before, with the nonces it will most likely take. Then, in ONE short transaction, under
 * the hot wallet's nonce lock (`payout_nonces … FOR UPDATE`, shared by every instance and by
 * `paylink sweep`): the batch's nonces are taken, each transfer is signed with its own (locally: no
 * node call; a signature made ahead is kept only where it was made for this very transaction and
 * nonce) and every signed transaction is stored with its hash, in one statement. Nonces follow each
 * other without gaps or twins however many instances run, and the lock is taken once a batch, not
 * once a payout.
 */
import { randomUUID } from 'node:crypto';
import { HotWalletShortError, type OutgoingChain, PayoutError, type PayoutRequest, type PreparedTransaction } from '../../chain/types.js';
import { type AssetId, roundDown, toUnits } from '../../../core/money.js';
import type { StalledReason } from '../../../core/schemas.js';
import { assetAmount } from '../ledger/index.js';
import { type ClaimedWithdrawal, lockForPayout, releaseClaim } from '../withdrawals/index.js';
import {
  hasNonceSequence,
  insertStored,
  lockNonce,
  peekNonce,
  seedNonce,
  type StoredTransaction,
  type TransactionPurpose,
  unsentPayouts,
  withLiveTransaction,
} from './repository.js';
import { presign, type Presigned, type TakenAhead } from './ahead.js';
import { finishPayout } from './finish.js';
import { logWait } from './waits.js';
import { type Deps, nodeUnavailable, type Round } from './context.js';

/** Starts the hot wallet's nonce sequence on `outgoing`'s network from the chain (`OutgoingChain.sequence`: its next place, what the nodes hold unmined included), once. */
export async function ensureNonceSequence(deps: Deps, outgoing: OutgoingChain): Promise<void> {
  if (await hasNonceSequence(deps.db, outgoing.blockchainId, outgoing.hotWallet)) return;
  await seedNonce(deps.db, outgoing.blockchainId, outgoing.hotWallet, await outgoing.sequence.next(), deps.now());
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
export async function signAndStore(
  deps: Deps,
  outgoing: OutgoingChain,
  items: readonly TransactionToStore[],
  presigned?: Presigned,
  sendLeaseMs = 0,
): Promise<StoredTransaction[]> {
  if (items.length === 0) return [];
  const { stored, next } = await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const first = await lockNonce(tx, outgoing.blockchainId, outgoing.hotWallet);
    if (first === undefined) throw new Error('the hot wallet has no nonce sequence yet (ensureNonceSequence)');
    const live = await withLiveTransaction(
      tx,
      items.flatMap((item) => (item.withdrawalId ? [item.withdrawalId] : [])),
    );
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
export async function storeBatch(
  deps: Deps,
  outgoing: OutgoingChain,
  claimed: readonly ClaimedWithdrawal[],
  round: Round,
  sendLeaseMs = 0,
): Promise<{ settled: number; rows: StoredTransaction[] }> {
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
    if (
      (await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now(), reason)) &&
      reason !== 'node_unavailable' &&
      withdrawal.stalled_reason !== reason
    ) {
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
    logWait(
      round.logger,
      `store ${outgoing.blockchainId}`,
      'error',
      'payout_store_failed',
      'payouts could not be signed and stored (the database?): they go back to the queue and are tried again',
      {
        blockchainId: outgoing.blockchainId,
        payouts: ready.length,
        error,
      },
    );
    for (const { withdrawal } of ready) await releaseClaim(deps.db, withdrawal.id, withdrawal.attempts, deps.now());
    return { settled, rows: [] };
  }
}
