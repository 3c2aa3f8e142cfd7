/**
 * The chain's own speed, measured on a local anvil node: the baselines that the real-chain end-to-end
 * figures (customer transfer → `paid`, payouts per second) are quoted against, in the same run.
 *
 * - Block time: anvil started with `--block-time 0.75`; the interval between successive new
 *   blocks as a poller sees them (the floor for "seen", and N × it for N confirmations).
 * - Instant mining: one ERC-20 transfer signed, broadcast and its receipt read, one after another
 *   (the floor of a payout's round trip through the adapter).
 * - eth_sendRawTransaction: pre-signed ERC-20 transfers from one account with consecutive nonces,
 *   sent by 50 concurrent callers with instant mining (the ceiling of payouts per second).
 *
 * Run alone: `node --import tsx bench/evm.ts [--transactions 500] [--concurrency 50]`.
 * `bench/run.ts` calls `runEvmBench()`.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { anvilAvailable } from '../src/server/chain/evm/anvil.js';
import type { Address } from 'viem';
import type { EvmChain, FeeQuote } from '../src/server/chain/evm/chain.js';
import { connectEvmChain } from '../src/server/chain/evm/connect.js';
import { startTestChain } from '../test/support/anvil.js';

/** One measured row (a type alias so it is assignable to `Record<string, unknown>`). */
export type EvmBenchRow = {
  scenario: string;
  count: number;
  perSecond: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  /** mean ÷ the configured block time, for the block-time row; 1 elsewhere. */
  ratioToTarget: number;
};

export interface EvmBenchOptions {
  /** Pre-signed transfers to send (default 500). */
  transactions?: number;
  /** Concurrent senders (default 50). */
  concurrency?: number;
  /** Block intervals to time at 0.75 s (default 8). */
  blocks?: number;
  log?: (line: string) => void;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summarise(scenario: string, samples: number[], elapsedMs: number, ratioToTarget = 1): EvmBenchRow {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / Math.max(1, sorted.length);
  const round = (x: number) => Number(x.toFixed(1));
  return {
    scenario,
    count: sorted.length,
    perSecond: round((sorted.length / elapsedMs) * 1000),
    meanMs: round(mean),
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    ratioToTarget: Number(ratioToTarget.toFixed(3)),
  };
}

/** Times the interval between new blocks on a 0.75 s chain, as a 10 ms poller sees them. */
export async function blockTime(blocks: number): Promise<EvmBenchRow> {
  const t = await startTestChain({ blockTime: 0.75 });
  try {
    const intervals: number[] = [];
    let last = await t.client.getBlockNumber();
    let lastAt = performance.now();
    let first = true;
    const started = performance.now();
    while (intervals.length < blocks) {
      const now = await t.client.getBlockNumber();
      if (now !== last) {
        const at = performance.now();
        // The first change only aligns the poller with the chain's clock.
        if (!first) intervals.push((at - lastAt) / Number(now - last));
        first = false;
        last = now;
        lastAt = at;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const row = summarise('block interval (--block-time 0.75)', intervals, performance.now() - started);
    return { ...row, ratioToTarget: Number((row.meanMs / 750).toFixed(3)) };
  } finally {
    await t.stop();
  }
}

/** Sign → broadcast → receipt, one at a time, and a burst of pre-signed transfers, on instant mining. */
export async function transfers(count: number, concurrency: number): Promise<EvmBenchRow[]> {
  const t = await startTestChain();
  try {
    const usdt = await t.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
    const chain = await connectEvmChain(t.config({ tokens: { USDT: usdt } }), { timeoutMs: 30_000 });
    try {
      await t.mint(usdt, chain.hotWallet!, 10n ** 30n);
      const to = t.accounts[3]!;
      const fees: FeeQuote = await chain.feeQuote();
      if (fees.type === 'eip1559') fees.maxFeePerGas *= 4n; // headroom: the base fee climbs during the burst
      const gas = 80_000n;

      const roundTrips: number[] = [];
      const roundStarted = performance.now();
      for (let i = 0; i < 30; i++) {
        const t0 = performance.now();
        const signed = await chain.signTokenTransfer({ nonce: await chain.pendingNonce(), assetId: 'USDT', to, amount: '1', fees, gas });
        await chain.broadcast(signed.rawTransaction);
        while ((await chain.receipt(signed.txHash)).status === 'pending');
        roundTrips.push(performance.now() - t0);
      }
      const roundTrip = summarise('instant mining: sign → broadcast → receipt (sequential)', roundTrips, performance.now() - roundStarted);

      const burst = await sendBurst(chain, to, count, concurrency, fees, gas);
      return [roundTrip, burst];
    } finally {
      await chain.close();
    }
  } finally {
    await t.stop();
  }
}

/**
 * Pre-signs `count` ERC-20 transfers from `chain`'s hot wallet with consecutive nonces, sends them
 * from `concurrency` callers at once (`eth_sendRawTransaction`) and waits until all are mined (instant
 * mining): the ceiling of payouts per second on this node, against which the service's are quoted.
 */
export async function sendBurst(chain: EvmChain, to: Address, count: number, concurrency: number, fees?: FeeQuote, gas = 80_000n): Promise<EvmBenchRow> {
  if (!fees) {
    fees = await chain.feeQuote();
    if (fees.type === 'eip1559') fees.maxFeePerGas *= 4n; // headroom: the base fee climbs during the burst
  }
  const quote = fees;
  const first = await chain.pendingNonce();
  const signed = await Promise.all(
    Array.from({ length: count }, (_, i) => chain.signTokenTransfer({ nonce: first + i, assetId: 'USDT', to, amount: '0.01', fees: quote, gas })),
  );
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < signed.length) {
        const { rawTransaction } = signed[next++]!;
        const t0 = performance.now();
        const result = await chain.broadcast(rawTransaction);
        if (result.outcome !== 'sent') throw new Error(`bench: a pre-signed transfer was ${result.outcome}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const burst = summarise(`eth_sendRawTransaction, ${concurrency} concurrent, ERC-20 transfers`, latencies, performance.now() - started);
  const deadline = Date.now() + 60_000;
  let stuckSince = Date.now();
  let mined = first;
  for (let latest = await chain.latestNonce(); latest < first + count; latest = await chain.latestNonce()) {
    if (Date.now() > deadline)
      throw new Error(`bench: not every transfer was mined within 60 s (${latest - first} of ${count}, pending ${(await chain.pendingNonce()) - first})`);
    if (latest !== mined) [mined, stuckSince] = [latest, Date.now()];
    // Anvil now and then queues one of many transactions for ever (one that arrived while the one
    // before it was being mined: src/server/chain/evm/dev-node.ts), and every later one waits behind
    // it. The same transfer, signed again with one more unit of gas (new bytes), takes its nonce. The
    // rate above was measured already.
    if (Date.now() - stuckSince > 1_000) {
      const again = await chain.signTokenTransfer({ nonce: latest, assetId: 'USDT', to, amount: '0.01', fees: quote, gas: gas + 1n });
      await chain.broadcast(again.rawTransaction).catch(() => {});
      stuckSince = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return burst;
}

/** Measures the chain's baselines; empty (with a log line) where anvil is not installed. */
export async function runEvmBench(options: EvmBenchOptions = {}): Promise<EvmBenchRow[]> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!anvilAvailable()) {
    log('  evm: anvil is not installed, skipped');
    return [];
  }
  log('  evm: block interval at 0.75 s…');
  const rows = [await blockTime(options.blocks ?? 8)];
  log('  evm: transfers on instant mining…');
  rows.push(...(await transfers(options.transactions ?? 500, options.concurrency ?? 50)));
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { transactions: { type: 'string' }, concurrency: { type: 'string' }, blocks: { type: 'string' } } });
  const rows = await runEvmBench({
    transactions: values.transactions ? Number(values.transactions) : undefined,
    concurrency: values.concurrency ? Number(values.concurrency) : undefined,
    blocks: values.blocks ? Number(values.blocks) : undefined,
  });
  console.table(rows);
}
