/**
 * One reconciliation run of one network (steps 1 to 4 of ./reconciler.ts; step 5 is
 * ./mismatches.ts): the network claimed, its final block read, the sweeps' outcomes settled, every
 * deposit address's balance held against the books, the surpluses traced (./trace.ts) and any
 * transfer the scanner missed credited through the scanner's own steps.
 *
 * No database transaction is ever held across a node call: each write is its own short transaction.
 */
import { parseUnits } from 'viem';
import type { AssetId } from '../../../core/money.js';
import type { IncomingChain, ObservedTransfer, ReconcileChain } from '../../chain/types.js';
import { defaultLogger } from '../../log.js';
import { createChainScanner, depositAddressPage, depositSessionsOf, receivedUpTo } from '../money-in/index.js';
import { reportMismatches, type Difference, type Held } from './mismatches.js';
import type { NetworkReconciliation, ReconcilerDeps, ReconcilerOptions } from './reconciler.js';
import { claimRun, listMismatches, releaseRun, settleSweepTransfer, sweptUpTo, unsettledSweeps, type LastRun } from './repository.js';
import { traceAddress, type TraceResult } from './trace.js';

/** A sweep transfer in no block this long after it was signed is taken as never mined. */
const SWEEP_LOST_AFTER_MS = 24 * 60 * 60 * 1000;

/** A lapsed claim (its instance died mid-run) frees the network after this long at least. */
const MIN_LEASE_MS = 10 * 60 * 1000;

/** One network's reconciliation, as the reconciler runs it. */
export interface NetworkReconciler {
  readonly blockchainId: string;
  /** Between runs, in ms. */
  readonly intervalMs: number;
  /** Runs when the network is free (and, with `dueOnly`, due); a failed run releases its claim, then throws. */
  runOnce(dueOnly: boolean): Promise<NetworkReconciliation>;
}

/** The reconciliation of one network: `incoming` for its blocks, `chain` for what reconciliation reads. */
export function networkReconciler(deps: ReconcilerDeps, incoming: IncomingChain, chain: ReconcileChain, options: ReconcilerOptions): NetworkReconciler {
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
    await reportMismatches({ db, logger, now: deps.now, blockchainId }, final, traced);
    return { block: final, startedAt, addresses, credited, mismatches: traced.length };
  };

  return {
    blockchainId,
    intervalMs,
    async runOnce(dueOnly) {
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
