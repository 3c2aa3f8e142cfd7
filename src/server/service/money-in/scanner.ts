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
 * A round (steps 1 to 3 here, 4 to 6 in ./follow.ts; ./loop.ts runs the rounds):
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
 *    operator runs `paylink chain resume` (./resume.ts). `verifyChainIdentity` (./identity.ts)
 *    checks the same at start.
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
import type { ChainAdapter, IncomingChain, ObservedTransfer } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { payoutsHalted } from '../alerts/index.js';
import { advanceCursor, createCursor, findIncoming, readCursor, readNetworkRecord, recordChainId, recordCheckpoint, watchedAddresses } from './repository.js';

import { createTransferFollower } from './follow.js';
import { recordObservedTransfers, recordTransfer, scannedNetwork } from './transfers.js';
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

  const { follow, finalize, credit, violatedFinality, halt } = createTransferFollower(deps, incoming, logger);

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
        logger.warn(
          'scanner_nodes_lagging',
          'the nodes’ latest block is below one already seen: waiting for them to catch up (a lagging node, or a chain that went back)',
          {
            blockchainId: network,
            latest,
            seen: floorSeen,
          },
        );
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
