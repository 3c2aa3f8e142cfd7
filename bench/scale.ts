/**
 * List-links latency as one integrator's links grow from 1,000 to 1,000,000: page 1 and a deep page
 * (the last page), each the median of repeated requests over real HTTP. Links are seeded with one
 * set-based INSERT so seeding stays within a minute.
 */
import { startTestService, type Backend } from '../test/support/service.js';
import { postgresAvailable, startPostgresCluster } from '../test/support/postgres.js';

export interface ScaleRow {
  backend: Backend;
  links: number;
  page1Ms: number;
  deepPageMs: number;
  deepPage: number;
}

async function timeRequest(url: string, key: string, repeats: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    // A keep-alive socket idle through seeding may have been closed by the server: retry once.
    const res = await fetch(url, { headers: { 'x-api-key': key } }).catch(() => fetch(url, { headers: { 'x-api-key': key } }));
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return Number(samples[Math.floor(samples.length / 2)]!.toFixed(2));
}

async function measure(backend: Backend, sizes: number[]): Promise<ScaleRow[]> {
  const t = await startTestService(backend);
  const rows: ScaleRow[] = [];
  try {
    const { integratorId, userId, key } = await t.newKey();
    let seeded = 0;
    for (const size of sizes) {
      // One statement per 100k rows keeps PGlite's memory in bounds.
      while (seeded < size) {
        const batch = Math.min(100_000, size - seeded);
        await t.db.query(
          `INSERT INTO payment_links (id, integrator_id, user_id, slug, title, description, link_type, fiat_amount, fiat_currency, created_at, updated_at, seq)
           SELECT gen_random_uuid(), $1, $2, 'b' || lpad(to_hex(g), 9, '0'), 'Bench link ' || g, '', 'Standard', 10, ARRAY['USD'],
                  now() - (g || ' seconds')::interval, now(), g
           FROM generate_series($3::int, $4::int) AS g`,
          [integratorId, userId, seeded + 1, seeded + batch],
        );
        seeded += batch;
      }
      // What createLink keeps in step, set here in bulk.
      await t.db.query('UPDATE integrators SET link_seq = $2 WHERE id = $1', [integratorId, seeded]);
      await t.db.query(
        `INSERT INTO integrator_link_counts (integrator_id, link_type, is_active, n) VALUES ($1, 'Standard', true, $2)
         ON CONFLICT (integrator_id, link_type, is_active) DO UPDATE SET n = $2`,
        [integratorId, seeded],
      );
      await t.db.query('ANALYZE payment_links');
      const lastPage = Math.ceil(size / 20);
      const base = `${t.url}/v1/payment-link`;
      await timeRequest(`${base}?page=1`, key, 3); // warm up
      rows.push({
        backend,
        links: size,
        page1Ms: await timeRequest(`${base}?page=1`, key, 15),
        deepPageMs: await timeRequest(`${base}?page=${lastPage}`, key, 15),
        deepPage: lastPage,
      });
    }
  } finally {
    await t.close();
  }
  return rows;
}

export async function runScaleBench(): Promise<ScaleRow[]> {
  const sizes = [1_000, Number(process.env.BENCH_SCALE_MAX ?? 1_000_000)];
  const rows: ScaleRow[] = [];
  if (postgresAvailable()) {
    const cluster = await startPostgresCluster();
    process.env.PAYLINK_TEST_DATABASE_URL = cluster.url;
    try {
      rows.push(...(await measure('postgres', sizes)));
    } finally {
      cluster.stop();
      delete process.env.PAYLINK_TEST_DATABASE_URL;
    }
  }
  if (process.env.BENCH_SCALE_PGLITE !== '0') rows.push(...(await measure('pglite', sizes)));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runScaleBench();
  console.table(rows);
}
