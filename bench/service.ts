/**
 * Service throughput at 100 connections: `GET /v1/checkout/{slug}` and session creation, against a
 * bare `node:http` server answering the same bytes (the baseline), in the same run. The service runs
 * as `paylink serve` in its own process, on PGlite (the default) and on PostgreSQL when available.
 */
import { startBenchService, startProcess } from './support/processes.js';
import { load, type LoadResult } from './support/load.js';
import { postgresAvailable, startPostgresCluster } from '../test/support/postgres.js';

export interface ServiceRow extends LoadResult {
  target: string;
  vsBare: number;
}

async function measureService(label: string, databaseUrl?: string): Promise<{ rows: ServiceRow[]; publicLink: string }> {
  const service = await startBenchService(databaseUrl ? { databaseUrl } : {});
  try {
    const created = await fetch(`${service.url}/v1/payment-link`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Bench link',
        description: 'Throughput',
        fiatAmount: 25,
        fiatCurrency: ['USD'],
        action: { successMessage: 'Thanks' },
        options: {},
        cart: { items: [] },
      }),
    });
    const link = (await created.json()) as { slug: string };
    const publicLink = await (await fetch(`${service.url}/v1/checkout/${link.slug}`)).text();
    const get = await load({ url: `${service.url}/v1/checkout/${link.slug}` });
    const session = await load({ url: `${service.url}/v1/checkout/${link.slug}/sessions`, method: 'POST', body: '{"assetId":"USDT"}' });
    return {
      publicLink,
      rows: [
        { target: `service ${label}: GET /v1/checkout/{slug}`, ...get, vsBare: 0 },
        { target: `service ${label}: POST …/sessions`, ...session, vsBare: 0 },
      ],
    };
  } finally {
    await service.stop();
  }
}

export async function runServiceBench(): Promise<ServiceRow[]> {
  const pglite = await measureService('(PGlite)');
  const rows = [...pglite.rows];
  if (postgresAvailable()) {
    const cluster = await startPostgresCluster();
    try {
      rows.push(...(await measureService('(PostgreSQL)', cluster.url)).rows);
    } finally {
      cluster.stop();
    }
  }
  const bare = await startProcess(['--import', 'tsx', 'bench/support/bare-server.ts'], { BARE_BODY: pglite.publicLink });
  try {
    const bareGet = await load({ url: `${bare.url}/bare` });
    const barePost = await load({ url: `${bare.url}/bare`, method: 'POST', body: '{"assetId":"USDT"}' });
    for (const row of rows) {
      const baseline = row.target.includes('GET') ? bareGet : barePost;
      row.vsBare = Number((row.requestsPerSecond / baseline.requestsPerSecond).toFixed(2));
    }
    rows.unshift({ target: 'bare node:http GET (baseline)', ...bareGet, vsBare: 1 }, { target: 'bare node:http POST (baseline)', ...barePost, vsBare: 1 });
  } finally {
    await bare.stop();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await runServiceBench());
