/**
 * Money in on a real chain: the scanner reads the Transfer logs of the configured tokens
 * to the deposit addresses of checkout sessions, follows each transfer's confirmations, and credits
 * it once it has `PAYLINK_EVM_CONFIRMATIONS` of them, through the same settlement as the sandbox
 * (./settlement.ts). Every instance may run one; the database decides.
 *
 * A round:
 * 1. Reads the chain's tip, then the watched addresses (sessions not settled, and those whose quote
 *    ran out within `lateWindowMs`, so late and extra payments are seen), then the logs from the
 *    stored cursor (minus `rescanDepth` blocks: a reorg can bring a transfer into a block already
 *    read) up to the tip, at most `maxBlocksPerRound` blocks. The tip is read before the addresses:
 *    a session created after that read cannot have been paid in a block up to that tip.
 * 2. In ONE short transaction: records each transfer not seen before (`incoming_transfers`, keyed by
 *    network + hash + token + recipient + ordinal), turns its session `confirming` when it arrived in
 *    time (its block's time before the quote ran out), and advances the cursor. A crash anywhere
 *    before the commit leaves the cursor where it was: the next round reads the same blocks again,
 *    and what was recorded is recognised, so nothing is missed and nothing counted twice.
 * 3. Follows the waiting transfers: a block hash that changed means a reorg, and the transfer is
 *    re-checked by its receipt: moved to another block (followed there), back in the mempool (0
 *    confirmations), or gone (never credited; its session goes back to what it was). Confirmation
 *    counts are stored, and each change is a `session.changed` event (an SSE `status` event). At N
 *    confirmations the transfer is re-checked once more and credited, in one transaction with its
 *    row's new status, so it is credited exactly once, by whichever instance gets its row lock.
 *
 * 4. Follows every credited transfer until its block is final (the network's finalized block, see
 *    `IncomingChain.finalizedBlock`): its funds wait in the balance's `pending` until then, and move
 *    to `available` (./finality.ts). One that a reorg took back before that is reversed: its own
 *    ledger entry, its session `reversed`, a `payment.reversed` webhook, and a line in the log
 *    (code `payment_reversed`). The final block also becomes the network's checkpoint (its number
 *    and hash in `chain_networks`), which the service checks against the node at start
 *    (`verifyChainIdentity`).
 *
 * No transaction is ever held across a node call. While the node is down, slow or failing, rounds
 * fail and are retried with backoff (one log line when it starts, one when it ends): sessions stay
 * `confirming` or `awaiting_payment` (they do not expire until the scanner has read past their
 * expiry, see `expireDue`), and the scanner catches up when the node is back.
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
import { recordEvent } from '../events/index.js';
import { lockOrderForPayment } from '../orders/index.js';
import { finalizeCredit, reverseCredit } from './finality.js';
import {
  advanceCursor,
  closeWaiting,
  createCursor,
  creditedUnfinal,
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
  /** Most blocks read in one round while catching up (default 2000). */
  maxBlocksPerRound?: number | undefined;
  /** Blocks below the cursor read again each round (default: the confirmations, at least 12). */
  rescanDepth?: number | undefined;
  /** How long after its quote ran out a session's address is still watched, in ms (default 24 h). */
  lateWindowMs?: number | undefined;
  /** Longest wait between rounds while the node fails, in ms (default 10 s). */
  maxBackoffMs?: number | undefined;
  /** Where the scanner says that the node stopped or started answering (default: console.error). */
  log?: ((line: string) => void) | undefined;
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
  /** Where what the operator must know is logged (a reversed payment); default stderr. */
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

/** A waiting row as the chain adapter re-checks it. */
function observedOf(row: WaitingTransfer, blockchainId: string): ObservedTransfer {
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

/** The scanner of one network; `startChainScanner` runs one per network in a loop. */
export function createChainScanner(deps: ScannerDeps, options: ChainScannerOptions = {}): ChainScanner & { readonly incoming: IncomingChain } {
  const incoming = scannedNetwork(deps.chain, options.network).incoming;
  const { db } = deps;
  const network = incoming.blockchainId;
  const required = incoming.confirmations;
  const maxBlocks = Math.max(1, options.maxBlocksPerRound ?? 2_000);
  const rescanDepth = Math.max(0, options.rescanDepth ?? Math.max(required, 12));
  const lateWindowMs = options.lateWindowMs ?? 24 * 60 * 60 * 1000;
  const logger = deps.logger ?? defaultLogger;
  /** The tip at which every waiting transfer was last followed; a round at the same tip skips that. */
  let followedAt = '';
  /** The highest head the nodes showed: a lower one later is a lagging node's, not the chain's. */
  let highestSeen = 0;
  /** When the nodes were last reported lagging (one line a minute). */
  let laggingReportedAt = 0;

  /** Step 2 for one transfer: record it, and make its session `confirming` if it came in time. */
  const recordTransfer = async (tx: Queryable, transfer: ObservedTransfer, latest: number, now: Date): Promise<boolean> => {
    const session = await lockSessionForScan(tx, network, transfer.to);
    if (!session) return false;
    if (session.asset_id !== transfer.assetId) return false; // another token than the session's: not a payment of it
    const id = await recordSeen(tx, session.id, transfer, randomUUID(), now);
    if (id === null) return false;
    await setConfirmations(tx, id, Math.max(0, latest - transfer.blockNumber + 1), now);
    const inTime = transfer.blockTime.getTime() < session.expires_at.getTime();
    if (inTime && OPEN_STATUSES.has(session.status)) await setSessionStatus(tx, session.id, session.status, 'confirming', now);
    if (inTime || session.status === 'confirming') await recordEvent(tx, { type: 'session.changed', sessionId: session.id });
    return true;
  };

  /** Steps 1 and 2: reads new blocks and records what they hold. */
  const scan = async (): Promise<{ caughtUp: boolean; recorded: number; latest: number; behind?: number }> => {
    // The service's clock before the tip: every transfer mined before `startedAt` is at or below it.
    const startedAt = deps.now();
    const latest = await incoming.latestBlock();
    let cursor = await readCursor(db, network);
    if (!cursor) {
      await createCursor(db, network, Math.max(0, latest + 1 - rescanDepth), startedAt);
      cursor = (await readCursor(db, network))!;
    }
    // A head below what was seen or read already is a node that lags (or a reorg to a shorter
    // chain, which new blocks soon cover): nothing is judged against it, and the cursor stays.
    const floor = Math.max(highestSeen, cursor.nextBlock - 1);
    if (latest < floor) return { caughtUp: true, recorded: 0, latest, behind: floor };
    highestSeen = latest;
    const from = Math.max(0, cursor.nextBlock - rescanDepth);
    const to = Math.min(latest, cursor.nextBlock + maxBlocks - 1);
    if (from > to) return { caughtUp: true, recorded: 0, latest };
    const addresses = await watchedAddresses(db, network, new Date(startedAt.getTime() - lateWindowMs));
    const transfers = addresses.length ? await incoming.transfers({ fromBlock: from, toBlock: to, addresses }) : [];
    const caughtUp = to >= latest;
    const recorded = await db.transaction(async (tx) => {
      // Rounds of several instances take turns here; each one's records are idempotent anyway.
      await readCursor(tx, network, { lock: true });
      const now = deps.now();
      let count = 0;
      for (const transfer of transfers) if (await recordTransfer(tx, transfer, latest, now)) count++;
      await advanceCursor(tx, network, to + 1, caughtUp ? startedAt : null, now);
      return count;
    });
    runtimeMetrics.scannerLag(network, latest - to);
    return { caughtUp, recorded, latest };
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
      (options.log ?? console.error)(`[paylink] scanner: transfer ${row.tx_hash} of ${row.amount} ${row.asset_id} is below 0.000001 (or beyond the ledger): recorded, not credited`);
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
        (options.log ?? console.error)(`[paylink] scanner: transfer ${current.txHash}#${current.logIndex} was credited already; not again`);
        await closeWaiting(tx, row.id, 'ignored', deps.now());
        return;
      }
      await closeWaiting(tx, row.id, 'credited', deps.now(), transferId);
    });
  };

  /** Step 4: finalizes the credited transfers the final block has passed, and reverses those a reorg took back. */
  const finalize = async (latest: number, hashes: Map<number, string | null>) => {
    const rows = await creditedUnfinal(db, network, 1_000);
    const final = await incoming.finalizedBlock(latest);
    const cursor = await readCursor(db, network);
    // The checkpoint is a final block the scanner has read: the same chain must still have it at the next start.
    if (cursor && final.number < cursor.nextBlock) {
      await recordChainId(db, network, incoming.chainId, deps.now());
      await recordCheckpoint(db, network, final.number, final.hash, deps.now());
    }
    for (const row of rows) {
      const block = row.block_number;
      if (block !== null && block <= latest && !hashes.has(block)) hashes.set(block, await incoming.blockHash(block));
      const inPlace = block !== null && block <= latest && hashes.get(block) === row.block_hash;
      if (inPlace) {
        if (block <= final.number) await db.transaction((tx) => finalizeCredit(tx, row.transfer_id, deps.now()));
        continue;
      }
      // Its block is no longer canonical: where is the transfer now?
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

  /** Step 3: follows every waiting transfer at the tip `latest`. */
  const follow = async (latest: number, hashes: Map<number, string | null>) => {
    const rows = await waitingTransfers(db, network, 1_000);
    if (rows.length === 0) return;
    for (const row of rows) {
      const block = row.block_number;
      if (block !== null && block <= latest && !hashes.has(block)) hashes.set(block, await incoming.blockHash(block));
    }
    for (const row of rows) {
      const block = row.block_number;
      const reorged = block === null || block > latest || hashes.get(block) !== row.block_hash;
      const confirmations = block === null ? 0 : Math.max(0, latest - block + 1);
      if (!reorged && confirmations < required) {
        await db.transaction(async (tx) => {
          if (await setConfirmations(tx, row.id, confirmations, deps.now())) await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
        });
        continue;
      }
      // A reorg, or N confirmations: ask the chain where the transfer is now, by its receipt.
      const check = await incoming.recheck(observedOf(row, network), { latestBlock: latest });
      if (check.status === 'gone') {
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

  const runOnce = async () => {
    const { caughtUp, recorded, latest, behind } = await scan();
    if (behind !== undefined) {
      if (Date.now() - laggingReportedAt > 60_000) {
        laggingReportedAt = Date.now();
        (options.log ?? console.error)(
          `[paylink] scanner (${network}): the nodes' latest block ${latest} is below block ${behind}, already seen; waiting for them to catch up (a lagging node, or a chain that went back)`,
        );
      }
      return { caughtUp };
    }
    // The tip's hash names the chain's state: at the same tip with nothing new, nothing can have moved.
    const tip = `${latest}:${await incoming.blockHash(latest)}`;
    if (recorded > 0 || tip !== followedAt) {
      // Block hashes read once per round, shared by both steps.
      const hashes = new Map<number, string | null>();
      await follow(latest, hashes);
      await finalize(latest, hashes);
      followedAt = tip;
    }
    return { caughtUp };
  };

  return { incoming, runOnce, stop: async () => {} };
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
 */
function startNetworkScanner(deps: ScannerDeps, options: ChainScannerOptions): ChainScanner {
  const scanner = createChainScanner(deps, options);
  const log = options.log ?? ((line: string) => console.error(line));
  const pollMs = options.pollMs ?? scanner.incoming.pollMs;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  let running = true;
  let wake: (() => void) | null = null;
  let failingSince: number | null = null;
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
      try {
        const { caughtUp } = await scanner.runOnce();
        if (failingSince !== null) {
          log(`[paylink] scanner (${scanner.incoming.blockchainId}): the node answers again after ${Math.round((Date.now() - failingSince) / 1000)} s; catching up`);
          failingSince = null;
        }
        backoff = pollMs;
        if (!caughtUp) delay = 0;
      } catch (error) {
        if (!running) break;
        runtimeMetrics.nodeError(scanner.incoming.blockchainId, error);
        if (failingSince === null) {
          failingSince = Date.now();
          const reason = error instanceof Error ? error.message : String(error);
          log(`[paylink] scanner (${scanner.incoming.blockchainId}): paused, ${reason}. Payments stay confirming or awaiting payment until it recovers; retrying.`);
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
 * The database belongs to another chain than the node's: another chain id, or the same id with other
 * blocks (a reset local chain, a replaced testnet). The message names the network, what the
 * database holds, what the node serves, and the way out.
 */
export class ChainIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainIdentityError';
  }
}

/**
 * Checks, before anything reads or sends on it, that each network's node serves the chain this
 * database was used with: the same chain id, and the same final block the scanner last recorded
 * (its checkpoint). A network the database has not seen yet is recorded. Throws `ChainIdentityError`
 * naming the problem: on another chain new payments would be missed for good and payouts would
 * wait on a nonce gap. The node's own errors (down, slow) are thrown as they are.
 */
export async function verifyChainIdentity(deps: Pick<ScannerDeps, 'db' | 'chain' | 'now'>): Promise<void> {
  if (deps.chain.kind !== 'real') return;
  const wayOut = (network: string) =>
    `Point the node setting of ${network} (its *_RPC_URL) at the chain this database was used with, or start the service on a fresh database (another --data-dir or --database-url).`;
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
    if (!record.checkpoint) continue;
    const { block, hash } = record.checkpoint;
    const nodeHash = await incoming.blockHash(block);
    if (nodeHash === null) {
      const head = await incoming.latestBlock();
      throw new ChainIdentityError(
        `network ${blockchainId}: the node has no block ${block} (its latest is ${head}), which this database already read as final: the chain (id ${incoming.chainId}) was reset. ${wayOut(blockchainId)}`,
      );
    }
    if (nodeHash.toLowerCase() !== hash) {
      throw new ChainIdentityError(
        `network ${blockchainId}: the node's block ${block} is ${nodeHash}, but this database read ${hash} there as final: another chain with the same id (${incoming.chainId}), or a reset one. ${wayOut(blockchainId)}`,
      );
    }
  }
}
