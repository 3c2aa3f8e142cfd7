/**
 * The service on real chains, each figure a ratio to the chains' own speed measured in the same run:
 *
 * - Transfer → `paid`, per network: one service on two local chains at once, "Local BNB Smart Chain"
 *   (chain 31337, a block every 0.75 s) and "Local Polygon" (chain 31338, every 2 s), 3 confirmations
 *   each, scanners polling every 250 ms. Customers pay on both at the same time; each network's mean
 *   from the transfer to `paid` in the public read is quoted against that chain's block interval,
 *   watched while the payments run. Three confirmations are the transfer's block and two more, so the
 *   floor is about 2.5 intervals (half an interval to be mined, two more blocks) plus the time to see
 *   the last one.
 * - Transfer → `paid` on instant mining: the transfer and two empty blocks are mined at once, so the
 *   chain is ready the moment the transfer returns: what is left is the service's own latency (scanner
 *   poll, scan, settlement), quoted against the scanner's poll interval.
 * - Catching up behind a capped node: a payment 2,000 blocks ahead of the scanner's cursor, read
 *   through a JSON-RPC proxy that refuses any `eth_getLogs` wider than 10 blocks (a free tier's words,
 *   test/fixtures/getlogs-refusals.json), each trial with a new connection (nothing learned before);
 *   seconds from the scanner's start to `paid`, quoted against the same catch-up straight from the node.
 * - Payouts per second on PostgreSQL (instant mining, 1 confirmation, so a payout is done once its
 *   receipt is read), with `serve`'s defaults (worker poll and receipt checks every 1 s) and tuned
 *   (every 20 ms / 50 ms), each trial quoted against its own baseline, measured on the same node around
 *   it: the median rate of five raw bursts of 150 pre-signed transfers from 50 concurrent callers
 *   (`eth_sendRawTransaction`), three right before the trial and two right after (one burst alone
 *   swings with the machine's load): 50 withdrawals
 *   waiting when a worker starts (the payouts alone), and 50 concurrent `POST /v1/withdrawal` to a
 *   running service (end to end, the API included). Until the node has taken them all (its pending
 *   nonce: the raw rate counts a transfer when `eth_sendRawTransaction` answers, so this is the figure
 *   quoted against it), until all are mined (anvil mines one block per transaction, after the fact) and
 *   until all `success`; end to end also until the API has acknowledged them all (a bound the
 *   end-to-end figures cannot beat).
 *
 * Run alone: `node --import tsx bench/evm-service.ts [--payments 5] [--only networks,instant,capped,payouts]`.
 * `bench/run.ts` calls `runEvmServiceBench()`.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseUnits, type Address, type PublicClient } from 'viem';
import { connectEvmAdapter } from '../src/server/chain/evm/adapter.js';
import { anvilAvailable } from '../src/server/chain/evm/anvil.js';
import { connectEvmChain } from '../src/server/chain/evm/connect.js';
import { parseEvmNetworks } from '../src/server/chain/evm/config.js';
import type { ChainAdapter, RealChainAdapter } from '../src/server/chain/types.js';
import { openDatabase, type Database } from '../src/server/db/index.js';
import { createLogger } from '../src/server/log.js';
import { createApiKey } from '../src/server/service/keys/index.js';
import { startPayoutWorker, type PayoutWorkerOptions } from '../src/server/service/payouts/index.js';
import { startService, type RunningService } from '../src/server/service/serve.js';
import { createChainScanner, startChainScanner } from '../src/server/service/money-in/index.js';
import { creditDirectly, networksEnv, outgoingOf, randomAddress, startEvmFixture, type EvmFixture } from '../test/support/evm-service.js';
import { createUsdLink, startSession } from '../test/support/money.js';
import { postgresAvailable, startPostgresCluster } from '../test/support/postgres.js';
import { startRpcProxy, type LogRefusal } from '../test/support/rpc-proxy.js';
import { createPostgresDatabase } from '../test/support/service.js';
import { sendBurst } from './evm.js';

/** The service's and scanner's log lines are not the benchmark's output. */
const quiet = createLogger(() => {});

/** One measured row (a type alias so it is assignable to `Record<string, unknown>`). */
export type EvmServiceBenchRow = {
  scenario: string;
  count: number;
  /** Mean (transfer → paid), median (catch-up) or total (payouts) in ms. */
  ms: number;
  p99Ms: number | null;
  /** Payouts per second (payout rows). */
  perSecond: number | null;
  baseline: string;
  baselineValue: number;
  /** ms ÷ the baseline interval or time, or perSecond ÷ the baseline rate. */
  ratio: number;
  /** Payout rows: the lowest and highest baseline of the trials (each trial is quoted against its own). */
  baselineRange?: string;
  /** Payout rows: the machine's 1-minute load average when the quoted trial ended (other work shares its cores). */
  loadAverage?: number;
};

/** The parts of the benchmark (all by default). */
export type EvmServicePart = 'networks' | 'instant' | 'capped' | 'payouts';

export interface EvmServiceBenchOptions {
  /** Payments timed per network, and on instant mining (default 6). */
  payments?: number;
  /** Concurrent withdrawals (default 50). */
  withdrawals?: number;
  /** Which parts to run (default all). */
  only?: readonly EvmServicePart[];
  log?: (line: string) => void;
}

const POLL_MS = 250;
/** Pre-signed transfers in each raw burst (the baseline of the payout figures). */
const RAW_BURST = 150;
/** Raw bursts right before and right after each payout trial: the median rate of the five is that trial's baseline. */
const RAW_BURSTS_BEFORE = 3;
const RAW_BURSTS_AFTER = 2;
/** Timed bursts of withdrawals, and catch-ups, per measurement (the median is reported). */
const TRIALS = 3;
/** Timed bursts of withdrawals per payout measurement (the median trial, by its ratio, is reported). */
const PAYOUT_TRIALS = 5;
/** The two local networks: their block intervals differ, as BNB Smart Chain's and Polygon's do. */
const NETWORKS = [
  { id: 'bsc', name: 'Local BNB Smart Chain', chainId: 31337, blockTime: 0.75 },
  { id: 'polygon', name: 'Local Polygon', chainId: 31338, blockTime: 2 },
] as const;
/** How far behind the head the catch-up starts, and the capped node's widest `eth_getLogs`. */
const BEHIND = 2_000;
const CAP = 10;
const round = (x: number, digits = 1) => Number(x.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / Math.max(1, xs.length);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const rangeOf = (trials: ReadonlyArray<{ rawRate: number }>) => `${Math.min(...trials.map((t) => t.rawRate))}–${Math.max(...trials.map((t) => t.rawRate))}`;

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

const isPaid = (url: string, id: string) => async () =>
  ((await (await fetch(`${url}/v1/checkout/sessions/${id}`)).json()) as { status: string }).status === 'paid';

/** Watches a chain's new blocks with a 10 ms poller; `stop()` resolves with the intervals seen (ms per block). */
function watchBlocks(client: PublicClient) {
  const intervals: number[] = [];
  let running = true;
  const watching = (async () => {
    let last = await client.getBlockNumber();
    let lastAt = performance.now();
    let aligned = false;
    while (running) {
      const now = await client.getBlockNumber();
      if (now !== last) {
        const at = performance.now();
        // The first change only aligns the poller with the chain's clock.
        if (aligned) intervals.push((at - lastAt) / Number(now - last));
        aligned = true;
        last = now;
        lastAt = at;
      }
      await sleep(10);
    }
  })();
  return {
    async stop() {
      running = false;
      await watching;
      return intervals;
    },
  };
}

/** A customer's transfer to `session` (eth_sendTransaction from an unlocked account), not waited for: on a chain with block times it sits in the mempool. */
function pay(f: EvmFixture, session: { payAddress: string; cryptoAmount: string }) {
  return f.t.sendToken(f.payers[0]!, f.usdt, session.payAddress as Address, parseUnits(session.cryptoAmount, 18), { mined: false });
}

/**
 * One service on the two local networks at once: `count` payments on each, the networks side by
 * side, one after another within a network. Resolves with each network's samples and block intervals.
 */
async function timeNetworks(count: number) {
  const fixtures = await Promise.all(NETWORKS.map((n) => startEvmFixture({ chainId: n.chainId, blockTime: n.blockTime })));
  let chain: RealChainAdapter | undefined;
  let service: RunningService | undefined;
  try {
    const env = networksEnv(NETWORKS.map((n, i) => ({ id: n.id, name: n.name, f: fixtures[i]!, confirmations: 3, pollMs: POLL_MS })));
    chain = await connectEvmAdapter(parseEvmNetworks(env), { timeoutMs: 10_000, log: () => {} });
    service = await startService({ chain, rateSettings: { sources: ['static'] }, scanner: { pollMs: POLL_MS }, payoutWorker: false, logger: quiet });
    const { key } = await service.db.transaction((tx) => createApiKey(tx));
    const slug = await createUsdLink(service.url, key, '5');
    return await Promise.all(
      NETWORKS.map(async (network, i) => {
        const f = fixtures[i]!;
        const blocks = watchBlocks(f.t.client);
        const samples: number[] = [];
        for (let n = 0; n < count; n++) {
          const session = await startSession(service!.url, slug, { assetId: 'USDT', blockchainId: network.id });
          const started = performance.now();
          const hash = await pay(f, session);
          await waitFor(isPaid(service!.url, session.id), `${network.id} session ${n} paid (${hash})`);
          samples.push(performance.now() - started);
        }
        return { network, samples, intervals: await blocks.stop() };
      }),
    );
  } finally {
    await service?.close();
    await chain?.close();
    await Promise.all(fixtures.map((f) => f.stop()));
  }
}

/** Times `count` payments on instant mining, one after another, from the transfer to `paid` in the public read. */
async function timeInstant(count: number): Promise<number[]> {
  const f = await startEvmFixture();
  let chain: ChainAdapter | undefined;
  let service: RunningService | undefined;
  try {
    chain = await f.adapter({ confirmations: 3, timeoutMs: 10_000 });
    service = await startService({ chain, rateSettings: { sources: ['static'] }, scanner: { pollMs: POLL_MS }, payoutWorker: false, logger: quiet });
    const { key } = await service.db.transaction((tx) => createApiKey(tx));
    const slug = await createUsdLink(service.url, key, '5');
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const session = await startSession(service.url, slug);
      const started = performance.now();
      const hash = await pay(f, session);
      await f.t.mine(2);
      await waitFor(isPaid(service.url, session.id), `session ${i} paid (${hash})`);
      samples.push(performance.now() - started);
    }
    return samples;
  } finally {
    await service?.close();
    await chain?.close?.();
    await f.stop();
  }
}

/**
 * A payment `BEHIND` blocks ahead of the scanner's cursor, `trials` times straight from the node and
 * as many times through a proxy that refuses any `eth_getLogs` wider than `CAP` blocks. Each trial
 * connects anew (the widest range that worked is remembered per connection). Resolves with the ms
 * from the scanner's start to `paid`, and how many queries the capped node refused in all.
 */
async function timeCatchUp(trials: number) {
  const { refusals } = JSON.parse(readFileSync(new URL('../test/fixtures/getlogs-refusals.json', import.meta.url), 'utf8')) as {
    refusals: Array<{ name: string } & LogRefusal>;
  };
  const { name: _name, ...refusal } = refusals.find((r) => r.name === '-32600 free tier 10 block range')!;
  const f = await startEvmFixture();
  const proxy = await startRpcProxy(f.t.url);
  proxy.refuseLogs(refusal as LogRefusal, CAP);
  const direct = await f.adapter({ confirmations: 3, timeoutMs: 10_000 });
  const service = await startService({ chain: direct, rateSettings: { sources: ['static'] }, scanner: false, payoutWorker: false });
  const times = { direct: [] as number[], capped: [] as number[] };
  try {
    const { key } = await service.db.transaction((tx) => createApiKey(tx));
    const slug = await createUsdLink(service.url, key, '5');
    for (let i = 0; i < BEHIND; i += 500) await f.t.mine(500);
    await createChainScanner({ db: service.db, chain: direct, now: () => new Date(), logger: quiet }).runOnce(); // the cursor
    for (let trial = 0; trial < trials; trial++) {
      for (const which of ['direct', 'capped'] as const) {
        const chain = await f.adapter({ confirmations: 3, timeoutMs: 10_000, rpcUrl: which === 'capped' ? proxy.url : undefined });
        try {
          const session = await startSession(service.url, slug);
          await pay(f, session);
          await f.t.mine(2);
          const head = Number(await f.t.client.getBlockNumber());
          await service.db.query('UPDATE chain_cursors SET next_block = $1 WHERE blockchain_id = $2', [head - BEHIND, 'bsc']);
          const started = performance.now();
          const scanner = startChainScanner({ db: service.db, chain, now: () => new Date(), logger: quiet }, { pollMs: POLL_MS });
          try {
            await waitFor(isPaid(service.url, session.id), `${which} catch-up paid`, 120_000);
          } finally {
            await scanner.stop();
          }
          times[which].push(performance.now() - started);
        } finally {
          await chain.close();
        }
      }
    }
    return { ...times, refused: proxy.logs.refused };
  } finally {
    await service.close();
    await direct.close();
    await proxy.close();
    await f.stop();
  }
}

/** How far a burst of payouts got, as the rows name it. */
const PAYOUT_MILESTONES = {
  sent: 'all sent (the node took every payout: the event the raw rate counts)',
  onChain: 'all mined (anvil mines a block per transaction)',
  success: 'all success (receipts read, withdrawals finished)',
} as const;

/** What one measured burst of withdrawals took, in ms from its start. */
interface PayoutTimes {
  postedMs: number;
  storedMs: number;
  /** Until the node had taken every payout (its pending nonce): the event the raw rate counts. */
  sentMs: number;
  /** Until every payout was mined (anvil mines a block per transaction, one after another). */
  onChainMs: number;
  successMs: number;
  /** The 1-minute load average once it was done. */
  loadAverage: number;
}

/**
 * The payout figures of one worker setting, on one database and the instant-mining fixture `f`
 * (1 confirmation, so a payout is done once its receipt is read), each trial between the raw bursts
 * of its baseline on the same node (`raw`):
 * - queued: `count` withdrawals are waiting when a payout worker starts: the payouts alone;
 * - end to end: `count` withdrawals POSTed at once to a running service, whose worker is woken once
 *   the burst is recorded.
 * A first burst of each, untimed, warms the service up (its database connections, a payout's code
 * paths) as a running service is.
 */
async function timePayouts(f: EvmFixture, db: Database, count: number, payouts: PayoutWorkerOptions, raw: (bursts: number) => Promise<number[]>) {
  const chain = await f.adapter({ confirmations: 1, timeoutMs: 10_000 });
  // The API with no worker of its own: withdrawals wait in the queue until a worker is started.
  const api = await startService({ db, chain, rateSettings: { sources: ['static'] }, scanner: false, payoutWorker: false });
  let service: RunningService | undefined;
  try {
    const { key } = await db.transaction((tx) => createApiKey(tx));
    await creditDirectly({ url: api.url, db }, chain, key, String(count * 2 * (PAYOUT_TRIALS + 1) * 1.5));
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
    /**
     * Waits for the burst `ids` (the hot wallet's nonce was `nonce` before it; it started at
     * `started`, `performance.now()`, and `startedAt`, the wall clock) to be taken by the node, mined, then paid. Only
     * the node is polled while the payouts go out: polling the service's database then would load the
     * very pool it measures. When each was stored is read from its row afterwards.
     */
    const follow = async (ids: string[], nonce: number, started: number, startedAt: number, postedMs: number): Promise<PayoutTimes> => {
      await waitFor(
        async () => (await f.t.client.getTransactionCount({ address: hot, blockTag: 'pending' })) >= nonce + count,
        'every payout taken by the node',
      );
      const sentMs = performance.now() - started;
      await waitFor(async () => (await f.t.client.getTransactionCount({ address: hot })) >= nonce + count, 'every payout mined');
      const onChainMs = performance.now() - started;
      await waitFor(
        async () => (await countOf("SELECT count(*)::int AS n FROM withdrawals WHERE id = ANY($1) AND status = 'success'", ids)) === count,
        'every withdrawal succeeded',
      );
      const successMs = performance.now() - started;
      const { rows } = await db.query<{ n: number; last: Date }>(
        'SELECT count(*)::int AS n, max(created_at) AS last FROM payout_transactions WHERE withdrawal_id = ANY($1)',
        [ids],
      );
      if (rows[0]!.n !== count) throw new Error(`bench: ${rows[0]!.n} of ${count} payouts stored`);
      return { postedMs, storedMs: rows[0]!.last.getTime() - startedAt, sentMs, onChainMs, successMs, loadAverage: round(loadavg()[0]!) };
    };
    const queued = async () => {
      const nonce = await f.t.client.getTransactionCount({ address: hot });
      const waiting = await post(api.url);
      const started = performance.now();
      const startedAt = Date.now();
      const worker = startPayoutWorker({ db, chain, now: () => new Date() }, payouts);
      try {
        return await follow(waiting, nonce, started, startedAt, 0);
      } finally {
        await worker.stop();
      }
    };
    const endToEnd = async () => {
      const nonce = await f.t.client.getTransactionCount({ address: hot });
      const started = performance.now();
      const startedAt = Date.now();
      const ids = await post(service!.url);
      return follow(ids, nonce, started, startedAt, performance.now() - started);
    };

    await queued();
    const alone: Array<PayoutTimes & { rawRate: number }> = [];
    /** A trial between its baseline's bursts. */
    const bracketed = async (trial: () => Promise<PayoutTimes>) => {
      const before = await raw(RAW_BURSTS_BEFORE);
      const times = await trial();
      return { rawRate: median([...before, ...(await raw(RAW_BURSTS_AFTER))]), ...times };
    };
    for (let i = 0; i < PAYOUT_TRIALS; i++) alone.push(await bracketed(queued));
    service = await startService({ db, chain, rateSettings: { sources: ['static'] }, scanner: false, payouts });
    await endToEnd();
    const posted: Array<PayoutTimes & { rawRate: number }> = [];
    for (let i = 0; i < PAYOUT_TRIALS; i++) posted.push(await bracketed(endToEnd));
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
  const parts = new Set<EvmServicePart>(options.only?.length ? options.only : ['networks', 'instant', 'capped', 'payouts']);
  const rows: EvmServiceBenchRow[] = [];

  if (parts.has('networks')) {
    log(`  evm-service: transfer → paid on ${NETWORKS.map((n) => `${n.name} (${n.blockTime} s blocks)`).join(' and ')} at once…`);
    for (const { network, samples, intervals } of await timeNetworks(payments)) {
      const sorted = [...samples].sort((a, b) => a - b);
      const blockMs = round(mean(intervals));
      rows.push({
        scenario: `transfer → paid on ${network.name} (chain ${network.chainId}, --block-time ${network.blockTime}), 3 confirmations, scanner poll ${POLL_MS} ms, beside ${NETWORKS.find((n) => n.id !== network.id)!.name}`,
        count: samples.length,
        ms: round(mean(samples)),
        p99Ms: round(percentile(sorted, 99)),
        perSecond: null,
        baseline: `${network.name}'s block interval (watched meanwhile)`,
        baselineValue: blockMs,
        ratio: round(mean(samples) / blockMs, 2),
      });
    }
  }

  if (parts.has('instant')) {
    log('  evm-service: transfer → paid on instant mining…');
    const samples = await timeInstant(payments);
    const sorted = [...samples].sort((a, b) => a - b);
    rows.push({
      scenario: `transfer → paid, 3 confirmations, instant mining (+2 blocks at once), scanner poll ${POLL_MS} ms`,
      count: samples.length,
      ms: round(mean(samples)),
      p99Ms: round(percentile(sorted, 99)),
      perSecond: null,
      baseline: 'scanner poll interval',
      baselineValue: POLL_MS,
      ratio: round(mean(samples) / POLL_MS, 2),
    });
  }

  if (parts.has('capped')) {
    log(`  evm-service: catching up ${BEHIND} blocks, straight and behind a node capping eth_getLogs at ${CAP} blocks…`);
    const { direct, capped, refused } = await timeCatchUp(TRIALS);
    rows.push({
      scenario: `payment ${BEHIND} blocks ahead of the cursor → paid, straight from the node (median of ${direct.length})`,
      count: direct.length,
      ms: round(median(direct)),
      p99Ms: null,
      perSecond: null,
      baseline: 'the same',
      baselineValue: round(median(direct)),
      ratio: 1,
    });
    rows.push({
      scenario: `payment ${BEHIND} blocks ahead of the cursor → paid, behind a node refusing eth_getLogs over ${CAP} blocks ("free tier"), a new connection each time (median of ${capped.length}; ${round(refused / capped.length, 0)} refusals each)`,
      count: capped.length,
      ms: round(median(capped)),
      p99Ms: null,
      perSecond: null,
      baseline: 'the same payment straight from the node (ms)',
      baselineValue: round(median(direct)),
      ratio: round(median(capped) / median(direct), 2),
    });
  }

  if (!parts.has('payouts')) return rows;
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
    const raw = async (bursts: number) => {
      const rates: number[] = [];
      for (let i = 0; i < bursts; i++) rates.push((await sendBurst(sender, f.t.accounts[6]!, RAW_BURST, withdrawals)).perSecond);
      log(`    raw bursts: ${rates.join(', ')}/s`);
      return rates;
    };
    await raw(RAW_BURSTS_BEFORE); // warm-up
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
            log(
              `    ${label}, ${kind}: posted ${round(times.postedMs)} ms, signed and stored ${round(times.storedMs)} ms, sent ${round(times.sentMs)} ms, mined ${round(times.onChainMs)} ms, success ${round(times.successMs)} ms (raw ${times.rawRate}/s, load ${times.loadAverage})`,
            );
          }
          if (trials === measured.endToEnd) {
            // What the API alone took to acknowledge the burst: the end-to-end figures cannot beat it.
            const byRatio = trials
              .map((times) => ({ times, ratio: ((withdrawals / times.postedMs) * 1000) / times.rawRate }))
              .sort((a, b) => a.ratio - b.ratio);
            const { times, ratio } = byRatio[Math.floor(byRatio.length / 2)]!;
            rows.push({
              scenario: `${kind} → all acknowledged (the API alone), PostgreSQL, ${label} (median of ${trials.length})`,
              count: withdrawals,
              ms: round(times.postedMs),
              p99Ms: null,
              perSecond: round((withdrawals / times.postedMs) * 1000),
              baseline: `raw eth_sendRawTransaction/s (median of ${RAW_BURSTS_BEFORE + RAW_BURSTS_AFTER} bursts of ${RAW_BURST} pre-signed, ${withdrawals} concurrent, same node, ${RAW_BURSTS_BEFORE} right before and ${RAW_BURSTS_AFTER} right after each trial)`,
              baselineValue: times.rawRate,
              ratio: round(ratio, 3),
              baselineRange: rangeOf(trials),
              loadAverage: times.loadAverage,
            });
          }
          for (const what of ['sent', 'onChain', 'success'] as const) {
            // The median trial by its ratio to the raw rate measured around it.
            const ratios = trials
              .map((times) => ({ times, ratio: ((withdrawals / times[`${what}Ms`]) * 1000) / times.rawRate }))
              .sort((a, b) => a.ratio - b.ratio);
            const { times, ratio } = ratios[Math.floor(ratios.length / 2)]!;
            rows.push({
              scenario: `${kind} → ${PAYOUT_MILESTONES[what]}, PostgreSQL, ${label} (median of ${trials.length})`,
              count: withdrawals,
              ms: round(times[`${what}Ms`]),
              p99Ms: null,
              perSecond: round((withdrawals / times[`${what}Ms`]) * 1000),
              baseline: `raw eth_sendRawTransaction/s (median of ${RAW_BURSTS_BEFORE + RAW_BURSTS_AFTER} bursts of ${RAW_BURST} pre-signed, ${withdrawals} concurrent, same node, ${RAW_BURSTS_BEFORE} right before and ${RAW_BURSTS_AFTER} right after each trial)`,
              baselineValue: times.rawRate,
              ratio: round(ratio, 3),
              baselineRange: rangeOf(trials),
              loadAverage: times.loadAverage,
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
  const { values } = parseArgs({ options: { payments: { type: 'string' }, only: { type: 'string' } } });
  const only = values.only ? (values.only.split(',') as EvmServicePart[]) : undefined;
  console.table(await runEvmServiceBench({ payments: values.payments ? Number(values.payments) : undefined, only }));
  process.exit(0);
}
