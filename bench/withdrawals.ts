/**
 * Withdrawals benchmark: `POST /v1/withdrawal` throughput and latency with 50 concurrent clients,
 * on PGlite (in memory) and on PostgreSQL 15 (a throwaway local cluster, when the binaries exist),
 * each next to a baseline measured in the same run against the same service (`GET /healthz`:
 * HTTP + routing, no database), so figures can be compared across machines as ratios.
 *
 * All clients withdraw from ONE integrator's USDT balance: every request takes the same balance
 * row lock, the worst case for contention. The payout worker runs as in production.
 *
 * Run alone: `node --import tsx bench/withdrawals.ts [--duration-ms 5000] [--concurrency 50]`.
 * `bench/run.ts` calls `runWithdrawalsBench()` and may print the rows itself.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { openDatabase, type Database } from '../src/server/db/index.js';
import { createApiKey } from '../src/server/service/keys/index.js';
import { startService } from '../src/server/service/serve.js';
import { postgresAvailable, startPostgresCluster } from '../test/support/postgres.js';

/** One measured row. A type alias (not an interface) so it is assignable to `Record<string, unknown>`. */
export type BenchRow = {
  engine: 'pglite' | 'postgres';
  scenario: 'GET /healthz (baseline)' | 'POST /v1/withdrawal';
  requests: number;
  errors: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** perSecond ÷ the baseline's perSecond on the same engine. */
  ratioToBaseline: number;
};

export interface WithdrawalsBenchOptions {
  /** How long each measurement runs (default 5000 ms). */
  durationMs?: number;
  /** Concurrent clients (default 50). */
  concurrency?: number;
  /** Engines to measure (default both; PostgreSQL is skipped when its binaries are missing). */
  engines?: Array<'pglite' | 'postgres'>;
  /** Progress lines go here (default stderr). */
  log?: (line: string) => void;
}

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs `request` from `concurrency` clients for `durationMs`; returns counts and latencies. */
async function load(concurrency: number, durationMs: number, request: () => Promise<boolean>) {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const ok = await request().catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    perSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

async function benchEngine(engine: 'pglite' | 'postgres', db: Database, options: Required<Omit<WithdrawalsBenchOptions, 'engines'>>) {
  const service = await startService({ db, payouts: { pollIntervalMs: 50, batchSize: 50 } });
  try {
    const { key } = await db.transaction((tx) => createApiKey(tx, { name: 'bench' }));
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    // Fund through the real path: a link, a session, a simulated payment.
    const link = await fetch(`${service.url}/v1/payment-link`, {
      method: 'POST',
      headers: { ...json, 'x-api-key': key },
      body: JSON.stringify({
        title: 'Bench float',
        description: '',
        linkType: 'Standard',
        fiatAmount: 100000000,
        fiatCurrency: ['USD'],
        action: {},
        options: {},
        cart: { items: [] },
      }),
    }).then((r) => r.json() as Promise<{ slug: string }>);
    const session = await fetch(`${service.url}/v1/checkout/${link.slug}/sessions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ assetId: 'USDT' }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const paid = await fetch(`${service.url}/v1/checkout/sessions/${session.id}/simulate-payment`, { method: 'POST', headers: json, body: '{}' });
    if (!paid.ok) throw new Error(`funding failed: ${paid.status} ${await paid.text()}`);

    // Warm up both paths (JIT, connection pools, plan caches).
    await load(options.concurrency, 300, async () => (await fetch(`${service.url}/healthz`).then((r) => r.arrayBuffer()), true));

    options.log(`  ${engine}: baseline GET /healthz…`);
    const baseline = await load(options.concurrency, options.durationMs, async () => {
      const response = await fetch(`${service.url}/healthz`);
      await response.arrayBuffer();
      return response.ok;
    });
    const body = JSON.stringify({ amount: '0.01', address: ADDRESS, blockchainId: 'bsc', assetId: 'USDT' });
    options.log(`  ${engine}: POST /v1/withdrawal…`);
    const withdrawals = await load(options.concurrency, options.durationMs, async () => {
      const response = await fetch(`${service.url}/v1/withdrawal`, { method: 'POST', headers: { ...json, 'x-api-key': key }, body });
      await response.arrayBuffer();
      return response.status === 200;
    });
    const rows: BenchRow[] = [
      { engine, scenario: 'GET /healthz (baseline)', ...baseline, ratioToBaseline: 1 },
      { engine, scenario: 'POST /v1/withdrawal', ...withdrawals, ratioToBaseline: withdrawals.perSecond / baseline.perSecond },
    ];
    return rows;
  } finally {
    await service.close();
  }
}

/** Measures each engine and returns the rows (baseline first, then withdrawals, per engine). */
export async function runWithdrawalsBench(options: WithdrawalsBenchOptions = {}): Promise<BenchRow[]> {
  const settings = {
    durationMs: options.durationMs ?? 5000,
    concurrency: options.concurrency ?? 50,
    log: options.log ?? ((line: string) => process.stderr.write(`${line}\n`)),
  };
  const engines = options.engines ?? ['pglite', 'postgres'];
  const rows: BenchRow[] = [];
  if (engines.includes('pglite')) {
    const db = await openDatabase();
    try {
      rows.push(...(await benchEngine('pglite', db, settings)));
    } finally {
      await db.close();
    }
  }
  if (engines.includes('postgres')) {
    if (!postgresAvailable()) settings.log('  postgres: binaries not found, skipped');
    else {
      const cluster = await startPostgresCluster();
      try {
        const db = await openDatabase({ databaseUrl: cluster.url, maxConnections: 20 });
        try {
          rows.push(...(await benchEngine('postgres', db, settings)));
        } finally {
          await db.close();
        }
      } finally {
        cluster.stop();
      }
    }
  }
  return rows;
}

/** The rows as a fixed-width text table. */
export function formatBenchTable(rows: BenchRow[], concurrency = 50): string {
  const header = ['engine', 'scenario', 'requests', 'errors', 'req/s', 'p50 ms', 'p99 ms', '× baseline'];
  const lines = rows.map((r) => [
    r.engine,
    r.scenario,
    String(r.requests),
    String(r.errors),
    r.perSecond.toFixed(0),
    r.p50Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    r.ratioToBaseline.toFixed(3),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [`Withdrawals, ${concurrency} concurrent clients, one balance`, fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { 'duration-ms': { type: 'string' }, concurrency: { type: 'string' } } });
  const concurrency = values.concurrency ? Number(values.concurrency) : 50;
  const rows = await runWithdrawalsBench({
    durationMs: values['duration-ms'] ? Number(values['duration-ms']) : 5000,
    concurrency,
  });
  process.stdout.write(`${formatBenchTable(rows, concurrency)}\n`);
}
