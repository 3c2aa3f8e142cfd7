/**
 * The service on a real chain, each figure a ratio to the chain's own speed
 * measured in the same run (bench/evm.ts):
 *
 * - Transfer → `paid`: a customer's USDT transfer to a session's deposit address, until the public
 *   session read says `paid`, with 3 confirmations and the scanner polling every 250 ms.
 *   - 0.75 s blocks: quoted against the block interval measured in this run. Three confirmations
 *     are the transfer's block and two more, so the floor is about 2.5 intervals (half an interval
 *     to be mined, two more blocks) plus the time to see the last one.
 *   - Instant mining: the transfer and two empty blocks are mined at once, so the chain is ready the
 *     moment the transfer returns: what is left is the service's own latency (scanner poll, scan,
 *     settlement), quoted against the 0.75 s block interval and against the poll interval.
 * - Payouts per second: 50 withdrawals posted at once to a service on PostgreSQL (instant mining,
 *   1 confirmation, so a payout is done once its receipt is read), from the first POST until the
 *   last is on chain (`broadcast`) and until the last is `success`; quoted against the raw
 *   `eth_sendRawTransaction` rate of pre-signed transfers from 50 concurrent callers in this run.
 *   Measured twice: with `serve`'s defaults (worker poll and receipt checks every 1 s) and tuned
 *   (every 20 ms / 50 ms).
 *
 * Run alone: `node --import tsx bench/evm-service.ts [--payments 5]`. `bench/run.ts` calls
 * `runEvmServiceBench()`.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseUnits, type Address } from 'viem';
import { anvilAvailable } from '../src/server/chain/evm/anvil.js';
import { connectEvmChain } from '../src/server/chain/evm/chain.js';
import type { ChainAdapter } from '../src/server/chain/types.js';
import { openDatabase, type Database } from '../src/server/db/index.js';
import { createApiKey } from '../src/server/service/keys/index.js';
import { startPayoutWorker, type PayoutWorkerOptions } from '../src/server/service/payouts/index.js';
import { startService, type RunningService } from '../src/server/service/serve.js';
import { creditDirectly, outgoingOf, randomAddress, startEvmFixture, type EvmFixture } from '../test/support/evm-service.js';
import { createUsdLink, startSession } from '../test/support/money.js';
import { postgresAvailable, startPostgresCluster } from '../test/support/postgres.js';
import { createPostgresDatabase } from '../test/support/service.js';
import { blockTime, sendBurst } from './evm.js';

/** One measured row (a type alias so it is assignable to `Record<string, unknown>`). */
export type EvmServiceBenchRow = {
  scenario: string;
  count: number;
  /** Mean (transfer → paid) or total (payouts) in ms. */
  ms: number;
  p99Ms: number | null;
  /** Payouts per second (payout rows). */
  perSecond: number | null;
  baseline: string;
  baselineValue: number;
  /** ms ÷ the baseline interval, or perSecond ÷ the baseline rate. */
  ratio: number;
};

export interface EvmServiceBenchOptions {
  /** Payments timed per block mode (default 6). */
  payments?: number;
  /** Concurrent withdrawals (default 50). */
  withdrawals?: number;
  log?: (line: string) => void;
}

const POLL_MS = 250;
/** Pre-signed transfers in each raw burst (the baseline of the payout figures). */
const RAW_BURST = 150;
/** Timed bursts of withdrawals per measurement (the median is reported). */
const TRIALS = 3;
const round = (x: number, digits = 1) => Number(x.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: ${what} did not happen within ${timeoutMs / 1000} s`);
    await sleep(5);
  }
}

/** Times `count` payments, one after another, from the transfer to `paid` in the public read. */
async function timePayments(blockSeconds: number | undefined, count: number): Promise<number[]> {
  const f = await startEvmFixture(blockSeconds ? { blockTime: blockSeconds } : {});
  let chain: ChainAdapter | undefined;
  let service: RunningService | undefined;
  try {
    chain = await f.adapter({ confirmations: 3, timeoutMs: 10_000 });
    service = await startService({ chain, rateSettings: { sources: ['static'] }, scanner: { pollMs: POLL_MS, log: () => {} }, payoutWorker: false });
    const { key } = await service.db.transaction((tx) => createApiKey(tx));
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const session = await startSession(service.url, await createUsdLink(service.url, key, '5'));
      const started = performance.now();
      // Sent with eth_sendTransaction (anvil's unlocked account), not waited for: on a 0.75 s chain it sits in the mempool.
      const hash = await f.t.sendToken(f.payers[0]!, f.usdt, session.payAddress as Address, parseUnits(session.cryptoAmount, 18), { mined: false });
      if (!blockSeconds) await f.t.mine(2);
      const url = `${service.url}/v1/checkout/sessions/${session.id}`;
      await waitFor(async () => ((await (await fetch(url)).json()) as { status: string }).status === 'paid', `session ${i} paid (${hash})`);
      samples.push(performance.now() - started);
    }
    return samples;
  } finally {
    await service?.close();
    await chain?.close?.();
    await f.stop();
  }
}

/** What one measured burst of withdrawals took, in ms from its start. */
interface PayoutTimes {
  postedMs: number;
  storedMs: number;
  onChainMs: number;
  successMs: number;
}

/**
 * The payout figures of one worker setting, on one database and the instant-mining fixture `f`
 * (1 confirmation, so a payout is done once its receipt is read), each trial right after a raw
 * burst on the same node (`raw`, its rate):
 * - queued: `count` withdrawals are waiting when a payout worker starts: the payouts alone;
 * - end to end: `count` withdrawals POSTed at once to a running service, whose worker each POST wakes.
 * A first burst of each, untimed, warms the service up (its database connections, a payout's code
 * paths) as a running service is.
 */
async function timePayouts(f: EvmFixture, db: Database, count: number, payouts: PayoutWorkerOptions, raw: () => Promise<number>) {
  const chain = await f.adapter({ confirmations: 1, timeoutMs: 10_000 });
  // The API with no worker of its own: withdrawals wait in the queue until a worker is started.
  const api = await startService({ db, chain, rateSettings: { sources: ['static'] }, scanner: false, payoutWorker: false });
  let service: RunningService | undefined;
  try {
    const { key } = await db.transaction((tx) => createApiKey(tx));
    await creditDirectly({ url: api.url, db }, chain, key, String(count * 2 * (TRIALS + 1) * 1.5));
    const hot = outgoingOf(chain).hotWallet as Address;
    const post = (url: string) =>
      Promise.all(
        Array.from({ length: count }, async () => {
          const response = await fetch(`${url}/v1/withdrawal`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': key },
            body: JSON.stringify({ amount: '1.5', address: randomAddress(), blockchainId: 'bsc', assetId: 'USDT' }),
          });
          if (response.status !== 200) throw new Error(`bench: withdrawal answered ${response.status}`);
          return ((await response.json()) as { id: string }).id;
        }),
      );
    const countOf = async (sql: string, ids: string[]) => (await db.query<{ n: number }>(sql, [ids])).rows[0]!.n;
    /** Waits for the burst `ids` (the hot wallet's nonce was `nonce` before it) to be stored, on chain and paid. */
    const follow = async (ids: string[], nonce: number, started: number, postedMs: number): Promise<PayoutTimes> => {
      await waitFor(async () => (await countOf('SELECT count(*)::int AS n FROM payout_transactions WHERE withdrawal_id = ANY($1)', ids)) === count, 'every payout signed and stored');
      const storedMs = performance.now() - started;
      await waitFor(async () => (await f.t.client.getTransactionCount({ address: hot })) >= nonce + count, 'every payout on chain');
      const onChainMs = performance.now() - started;
      await waitFor(async () => (await countOf("SELECT count(*)::int AS n FROM withdrawals WHERE id = ANY($1) AND status = 'success'", ids)) === count, 'every withdrawal succeeded');
      return { postedMs, storedMs, onChainMs, successMs: performance.now() - started };
    };
    const queued = async () => {
      const nonce = await f.t.client.getTransactionCount({ address: hot });
      const waiting = await post(api.url);
      const started = performance.now();
      const worker = startPayoutWorker({ db, chain, now: () => new Date() }, payouts);
      try {
        return await follow(waiting, nonce, started, 0);
      } finally {
        await worker.stop();
      }
    };
    const endToEnd = async () => {
      const nonce = await f.t.client.getTransactionCount({ address: hot });
      const started = performance.now();
      const ids = await post(service!.url);
      return follow(ids, nonce, started, performance.now() - started);
    };

    await queued();
    const alone: Array<PayoutTimes & { rawRate: number }> = [];
    for (let i = 0; i < TRIALS; i++) alone.push({ rawRate: await raw(), ...(await queued()) });
    service = await startService({ db, chain, rateSettings: { sources: ['static'] }, scanner: false, payouts });
    await endToEnd();
    const posted: Array<PayoutTimes & { rawRate: number }> = [];
    for (let i = 0; i < TRIALS; i++) posted.push({ rawRate: await raw(), ...(await endToEnd()) });
    return { queued: alone, endToEnd: posted };
  } finally {
    await service?.close();
    await api.close();
    await chain.close?.();
  }
}

/** Runs the service-on-chain benchmark; empty (with a log line) where anvil is not installed. */
export async function runEvmServiceBench(options: EvmServiceBenchOptions = {}): Promise<EvmServiceBenchRow[]> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!anvilAvailable()) {
    log('  evm-service: anvil is not installed, skipped');
    return [];
  }
  const payments = options.payments ?? 6;
  const withdrawals = options.withdrawals ?? 50;
  const rows: EvmServiceBenchRow[] = [];

  log('  evm-service: the chain itself (block interval at 0.75 s, raw eth_sendRawTransaction rate)…');
  const block = await blockTime(8);
  const blockMs = block.meanMs;

  for (const blockSeconds of process.env.BENCH_EVM_PAYOUTS_ONLY ? [] : [0.75, undefined]) {
    log(`  evm-service: transfer → paid, ${blockSeconds ? `${blockSeconds} s blocks` : 'instant mining'}…`);
    const samples = (await timePayments(blockSeconds, payments)).sort((a, b) => a - b);
    const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length;
    const scenario = `transfer → paid, 3 confirmations, ${blockSeconds ? '0.75 s blocks' : 'instant mining (+2 blocks at once)'}, scanner poll ${POLL_MS} ms`;
    rows.push({ scenario, count: samples.length, ms: round(mean), p99Ms: round(percentile(samples, 99)), perSecond: null, baseline: 'block interval (measured)', baselineValue: blockMs, ratio: round(mean / blockMs, 2) });
    if (!blockSeconds) rows.push({ scenario, count: samples.length, ms: round(mean), p99Ms: round(percentile(samples, 99)), perSecond: null, baseline: 'scanner poll interval', baselineValue: POLL_MS, ratio: round(mean / POLL_MS, 2) });
  }

  if (!postgresAvailable()) {
    log('  evm-service: PostgreSQL binaries not found, payouts skipped');
    return rows;
  }
  log(`  evm-service: ${withdrawals} withdrawals on PostgreSQL…`);
  const cluster = await startPostgresCluster();
  process.env.PAYLINK_TEST_DATABASE_URL = cluster.url; // where createPostgresDatabase makes its databases
  const f = await startEvmFixture();
  // A second wallet of the same node sends the raw bursts, so the hot wallet's nonces stay the service's.
  const sender = await connectEvmChain(f.t.config({ tokens: { USDT: f.usdt }, hotWalletIndex: 5 }), { timeoutMs: 30_000 });
  try {
    await f.t.mint(f.usdt, f.t.accounts[1]!, parseUnits('1000000', 18));
    await f.t.mint(f.usdt, sender.hotWallet!, parseUnits('1000000', 18));
    const raw = async () => (await sendBurst(sender, f.t.accounts[6]!, RAW_BURST, withdrawals)).perSecond;
    await raw(); // warm-up
    for (const [label, payouts] of [
      ["serve's defaults (worker 1 s, receipts 1 s)", {}],
      ['tuned (worker 20 ms, receipts 50 ms)', { pollIntervalMs: 20, checkMs: 50 }],
    ] as const) {
      const db = await openDatabase({ databaseUrl: (await createPostgresDatabase()).url, maxConnections: 20 });
      try {
        const measured = await timePayouts(f, db, withdrawals, payouts, raw);
        for (const [kind, trials] of [
          [`${withdrawals} withdrawals waiting, a payout worker started`, measured.queued],
          [`${withdrawals} concurrent POST /v1/withdrawal (end to end)`, measured.endToEnd],
        ] as const) {
          for (const times of trials) {
            log(`    ${label}, ${kind}: posted ${round(times.postedMs)} ms, signed and stored ${round(times.storedMs)} ms, on chain ${round(times.onChainMs)} ms, success ${round(times.successMs)} ms (raw ${times.rawRate}/s)`);
          }
          for (const what of ['onChain', 'success'] as const) {
            // The median trial by its ratio to the raw rate measured just before it.
            const ratios = trials.map((times) => ({ times, ratio: (withdrawals / times[`${what}Ms`]) * 1000 / times.rawRate })).sort((a, b) => a.ratio - b.ratio);
            const { times, ratio } = ratios[Math.floor(ratios.length / 2)]!;
            rows.push({
              scenario: `${kind} → all ${what === 'onChain' ? 'on chain' : 'success'}, PostgreSQL, ${label} (median of ${trials.length})`,
              count: withdrawals,
              ms: round(times[`${what}Ms`]),
              p99Ms: null,
              perSecond: round((withdrawals / times[`${what}Ms`]) * 1000),
              baseline: `raw eth_sendRawTransaction/s (${RAW_BURST} pre-signed, ${withdrawals} concurrent, same node, just before)`,
              baselineValue: times.rawRate,
              ratio: round(ratio, 3),
            });
          }
        }
      } finally {
        await db.close();
      }
    }
  } finally {
    await sender.close();
    await f.stop();
    cluster.stop();
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { payments: { type: 'string' } } });
  console.table(await runEvmServiceBench({ payments: values.payments ? Number(values.payments) : undefined }));
  process.exit(0);
}
