/**
 * What `/metrics` costs: service throughput at 100 connections with metrics on (every request counted
 * and timed by route template, `PAYLINK_METRICS_TOKEN` set) and `/metrics` scraped every second, against
 * the same service with metrics off (the baseline), in the same run. Two `paylink serve` processes on
 * PGlite, one of each; their rounds alternate (off, on, on, off, …) so that the machine's own drift
 * falls on both, and each figure is the median of its rounds. The scraper is a process of its own, as
 * Prometheus would be, not a task in the load generator's event loop, and runs through both's rounds. Two workloads: `GET /v1/checkout/{slug}`
 * (the cheapest answer, where a per-request cost shows most) and `POST …/sessions` (a write).
 * Target: ≥ 0.95× the baseline on both.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, ROOT } from '../test/support/processes.js';
import { load, type LoadResult } from './support/load.js';
import { startProcess, type BenchProcess } from './support/processes.js';

const TOKEN = 'bench-metrics-token-0123456789abcdefgh';
const ROUNDS = Number(process.env.BENCH_METRICS_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

export interface MetricsRow {
  target: string;
  requestsPerSecond: number;
  vsOff: number;
  rounds: string;
  p99Ms: number;
  scrapes?: number;
}

interface Service extends BenchProcess {
  key: string;
  slug: string;
  dir: string;
}

/** A sandbox service on a fresh PGlite data dir, with one key and one link. */
async function startService(env: Record<string, string>): Promise<Service> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-bench-metrics-'));
  const created = spawnSync(process.execPath, [BIN, 'keys', 'create', '--data-dir', dir], { cwd: ROOT, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(created.stderr);
  const key = created.stdout.trim().split('\n').at(-1)!;
  const proc = await startProcess([BIN, 'serve', '--chain', 'sandbox', '--data-dir', dir], {
    PAYLINK_SESSION_RATE_LIMIT: 'off',
    PAYLINK_LOG_FORMAT: 'json',
    ...env,
  });
  const res = await fetch(`${proc.url}/v1/payment-link`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Bench link', description: 'Metrics', fiatAmount: 25, fiatCurrency: ['USD'], action: {}, options: {}, cart: { items: [] } }),
  });
  const { slug } = (await res.json()) as { slug: string };
  return { ...proc, key, slug, dir };
}

/**
 * Scrapes `url` every second, from a process of its own (as a Prometheus server would: not in the load
 * generator's event loop), until the returned function is called; it resolves with how many scrapes
 * answered 200.
 */
function scrapeEverySecond(url: string): () => Promise<number> {
  const script = `
    let ok = 0;
    process.on('SIGTERM', () => { process.stdout.write(String(ok)); process.exit(0); });
    const tick = async () => {
      const started = Date.now();
      const res = await fetch(${JSON.stringify(url)}, { headers: { authorization: 'Bearer ${TOKEN}' } }).catch(() => undefined);
      if (res && res.status === 200) ok++;
      await res?.text();
      setTimeout(tick, Math.max(0, 1000 - (Date.now() - started)));
    };
    tick();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  return async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    return Number(out) || 0;
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function runMetricsBench(): Promise<MetricsRow[]> {
  const off = await startService({});
  const on = await startService({ PAYLINK_METRICS_TOKEN: TOKEN });
  try {
    const workloads = [
      { name: 'GET /v1/checkout/{slug}', options: (s: Service) => ({ url: `${s.url}/v1/checkout/${s.slug}`, durationSeconds: SECONDS }) },
      {
        name: 'POST /v1/checkout/{slug}/sessions',
        options: (s: Service) => ({
          url: `${s.url}/v1/checkout/${s.slug}/sessions`,
          method: 'POST' as const,
          body: '{"assetId":"USDT"}',
          durationSeconds: SECONDS,
        }),
      },
    ];
    const rows: MetricsRow[] = [];
    for (const workload of workloads) {
      const results: { off: LoadResult[]; on: LoadResult[] } = { off: [], on: [] };
      let scrapes = 0;
      // Warm both (JIT, caches) before the measured rounds.
      await load({ ...workload.options(off), durationSeconds: 1 });
      await load({ ...workload.options(on), durationSeconds: 1 });
      // Off, on, on, off, …: neither always goes first. The scraper runs all along (its own process, on
      // the machine in both), and scrapes the service with metrics on once a second.
      const stop = scrapeEverySecond(`${on.url}/metrics`);
      for (let round = 0; round < ROUNDS; round++) {
        for (const which of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const))
          results[which].push(await load(workload.options(which === 'off' ? off : on)));
      }
      scrapes += await stop();
      const rate = (list: LoadResult[]) => median(list.map((result) => result.requestsPerSecond));
      const baseline = rate(results.off);
      rows.push(
        {
          target: `${workload.name}, metrics off (baseline)`,
          requestsPerSecond: baseline,
          vsOff: 1,
          rounds: results.off.map((result) => result.requestsPerSecond).join(' '),
          p99Ms: median(results.off.map((result) => result.p99Ms)),
        },
        {
          target: `${workload.name}, metrics on, /metrics scraped every second`,
          requestsPerSecond: rate(results.on),
          vsOff: Number((rate(results.on) / baseline).toFixed(3)),
          rounds: results.on.map((result) => result.requestsPerSecond).join(' '),
          p99Ms: median(results.on.map((result) => result.p99Ms)),
          scrapes,
        },
      );
      const errors = [...results.off, ...results.on].reduce((sum, result) => sum + result.errors + result.non2xx, 0);
      if (errors > 0) throw new Error(`${workload.name}: ${errors} requests failed during the benchmark`);
    }
    return rows;
  } finally {
    await Promise.all([off.stop(), on.stop()]);
    rmSync(off.dir, { recursive: true, force: true });
    rmSync(on.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await runMetricsBench());
