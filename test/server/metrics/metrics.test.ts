/**
 * `GET /metrics` of the service: served only with the token or on the loopback port; requests by route
 * template and status (a flood of random paths stays a handful of series, and no label ever holds a
 * path, an id, an address or an amount); the database's aggregates (sessions, payments credited,
 * payouts and the oldest waiting, webhook deliveries, network alerts, reconciliation mismatches), read
 * once per cache period however often Prometheus scrapes; the values only this process knows (the
 * scanner's lag, node errors, hot wallet balances, webhook attempts, the rates' ages); and the names as Prometheus's own linter wants them (`promtool check metrics`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createSandboxChain } from '../../../src/server/chain/sandbox/index.js';
import type { Database } from '../../../src/server/db/index.js';
import { runtimeMetrics } from '../../../src/server/metrics/runtime.js';
import { createServiceMetrics } from '../../../src/server/metrics/service.js';
import { startProxyServer } from '../../../src/server/proxy/command.js';
import { raiseAlert } from '../../../src/server/service/alerts/index.js';
import { upsertMismatch } from '../../../src/server/service/reconciliation/repository.js';
import { createApiKey } from '../../../src/server/service/keys/index.js';
import { createApp } from '../../../src/server/service/app.js';
import { startService } from '../../../src/server/service/serve.js';
import { GOOD_ADDRESS, createUsdLink, eventually, fund, startSession } from '../../support/money.js';
import { parseSamples, sampleValue, scrape, type Sample } from '../../support/metrics.js';
import { backends, call, openTestDatabase, startTestService, type TestService } from '../../support/service.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

const TOKEN = 'metrics-test-token-0123456789abcdef';
const PROMTOOL = '/usr/bin/promtool';

/** The service clock: real time plus an offset the tests move forward. */
function offsetClock() {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => void (offset += ms) };
}

for (const backend of backends()) {
  describe(`GET /metrics (${backend})`, () => {
    let t: TestService;
    let receiver: Receiver;
    const clock = offsetClock();
    const metricsUrl = () => `${t.url}/metrics`;
    const read = () => scrape(metricsUrl(), TOKEN);

    before(async () => {
      receiver = await startReceiver(() => 500);
      t = await startTestService(backend, {
        now: clock.now,
        // Withdrawals stay pending: the oldest waiting is then what the test makes it.
        payoutWorker: false,
        metrics: { token: TOKEN, port: 0, cacheMs: 0 },
        webhooks: { allowPrivate: true, retryBaseMs: 3_600_000, pollIntervalMs: 50, timeoutMs: 1500 },
      });
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    it('answers only a scraper with the token (401 and WWW-Authenticate otherwise), and the loopback port without one', async () => {
      for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`, TOKEN]) {
        const res = await fetch(metricsUrl(), authorization ? { headers: { authorization } } : undefined);
        assert.equal(res.status, 401, String(authorization));
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
        const body = await res.json();
        assert.equal(body.code, 'unauthorized');
        assert.ok(!JSON.stringify(body).includes(TOKEN));
      }
      const ok = await fetch(metricsUrl(), { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(ok.status, 200);
      assert.match(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      assert.equal(ok.headers.get('cache-control'), 'no-store');
      assert.match(await ok.text(), /^# HELP paylink_/m);

      const loopback = t.service.metricsServer!;
      assert.match(loopback.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'the metrics port listens on the loopback only');
      const local = await fetch(loopback.url);
      assert.equal(local.status, 200, 'no token needed on the loopback port');
      assert.ok(sampleValue(parseSamples(await local.text()), 'paylink_build_info') === 1);
      assert.equal((await fetch(loopback.url.replace('/metrics', '/v1/openapi.json'))).status, 404, 'the metrics port serves nothing else');
    });

    it('is a 404 where no token or port was set, like any unknown path', async () => {
      const database = await openTestDatabase(backend);
      try {
        const app = createApp({ db: database.db, chain: createSandboxChain(), publicUrl: 'http://127.0.0.1/pay', now: () => new Date() });
        const res = await app.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
        assert.equal(res.status, 404);
      } finally {
        await database.close();
      }
    });

    it('counts requests by route template, method and status; random paths stay a handful of series and no label holds a path, id or amount', async () => {
      const { key } = await t.newKey();
      const slug = await createUsdLink(t.url, key, '12.5');
      const before = await read();
      const count = (samples: Sample[], labels: Record<string, string>) => sampleValue(samples, 'paylink_http_requests_total', labels) ?? 0;
      await call(t.url, 'GET', `/v1/checkout/${slug}`);
      await call(t.url, 'GET', `/v1/checkout/${slug}`);
      await call(t.url, 'GET', '/v1/checkout/NoSuchSlug1');
      await call(t.url, 'GET', '/v1/payment-link');
      const secrets: string[] = [slug, key];
      for (let i = 0; i < 300; i++) {
        const random = randomBytes(6).toString('hex');
        secrets.push(random);
        const paths = [
          `/${random}`,
          `/v1/${random}/x`,
          `/v1/checkout/${random}/sessions/${random}`,
          `/v1/payment-link/${random}/deep/${i}`,
          `/pay/${random}/${i}`,
        ];
        await fetch(`${t.url}${paths[i % paths.length]}?amount=${i}.5&address=${GOOD_ADDRESS}`, { method: ['GET', 'POST', 'DELETE', 'PATCH'][i % 4] });
      }
      const samples = await read();
      assert.equal(
        count(samples, { route: '/v1/checkout/:slug', method: 'GET', status: '200' }) -
          count(before, { route: '/v1/checkout/:slug', method: 'GET', status: '200' }),
        2,
      );
      assert.equal(
        count(samples, { route: '/v1/checkout/:slug', method: 'GET', status: '404' }) -
          count(before, { route: '/v1/checkout/:slug', method: 'GET', status: '404' }),
        1,
      );
      assert.ok(count(samples, { route: '/v1/payment-link', method: 'GET', status: '401' }) >= 1, 'a refusal counts under its route');
      assert.ok(sampleValue(samples, 'paylink_http_request_duration_seconds_count', { route: '/v1/checkout/:slug', method: 'GET', status: '200' })! >= 2);

      const series = samples.filter((sample) => sample.name === 'paylink_http_requests_total');
      assert.ok(series.length <= 30, `${series.length} series after 300 random paths: ${series.map((s) => JSON.stringify(s.labels)).join('\n')}`);
      const routes = new Set(series.map((sample) => sample.labels.route));
      assert.ok(routes.has('unmatched'));
      for (const route of routes) assert.match(route!, /^(unmatched|\/[a-z0-9/:._-]*)$/, route);
      const exposition = await (await fetch(metricsUrl(), { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      for (const secret of secrets) assert.ok(!exposition.includes(secret), `the exposition holds ${secret}`);
      assert.ok(!exposition.includes(GOOD_ADDRESS) && !exposition.includes('12.5'), 'no address, no amount in a label');
    });

    it('reports the database: sessions by status, payments credited, payouts by status and the oldest waiting, webhook deliveries, alerts', async () => {
      const { key } = await t.newKey();
      const baseline = await read();
      const sessions = (samples: Sample[], status: string) => sampleValue(samples, 'paylink_checkout_sessions', { status }) ?? 0;
      const credited = (samples: Sample[]) => sampleValue(samples, 'paylink_payments_credited_total', { asset: 'USDT', network: 'bsc' }) ?? 0;
      const creditedAmount = (samples: Sample[]) => sampleValue(samples, 'paylink_payments_credited_amount_total', { asset: 'USDT', network: 'bsc' }) ?? 0;
      const payouts = (samples: Sample[], status: string) => sampleValue(samples, 'paylink_payouts', { network: 'bsc', status }) ?? 0;

      const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `${receiver.url}/hooks` } });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
      await fund(t.url, key, '40');
      const slug = await createUsdLink(t.url, key, '3');
      const awaiting = await startSession(t.url, slug);
      for (const amount of ['1', '2.5']) {
        const withdrawal = await call(t.url, 'POST', '/v1/withdrawal', { key, body: { amount, address: GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' } });
        assert.equal(withdrawal.status, 200, JSON.stringify(withdrawal.body));
      }
      // The paid session's webhook fails (the receiver answers 500): it waits for its retry an hour later.
      await receiver.waitFor(1);
      // A test event that fails is given up at once.
      assert.equal((await call(t.url, 'POST', `/v1/webhook-endpoint/${endpoint.body.id}/test`, { key })).status, 200);
      await raiseAlert(t.db, { blockchainId: 'bsc', code: 'hot_wallet_low', message: 'test' }, clock.now());
      // An address reconciliation could not explain, as a run of any instance records it.
      const address = `0x${randomBytes(20).toString('hex')}`;
      const mismatch = {
        blockchainId: 'bsc',
        address,
        sessionId: awaiting.id,
        assetId: 'USDT' as const,
        expected: '0',
        actual: '1',
        block: 1,
        tracedBlock: null,
        reason: 'unexplained',
      };
      await upsertMismatch(t.db, mismatch, clock.now());
      clock.advance(90_000);

      let samples: Sample[] = [];
      await eventually(
        async () => {
          samples = await read();
          return (sampleValue(samples, 'paylink_webhook_deliveries_retrying') ?? 0) >= 1;
        },
        10_000,
        'the failed delivery waits for its retry',
      );
      assert.equal(sampleValue(samples, 'paylink_database_up'), 1);
      assert.equal(sessions(samples, 'paid') - sessions(baseline, 'paid'), 1);
      assert.equal(sessions(samples, 'awaiting_payment') - sessions(baseline, 'awaiting_payment'), 1);
      assert.equal(credited(samples) - credited(baseline), 1);
      assert.equal(Math.round((creditedAmount(samples) - creditedAmount(baseline)) * 1e6) / 1e6, 40);
      assert.equal(payouts(samples, 'pending') - payouts(baseline, 'pending'), 2);
      assert.ok(
        sampleValue(samples, 'paylink_payouts_oldest_waiting_seconds', { network: 'bsc' })! >= 90,
        'the oldest withdrawal has waited since before the clock moved',
      );
      assert.ok((sampleValue(samples, 'paylink_webhook_deliveries_waiting') ?? 0) >= 1);
      assert.ok((sampleValue(samples, 'paylink_webhook_deliveries_oldest_waiting_seconds') ?? 0) >= 90);
      assert.ok((sampleValue(samples, 'paylink_webhook_deliveries_failed_total') ?? 0) >= 1, 'the test event, given up');
      assert.equal(sampleValue(samples, 'paylink_network_alert', { network: 'bsc', code: 'hot_wallet_low' }), 1);
      assert.equal(sampleValue(samples, 'paylink_network_alert', { network: 'bsc', code: 'chain_finality_violated' }), 0);
      assert.equal(sampleValue(samples, 'paylink_reconciliation_mismatches', { network: 'bsc' }), 1, 'the database’s, on every instance alike');
      assert.ok((sampleValue(samples, 'paylink_webhook_attempts_total', { outcome: 'failed' }) ?? 0) >= 2, 'this instance counted its failed attempts');
    });

    it('reports what only this process knows, through its one-line hooks', async () => {
      runtimeMetrics.reset();
      runtimeMetrics.scannerLag('bsc', 12);
      const nodeError = (code: string) => Object.assign(new Error('the node failed'), { name: 'EvmChainError', code });
      runtimeMetrics.nodeError('bsc', nodeError('timeout'));
      runtimeMetrics.nodeError('bsc', nodeError('timeout'));
      runtimeMetrics.nodeError('bsc', nodeError('rate_limited'));
      runtimeMetrics.nodeError('bsc', nodeError('something new'));
      runtimeMetrics.nodeError('bsc', new Error('a database error is not the node’s'));
      runtimeMetrics.hotWalletTokenBalance('bsc', 'USDT', '1500.25');
      runtimeMetrics.hotWalletNativeBalance('bsc', '0.042');
      for (let i = 0; i < 100; i++) runtimeMetrics.scannerLag(`network-${i}`, 1);
      const samples = await read();
      assert.equal(sampleValue(samples, 'paylink_scanner_lag_blocks', { network: 'bsc' }), 12);
      assert.ok(Math.abs(sampleValue(samples, 'paylink_scanner_last_scan_timestamp_seconds', { network: 'bsc' })! - Date.now() / 1000) < 60);
      assert.equal(sampleValue(samples, 'paylink_node_errors_total', { network: 'bsc', kind: 'timeout' }), 2);
      assert.equal(sampleValue(samples, 'paylink_node_errors_total', { network: 'bsc', kind: 'rate_limited' }), 1);
      assert.equal(
        sampleValue(samples, 'paylink_node_errors_total', { network: 'bsc', kind: 'other' }),
        1,
        'an unknown code is `other`, never a label of its own',
      );
      assert.equal(samples.filter((sample) => sample.name === 'paylink_node_errors_total').length, 3, 'errors that are not the node’s are not counted');
      assert.equal(sampleValue(samples, 'paylink_hot_wallet_token_balance', { network: 'bsc', asset: 'USDT' }), 1500.25);
      assert.equal(sampleValue(samples, 'paylink_hot_wallet_native_balance', { network: 'bsc' }), 0.042);
      assert.ok(samples.filter((sample) => sample.name === 'paylink_scanner_lag_blocks').length <= 32, 'networks stay a bounded set');
      runtimeMetrics.reset();
    });

    it(
      'passes Prometheus’s own linter (promtool check metrics: names, units, counters)',
      { skip: !existsSync(PROMTOOL) && process.env.CI !== 'true' && 'promtool is not installed (apt-get install prometheus)' },
      async () => {
        const exposition = await (await fetch(metricsUrl(), { headers: { authorization: `Bearer ${TOKEN}` } })).text();
        const lint = spawnSync(PROMTOOL, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
        assert.equal(lint.status, 0, `${lint.stdout}${lint.stderr}`);
        assert.equal(`${lint.stdout}${lint.stderr}`.trim(), '', 'no finding at all');
      },
    );
  });
}

describe('GET /metrics under frequent scrapes', () => {
  it('reads the database once per cache period, however often and however many at once scrape it', async () => {
    const database = await openTestDatabase('pglite');
    let snapshots = 0;
    const db: Database = {
      ...database.db,
      query: (sql, params) => {
        if (sql.includes('FROM checkout_sessions GROUP BY status')) snapshots++;
        return database.db.query(sql, params);
      },
    };
    const service = await startService({ db, metrics: { token: TOKEN, cacheMs: 60_000 }, payoutWorker: false, webhookWorker: false });
    try {
      await Promise.all(Array.from({ length: 10 }, () => scrape(`${service.url}/metrics`, TOKEN)));
      for (let i = 0; i < 10; i++) await scrape(`${service.url}/metrics`, TOKEN);
      assert.equal(snapshots, 1, '20 scrapes, one read');
    } finally {
      await service.close();
      await database.close();
    }
  });

  it('counts the given-up webhook deliveries from an index of their own, not a scan of every delivery', async () => {
    const database = await openTestDatabase('pglite');
    let snapshotSql = '';
    const db: Database = {
      ...database.db,
      query: (sql, params) => {
        if (sql.includes('FROM checkout_sessions GROUP BY status')) snapshotSql = sql;
        return database.db.query(sql, params);
      },
    };
    try {
      await createServiceMetrics({ db, chain: createSandboxChain(), now: () => new Date() }).render();
      assert.ok(snapshotSql, 'the scrape read the database');
      // On tables this small the planner scans anyway; forbidding scans shows which index serves each part.
      await database.db.query('SET enable_seqscan = off');
      const plan = (await database.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${snapshotSql}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      assert.match(plan, /webhook_deliveries_failed/, plan);
      assert.match(plan, /webhook_deliveries_due/, plan);
    } finally {
      await database.db.query('RESET enable_seqscan');
      await database.close();
    }
  });

  it('says how old each pair’s rate is, +Inf and stale for a pair without a fresh one', async () => {
    const database = await openTestDatabase('pglite');
    const now = new Date('2030-01-01T00:00:00Z');
    const rates = {
      settings: { maxAgeMs: 300_000, currencies: ['NGN', 'USD'] },
      pair: (asset: string, currency: string) => (asset === 'USDT' && currency === 'USD' ? { at: new Date(now.getTime() - 42_000) } : undefined),
    };
    try {
      const chain = createSandboxChain({ networks: [{ ...createSandboxChain().networks[0]!, assets: ['USDT'] }] });
      const metrics = createServiceMetrics({ db: database.db, chain, now: () => now, rates });
      const samples = parseSamples((await metrics.render()).body);
      assert.equal(sampleValue(samples, 'paylink_rate_age_seconds', { pair: 'USDT/USD' }), 42);
      assert.equal(sampleValue(samples, 'paylink_rate_age_seconds', { pair: 'USDT/NGN' }), Infinity);
      assert.equal(sampleValue(samples, 'paylink_rate_stale', { pair: 'USDT/NGN' }), 1);
      assert.equal(sampleValue(samples, 'paylink_rate_stale', { pair: 'USDT/USD' }), 0);
      assert.equal(sampleValue(samples, 'paylink_rate_max_age_seconds'), 300);
    } finally {
      await database.close();
    }
  });
});

describe('GET /metrics of paylink proxy', () => {
  it('counts requests by the proxy route template, behind the same token or on the loopback port', async () => {
    const database = await openTestDatabase('pglite');
    const service = await startService({ db: database.db, payoutWorker: false, webhookWorker: false, sessionRateLimit: false });
    const { key } = await database.db.transaction((tx) => createApiKey(tx));
    const proxy = await startProxyServer({
      port: 0,
      upstream: service.url,
      env: { PAYLINK_API_KEY: key, PAYLINK_METRICS_TOKEN: TOKEN, PAYLINK_METRICS_PORT: '0' },
    });
    try {
      const slug = await createUsdLink(service.url, key, '5');
      for (let i = 0; i < 3; i++) assert.equal((await fetch(`${proxy.url}/paylink/checkout/${slug}`)).status, 200);
      for (let i = 0; i < 50; i++) await fetch(`${proxy.url}/paylink/checkout/${randomBytes(5).toString('hex')}/x/${i}`);
      assert.equal((await fetch(`${proxy.url}/metrics`)).status, 401);
      const samples = await scrape(`${proxy.url}/metrics`, TOKEN);
      assert.equal(sampleValue(samples, 'paylink_http_requests_total', { route: '/paylink/checkout/:slug', method: 'GET', status: '200' }), 3);
      const series = samples.filter((sample) => sample.name === 'paylink_http_requests_total');
      assert.ok(series.length <= 5, series.map((sample) => JSON.stringify(sample.labels)).join('\n'));
      assert.ok(series.every((sample) => !sample.labels.route!.includes(slug)));
      const local = await scrape(proxy.metricsServer!.url);
      assert.ok((sampleValue(local, 'paylink_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }) ?? 0) >= 50);
    } finally {
      await proxy.close();
      await service.close();
      await database.close();
    }
  });
});
