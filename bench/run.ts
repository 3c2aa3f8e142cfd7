/**
 * `npm run bench`: every benchmark of the project in one run, each figure a ratio against a
 * baseline measured in the same run, with the absolute numbers beside it. Writes
 * `bench/results/latest.json` and `bench/results/latest.md`, and prints the Markdown.
 *
 * Run a part alone with `node --import tsx bench/<part>.ts`, or choose parts:
 * `npm run bench -- bundle scale` (the other parts' last results stay in latest.*, each with the date
 * it was run). BENCH_SECONDS sets the load duration (default 5 s).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './support/processes.js';

type Table = Array<Record<string, unknown>>;

interface Part {
  name: string;
  title: string;
  target: string;
  run(): Promise<Table>;
}

const parts: Part[] = [
  {
    name: 'bundle',
    title: 'Bundle bytes vs a bare LitElement bundle (same Vite build)',
    target: 'paylink-checkout.js ≤ 15,000 bytes gzipped',
    run: async () => (await import('./bundle.js')).runBundleBench() as unknown as Promise<Table>,
  },
  {
    name: 'ready',
    title: 'Checkout in Chromium: script start → paylink-ready vs a bare fetch of the same JSON',
    target: 'ready ≤ 1.5× bare fetch; CLS 0',
    run: async () => [(await (await import('./checkout-ready.js')).runCheckoutReadyBench()) as unknown as Record<string, unknown>],
  },
  {
    name: 'service',
    title: 'Service at 100 connections vs bare node:http',
    target: 'service ≥ 50% of bare node:http',
    run: async () => (await import('./service.js')).runServiceBench() as unknown as Promise<Table>,
  },
  {
    name: 'metrics',
    title: 'Service with /metrics on and scraped every second vs the same service with metrics off (alternating rounds)',
    target: 'metrics on ≥ 0.95× off, on a read and on a write',
    run: async () => (await import('./metrics.js')).runMetricsBench() as unknown as Promise<Table>,
  },
  {
    name: 'proxy',
    title: 'GET /paylink/checkout/{slug} through the proxy vs straight to the service',
    target: 'proxy ≥ 60% of direct',
    run: async () => (await import('./proxy.js')).runProxyBench() as unknown as Promise<Table>,
  },
  {
    name: 'rates',
    title: 'Session starts with prices from the market (a quorum of sources, in memory, refreshed in the background) vs from the static table',
    target:
      'market ≈ 1.0× the table; the same database queries per start; provider requests (4 a second) and the refresh’s queries follow the refresh, not the starts',
    run: async () => (await import('./rates.js')).runRatesBench() as unknown as Promise<Table>,
  },
  {
    name: 'scale',
    title: 'List-links page latency, 1,000 vs 1,000,000 links of one integrator',
    target: '1M-link page latency ≤ 2× the 1k one',
    run: async () => {
      const rows = await (await import('./scale.js')).runScaleBench();
      return rows.map((row) => {
        const small = rows.find((r) => r.backend === row.backend && r.links === 1_000)!;
        return { ...row, page1VsSmall: Number((row.page1Ms / small.page1Ms).toFixed(2)), deepVsSmall: Number((row.deepPageMs / small.deepPageMs).toFixed(2)) };
      });
    },
  },
  {
    name: 'withdrawals',
    title: 'Withdrawals per second under contention (50 concurrent clients)',
    target: 'reported, with p99',
    run: async () => {
      const result = await (await import('./withdrawals.js')).runWithdrawalsBench();
      return (Array.isArray(result) ? result : [result]) as Table;
    },
  },
  {
    name: 'evm',
    title: "The EVM chain's own speed on anvil: block interval at 0.75 s, a transfer's round trip, raw eth_sendRawTransaction rate",
    target: 'baselines for the chain adapter (block interval ≈ 1.0× the configured time)',
    run: async () => (await import('./evm.js')).runEvmBench() as unknown as Promise<Table>,
  },
  {
    name: 'evm-service',
    title:
      "The service on anvil: transfer → paid per network (two chains at once, 0.75 s and 2 s blocks) vs each chain's block interval; the service's own latency on instant mining; a 2,000-block catch-up behind a node capping eth_getLogs at 10 blocks vs straight; 50 withdrawals on PostgreSQL vs the raw eth_sendRawTransaction rate",
    target:
      'payouts sent ≥ 0.25× the raw eth_sendRawTransaction rate on the same node (both count a transfer once the node takes it; each trial against the median of raw bursts around it); the other figures reported as ratios to the chains measured in the same run',
    run: async () => (await import('./evm-service.js')).runEvmServiceBench() as unknown as Promise<Table>,
  },
  {
    name: 'reconcile',
    title:
      'Reconciliation of 10,000 deposit addresses on one anvil network (balances at the final block against the books) vs 10,000 balanceOf eth_calls sent one by one',
    target: 'a run ≤ 0.1× the 10,000 eth_calls one by one (same node, same run)',
    run: async () => (await import('./reconcile.js')).runReconcileBench() as unknown as Promise<Table>,
  },
];

function toMarkdown(table: Table): string {
  if (table.length === 0) return '_no rows_';
  const columns = [...new Set(table.flatMap((row) => Object.keys(row)))];
  const cell = (value: unknown) => (typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value ?? ''));
  return [
    `| ${columns.join(' | ')} |`,
    `| ${columns.map(() => '---').join(' | ')} |`,
    ...table.map((row) => `| ${columns.map((c) => cell(row[c])).join(' | ')} |`),
  ].join('\n');
}

const wanted = process.argv.slice(2);
const out = path.join(ROOT, 'bench', 'results');
type Results = Record<string, { title: string; target: string; runAt?: string; rows: Table }>;
// A run of some parts keeps the others' last results: latest.* always show every part, each with its date.
const previous: Results =
  wanted.length && existsSync(path.join(out, 'latest.json')) ? (JSON.parse(readFileSync(path.join(out, 'latest.json'), 'utf8')).results ?? {}) : {};
const results: Results = {};
for (const part of parts) {
  if (wanted.length && !wanted.includes(part.name)) {
    if (previous[part.name]) results[part.name] = previous[part.name]!;
    continue;
  }
  process.stderr.write(`bench: ${part.name}…\n`);
  const rows = await part.run();
  results[part.name] = { title: part.title, target: part.target, runAt: new Date().toISOString(), rows };
}

const markdown: string[] = [
  `# Paylink benchmarks`,
  '',
  `Written ${new Date().toISOString()} on Node ${process.version}, ${process.platform}/${process.arch}.`,
  '',
];
for (const part of parts) {
  const result = results[part.name];
  if (!result) continue;
  markdown.push(`## ${part.title}`, '', `Target: ${part.target}`, '', ...(result.runAt ? [`Run ${result.runAt}.`, ''] : []), toMarkdown(result.rows), '');
}

mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'latest.json'), `${JSON.stringify({ runAt: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
writeFileSync(path.join(out, 'latest.md'), `${markdown.join('\n')}\n`);
console.log(markdown.join('\n'));
process.exit(0);
