/**
 * The scanners' loops: one per network, each round run after the last, sooner when behind, with
 * backoff while the node fails (./scanner.ts is one round).
 */
import { defaultLogger } from '../../log.js';
import { createWakeUp } from '../../wake-up.js';

import { createChainScanner, type ChainScanner, type ChainScannerOptions, type ScannerDeps } from './scanner.js';
import { runtimeMetrics } from '../../metrics/runtime.js';

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
  const alarm = createWakeUp();
  let failingSince: Date | null = null;
  let backoff = pollMs;

  const loop = (async () => {
    while (running) {
      let delay = pollMs;
      const roundStarted = deps.now();
      try {
        const { caughtUp } = await scanner.runOnce();
        if (failingSince !== null) {
          const outageSeconds = Math.max(0, Math.round((roundStarted.getTime() - failingSince.getTime()) / 100) / 10);
          logger.info('scanner_node_recovered', `the node answers again after ${outageSeconds} s; catching up`, {
            blockchainId: network,
            outageSeconds,
            since: failingSince.toISOString(),
          });
          failingSince = null;
        }
        backoff = pollMs;
        if (!caughtUp) delay = 0;
      } catch (error) {
        if (!running) break;
        runtimeMetrics.nodeError(scanner.incoming.blockchainId, error);
        if (failingSince === null) {
          failingSince = roundStarted;
          logger.warn(
            'scanner_node_unavailable',
            'a scanner round failed (the node did not answer, or answered an error): payments stay confirming or awaiting payment until it recovers; retrying',
            {
              blockchainId: network,
              error,
            },
          );
        }
        backoff = Math.min(Math.max(backoff * 2, 50), maxBackoffMs);
        delay = backoff;
      }
      if (running && delay > 0) await alarm.sleep(delay);
    }
  })();

  return {
    runOnce: scanner.runOnce,
    async stop() {
      running = false;
      alarm.wake();
      await loop;
    },
  };
}
