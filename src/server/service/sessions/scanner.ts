/**
 * Money in on a real chain: the scanner reads the Transfer logs of the configured tokens to the
 * deposit addresses of checkout sessions, follows each transfer's confirmations, and credits it once
 * it has `PAYLINK_EVM_CONFIRMATIONS` of them, through the same settlement as the sandbox
 * (./settlement.ts). Every instance may run one per network; the database decides.
 *
 * A node's answer is evidence, not truth: a node behind a load balancer may answer `[]` for the newest
 * blocks' logs, or `null` for a receipt or a block it has just announced, for minutes. Nothing is
 * concluded from an empty or null answer; only a block hash proves a reorg.
 *
 * A round:
 * 1. Reads the chain's tip, then the watched addresses (every session not settled, and those whose
 *    quote ran out within `lateWindowMs`, so late and extra payments are seen; on every network,
 *    whatever network the session was quoted on: a deposit address is the same on all of them), then
 *    the logs of the new blocks, from the stored cursor up to the tip, at most `maxBlocksPerRound`
 *    blocks. The tip is read before the addresses: a session created after that read cannot have
 *    been paid in a block up to that tip.
 * 2. In ONE short transaction: records each transfer not seen before (`incoming_transfers`, keyed by
 *    network + hash + token + recipient + ordinal), turns its session `confirming` when it arrived in
 *    time (its block's time before the quote ran out), and advances the cursor. A crash anywhere
 *    before the commit leaves the cursor where it was: the next round reads the same blocks again,
 *    and what was recorded is recognised, so nothing is missed and nothing counted twice.
 * 3. Re-reads the blocks that are not final yet: from the network's last finalized checkpoint up to
 *    the cursor, a sweep started at each new tip (with the finalized block of that moment) and read
 *    `rereadRangesPerRound` ranges of the width the nodes accept per round, until it reaches the
 *    cursor. A transfer a node hid (an empty `eth_getLogs`) shows in a later sweep, and is recorded
 *    then, once. When a sweep ends, every block up to its finalized block has been read after it was
 *    final: that block becomes the checkpoint, and the next sweep starts above it. Blocks the forward
 *    read finds final already (catching up from far behind) need no sweep.
 * 4. Follows the waiting transfers: a block hash at a transfer's height that is another than the one
 *    it was seen in proves a reorg, and the transfer is re-checked by its receipt: moved to another
 *    block (followed there), back in the mempool (0 confirmations), or gone (never credited; its
 *    session goes back to what it was). A null hash or a null receipt proves nothing: the transfer
 *    waits for the next round. At N confirmations the transfer is re-checked by its receipt once more
 *    and credited, in one transaction with its row's new status, so it is credited exactly once, by
 *    whichever instance gets its row lock.
 * 5. Follows every credited transfer until its block is final (the network's finalized block, see
 *    `IncomingChain.finalizedBlock`): its funds wait in the balance's `pending` until then, and move
 *    to `available` (./finality.ts); the session whose money is then all final is `finalizedAt`. One
 *    that a reorg took back before that (proven by its block's hash) is reversed: its own ledger
 *    entry, its session `reversed`, a `payment.reversed` webhook, and a line in the log (code
 *    `payment_reversed`).
 * 6. Holds the chain to what the database holds as final: the checkpoint, and the blocks of credited
 *    transfers that became final above it. A node that reports another hash at one of them means a
 *    reorganization past finality: payouts on the network halt (the `chain_finality_violated` alert,
 *    which the payout worker obeys, and an error line of that code), the checkpoint stays where it was
 *    (never overwritten by a chain that disagrees with it), and money in is still scanned, until an
 *    operator runs `paylink chain resume` (./resume.ts). `verifyChainIdentity` checks the same at start.
 *
 * No transaction is ever held across a node call. While the node is down, slow or failing, rounds
 * fail and are retried with backoff (one log line when it starts, one when it ends, with how long it
 * lasted): sessions stay `confirming` or `awaiting_payment` (they do not expire until every network's
 * scanner has read past their expiry, see `expireDue`), and the scanner catches up when the node is back.
 *
 * Amounts: a token may have more digits than the ledger's 6 (BSC's USDT has 18). A transfer is
 * credited with its amount rounded DOWN to 0.000001: never more than was received. The dust below
 * that stays at the deposit address and reaches the hot wallet with `paylink sweep` (the operator's,
 * not the merchant's). A transfer smaller than 0.000001 is recorded as `ignored` and credits nothing;
 * so is a transfer of another configured token than the session's asset.
 */
import { randomUUID } from 'node:crypto';
import { toDecimalString } from '../../../core/money.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import { OPEN_STATUSES } from '../../../core/rules/session.js';
import type { ChainAdapter, IncomingChain, NetworkChain, ObservedTransfer } from '../../chain/types.js';
import type { Database, Queryable } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { payoutsHalted, raiseAlert } from '../alerts/index.js';
import { recordEvent } from '../events/index.js';
import { lockOrderForPayment } from '../orders/index.js';
import { finalizeCredit, reverseCredit } from './finality.js';
import {
  advanceCursor,
  closeWaiting,
  createCursor,
  creditedUnfinal,
  finalCreditBlocks,
  findIncoming,
  lockSessionById,
  lockSessionForScan,
  lockWaiting,
  moveWaiting,
  othersWaitingInTime,
  readCursor,
  readNetworkRecord,
  recordChainId,
  recordCheckpoint,
  recordSeen,
  setConfirmations,
  setSessionStatus,
  waitingTransfers,
  watchedAddresses,
  type WaitingTransfer,
} from './incoming-repository.js';
import { orderOfSession } from './repository.js';
import { settleTransfer } from './settlement.js';
import { runtimeMetrics } from '../../metrics/runtime.js';

export interface ChainScannerOptions {
  /** The network to scan (default: the chain's first). `startChainScanner` runs one scanner per network. */
  network?: string | undefined;
  /** How often a caught-up scanner looks for new blocks, in ms (default: the chain's `pollMs`). */
  pollMs?: number | undefined;
  /** Most new blocks read in one round while catching up (default 2000). */
  maxBlocksPerRound?: number | undefined;
  /**
   * Most `eth_getLogs` ranges (each as wide as the nodes accept) a round spends re-reading blocks that
   * are not final yet (default 2).
   */
  rereadRangesPerRound?: number | undefined;
  /** How long after its quote ran out a session's address is still watched, in ms (default 24 h). */
  lateWindowMs?: number | undefined;
  /** Longest wait between rounds while the node fails, in ms (default 2 s): also how late the end of an outage may be noticed. */
  maxBackoffMs?: number | undefined;
}

export interface ChainScanner {
  /** One round (tests drive the scanner by hand with it); resolves with whether it reached the tip. */
  runOnce(): Promise<{ caughtUp: boolean }>;
  /** Stops the loop; resolves once the round in flight has finished. */
  stop(): Promise<void>;
}

export interface ScannerDeps {
  db: Database;
  chain: ChainAdapter;
  now: () => Date;
  /** Where the scanner's lines go (one JSON object each, with a code); default stderr. */
  logger?: Logger | undefined;
}

/** Most integer digits an amount may have to fit the ledger's NUMERIC(30, 6). */
const MAX_INTEGER_DIGITS = 24;

/**
 * `amount` (all of the token's digits) rounded down to the ledger's 6 decimals; null when that is
 * 0 or too large for the ledger.
 */
export function creditableAmount(amount: string): string | null {
  const exact = toDecimalString(amount);
  if (exact === null) return null;
  const [whole = '0', fraction = ''] = exact.split('.');
  if (whole.length > MAX_INTEGER_DIGITS) return null;
  const kept = fraction.slice(0, CRYPTO_DIGITS).replace(/0+$/, '');
  const value = kept ? `${whole}.${kept}` : whole;
  return /^0(\.0*)?$/.test(value) ? null : value;
}

/** A waiting (or credited) row as the chain adapter re-checks it. */
export function observedOf(row: WaitingTransfer, blockchainId: string): ObservedTransfer {
  return {
    blockchainId,
    assetId: row.asset_id,
    token: row.token_address,
    from: row.from_address,
    to: row.to_address,
    amount: row.amount,
    txHash: row.tx_hash,
    logIndex: row.log_index,
    ordinal: row.ordinal,
    blockNumber: row.block_number ?? 0,
    // A transfer back in the mempool has no block: any block it is found in counts as "moved".
    blockHash: row.block_hash ?? '0x',
    blockTime: row.block_time,
  };
}

/** The network a scanner reads: `network`, or the first. Throws on the sandbox, which has none. */
function scannedNetwork(chain: ChainAdapter, network: string | undefined): NetworkChain {
  if (chain.kind !== 'real') throw new Error('this chain has no scanner (the sandbox credits simulated transfers at once)');
  const found = network === undefined ? chain.chains[0] : chain.chains.find((c) => c.blockchainId === network);
  if (!found) throw new Error(`no network ${network} to scan`);
  return found;
}

/** Records one transfer seen on its network, and makes its session `confirming` if it came in time. */
async function recordTransfer(tx: Queryable, transfer: ObservedTransfer, latest: number, now: Date): Promise<boolean> {
  const session = await lockSessionForScan(tx, transfer.blockchainId, transfer.to);
  if (!session) return false;
  if (session.asset_id !== transfer.assetId) return false; // another token than the session's: not a payment of it
  const id = await recordSeen(tx, session.id, transfer, randomUUID(), now);
  if (id === null) return false;
  await setConfirmations(tx, id, Math.max(0, latest - transfer.blockNumber + 1), now);
  const inTime = transfer.blockTime.getTime() < session.expires_at.getTime();
  if (inTime && OPEN_STATUSES.has(session.status)) await setSessionStatus(tx, session.id, session.status, 'confirming', now);
  if (inTime || session.status === 'confirming') await recordEvent(tx, { type: 'session.changed', sessionId: session.id });
  return true;
}

/**
 * Records transfers to deposit addresses, in the caller's transaction `tx`, the way the scanner
 * records what it reads: each at most once (by network + transaction hash + token + recipient +
 * ordinal, whatever its log index), its session made `confirming` when it came in time; from there the
 * network's scanner follows it and credits it once at its confirmations (re-checked by its receipt),
 * then to finality. `latest` is the tip its confirmations are counted from. Resolves with how many were
 * new. For transfers found another way than the scanner's reads (reconciliation's, traced from a
 * deposit address's balance and its block's receipts): recording one the scanner saw too changes nothing.
 */
export async function recordObservedTransfers(tx: Queryable, transfers: readonly ObservedTransfer[], latest: number, now: Date): Promise<number> {
  let count = 0;
  for (const transfer of transfers) if (await recordTransfer(tx, transfer, latest, now)) count++;
  return count;
}

/** A re-read of the blocks that are not final: from `next` to `end`, started when `final` was the finalized block. */
interface Sweep {
  next: number;
  end: number;
  final: { number: number; hash: string };
}

/** The scanner of one network; `startChainScanner` runs one per network in a loop. */
export function createChainScanner(
  deps: ScannerDeps,
  options: ChainScannerOptions = {},
): ChainScanner & { readonly incoming: IncomingChain; creditFound(transfer: ObservedTransfer, latest: number): Promise<string> } {
  const incoming = scannedNetwork(deps.chain, options.network).incoming;
  const { db } = deps;
  const network = incoming.blockchainId;
  const required = incoming.confirmations;
  const maxBlocks = Math.max(1, options.maxBlocksPerRound ?? 2_000);
  const rereadRanges = Math.max(1, options.rereadRangesPerRound ?? 2);
  // A new cursor starts this far below the tip, so the first round sees the latest payments.
  const startDepth = Math.max(required, 12);
  const lateWindowMs = options.lateWindowMs ?? 24 * 60 * 60 * 1000;
  const logger = deps.logger ?? defaultLogger;
  /** The tip (number and hash) of the last round that followed the transfers; at the same tip nothing can have moved. */
  let followedAt = '';
  /** The tip at which the last sweep started: one sweep per new tip. */
  let sweptAt = '';
  /** The highest head the nodes showed: a lower one later is a lagging node's, not the chain's. */
  let highestSeen = 0;
  /** When the nodes were last reported lagging (one line a minute). */
  let laggingReportedAt = 0;
  /** Every block up to it has been read after it was final (undefined before the first round). */
  let floor: number | undefined;
  let sweep: Sweep | null = null;
  /** The finalized block as last read (again at each new tip, and while catching up). */
  let final: { number: number; hash: string } | undefined;

  /** Records `transfers` in one transaction; with `cursor`, moves the cursor past block `cursor.to` in it too. */
  const record = async (transfers: readonly ObservedTransfer[], latest: number, cursor?: { to: number; coveredUntil: Date | null }) =>
    db.transaction(async (tx) => {
      // Rounds of several instances take turns here; each one's records are idempotent anyway.
      await readCursor(tx, network, { lock: true });
      const now = deps.now();
      const count = await recordObservedTransfers(tx, transfers, latest, now);
      if (cursor) await advanceCursor(tx, network, cursor.to + 1, cursor.coveredUntil, now);
      return count;
    });

  /**
   * Steps 1 to 3: reads the new blocks and a part of the blocks that are not final yet (in one query
   * where the rest of a sweep fits this round's share), and records what they hold. Resolves with the
   * finalized block of a sweep that ended (every block up to it has now been read after it was final).
   */
  const scan = async (
    cursor: { nextBlock: number } | undefined,
    latest: number,
    tipChanged: boolean,
    startedAt: Date,
  ): Promise<{ caughtUp: boolean; recorded: number; swept?: Sweep['final'] }> => {
    if (!cursor) {
      await createCursor(db, network, Math.max(0, latest + 1 - startDepth), startedAt);
      cursor = (await readCursor(db, network))!;
      floor = cursor.nextBlock - 1; // nothing below a new cursor is watched
    }
    const from = cursor.nextBlock;
    const to = Math.min(latest, from + maxBlocks - 1);
    const caughtUp = to >= latest;
    if (final === undefined || tipChanged || !caughtUp) final = await incoming.finalizedBlock(latest);
    if (floor === undefined) {
      // From the last checkpoint; without one (a database from before checkpoints), from the final block.
      const checkpoint = (await readNetworkRecord(db, network))?.checkpoint;
      floor = checkpoint && checkpoint.block < from ? checkpoint.block : Math.min(from - 1, final.number);
    }
    if (!sweep && tipChanged && floor < from - 1) sweep = { next: floor + 1, end: from - 1, final };
    const addresses = await watchedAddresses(db, new Date(startedAt.getTime() - lateWindowMs));
    const read = async (fromBlock: number, toBlock: number) => (addresses.length ? incoming.transfers({ fromBlock, toBlock, addresses }) : []);
    const share = rereadRanges * Math.max(1, incoming.logRangeWidth());
    let recorded = 0;
    let sweptTo: number | undefined;
    if (sweep && sweep.end - sweep.next + 1 <= share) {
      // The rest of the sweep and the new blocks (and any read since the sweep began): one range, read together.
      const last = Math.max(sweep.end, to);
      recorded += await record(await read(sweep.next, last), latest, { to: Math.max(from - 1, to), coveredUntil: caughtUp ? startedAt : null });
      sweptTo = last;
    } else {
      if (sweep) {
        const end = sweep.next + share - 1;
        recorded += await record(await read(sweep.next, end), latest);
        sweep.next = end + 1;
      }
      if (from <= to) {
        recorded += await record(await read(from, to), latest, { to, coveredUntil: caughtUp ? startedAt : null });
        // Blocks read while already final need no re-reading (a scanner catching up from far behind).
        if (!sweep && floor === from - 1 && to <= final.number) floor = to;
      } else {
        // Nothing new: every transfer mined before the round began is at or below the tip, read already.
        await advanceCursor(db, network, from, startedAt, deps.now());
      }
    }
    runtimeMetrics.scannerLag(network, latest - to);
    if (sweptTo === undefined || !sweep) return { caughtUp, recorded };
    const done = sweep.final;
    sweep = null;
    floor = Math.max(floor, Math.min(done.number, sweptTo));
    return { caughtUp, recorded, swept: done.number <= sweptTo ? done : undefined };
  };

  /** Ends a waiting transfer that will not be credited, and puts its session back when nothing else is waiting. */
  const dropTransfer = async (row: WaitingTransfer, status: 'gone' | 'ignored') => {
    await db.transaction(async (tx) => {
      const now = deps.now();
      const session = await lockSessionById(tx, row.session_id);
      if (!(await closeWaiting(tx, row.id, status, now)) || !session) return;
      if (session.status === 'confirming' && !(await othersWaitingInTime(tx, session.id, row.id))) {
        const before = Number(session.paid_amount) > 0 ? 'underpaid' : 'awaiting_payment';
        await setSessionStatus(tx, session.id, 'confirming', before, now);
      }
      await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
    });
  };

  /** Credits a transfer with its N confirmations, once. */
  const credit = async (row: WaitingTransfer, current: ObservedTransfer) => {
    const amount = creditableAmount(row.amount);
    if (amount === null) {
      logger.info('transfer_below_ledger_unit', 'a transfer below 0.000001 (or beyond the ledger) was recorded, not credited', {
        blockchainId: network,
        txHash: row.tx_hash,
        assetId: row.asset_id,
        amount: row.amount,
      });
      return dropTransfer(row, 'ignored');
    }
    await db.transaction(async (tx) => {
      // Its order (if any), the session, then the transfer: the order every path takes, so instances never deadlock.
      const orderId = await orderOfSession(tx, row.session_id);
      if (orderId) await lockOrderForPayment(tx, orderId);
      await lockSessionById(tx, row.session_id);
      const locked = await lockWaiting(tx, row.id);
      if (!locked) return; // credited (or dropped) by another instance meanwhile
      const othersConfirming = await othersWaitingInTime(tx, row.session_id, row.id);
      const transferId = randomUUID();
      const settled = await settleTransfer(
        tx,
        {
          blockchainId: network,
          txHash: current.txHash,
          logIndex: current.logIndex,
          assetId: row.asset_id,
          toAddress: row.to_address,
          amount,
          sandbox: false,
          arrivedAt: row.block_time,
        },
        deps.now(),
        { othersConfirming, transferId },
      );
      if (settled.duplicate) {
        // Already credited under this hash and log index (no path leads here; never credit twice).
        logger.error('transfer_credited_already', 'a transfer was credited already under its hash and log index: not again', {
          blockchainId: network,
          txHash: current.txHash,
          logIndex: current.logIndex,
        });
        await closeWaiting(tx, row.id, 'ignored', deps.now());
        return;
      }
      await closeWaiting(tx, row.id, 'credited', deps.now(), transferId);
    });
  };

  /** The hash of block `number` as the node has it now (null: it has none), read once per round. */
  const hashAt = async (hashes: Map<number, string | null>, number: number) => {
    if (!hashes.has(number)) hashes.set(number, await incoming.blockHash(number));
    return hashes.get(number)!;
  };

  /** Says that the node answered nothing for a transfer its block still holds: it waits. */
  const unanswered = (row: WaitingTransfer) =>
    logger.throttled('warn', 'transfer_receipt_missing', 'the node has no receipt for a transfer whose block it still holds: it waits, credited once the node answers', {
      blockchainId: network,
      txHash: row.tx_hash,
      block: row.block_number ?? undefined,
    }, 60_000);

  /** Step 5: finalizes the credited transfers the final block has passed, and reverses those a reorg took back. */
  const finalize = async (latest: number, finalBlock: number, hashes: Map<number, string | null>) => {
    for (const row of await creditedUnfinal(db, network, 1_000)) {
      const block = row.block_number;
      if (block !== null && block > latest) continue; // above what this node shows: nothing to conclude
      const now = block === null ? undefined : await hashAt(hashes, block);
      if (now === null) continue; // the node has no block there (for now): proves nothing
      if (now === row.block_hash) {
        if (block! <= finalBlock) await db.transaction((tx) => finalizeCredit(tx, row.transfer_id, deps.now()));
        continue;
      }
      // Another block at its height, or none since a reorg: where is the transfer now?
      const check = await incoming.recheck(observedOf(row, network), { latestBlock: latest });
      if (check.status === 'gone') {
        const reversed = await db.transaction((tx) => reverseCredit(tx, row.transfer_id, deps.now()));
        if (reversed) {
          logger.error('payment_reversed', 'a credited payment is no longer on the chain (a reorg took it back before it was final): reversed, its funds taken out of the pending balance', {
            blockchainId: network,
            sessionId: reversed.session_id,
            transferId: reversed.id,
            txHash: row.tx_hash,
            assetId: reversed.asset_id,
            amount: reversed.amount,
          });
        }
      } else {
        const moved = check.status === 'mined' ? check.transfer : undefined;
        await db.transaction((tx) =>
          moveWaiting(
            tx,
            row.id,
            { logIndex: moved?.logIndex ?? row.log_index, blockNumber: moved?.blockNumber ?? null, blockHash: moved?.blockHash ?? null, confirmations: check.status === 'mined' ? check.confirmations : 0 },
            deps.now(),
            'credited',
          ),
        );
      }
    }
  };

  /** Step 4: follows every waiting transfer at the tip `latest`. */
  const follow = async (latest: number, hashes: Map<number, string | null>) => {
    for (const row of await waitingTransfers(db, network, 1_000)) {
      const block = row.block_number;
      if (block !== null && block > latest) continue; // above what this node shows: nothing to conclude
      const now = block === null ? undefined : await hashAt(hashes, block);
      if (now === null) continue; // the node has no block there (for now): proves nothing
      const inPlace = block !== null && now === row.block_hash;
      const confirmations = inPlace ? latest - block + 1 : 0;
      if (inPlace && confirmations < required) {
        await db.transaction(async (tx) => {
          if (await setConfirmations(tx, row.id, confirmations, deps.now())) await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
        });
        continue;
      }
      // N confirmations (re-checked by the receipt before crediting), or a reorg proven by the hash.
      const check = await incoming.recheck(observedOf(row, network), { latestBlock: latest });
      if (check.status !== 'mined' && inPlace) {
        // Its block is still there, with its log: the node's "no receipt" is the node's, not the chain's.
        unanswered(row);
      } else if (check.status === 'gone') {
        await dropTransfer(row, 'gone');
      } else if (check.status === 'pending') {
        await db.transaction(async (tx) => {
          await moveWaiting(tx, row.id, { logIndex: row.log_index, blockNumber: null, blockHash: null, confirmations: 0 }, deps.now());
          await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
        });
      } else if (check.confirmations >= required) {
        await credit(row, check.transfer);
      } else {
        const moved = check.transfer;
        await db.transaction(async (tx) => {
          await moveWaiting(tx, row.id, { logIndex: moved.logIndex, blockNumber: moved.blockNumber, blockHash: moved.blockHash, confirmations: check.confirmations }, deps.now());
          await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
        });
      }
    }
  };

  /**
   * Step 6: the blocks the database holds as final, against the node. Resolves with the first one the
   * node reports with another hash, or undefined (a block the node has not, or not yet, proves nothing).
   */
  const violatedFinality = async (latest: number, hashes: Map<number, string | null>, checkpoint: { block: number; hash: string } | null) => {
    if (!checkpoint) return undefined;
    const held = [checkpoint, ...(await finalCreditBlocks(db, network, checkpoint.block))];
    for (const block of held) {
      if (block.block > latest) continue;
      const now = await hashAt(hashes, block.block);
      if (now !== null && now !== block.hash) return { block: block.block, heldHash: block.hash, nodeHash: now };
    }
    return undefined;
  };

  /** Halts payouts on the network: a block held as final has another hash on the node. */
  const halt = async (violation: { block: number; heldHash: string; nodeHash: string }) => {
    const message =
      `Block ${violation.block}, which this service held as final on ${network}, now has another hash on the node: the chain was reorganized past finality. ` +
      `Payouts on ${network} are halted; money in is still scanned. Look at what happened, then run: paylink chain resume --network ${network}`;
    const raised = await raiseAlert(db, { blockchainId: network, code: 'chain_finality_violated', message, detail: violation }, deps.now());
    if (raised) logger.error('chain_finality_violated', message, { blockchainId: network, ...violation });
  };

  const runOnce = async () => {
    // The service's clock before the tip: every transfer mined before `startedAt` is at or below it.
    const startedAt = deps.now();
    const latest = await incoming.latestBlock();
    const cursor = await readCursor(db, network);
    // A head below what was seen or read already is a node that lags (or a reorg to a shorter
    // chain, which new blocks soon cover): nothing is judged against it, and the cursor stays.
    const floorSeen = Math.max(highestSeen, (cursor?.nextBlock ?? 0) - 1);
    if (latest < floorSeen) {
      if (Date.now() - laggingReportedAt > 60_000) {
        laggingReportedAt = Date.now();
        logger.warn('scanner_nodes_lagging', 'the nodes’ latest block is below one already seen: waiting for them to catch up (a lagging node, or a chain that went back)', {
          blockchainId: network,
          latest,
          seen: floorSeen,
        });
      }
      return { caughtUp: true };
    }
    highestSeen = latest;
    // The tip's hash names the chain's state: at the same tip with nothing new, nothing can have moved.
    const tip = `${latest}:${await incoming.blockHash(latest)}`;
    const tipChanged = tip !== sweptAt;
    const { caughtUp, recorded, swept } = await scan(cursor, latest, tipChanged, startedAt);
    if (tipChanged) sweptAt = tip;
    if (recorded > 0 || tip !== followedAt || swept) {
      // Block hashes read once per round, shared by every step.
      const hashes = new Map<number, string | null>();
      await follow(latest, hashes);
      await finalize(latest, final!.number, hashes);
      if (!(await payoutsHalted(db, network))) {
        let record = await readNetworkRecord(db, network);
        if (!record) {
          await recordChainId(db, network, incoming.chainId, deps.now());
          record = await readNetworkRecord(db, network);
        }
        const checkpoint = record?.checkpoint ?? null;
        const violation = await violatedFinality(latest, hashes, checkpoint);
        if (violation) await halt(violation);
        // The checkpoint moves only along a chain that still has it.
        else if (swept && (!checkpoint || checkpoint.block < swept.number)) {
          await recordCheckpoint(db, network, checkpoint, { block: swept.number, hash: swept.hash }, deps.now());
        }
      }
      followedAt = tip;
    }
    return { caughtUp };
  };

  /**
   * Records and credits `transfer`, found in a final block outside the rounds (reconciliation reads it
   * from the block's receipts), through a round's own steps: recorded once under its identity, credited
   * once under its row's lock, so whichever of a round, a reconciliation or another instance gets there
   * first credits it and the others find it done. `latest` is the tip it is judged at. Resolves with its
   * record's status now (`credited`, `ignored`: below 0.000001, …), or `unknown` when no session of this
   * network is paid at its address in its asset (not a payment of any).
   */
  const creditFound = async (transfer: ObservedTransfer, latest: number): Promise<string> => {
    await db.transaction((tx) => recordTransfer(tx, transfer, latest, deps.now()));
    const row = await findIncoming(db, network, transfer);
    if (row?.status === 'seen') await credit(row, transfer);
    return (await findIncoming(db, network, transfer))?.status ?? 'unknown';
  };

  return { incoming, runOnce, creditFound, stop: async () => {} };
}

/**
 * Runs a scanner for every network of `deps.chain` (or only `options.network`) until `stop()`; each
 * network's loop is its own, so a failing node of one network never holds another back.
 * `runOnce` runs one round of each.
 */
export function startChainScanner(deps: ScannerDeps, options: ChainScannerOptions = {}): ChainScanner {
  if (deps.chain.kind !== 'real') throw new Error('this chain has no scanner (the sandbox credits simulated transfers at once)');
  const networks = options.network === undefined ? deps.chain.chains.map((c) => c.blockchainId) : [options.network];
  const scanners = networks.map((network) => startNetworkScanner(deps, { ...options, network }));
  return {
    async runOnce() {
      const rounds = await Promise.all(scanners.map((scanner) => scanner.runOnce()));
      return { caughtUp: rounds.every((round) => round.caughtUp) };
    },
    async stop() {
      await Promise.all(scanners.map((scanner) => scanner.stop()));
    },
  };
}

/**
 * Runs the scanner of one network until `stop()`: a round every `pollMs` once caught up, rounds
 * back to back while catching up, and a doubling wait (up to `maxBackoffMs`) while the node fails.
 * An outage is measured on the service's clock from the start of the first round that failed to the
 * start of the first that worked (so it is at most the wait between rounds too long).
 */
function startNetworkScanner(deps: ScannerDeps, options: ChainScannerOptions): ChainScanner {
  const scanner = createChainScanner(deps, options);
  const logger = deps.logger ?? defaultLogger;
  const network = scanner.incoming.blockchainId;
  const pollMs = options.pollMs ?? scanner.incoming.pollMs;
  const maxBackoffMs = options.maxBackoffMs ?? 2_000;
  let running = true;
  let wake: (() => void) | null = null;
  let failingSince: Date | null = null;
  let backoff = pollMs;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });

  const loop = (async () => {
    while (running) {
      let delay = pollMs;
      const roundStarted = deps.now();
      try {
        const { caughtUp } = await scanner.runOnce();
        if (failingSince !== null) {
          const outageSeconds = Math.max(0, Math.round((roundStarted.getTime() - failingSince.getTime()) / 100) / 10);
          logger.info('scanner_node_recovered', `the node answers again after ${outageSeconds} s; catching up`, { blockchainId: network, outageSeconds, since: failingSince.toISOString() });
          failingSince = null;
        }
        backoff = pollMs;
        if (!caughtUp) delay = 0;
      } catch (error) {
        if (!running) break;
        runtimeMetrics.nodeError(scanner.incoming.blockchainId, error);
        if (failingSince === null) {
          failingSince = roundStarted;
          logger.warn('scanner_node_unavailable', 'a scanner round failed (the node did not answer, or answered an error): payments stay confirming or awaiting payment until it recovers; retrying', {
            blockchainId: network,
            error,
          });
        }
        backoff = Math.min(Math.max(backoff * 2, 50), maxBackoffMs);
        delay = backoff;
      }
      if (running && delay > 0) await sleep(delay);
    }
  })();

  return {
    runOnce: scanner.runOnce,
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}

/**
 * The database belongs to another chain than the node's (another chain id, or the same id with other
 * blocks: a reset local chain, a replaced testnet), or the chain was reorganized past a block the
 * database held as final. The message names the network, what the database holds, what the node
 * serves, and the way out.
 */
export class ChainIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainIdentityError';
  }
}

/**
 * Checks, before anything reads or sends on it, that each network's node serves the chain this
 * database was used with: the same chain id, and the blocks it holds as final (its checkpoint, and the
 * blocks of credited transfers that became final above it) with the same hashes. A network the
 * database has not seen yet is recorded. Throws `ChainIdentityError` naming the problem: on another
 * chain new payments would be missed for good and payouts would wait on a nonce gap; after a
 * reorganization past finality, money the ledger holds as final may be gone. A final block with
 * another hash raises the `chain_finality_violated` alert (payouts on the network halt) before it
 * throws; a network halted so refuses until `paylink chain resume`. The node's own errors (down,
 * slow) are thrown as they are.
 */
export async function verifyChainIdentity(deps: Pick<ScannerDeps, 'db' | 'chain' | 'now' | 'logger'>): Promise<void> {
  if (deps.chain.kind !== 'real') return;
  const logger = deps.logger ?? defaultLogger;
  const wayOut = (network: string) =>
    `Point the node setting of ${network} (its *_RPC_URL) at the chain this database was used with, or start the service on a fresh database (another --data-dir or --database-url).`;
  const resume = (network: string) =>
    `If the node is right, look at what the reorganization took back, then run: paylink chain resume --network ${network} (it reverses the credits that are gone and resumes payouts). If it is the wrong chain, point ${network}'s *_RPC_URL at the right one.`;
  for (const { blockchainId, incoming } of deps.chain.chains) {
    const record = await readNetworkRecord(deps.db, blockchainId);
    if (!record) {
      await recordChainId(deps.db, blockchainId, incoming.chainId, deps.now());
      continue;
    }
    if (record.chainId !== incoming.chainId) {
      throw new ChainIdentityError(
        `network ${blockchainId}: this database was used with chain ${record.chainId}, but the node serves chain ${incoming.chainId} (another chain). ${wayOut(blockchainId)}`,
      );
    }
    if (await payoutsHalted(deps.db, blockchainId)) {
      throw new ChainIdentityError(
        `network ${blockchainId}: payouts are halted: a block this database held as final has another hash on the node (a reorganization past finality, chain_finality_violated). ${resume(blockchainId)}`,
      );
    }
    if (!record.checkpoint) continue;
    const { block, hash } = record.checkpoint;
    const nodeHash = await incoming.blockHash(block);
    if (nodeHash === null) {
      const head = await incoming.latestBlock();
      throw new ChainIdentityError(
        `network ${blockchainId}: the node has no block ${block} (its latest is ${head}), which this database already read as final: the chain (id ${incoming.chainId}) was reset. ${wayOut(blockchainId)}`,
      );
    }
    const held = [{ block, hash }, ...(await finalCreditBlocks(deps.db, blockchainId, block))];
    for (const final of held) {
      const now = final.block === block ? nodeHash.toLowerCase() : await incoming.blockHash(final.block);
      if (now === null || now === final.hash) continue;
      const message = `network ${blockchainId}: the node's block ${final.block} is ${now}, but this database held ${final.hash} there as final: the chain was reorganized past finality (or this node serves another chain with the same id, ${incoming.chainId}). Payouts on ${blockchainId} are halted.`;
      const detail = { block: final.block, heldHash: final.hash, nodeHash: now };
      if (await raiseAlert(deps.db, { blockchainId, code: 'chain_finality_violated', message: `${message} Run: paylink chain resume --network ${blockchainId}`, detail }, deps.now())) {
        logger.error('chain_finality_violated', message, { blockchainId, ...detail });
      }
      throw new ChainIdentityError(`${message} ${resume(blockchainId)}`);
    }
  }
}
