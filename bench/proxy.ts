/**
 * Proxy overhead: throughput and p50/p99 of `GET /paylink/checkout/{slug}` through `paylink proxy`
 * against `GET /v1/checkout/{slug}` straight to the service, in one run, at a fixed number of
 * connections for a fixed time. Service and proxy each run in their own process (as deployed), the
 * load generator (autocannon, keep-alive) in this one. The proxy's rate limit is turned off
 * (`PAYLINK_RATE_LIMIT=off`): every request comes from one address, and the point is the forwarding cost.
 * The targets take turns over a few rounds (each round starts one later: direct, proxy; proxy, direct; …)
 * so that drift in the machine's load hits all alike; each ratio is the median of the rounds' ratios.
 * On Linux each row also has the CPU time its server process spent per request (from /proc: the proxy's
 * own for the proxies, the service's for direct calls), which a loaded machine disturbs far less than
 * throughput or latency.
 *
 * Optional targets in the same run:
 * - `BENCH_PROXY_BASELINE=<dir>`: the `paylink proxy` of another checkout (e.g. `git archive main` unpacked,
 *   with a `node_modules` link), to compare a change of the proxy against what it replaces;
 * - `BENCH_PROXY_HONO=1`: the checkout area composed from Hono's middleware (`bench/support/hono-proxy.ts`).
 *
 *   node --import tsx bench/proxy.ts     # BENCH_SECONDS=5 (per target and round) BENCH_CONNECTIONS=50 BENCH_ROUNDS=3
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, binPath, startBenchService, startProcess, type BenchProcess } from './support/processes.js';
import { load, type LoadResult } from './support/load.js';

/** One target's rounds folded into one row, with its ratios to the direct calls of the same rounds. */
export interface ProxyBenchRow extends LoadResult {
  target: string;
  /** CPU time of the target's server process per request, in µs (median over the rounds; Linux only). */
  cpuUsPerRequest?: number;
  /** target / direct, median over the rounds: requests per second (1 = no cost), latency (1 = no added latency). */
  vsDirect: Ratios;
  /** target / the baseline proxy, when `BENCH_PROXY_BASELINE` is set (1 = same; for CPU per request, lower is cheaper). */
  vsBaseline?: Ratios & { cpuPerRequest?: number };
}

interface Ratios {
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

interface Run extends LoadResult {
  cpuUsPerRequest?: number | undefined;
}

interface Target {
  name: string;
  url: string;
  pid: number | undefined;
  runs: Run[];
}

/** utime + stime of `pid` in ms, from /proc (undefined where there is none). */
function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name (which may hold spaces): state is 3rd, utime 14th, stime 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

async function measure(target: Target, connections: number, durationSeconds: number): Promise<Run> {
  const before = cpuMs(target.pid);
  const run: Run = await load({ url: target.url, connections, durationSeconds });
  const after = cpuMs(target.pid);
  if (before !== undefined && after !== undefined && run.requests > 0) run.cpuUsPerRequest = ((after - before) * 1000) / run.requests;
  return run;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round2 = (value: number) => Number(value.toFixed(2));

/** Per-round ratios of `a` to `b`, medians. */
function ratios(a: LoadResult[], b: LoadResult[]) {
  const of = (pick: (run: LoadResult) => number) => round2(median(a.map((run, i) => pick(run) / Math.max(pick(b[i]!), 0.01))));
  return { requestsPerSecond: of((run) => run.requestsPerSecond), p50: of((run) => run.p50Ms), p99: of((run) => run.p99Ms) };
}

/** Rounds of one target folded into one row: summed counts, mean throughput, median latencies. */
function combine(target: Target, direct: Target, baseline: Target | undefined): ProxyBenchRow {
  const runs = target.runs;
  const cpu = runs.every((run) => run.cpuUsPerRequest !== undefined) ? round2(median(runs.map((run) => run.cpuUsPerRequest!))) : undefined;
  const cpuVsBaseline =
    cpu !== undefined && baseline?.runs.every((run) => run.cpuUsPerRequest !== undefined)
      ? round2(median(runs.map((run, i) => run.cpuUsPerRequest! / baseline.runs[i]!.cpuUsPerRequest!)))
      : undefined;
  return {
    target: target.name,
    ...(cpu !== undefined ? { cpuUsPerRequest: cpu } : {}),
    requestsPerSecond: Math.round(runs.reduce((sum, run) => sum + run.requestsPerSecond, 0) / runs.length),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    vsDirect: ratios(runs, direct.runs),
    ...(baseline && target !== baseline && target !== direct
      ? { vsBaseline: { ...ratios(runs, baseline.runs), ...(cpuVsBaseline !== undefined ? { cpuPerRequest: cpuVsBaseline } : {}) } }
      : {}),
  };
}

export async function runProxyBench(options: { connections?: number; durationSeconds?: number; rounds?: number } = {}): Promise<ProxyBenchRow[]> {
  const connections = options.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 50);
  const durationSeconds = options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Math.max(1, options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3));
  const service = await startBenchService();
  const processes: BenchProcess[] = [];
  try {
    const created = await fetch(`${service.url}/v1/payment-link`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Bench link',
        description: 'Proxy overhead',
        fiatAmount: 25,
        fiatCurrency: ['USD'],
        action: { successMessage: 'Thanks' },
        options: {},
        cart: { items: [] },
      }),
    });
    if (created.status !== 201) throw new Error(`could not create the bench link: ${created.status}`);
    const { slug } = (await created.json()) as { slug: string };
    const proxyEnv = { PAYLINK_API_KEY: service.key, PAYLINK_RATE_LIMIT: 'off', PAYLINK_UPSTREAM: service.url };

    const direct: Target = { name: 'direct: GET /v1/checkout/{slug}', url: `${service.url}/v1/checkout/${slug}`, pid: service.child.pid, runs: [] };
    const targets: Target[] = [direct];
    const proxy = await startProcess([binPath(), 'proxy', '--upstream', service.url], proxyEnv);
    processes.push(proxy);
    targets.push({ name: 'proxy: GET /paylink/checkout/{slug}', url: `${proxy.url}/paylink/checkout/${slug}`, pid: proxy.child.pid, runs: [] });
    let baseline: Target | undefined;
    if (process.env.BENCH_PROXY_BASELINE) {
      const bin = path.join(path.resolve(process.env.BENCH_PROXY_BASELINE), 'bin', 'paylink.mjs');
      const started = await startProcess([bin, 'proxy', '--upstream', service.url], proxyEnv);
      processes.push(started);
      baseline = { name: 'baseline proxy (BENCH_PROXY_BASELINE)', url: `${started.url}/paylink/checkout/${slug}`, pid: started.child.pid, runs: [] };
      targets.push(baseline);
    }
    if (process.env.BENCH_PROXY_HONO === '1') {
      const started = await startProcess(['--import', 'tsx', path.join(ROOT, 'bench', 'support', 'hono-proxy.ts')], proxyEnv);
      processes.push(started);
      targets.push({ name: 'Hono middleware prototype', url: `${started.url}/paylink/checkout/${slug}`, pid: started.child.pid, runs: [] });
    }

    const reference = JSON.stringify(await (await fetch(direct.url)).json());
    for (const target of targets) {
      if (JSON.stringify(await (await fetch(target.url)).json()) !== reference)
        throw new Error(`${target.name} does not answer the same document as the service`);
      // A short warm-up (JIT, connection pools), then the measured runs.
      await load({ url: target.url, connections, durationSeconds: 1 });
    }
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        const target = targets[(round + i) % targets.length]!;
        target.runs.push(await measure(target, connections, durationSeconds));
      }
    }
    return targets.map((target) => combine(target, direct, baseline));
  } finally {
    for (const started of processes.reverse()) await started.stop();
    await service.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runProxyBench();
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  console.log(`${process.env.BENCH_CONNECTIONS ?? 50} connections, ${process.env.BENCH_ROUNDS ?? 3} rounds of ${seconds} s per target, taking turns, one run`);
  console.table(
    rows.map(({ target, requestsPerSecond, p50Ms, p99Ms, non2xx, errors, cpuUsPerRequest, vsDirect, vsBaseline }) => ({
      target,
      'req/s': requestsPerSecond,
      'p50 ms': p50Ms,
      'p99 ms': p99Ms,
      'CPU µs/req': cpuUsPerRequest ?? '',
      non2xx,
      errors,
      'vs direct (req/s, p50, p99)': `×${vsDirect.requestsPerSecond}, ×${vsDirect.p50}, ×${vsDirect.p99}`,
      'vs baseline (req/s, p50, p99, CPU/req)': vsBaseline
        ? `×${vsBaseline.requestsPerSecond}, ×${vsBaseline.p50}, ×${vsBaseline.p99}, ×${vsBaseline.cpuPerRequest ?? '?'}`
        : '',
    })),
  );
}
