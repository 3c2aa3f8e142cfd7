/**
 * Reconciliation: the books of every deposit address proved against the chain, per network, every
 * `PAYLINK_EVM_RECONCILE_S` seconds (default 300).
 *
 * A run of one network:
 * 1. Claims the network (one UPDATE of its `reconciliation_runs` row: of many instances, one runs a
 *    network per interval; a claim lapses when its instance died).
 * 2. Reads the network's final block F (the node's `finalized` tag, else its finality depth), and the
 *    outcome of every sweep transfer not settled yet (a sweep killed after broadcasting is still money
 *    out of its address).
 * 3. Page by page of deposit addresses (every session's, whatever network it was opened on: an address
 *    is the same on every network), reads each address's balance of its session's asset at F, many per
 *    node call (../../chain/evm/balances.ts), and what the books say it holds there at F: every transfer
 *    the scanner recorded to it on this network in blocks up to F (credited, or too small to credit),
 *    minus every successful sweep out of it up to F.
 * 4. Traces each address whose balance is above the books (./trace.ts): a transfer the scanner never
 *    saw (a node whose `eth_getLogs` lacked it) is found in its block's receipts and credited, once,
 *    through the scanner's own steps.
 * 5. What still differs is a mismatch: raised once per address (an error line `reconciliation_mismatch`
 *    naming the network, the address, what the books say and what the chain holds; a
 *    `reconciliation.mismatch` webhook to the merchant whose session the address served), refreshed
 *    while it holds, cleared (`reconciliation_matched`) when a later run finds them equal; and the
 *    network's `reconciliation_mismatch` alert while any address differs.
 *
 * No database transaction is ever held across a node call: each write is its own short transaction.
 * A run that fails (a node down) releases its claim and is tried at the next interval
 * (`reconciliation_failed`).
 */
import { formatUnits, parseUnits } from 'viem';
import type { AssetId } from '../../../core/money.js';
import type { ReconciliationMismatch } from '../../../core/schemas.js';
import type { ChainAdapter, IncomingChain, ObservedTransfer, ReconcileChain } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { clearAlert, raiseAlert } from '../alerts/index.js';
import { recordEvent } from '../events/index.js';
import { createChainScanner, depositAddressPage, depositSessionsOf, receivedUpTo, type DepositAddressRecord } from '../money-in/index.js';
import {
  claimRun,
  clearMismatchesExcept,
  listMismatches,
  releaseRun,
  settleSweepTransfer,
  sweptUpTo,
  unsettledSweeps,
  upsertMismatch,
  type LastRun,
  type MismatchRecord,
} from './repository.js';
import { traceAddress, type TraceResult } from './trace.js';

export interface ReconcilerDeps {
  db: Database;
  chain: ChainAdapter;
  now: () => Date;
  /** Where mismatches, credits found and failures are logged (default stderr). */
  logger?: Logger | undefined;
}

export interface ReconcilerOptions {
  /** Reconcile only this network (default: every network of the chain that can be). */
  network?: string | undefined;
  /** Between runs of a network, in ms (default: its `PAYLINK_EVM_RECONCILE_S`). */
  intervalMs?: number | undefined;
  /** Deposit addresses read per page (default 5,000). */
  pageSize?: number | undefined;
  /** Addresses traced per run and network at most (default 20): the others stay mismatches until a later run traces them. */
  maxTraces?: number | undefined;
}

/** What one run did on one network. */
export interface NetworkReconciliation {
  blockchainId: string;
  /** False when another instance holds the network's run (nothing was done). */
  claimed: boolean;
  /** The final block balances were read at. */
  block?: number;
  /** Deposit addresses held against the books. */
  addresses: number;
  /** Transfers the scanner had missed, found and credited (or recorded as too small to credit). */
  credited: number;
  /** Addresses whose balance the books still do not explain. */
  mismatches: number;
}

export interface Reconciler {
  /** One run of each network now, unless another instance holds it (tests drive reconciliation with it). */
  runOnce(): Promise<NetworkReconciliation[]>;
  /** Stops the loop; resolves once the run in flight has finished. */
  stop(): Promise<void>;
}

/** An address held against the books at the final block. */
interface Held {
  record: DepositAddressRecord;
  token: { address: string; decimals: number };
  expected: bigint;
  actual: bigint;
}

/** A difference found, with its session's owner (and traced, where it was, or why it could not be). */
interface Difference extends Held {
  owner: { integratorId: string; createdAt: Date };
  trace: TraceResult | null;
  traceError?: unknown;
}

/** A sweep transfer in no block this long after it was signed is taken as never mined. */
const SWEEP_LOST_AFTER_MS = 24 * 60 * 60 * 1000;

/** A lapsed claim (its instance died mid-run) frees the network after this long at least. */
const MIN_LEASE_MS = 10 * 60 * 1000;

/** The object of a `reconciliation.mismatch` event. */
function mismatchObject(record: MismatchRecord, decimals: number): ReconciliationMismatch {
  const exact = (value: string) => formatUnits(parseUnits(value, decimals), decimals);
  return {
    object: 'reconciliation_mismatch',
    blockchainId: record.blockchainId,
    address: record.address,
    sessionId: record.sessionId,
    assetId: record.assetId,
    expected: exact(record.expected),
    actual: exact(record.actual),
    block: record.block,
    reason: record.reason,
    since: record.raisedAt.toISOString(),
  };
}

/** The reconciliation of one network. */
function networkReconciler(deps: ReconcilerDeps, incoming: IncomingChain, chain: ReconcileChain, options: ReconcilerOptions) {
  const { db } = deps;
  const logger = deps.logger ?? defaultLogger;
  const blockchainId = chain.blockchainId;
  const intervalMs = options.intervalMs ?? chain.intervalMs;
  const pageSize = Math.max(1, options.pageSize ?? 5_000);
  const maxTraces = Math.max(0, options.maxTraces ?? 20);
  const network = deps.chain.networks.find((n) => n.id === blockchainId);
  // The scanner of this network, for its crediting alone (its rounds are the service's scanner's).
  const scanner = createChainScanner({ db, chain: deps.chain, now: deps.now, logger }, { network: blockchainId });

  /** The token of `assetId` on this network, or undefined when the network does not carry it. */
  const tokenOf = (assetId: AssetId) => {
    const token = network?.tokens?.[assetId];
    return token && { address: token.address.toLowerCase(), decimals: token.decimals };
  };

  /**
   * Settles the sweep transfers whose outcome was not recorded (a sweep killed after broadcasting). One
   * still in no block a day after it was signed was never sent, or lost its nonce to a re-run's twin:
   * `dropped` (should it be mined after all, the address shows a deficit, raised as a mismatch).
   */
  const settleSweeps = async () => {
    const unsettled = await unsettledSweeps(db, blockchainId);
    if (unsettled.length === 0) return;
    const outcomes = await chain.outcomes(unsettled.map((sweep) => sweep.txHash));
    const now = deps.now();
    for (const [i, outcome] of outcomes.entries()) {
      const { txHash, createdAt } = unsettled[i]!;
      if (outcome.status !== 'pending') await settleSweepTransfer(db, blockchainId, txHash, outcome, now);
      else if (now.getTime() - createdAt.getTime() > SWEEP_LOST_AFTER_MS) await settleSweepTransfer(db, blockchainId, txHash, { status: 'dropped' }, now);
    }
  };

  /** Step 3: every deposit address held against the books at `final`; the differences. */
  const hold = async (final: number): Promise<{ addresses: number; differences: Held[] }> => {
    const differences: Held[] = [];
    let addresses = 0;
    const pageAfter = (index: number) => {
      const reading = depositAddressPage(db, index, pageSize);
      reading.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
      return reading;
    };
    // Each page's addresses are read from the database while the page before is at the node.
    for (let next = pageAfter(-1); ;) {
      const page = await next;
      if (page.length === 0) break;
      next = page.length < pageSize ? Promise.resolve([]) : pageAfter(page.at(-1)!.depositIndex);
      const carried = page.flatMap((record) => {
        const token = tokenOf(record.assetId);
        return token ? [{ record, token }] : [];
      });
      if (carried.length === 0) continue;
      // The node and the database at once. A credit committed between the two reads looks like a
      // surplus here; its trace reads the books again and finds it.
      const [balances, received, swept] = await Promise.all([
        chain.balancesAt(
          final,
          carried.map(({ record }) => ({ assetId: record.assetId, holder: record.address })),
        ),
        receivedUpTo(
          db,
          blockchainId,
          final,
          carried.map(({ record }) => record.sessionId),
        ),
        sweptUpTo(
          db,
          blockchainId,
          final,
          carried.map(({ record }) => record.address),
        ),
      ]);
      for (const [i, { record, token }] of carried.entries()) {
        const units = (text: string | undefined) => (text === undefined ? 0n : parseUnits(text, token.decimals));
        const expected = units(received.get(record.sessionId)?.get(token.address)) - units(swept.get(`${record.address}:${token.address}`));
        const actual = balances[i]!;
        addresses++;
        if (expected !== actual) differences.push({ record, token, expected, actual });
      }
    }
    return { addresses, differences };
  };

  /** Step 5: raises, refreshes and clears the mismatches; the network's alert. */
  const report = async (final: number, differences: Difference[]) => {
    const now = deps.now();
    for (const difference of differences) {
      const { record, token } = difference;
      const expected = formatUnits(difference.trace?.expected ?? difference.expected, token.decimals);
      const actual = formatUnits(difference.trace?.actual ?? difference.actual, token.decimals);
      const reason = difference.trace?.reason ?? 'untraced';
      const fields = {
        blockchainId,
        address: record.address,
        assetId: record.assetId,
        expected,
        actual,
        block: final,
        tracedBlock: difference.trace?.tracedBlock ?? undefined,
        reason,
        sessionId: record.sessionId,
        error: difference.traceError,
      };
      const before = await db.transaction(async (tx) => {
        const mismatch = {
          blockchainId,
          address: record.address,
          sessionId: record.sessionId,
          assetId: record.assetId,
          expected,
          actual,
          block: final,
          tracedBlock: difference.trace?.tracedBlock ?? null,
          reason,
        };
        const held = await upsertMismatch(tx, mismatch, now);
        if (!held) {
          const raised = { ...mismatch, raisedAt: now };
          await recordEvent(tx, {
            type: 'reconciliation.mismatch',
            integratorId: difference.owner.integratorId,
            at: now,
            object: async () => mismatchObject(raised, token.decimals),
          });
        }
        return held;
      });
      // Said when found, and again only when the amounts change.
      const changed =
        !before ||
        parseUnits(before.expected, token.decimals) !== parseUnits(expected, token.decimals) ||
        parseUnits(before.actual, token.decimals) !== parseUnits(actual, token.decimals);
      if (changed) {
        logger.error(
          'reconciliation_mismatch',
          `a deposit address on ${blockchainId} holds ${actual} ${record.assetId} at final block ${final}, but the books say ${expected}: find where it changed (tracedBlock) and why`,
          fields,
        );
      }
    }
    for (const cleared of await clearMismatchesExcept(
      db,
      blockchainId,
      differences.map((d) => d.record.address),
    )) {
      logger.info('reconciliation_matched', `a deposit address on ${blockchainId} holds what the books say again (final block ${final})`, {
        blockchainId,
        address: cleared.address,
        assetId: cleared.assetId,
        block: final,
        since: cleared.raisedAt.toISOString(),
      });
    }
    if (differences.length === 0) {
      await clearAlert(db, blockchainId, 'reconciliation_mismatch');
      return;
    }
    const first = differences[0]!;
    await raiseAlert(
      db,
      {
        blockchainId,
        code: 'reconciliation_mismatch',
        message: `${differences.length} deposit address${differences.length === 1 ? '' : 'es'} on ${blockchainId} hold${differences.length === 1 ? 's' : ''} other amounts than the books say (final block ${final}): see the reconciliation_mismatch log lines`,
        detail: {
          block: final,
          addresses: differences.length,
          first: {
            address: first.record.address,
            assetId: first.record.assetId,
            expected: formatUnits(first.trace?.expected ?? first.expected, first.token.decimals),
            actual: formatUnits(first.actual, first.token.decimals),
          },
        },
      },
      now,
    );
  };

  /** One run, on a claimed network. */
  const run = async (lastRun: LastRun | null): Promise<{ block: number; startedAt: Date; addresses: number; credited: number; mismatches: number }> => {
    const latest = await incoming.latestBlock();
    const final = (await incoming.finalizedBlock(latest)).number;
    const startedAt = deps.now();
    const heldBefore = new Set((await listMismatches(db, blockchainId)).map((m) => m.address));
    await settleSweeps();
    const { addresses, differences: held } = await hold(final);
    const owners = held.length
      ? await depositSessionsOf(
          db,
          held.map((d) => d.record.sessionId),
        )
      : new Map<string, { integratorId: string; createdAt: Date }>();
    // A session deleted meanwhile (retention) takes its address out of the books.
    const differences = held.flatMap((d): Difference[] => {
      const owner = owners.get(d.record.sessionId);
      return owner ? [{ ...d, owner, trace: null }] : [];
    });
    const traced: Difference[] = [];
    let credited = 0;
    let budget = maxTraces;
    for (const difference of differences) {
      // A balance below the books has nothing to credit: it is traced too (for the block to look at) while the budget lasts.
      if (budget <= 0) {
        traced.push(difference);
        continue;
      }
      budget--;
      const { record, token } = difference;
      // Each credit is said as it is made: a trace that fails later has made it all the same.
      const creditFound = async (transfer: ObservedTransfer, tip: number) => {
        const status = await scanner.creditFound(transfer, tip);
        if (status !== 'credited' && status !== 'ignored') return status;
        credited++;
        logger.warn(
          'reconciliation_credited',
          `a transfer to a deposit address on ${blockchainId} that the scanner never saw was found in its block's receipts and credited (or, below 0.000001, recorded)`,
          {
            blockchainId,
            address: record.address,
            sessionId: record.sessionId,
            txHash: transfer.txHash,
            logIndex: transfer.logIndex,
            block: transfer.blockNumber,
            assetId: transfer.assetId,
            amount: transfer.amount,
            recorded: status,
          },
        );
        return status;
      };
      let trace: TraceResult;
      try {
        trace = await traceAddress({
          db,
          chain,
          creditFound,
          blockchainId,
          sessionId: record.sessionId,
          address: record.address,
          assetId: record.assetId,
          token,
          createdAt: difference.owner.createdAt,
          final,
          latest,
          actual: difference.actual,
          matchedAt: lastRun && difference.owner.createdAt < lastRun.startedAt && !heldBefore.has(record.address) ? lastRun : null,
        });
      } catch (error) {
        // A node without the state of past blocks (or one that fails meanwhile): the difference stands, untraced.
        trace = { expected: difference.expected, actual: difference.actual, credited: [], reason: 'untraced', tracedBlock: null };
        difference.traceError = error;
      }
      if (trace.reason !== 'matched') traced.push({ ...difference, trace });
    }
    await report(final, traced);
    return { block: final, startedAt, addresses, credited, mismatches: traced.length };
  };

  return {
    blockchainId,
    intervalMs,
    /** Runs when the network is free (and, with `dueOnly`, due); a failed run releases its claim, then throws. */
    async runOnce(dueOnly: boolean): Promise<NetworkReconciliation> {
      const now = deps.now();
      const lastRun = await claimRun(db, blockchainId, { now, intervalMs, leaseMs: Math.max(2 * intervalMs, MIN_LEASE_MS), dueOnly });
      if (lastRun === undefined) return { blockchainId, claimed: false, addresses: 0, credited: 0, mismatches: 0 };
      try {
        const { startedAt, ...done } = await run(lastRun);
        await releaseRun(db, blockchainId, { block: done.block, startedAt, addresses: done.addresses, mismatches: done.mismatches }, deps.now());
        return { blockchainId, claimed: true, ...done };
      } catch (error) {
        await releaseRun(db, blockchainId, null, deps.now()).catch(() => undefined);
        throw error;
      }
    },
  };
}

/** The networks of `deps.chain` that can be reconciled (or only `options.network`). */
function reconcilers(deps: ReconcilerDeps, options: ReconcilerOptions) {
  if (deps.chain.kind !== 'real') return [];
  return deps.chain.chains
    .filter((c) => c.reconcile && (options.network === undefined || c.blockchainId === options.network))
    .map((c) => networkReconciler(deps, c.incoming, c.reconcile!, options));
}

/** A reconciler driven by hand: `runOnce` reconciles every network now (unless another instance holds it). */
export function createReconciler(deps: ReconcilerDeps, options: ReconcilerOptions = {}): Reconciler {
  const networks = reconcilers(deps, options);
  return {
    runOnce: () => Promise.all(networks.map((network) => network.runOnce(false))),
    stop: async () => {},
  };
}

/**
 * Runs reconciliation in the background until `stop()`: each network looks every interval (and once a
 * minute while another instance's claim or its interval keeps it waiting) and runs when it is due and
 * free. The first run of a database is one interval after its first start. A failed run is logged
 * (`reconciliation_failed`) and tried again at the next interval.
 */
export function startReconciler(deps: ReconcilerDeps, options: ReconcilerOptions = {}): Reconciler {
  const logger = deps.logger ?? defaultLogger;
  const networks = reconcilers(deps, options);
  let running = true;
  const timers = new Set<NodeJS.Timeout>();
  const wakers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        timers.delete(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timers.add(timer);
      wakers.add(wake);
    });
  const loops = networks.map(async (network) => {
    const pause = Math.min(network.intervalMs, 60_000);
    while (running) {
      await sleep(pause);
      if (!running) break;
      try {
        await network.runOnce(true);
      } catch (error) {
        if (!running) break;
        logger.warn('reconciliation_failed', `reconciliation of ${network.blockchainId} failed; it is tried again at the next interval`, {
          blockchainId: network.blockchainId,
          error,
        });
      }
    }
  });
  return {
    runOnce: () => Promise.all(networks.map((network) => network.runOnce(false))),
    async stop() {
      running = false;
      for (const wake of [...wakers]) wake();
      await Promise.all(loops);
    },
  };
}
