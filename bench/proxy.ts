/**
 * Proxy overhead: throughput and p50/p99 of `GET /paylink/checkout/{slug}` through `paylink proxy`
 * against `GET /v1/checkout/{slug}` straight to the service, in one run, at a fixed number of
 * connections for a fixed time. Service and proxy each run in their own process (as deployed), the
 * load generator (autocannon, keep-alive) in this one. The proxy's rate limit is turned off
 * (`PAYLINK_RATE_LIMIT=off`): every request comes from one address, and the point is the forwarding cost.
 *
 *   node --import tsx bench/proxy.ts            # BENCH_SECONDS=5 BENCH_CONNECTIONS=50 by default
 */
import { binPath, startBenchService, startProcess } from './support/processes.js';
import { load, type LoadResult } from './support/load.js';

export interface ProxyBenchRow extends LoadResult {
  target: string;
}

export interface ProxyBenchResult {
  connections: number;
  durationSeconds: number;
  direct: ProxyBenchRow;
  proxy: ProxyBenchRow;
  /** proxy / direct: requests per second (1 = no cost), and latency (1 = no added latency). */
  ratio: { requestsPerSecond: number; p50: number; p99: number };
}

export async function runProxyBench(options: { connections?: number; durationSeconds?: number } = {}): Promise<ProxyBenchResult> {
  const connections = options.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 50);
  const durationSeconds = options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 5);
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
      const direct = await load({ url: directUrl, connections, durationSeconds });
      const proxied = await load({ url: proxyUrl, connections, durationSeconds });
      const round = (value: number) => Number(value.toFixed(2));
      return {
        connections,
        durationSeconds,
        direct: { target: 'direct: GET /v1/checkout/{slug}', ...direct },
        proxy: { target: 'proxy: GET /paylink/checkout/{slug}', ...proxied },
        ratio: {
          requestsPerSecond: round(proxied.requestsPerSecond / direct.requestsPerSecond),
          p50: round(proxied.p50Ms / Math.max(direct.p50Ms, 0.01)),
          p99: round(proxied.p99Ms / Math.max(direct.p99Ms, 0.01)),
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
  console.log(`${result.connections} connections, ${result.durationSeconds} s each, one run`);
  console.table([result.direct, result.proxy].map(({ target, requestsPerSecond, p50Ms, p99Ms, requests, non2xx, errors }) => ({ target, 'req/s': requestsPerSecond, 'p50 ms': p50Ms, 'p99 ms': p99Ms, requests, non2xx, errors })));
  console.log(`proxy/direct: throughput ×${result.ratio.requestsPerSecond}, p50 ×${result.ratio.p50}, p99 ×${result.ratio.p99}`);
}
