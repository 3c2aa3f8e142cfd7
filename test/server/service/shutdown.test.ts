/**
 * Stopping an instance without failing anyone (`close()`, what SIGTERM runs): during the drain it still
 * serves, says 503 `draining` on `/readyz` and closes each connection after its answer; then a request
 * already under way is still answered, event streams are told to reconnect (`retry:`) and closed, the
 * payout in progress is finished and recorded, a webhook attempt in flight is recorded (its claim
 * released), and the drain delay follows the setting, or 5 s once a load balancer has asked `/readyz`.
 * And `/readyz` answers a load balancer's HTTP/1.0 check that sends no Host.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { createSandboxChain } from '../../../src/server/chain/sandbox/index.js';
import { createLogger } from '../../../src/server/log.js';
import { createUsdLink, eventually, fund, GOOD_ADDRESS, startSession } from '../../support/money.js';
import { backends, call, startTestService } from '../../support/service.js';
import { startReceiver } from '../../support/webhook-receiver.js';

/** The raw answer to `text` sent on a new connection to `port`, once the server closes it. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

for (const backend of backends()) {
  describe(`stopping an instance (${backend})`, () => {
    it('drains: not ready, still serving, each answer closing its connection; then finishes what is under way', async () => {
      const lines: Array<Record<string, unknown>> = [];
      let releaseWebhook: (() => void) | undefined;
      const receiver = await startReceiver((_delivery, index, response) => {
        if (index === 0) return 200;
        // The second delivery is in flight when the stop begins, and answered only during it.
        releaseWebhook = () => {
          if (response.headersSent || response.destroyed) return;
          response.writeHead(200);
          response.end();
        };
        return 'handled';
      });
      const t = await startTestService(backend, {
        // Long enough for the checks below on a busy machine; the payout outlasts it.
        drainDelayMs: 2000,
        sseHeartbeatMs: 60_000,
        chain: createSandboxChain({ payoutDelayMs: 3500 }),
        payouts: { pollIntervalMs: 20 },
        webhooks: { allowPrivate: true, pollIntervalMs: 20, timeoutMs: 30_000 },
        logger: createLogger((line) => lines.push(JSON.parse(line))),
      });
      let closed: Promise<void> | undefined;
      try {
        const { key } = await t.newKey();
        assert.equal(
          (await call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] } })).status,
          201,
        );
        await fund(t.url, key, '20');
        await receiver.waitFor(1);
        const slug = await createUsdLink(t.url, key, '5');
        const session = await startSession(t.url, slug);

        // An event stream, a withdrawal being paid out, and an upload under way, when the stop begins.
        const stream = await fetch(`${t.url}/v1/checkout/sessions/${session.id}/events`, { headers: { accept: 'text/event-stream' } });
        const streamText = stream.text();
        const withdrawal = (
          await call(t.url, 'POST', '/v1/withdrawal', { key, body: { amount: '2', address: GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' } })
        ).body;
        await eventually(
          async () => (await t.db.query<{ status: string }>('SELECT status FROM withdrawals WHERE id = $1', [withdrawal.id])).rows[0]?.status === 'processing',
          5000,
          'the payout under way',
        );
        const other = await startSession(t.url, slug);
        assert.equal((await call(t.url, 'POST', `/v1/checkout/sessions/${other.id}/simulate-payment`, { body: {} })).status, 200);
        await receiver.waitFor(2);
        const body = JSON.stringify({ assetId: 'USDT' });
        const req = httpRequest(`${t.url}/v1/checkout/${slug}/sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        });
        const upload = new Promise<number>((resolve, reject) => {
          req.on('response', (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          });
          req.on('error', reject);
        });
        req.write(body.slice(0, 5));
        await eventually(async () => t.service.openConnections >= 2, 5000, 'the upload under way');

        closed = t.service.close();
        assert.equal(t.service.draining, true);
        const ready = await fetch(`${t.url}/readyz`);
        assert.equal(ready.status, 503, 'not ready: the load balancer takes it out');
        assert.equal((await ready.json()).code, 'draining');
        const served = await fetch(`${t.url}/v1/checkout/${slug}`);
        assert.equal(served.status, 200, 'still serving while the balancer notices');
        assert.equal(served.headers.get('connection'), 'close', 'and closing each connection after its answer');
        assert.equal((await fetch(`${t.url}/healthz`)).status, 200, 'alive all along');

        // The listener closes once the drain is over; what was under way is still answered.
        await eventually(
          () =>
            fetch(`${t.url}/healthz`).then(
              () => false,
              () => true,
            ),
          10_000,
          'the listener closed',
        );
        req.end(body.slice(5));
        assert.equal(await upload, 201, 'the upload under way is answered');
        const events = await streamText;
        assert.match(events, /event: status\n/);
        assert.match(events, /\nretry: \d+\n\n$/, 'the event stream is told to reconnect, then closed');
        releaseWebhook?.();
        await closed;

        const [payout] = (await t.db.query<{ status: string }>('SELECT status FROM withdrawals WHERE id = $1', [withdrawal.id])).rows;
        assert.equal(payout!.status, 'success', 'the payout under way was finished and recorded');
        const { rows: claims } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE claim_id IS NOT NULL');
        assert.equal(claims[0]!.n, 0, 'no webhook claim is left held');
        const codes = lines.map((line) => line.code);
        assert.ok(codes.includes('service_draining') && codes.includes('service_stopped'));
        assert.equal(lines.find((line) => line.code === 'service_draining')!.drainDelayMs, 2000);
      } finally {
        releaseWebhook?.();
        await closed?.catch(() => {});
        await t.close();
        await receiver.close();
      }
    });
  });
}

describe('the drain delay', () => {
  const delayOf = async (options: { drainDelayMs?: number; env?: Record<string, string> }, askReadyz: boolean) => {
    const lines: Array<Record<string, unknown>> = [];
    const t = await startTestService('pglite', {
      ...options,
      payoutWorker: false,
      webhookWorker: false,
      logger: createLogger((line) => lines.push(JSON.parse(line))),
    });
    try {
      if (askReadyz) assert.equal((await fetch(`${t.url}/readyz`)).status, 200);
      await t.service.close();
    } finally {
      await t.close();
    }
    return lines.find((line) => line.code === 'service_draining')!.drainDelayMs;
  };

  it('is none when nothing checks readiness, 5 s once a load balancer has asked /readyz, else the setting', async () => {
    assert.equal(await delayOf({}, false), 0, 'a service nobody balances stops at once');
    assert.equal(await delayOf({ env: { PAYLINK_DRAIN_DELAY_MS: '250' } }, true), 250);
    assert.equal(await delayOf({ drainDelayMs: 0, env: { PAYLINK_DRAIN_DELAY_MS: '250' } }, true), 0, 'the option wins');
    const started = Date.now();
    assert.equal(await delayOf({}, true), 5000, 'behind a balancer, time for it to notice');
    assert.ok(Date.now() - started >= 5000);
    await assert.rejects(startTestService('pglite', { env: { PAYLINK_DRAIN_DELAY_MS: 'soon' } }), /PAYLINK_DRAIN_DELAY_MS must be a whole number of ms/);
  });
});

describe('/readyz for a load balancer', () => {
  it('answers an HTTP/1.0 check without a Host, as HAProxy sends by default', async () => {
    const t = await startTestService('pglite', { payoutWorker: false, webhookWorker: false });
    try {
      const answer = await rawExchange(t.service.port, 'GET /readyz HTTP/1.0\r\n\r\n');
      assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(answer, /"status":"ready"/);
    } finally {
      await t.close();
    }
  });
});
