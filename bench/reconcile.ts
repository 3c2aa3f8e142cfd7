/**
 * Reconciliation at scale: one run over 10,000 deposit addresses on one local chain (anvil, Multicall3
 * at its usual address), quoted against 10,000 `balanceOf` `eth_call`s sent one after another to the
 * same node in the same run (what reading each address alone would cost). The run is the service's own
 * (`createReconciler(…).runOnce()` on PGlite): the books of every address read page by page, every
 * balance at the final block, and the comparison. A second row reads the balances without Multicall3
 * (JSON-RPC batches of plain `eth_call`s), the way a network without it is reconciled. Trials alternate
 * (sequential, reconcile, batches-only), three each; medians.
 *
 * Run alone: `node --import tsx bench/reconcile.ts [--addresses 10000] [--trials 3]`.
 * `bench/run.ts` calls `runReconcileBench()`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { getAddress, numberToHex, type Address, type Hex } from 'viem';
import { anvilAvailable } from '../src/server/chain/evm/anvil.js';
import { MULTICALL3_ADDRESS } from '../src/server/chain/evm/balances.js';
import type { RealChainAdapter } from '../src/server/chain/types.js';
import { createReconciler } from '../src/server/service/reconciliation/index.js';
import { createChainScanner } from '../src/server/service/money-in/index.js';
import { startService } from '../src/server/service/serve.js';
import { startEvmFixture } from '../test/support/evm-service.js';
import { createUsdLink, startSession } from '../test/support/money.js';
import { createApiKey } from '../src/server/service/keys/index.js';
import { createLogger } from '../src/server/log.js';
import multicall3 from '../test/fixtures/multicall3.json' with { type: 'json' };

/** One measured row (a type alias so it is assignable to `Record<string, unknown>`). */
export type ReconcileBenchRow = {
  scenario: string;
  addresses: number;
  /** Median of the trials, in ms. */
  ms: number;
  baseline: string;
  baselineMs: number;
  ratio: number;
  trials: string;
};

export interface ReconcileBenchOptions {
  addresses?: number;
  trials?: number;
  log?: (line: string) => void;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (x: number) => Number(x.toFixed(1));

export async function runReconcileBench(options: ReconcileBenchOptions = {}): Promise<ReconcileBenchRow[]> {
  const count = options.addresses ?? 10_000;
  const trials = options.trials ?? 3;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!anvilAvailable()) throw new Error('anvil is not installed (npm install)');
  const f = await startEvmFixture();
  let chains: RealChainAdapter[] = [];
  try {
    await f.t.deployMulticall3();
    const chain = await f.adapter({ confirmations: 1 });
    chains.push(chain);
    const service = await startService({
      chain,
      rateSettings: { sources: ['static'] },
      scanner: false,
      reconciler: false,
      payoutWorker: false,
      webhookWorker: false,
    });
    try {
      const { db } = service;
      // One real session, then `count` - 1 more of its kind at fresh addresses (deriving 10,000 from the xpub would take 10 s).
      const { key } = await db.transaction((tx) => createApiKey(tx));
      const template = await startSession(service.url, await createUsdLink(service.url, key, '1'), { assetId: 'USDT' });
      const { rows: columns } = await db.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'checkout_sessions' AND column_name NOT IN ('id', 'pay_address', 'deposit_index')",
      );
      const names = columns.map((c) => c.column_name);
      const addresses = Array.from({ length: count - 1 }, () => getAddress(`0x${randomBytes(20).toString('hex')}`));
      await db.query(
        `INSERT INTO checkout_sessions (id, pay_address, deposit_index, ${names.join(', ')})
         SELECT a.id, a.address, 1000000 + a.n, ${names.map((n) => `s.${n}`).join(', ')}
         FROM checkout_sessions s, unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS a(id, address, n) WHERE s.id = $1`,
        [template.id, addresses.map(() => randomUUID()), addresses],
      );
      // The first is paid and credited: the books hold a transfer, the chain its tokens.
      await f.pay(template.payAddress, 'USDT', template.cryptoAmount);
      await f.t.mine(2);
      await createChainScanner({ db, chain, now: () => new Date(), logger: createLogger(() => {}) }).runOnce();
      await f.t.mine(65);
      const holders: Address[] = [template.payAddress as Address, ...addresses];
      const block = numberToHex((await f.t.client.getBlockNumber()) - 64n);

      const sequential = async () => {
        const started = performance.now();
        for (const holder of holders) {
          await f.t.client.request({
            method: 'eth_call',
            params: [{ to: f.usdt, data: `0x70a08231${'0'.repeat(24)}${holder.slice(2).toLowerCase()}` as Hex }, block],
          });
        }
        return performance.now() - started;
      };
      const reconcile = async (adapter: RealChainAdapter) => {
        const started = performance.now();
        const [run] = await createReconciler(
          { db, chain: adapter, now: () => new Date(), logger: { error() {}, warn() {}, info() {}, throttled() {} } },
          { maxTraces: 0 },
        ).runOnce();
        const ms = performance.now() - started;
        if (!run || run.addresses !== count || run.mismatches !== 0)
          throw new Error(`the run held ${run?.addresses} addresses (not ${count}), ${run?.mismatches} mismatches`);
        return ms;
      };
      // Without Multicall3: a new adapter (it asks once per connection whether the contract is there).
      const batchesOnly = async () => {
        await f.t.rpc('anvil_setCode', [MULTICALL3_ADDRESS, '0x']);
        const adapter = await f.adapter({ confirmations: 1 });
        chains.push(adapter);
        try {
          return await reconcile(adapter);
        } finally {
          await f.t.rpc('anvil_setCode', [MULTICALL3_ADDRESS, multicall3.runtime]);
        }
      };

      const times = { sequential: [] as number[], multicall: [] as number[], batches: [] as number[] };
      await reconcile(chain); // warm
      for (let trial = 0; trial < trials; trial++) {
        times.sequential.push(await sequential());
        times.multicall.push(await reconcile(chain));
        times.batches.push(await batchesOnly());
        log(
          `reconcile bench: trial ${trial + 1}: sequential ${Math.round(times.sequential.at(-1)!)} ms, reconcile ${Math.round(times.multicall.at(-1)!)} ms, batches only ${Math.round(times.batches.at(-1)!)} ms`,
        );
      }
      const baselineMs = median(times.sequential);
      const baseline = `${count} balanceOf eth_calls sent one after another (same node, same run; median of ${trials})`;
      const row = (scenario: string, samples: number[]): ReconcileBenchRow => ({
        scenario,
        addresses: count,
        ms: round(median(samples)),
        baseline,
        baselineMs: round(baselineMs),
        ratio: Number((median(samples) / baselineMs).toFixed(3)),
        trials: samples.map((ms) => Math.round(ms)).join(', '),
      });
      return [
        row(
          `one reconciliation run over ${count} deposit addresses (books on PGlite, balances through Multicall3, 500 balanceOf per eth_call, in JSON-RPC batches)`,
          times.multicall,
        ),
        row(`the same run on a network without Multicall3 (JSON-RPC batches of 50 eth_calls)`, times.batches),
      ];
    } finally {
      await service.close();
    }
  } finally {
    await Promise.all(chains.map((c) => c.close()));
    chains = [];
    await f.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const { values } = parseArgs({ options: { addresses: { type: 'string' }, trials: { type: 'string' } } });
  const rows = await runReconcileBench({
    addresses: values.addresses ? Number(values.addresses) : undefined,
    trials: values.trials ? Number(values.trials) : undefined,
  });
  console.table(rows);
  process.exit(0);
}
