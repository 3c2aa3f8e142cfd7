/**
 * Payouts on a real chain (money out), in batches: one nonce and one stored signed transaction per
 * withdrawal, broadcast and followed until it has its confirmations. Each round works on every
 * network with a hot wallet at once, and on each in three stages:
 *
 *   1. prepare, sign and store the batch (./store.ts);
 *   2. broadcast it (./broadcast.ts);
 *   3. follow what is unfinished to its confirmations (./follow.ts).
 *
 * At start the worker's first round follows every unfinished transaction: the reconciliation of
 * what a crash or a node outage left pending.
 *
 * A network whose payouts are halted (`payoutsHalted`: a block held as final changed) is left alone:
 * nothing is claimed, signed, sent or followed there, and its withdrawals say `chain_halted`. Why a
 * payout waits is gathered during a round and written at its end, only where it changed (./waits.ts).
 */
import type { ChainAdapter, OutgoingChain } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { defaultLogger } from '../../log.js';
import { payoutsHalted } from '../alerts/index.js';
import { type ClaimedWithdrawal, markHalted, releaseClaim } from '../withdrawals/index.js';
import { claimUnfinished, withLiveTransaction } from './repository.js';
import { Stalls } from './waits.js';
import { type Deps, outgoingOf, payingNetworks, REBROADCAST_MS, type Round, type StoredPayoutOptions } from './context.js';
import { ensureNonceSequence, signAndStore, storeBatch } from './store.js';
import { broadcastBatch } from './broadcast.js';
import { followBatch } from './follow.js';

export { WAIT_ALARM_MS } from './waits.js';

/**
 * One network's part of a round: its fresh payouts are stored and broadcast while what is due of the
 * earlier ones is followed (the receipts of the batch before this one are read as this one is
 * signed), so a burst of withdrawals flows through batch after batch without waiting for itself.
 */
async function payNetwork(
  deps: Deps,
  outgoing: OutgoingChain,
  fresh: readonly ClaimedWithdrawal[],
  options: StoredPayoutOptions & { limit?: number },
  round: Round,
): Promise<number> {
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
  const live = await withLiveTransaction(
    deps.db,
    claimed.map((withdrawal) => withdrawal.id),
  );
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
  if (await payoutsHalted(deps.db, blockchainId))
    throw new Error(`payouts on ${blockchainId} are halted (a block held as final changed): nothing is signed there until an operator resumes them`);
  await ensureNonceSequence(deps, outgoing);
  const prepared = await outgoing.prepareGasTopUp(to, value);
  const [row] = await signAndStore(deps, outgoing, [{ prepared, purpose: 'gas_top_up', withdrawalId: null, toAddress: to }]);
  const { taken, failures } = await broadcastBatch(deps, outgoing, [row!], { logger: defaultLogger, stalls: new Stalls() });
  if (!taken.has(row!.id)) throw failures[0] ?? new Error(`the gas top-up ${row!.tx_hash} is stored but no node took it yet`);
  return row!.tx_hash;
}
