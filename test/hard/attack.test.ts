/**
 * Attacks on the service and the proxy (`npm run test:hard`): each slow or flooding client, reproduced on the loopback against the
 * `paylink` command with its default limits, bounded in count and time (test/support/hard.ts). During
 * each, a customer from 127.0.0.1 must get `/healthz`, the link and a new session within a second, the
 * attacked process's memory must stay bounded, and refused requests must write nothing. `bench/attack.ts`
 * runs the same attacks against an older tree and prints the figures before and after.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from '../support/postgres.js';
import {
  badInputAttack,
  FLOOD_COUNT,
  slowConnectionAttack,
  SLOW_CONNECTIONS_PER_ADDRESS,
  STREAM_ADDRESSES,
  STREAMS_PER_ADDRESS,
  streamAttack,
  writeFloodAttack,
  type CustomerFigures,
} from '../support/hard.js';

/** Memory an attack may add to the attacked process (its baseline is ~100 MB), in MB. */
const MEMORY_BOUND_MB = 150;

/** The customer got every answer right and within a second, and the process's memory stayed bounded. */
function assertCustomerServed(customer: CustomerFigures, what: string) {
  for (const probe of ['healthz', 'linkLoad', 'sessionStart'] as const) {
    assert.ok(customer[probe].count > 0, `${what}: the customer made ${probe} calls`);
    assert.deepEqual(customer[probe].bad, [], `${what}: every ${probe} of the customer answered 2xx within 1 s (slowest ${customer[probe].maxMs} ms)`);
  }
  assert.ok(customer.rssMaxMb - customer.rssBeforeMb < MEMORY_BOUND_MB, `${what}: memory grew from ${customer.rssBeforeMb} to ${customer.rssMaxMb} MB`);
}

describe('hold under attack', { skip: !postgresAvailable() && 'PostgreSQL binaries not found' }, () => {
  let cluster: PostgresCluster;
  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(() => cluster?.stop());

  for (const via of ['service', 'proxy'] as const) {
    it(
      `slow headers and slow bodies on the ${via}: 3 × ${SLOW_CONNECTIONS_PER_ADDRESS} connections past its file limit, capped per address, cut by the timeouts`,
      { timeout: 90_000 },
      async () => {
        const figures = await slowConnectionAttack(cluster, via);
        const { flood } = figures;
        assertCustomerServed(figures.customer, via);
        assert.equal(flood.stillOpen, 0, `every slow connection was closed by the ${via} (${JSON.stringify(flood)})`);
        // At most 128 kept per address (the default cap): every other one refused before anything was read.
        assert.ok(flood.refused >= flood.opened - 3 * 128, `refused: ${JSON.stringify(flood)}`);
        assert.equal(flood.refused + flood.timedOut, flood.opened, `the kept ones were cut with a 408: ${JSON.stringify(flood)}`);
        assert.ok(flood.longestMs < 33_000, `none outlived the 30 s body timeout (${flood.longestMs} ms)`);
        assert.equal(figures.visitsWritten, 0, 'no slow request wrote a visit');
        assert.ok(figures.aliveAfter);
      },
    );
  }

  it(
    `${STREAM_ADDRESSES * STREAMS_PER_ADDRESS} event streams on one session from ${STREAM_ADDRESSES} addresses: capped per client and in total, and a payment reaches every open stream`,
    { timeout: 120_000 },
    async () => {
      const figures = await streamAttack(cluster);
      const { flood } = figures;
      assertCustomerServed(figures.customer, 'streams');
      assert.equal(flood.open, 1000, `the total cap held: ${JSON.stringify(flood.statuses)}`);
      assert.ok(flood.maxOpenPerAddress <= 8, `per address: ${flood.maxOpenPerAddress}`);
      assert.equal(flood.statuses[0], undefined, 'no stream was dropped or reset');
      assert.equal(flood.refusalsInShape, flood.attempted - flood.open, 'every refusal a 429/503 in the one shape with Retry-After');
      assert.ok((flood.statuses[429] ?? 0) > 0 && (flood.statuses[503] ?? 0) > 0, JSON.stringify(figures));
      assert.equal(figures.payment.paymentStatus, 200);
      assert.equal(figures.payment.heardBy, figures.payment.of, 'every open stream heard the payment');
    },
  );

  it(`${FLOOD_COUNT} session starts from one client are rate-limited, and the refused ones write no row`, { timeout: 120_000 }, async () => {
    const figures = await writeFloodAttack(cluster, 'sessions');
    assertCustomerServed(figures.customer, 'session flood');
    const created = figures.flood.statuses[201] ?? 0;
    // A burst of 20, then one per 5 s.
    assert.ok(created <= 20 + Math.ceil(figures.flood.ms / 5_000) + 1, `created ${created} in ${figures.flood.ms} ms`);
    assert.equal(figures.flood.statuses[429], FLOOD_COUNT - created);
    assert.equal(figures.flood.withRetryAfter, FLOOD_COUNT - created);
    assert.equal(figures.rowsAdded, created, 'one row per session acknowledged, none for a refusal');
  });

  it(`${FLOOD_COUNT} visits with random visitIds from one client add at most its share to visitedCount`, { timeout: 120_000 }, async () => {
    const figures = await writeFloodAttack(cluster, 'visits');
    assertCustomerServed(figures.customer, 'visit flood');
    assert.ok(figures.visitedCountAdded <= 5, `visitedCount rose by ${figures.visitedCountAdded}`);
    assert.equal(figures.visitedCountAdded, figures.countedVisits);
    assert.equal(figures.rowsAdded, figures.countedVisits, 'a visit row only for a counted visit');
    const accepted = figures.flood.statuses[200] ?? 0;
    assert.equal(figures.flood.statuses[429], FLOOD_COUNT - accepted);
    assert.ok(accepted <= 30 + Math.ceil(figures.flood.ms / 1_000) + 1, `accepted ${accepted} in ${figures.flood.ms} ms`);
  });

  it(
    'bad bytes and impossible dates are 400s that write nothing and log no request data; aborted uploads are one line each, no stack',
    { timeout: 60_000 },
    async () => {
      const figures = await badInputAttack(cluster);
      for (const [name, status] of Object.entries(figures.statuses)) assert.equal(status, name === 'a text/plain body' ? 415 : 400, name);
      assert.equal(figures.rowsAdded, 0);
      assert.deepEqual(figures.leaked, []);
      assert.equal(figures.keyedCacheControl, 'no-store');
      assert.equal(figures.proxyAdminCacheControl, 'no-store');
      // At most one line each (an upload reset before its body was read leaves none: nothing happened).
      assert.ok(figures.abortedUploadLines >= 1 && figures.abortedUploadLines <= 50, `${figures.abortedUploadLines} lines`);
      assert.equal(figures.abortedUploadStackLines, 0);
    },
  );
});
