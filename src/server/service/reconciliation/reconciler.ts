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
 * 5. What still differs is a mismatch (./mismatches.ts): raised once per address (an error line
 *    `reconciliation_mismatch` naming the network, the address, what the books say and what the
 *    chain holds; a `reconciliation.mismatch` webhook to the merchant whose session the address
 *    served), refreshed while it holds, cleared (`reconciliation_matched`) when a later run finds them
 *    equal; and the network's `reconciliation_mismatch` alert while any address differs.
 *
 * Steps 1 to 4 are one network's run (./network-run.ts). This file runs the networks' runs: by hand
 * (`createReconciler`), or in the background (`startReconciler`). No database transaction is ever
 * held across a node call: each write is its own short transaction. A run that fails (a node down)
 * releases its claim and is tried at the next interval (`reconciliation_failed`).
 */
import type { ChainAdapter } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { createWakeUp } from '../../wake-up.js';
import { networkReconciler } from './network-run.js';

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
  const alarms = networks.map(() => createWakeUp());
  const loops = networks.map(async (network, i) => {
    const pause = Math.min(network.intervalMs, 60_000);
    while (running) {
      await alarms[i]!.sleep(pause);
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
      for (const alarm of alarms) alarm.wake();
      await Promise.all(loops);
    },
  };
}
