/**
 * Proxy overhead: throughput and p50/p99 of `GET /paylink/checkout/{slug}` through `paylink proxy`
 * against `GET /v1/checkout/{slug}` straight to the service, in one run, at a fixed number of
 * connections for a fixed time. Service and proxy each run in their own process (as deployed), the
 * load generator (autocannon, keep-alive) in this one. The proxy's rate limit is turned off
 * (`PAYLINK_RATE_LIMIT=off`): every request comes from one address, and the point is the forwarding cost.
 * The two targets alternate over a few rounds (direct, proxy; proxy, direct; …) so that drift in the
 * machine's load hits both alike; the ratio is the median of the rounds' ratios.
 *
 *   node --import tsx bench/proxy.ts     # BENCH_SECONDS=5 (per target and round) BENCH_CONNECTIONS=50 BENCH_ROUNDS=3
 */
import { binPath, startBenchService, startProcess } from './support/processes.js';
import { load, type LoadResult } from './support/load.js';

export interface ProxyBenchRow extends LoadResult {
  target: string;
}

export interface ProxyBenchResult {
  connections: number;
  durationSeconds: number;
  rounds: number;
  direct: ProxyBenchRow;
  proxy: ProxyBenchRow;
  /** proxy / direct, median over the rounds: requests per second (1 = no cost), latency (1 = no added latency). */
  ratio: { requestsPerSecond: number; p50: number; p99: number };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round2 = (value: number) => Number(value.toFixed(2));

/** Rounds of one target folded into one row: summed counts, mean throughput, median latencies. */
function combine(target: string, runs: LoadResult[]): ProxyBenchRow {
  return {
    target,
    requestsPerSecond: Math.round(runs.reduce((sum, run) => sum + run.requestsPerSecond, 0) / runs.length),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
}

export async function runProxyBench(options: { connections?: number; durationSeconds?: number; rounds?: number } = {}): Promise<ProxyBenchResult> {
  const connections = options.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 50);
  const durationSeconds = options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Math.max(1, options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3));
  const service = await startBenchService();
  try {
    const created = await fetch(`${service.url}/v1/payment-link`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Bench link', description: 'Proxy overhead', fiatAmount: 25, fiatCurrency: ['USD'],
        action: { successMessage: 'Thanks' }, options: {}, cart: { items: [] },
      }),
    });
    if (created.status !== 201) throw new Error(`could not create the bench link: ${created.status}`);
    const { slug } = (await created.json()) as { slug: string };

    const proxy = await startProcess([binPath(), 'proxy', '--upstream', service.url], { PAYLINK_API_KEY: service.key, PAYLINK_RATE_LIMIT: 'off' });
    try {
      const directUrl = `${service.url}/v1/checkout/${slug}`;
      const proxyUrl = `${proxy.url}/paylink/checkout/${slug}`;
      const [a, b] = await Promise.all([fetch(directUrl).then((r) => r.json()), fetch(proxyUrl).then((r) => r.json())]);
      if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('the proxy does not answer the same document as the service');

      // A short warm-up of both (JIT, connection pools), then the measured runs.
      await load({ url: directUrl, connections, durationSeconds: 1 });
      await load({ url: proxyUrl, connections, durationSeconds: 1 });
      const direct: LoadResult[] = [];
      const proxied: LoadResult[] = [];
      for (let round = 0; round < rounds; round++) {
        const measureDirect = async () => direct.push(await load({ url: directUrl, connections, durationSeconds }));
        const measureProxy = async () => proxied.push(await load({ url: proxyUrl, connections, durationSeconds }));
        if (round % 2 === 0) {
          await measureDirect();
          await measureProxy();
        } else {
          await measureProxy();
          await measureDirect();
        }
      }
      const ratios = (pick: (run: LoadResult) => number) => round2(median(direct.map((run, i) => pick(proxied[i]!) / Math.max(pick(run), 0.01))));
      return {
        connections,
        durationSeconds,
        rounds,
        direct: combine('direct: GET /v1/checkout/{slug}', direct),
        proxy: combine('proxy: GET /paylink/checkout/{slug}', proxied),
        ratio: {
          requestsPerSecond: ratios((run) => run.requestsPerSecond),
          p50: ratios((run) => run.p50Ms),
          p99: ratios((run) => run.p99Ms),
        },
      };
    } finally {
      await proxy.stop();
    }
  } finally {
    await service.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runProxyBench();
  console.log(`${result.connections} connections, ${result.rounds} alternating rounds of ${result.durationSeconds} s per target, one run`);
  console.table([result.direct, result.proxy].map(({ target, requestsPerSecond, p50Ms, p99Ms, requests, non2xx, errors }) => ({ target, 'req/s': requestsPerSecond, 'p50 ms': p50Ms, 'p99 ms': p99Ms, requests, non2xx, errors })));
  console.log(`proxy/direct: throughput ×${result.ratio.requestsPerSecond}, p50 ×${result.ratio.p50}, p99 ×${result.ratio.p99}`);
}
