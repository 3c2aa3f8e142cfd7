/**
 * Limits against abuse on the proxy: admin answers are `no-store`, every answer carries a request id that the service
 * hears too, the service hears who the client is (and not what a browser wrote), event streams are capped
 * in total as well as per client, a failing hook is a 500 in the one shape and one log line, and the
 * `paylink proxy` server has the service's connection limits. Then the two together: behind the proxy, a
 * service that trusts it counts each customer, not the proxy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../../src/server/log.js';
import { createPaylinkProxy, type PaylinkProxyOptions } from '../../../src/server/proxy/index.js';
import { ProxyConfigError, proxyOptionsFromEnv, startProxyServer, type RunningProxy } from '../../../src/server/proxy/command.js';
import { parseRawAnswer, rawConnection, until } from '../../support/attack.js';
import { callFrom, call, standardLinkBody, startTestService, type TestService } from '../../support/service.js';

const API_KEY = 'pl_sk_attack_proxy_test_key_0123456789abcdef';
const ADMIN = 'admin-token-for-attack-tests-0123456789';

/** A fake upstream that answers `{ ok: true }` (or an event stream) and records what reached it. */
function recordingFetch(captured: Request[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    captured.push(request);
    if (request.url.endsWith('/events')) {
      return new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode(': open\n\n')) }), {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
      });
    }
    return new Response(JSON.stringify({ ok: true }), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

function proxyWith(captured: Request[], overrides: Partial<PaylinkProxyOptions> = {}) {
  return createPaylinkProxy({
    upstream: 'http://upstream.test',
    apiKey: API_KEY,
    adminToken: ADMIN,
    rateLimit: false,
    fetch: recordingFetch(captured),
    ...overrides,
  });
}

/** The connections `proxy`'s server holds open now. */
const connections = (proxy: RunningProxy) =>
  new Promise<number>((resolve, reject) => proxy.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

const send = (handler: ReturnType<typeof createPaylinkProxy>, path: string, init: RequestInit = {}, clientIp = '203.0.113.10') =>
  handler(new Request(`http://merchant.test${path}`, init), { clientIp });

describe('the proxy handler', () => {
  test('every admin answer is no-store, refusals and unknown routes included; checkout answers are not', async () => {
    const proxy = proxyWith([]);
    const bearer = { authorization: `Bearer ${ADMIN}` };
    for (const [path, headers, status] of [
      ['/paylink/admin/balance', bearer, 200],
      ['/paylink/admin/checkout-session/abc', bearer, 200],
      ['/paylink/admin/balance', {}, 401],
      ['/paylink/admin/nothing-here', bearer, 404],
    ] as const) {
      const response = await send(proxy, path, { headers });
      assert.equal(response.status, status, path);
      assert.equal(response.headers.get('cache-control'), 'no-store', `${path} (${status})`);
    }
    assert.equal((await send(proxy, '/paylink/checkout/AbC123')).headers.get('cache-control'), null);
  });

  test('a request id is kept or made, answered, and sent to the service; the service hears the client the proxy counts, not what the browser wrote', async () => {
    const captured: Request[] = [];
    const proxy = proxyWith(captured);
    const kept = await send(proxy, '/paylink/checkout/AbC123', { headers: { 'x-request-id': 'shop-req-7', 'x-forwarded-for': '6.6.6.6' } });
    assert.equal(kept.headers.get('x-request-id'), 'shop-req-7');
    assert.equal(captured[0]!.headers.get('x-request-id'), 'shop-req-7');
    assert.equal(captured[0]!.headers.get('x-forwarded-for'), '203.0.113.10', "the socket's address, not the browser's header");
    const made = await send(proxy, '/paylink/admin/balance', { headers: { authorization: `Bearer ${ADMIN}`, 'x-request-id': 'not a plain id' } });
    const id = made.headers.get('x-request-id') ?? '';
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(captured[1]!.headers.get('x-request-id'), id);
    const refused = await send(proxy, '/paylink/admin/balance');
    assert.match(refused.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'refusals carry one too');

    const trusting = proxyWith(captured, { trustProxy: ['10.0.0.0/8'] });
    await send(trusting, '/paylink/checkout/AbC123', { headers: { 'x-forwarded-for': '198.51.100.4' } }, '10.1.1.1');
    assert.equal(captured.at(-1)!.headers.get('x-forwarded-for'), '198.51.100.4', 'behind a trusted load balancer, the client it names');
  });

  test('event streams past the total cap are a 503 with Retry-After, and no stream of another client is dropped', async () => {
    const captured: Request[] = [];
    const proxy = proxyWith(captured, { maxEventStreamsPerClient: 2, maxEventStreamsTotal: 3 });
    const path = '/paylink/checkout/sessions/00000000-0000-4000-8000-000000000001/events';
    const open = [await send(proxy, path, {}, '203.0.113.1'), await send(proxy, path, {}, '203.0.113.1'), await send(proxy, path, {}, '203.0.113.2')];
    assert.deepEqual(
      open.map((response) => response.status),
      [200, 200, 200],
    );
    const perClient = await send(proxy, path, {}, '203.0.113.1');
    assert.equal(perClient.status, 429);
    const total = await send(proxy, path, {}, '203.0.113.3');
    assert.equal(total.status, 503);
    assert.equal(total.headers.get('retry-after'), '5');
    assert.equal(((await total.json()) as { code: string }).code, 'streams_unavailable');
    assert.equal(captured.length, 3, 'refused streams never reached the service');
    for (const response of open) {
      const reader = response.body!.getReader();
      assert.equal((await reader.read()).done, false, 'still streaming');
      await reader.cancel();
    }
    // A cancelled stream gives its slot back as its cancel is passed upstream: a new stream is taken soon after.
    await until(async () => {
      const next = await send(proxy, path, {}, '203.0.113.3');
      await next.body?.cancel();
      assert.ok(next.status === 200 || next.status === 503, `a new stream: ${next.status}`);
      return next.status === 200;
    }, 'cancelled streams to free their slots');
  });

  test('an authorize hook that throws is a 500 in the one shape and one log line with its code and request id, never the request', async () => {
    const lines: string[] = [];
    const proxy = proxyWith([], {
      authorize: () => {
        throw new Error('session store down');
      },
      logger: createLogger((line) => lines.push(line)),
    });
    const response = await send(proxy, '/paylink/admin/balance', { headers: { cookie: 'shop_session=s3cr3t', 'x-request-id': 'hook-1' } });
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), { status: 'error', statusCode: 500, code: 'authorize_failed', message: 'The admin authorization check failed' });
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0]!);
    assert.equal(line.code, 'authorize_failed');
    assert.equal(line.requestId, 'hook-1');
    assert.ok(!lines[0]!.includes('s3cr3t'));
    assert.ok(!lines[0]!.includes('session store down'), "the hook's own message might hold anything");
  });
});

describe('paylink proxy server limits', () => {
  test('reads the limits from the environment and refuses a bad one at start', () => {
    const config = proxyOptionsFromEnv({
      port: 0,
      upstream: 'http://127.0.0.1:1',
      env: { PAYLINK_API_KEY: API_KEY, PAYLINK_MAX_CONNECTIONS_PER_CLIENT: '7', PAYLINK_MAX_EVENT_STREAMS_TOTAL: '9', PAYLINK_TRUST_PROXY: 'loopback' },
    });
    assert.equal(config.connectionLimits.maxConnectionsPerClient, 7);
    assert.equal(config.maxEventStreamsTotal, 9);
    assert.equal(config.maxEventStreamsPerClient, 4);
    assert.deepEqual(config.trustProxy, ['loopback']);
    assert.throws(
      () => proxyOptionsFromEnv({ port: 0, upstream: 'http://127.0.0.1:1', env: { PAYLINK_API_KEY: API_KEY, PAYLINK_BODY_TIMEOUT_MS: 'soon' } }),
      ProxyConfigError,
    );
  });

  test('slow headers are cut with a JSON 408, and a client past its connection cap gets a quick 503', async () => {
    const proxy = await startProxyServer({
      port: 0,
      upstream: 'http://127.0.0.1:1',
      env: {
        PAYLINK_API_KEY: API_KEY,
        PAYLINK_HEADERS_TIMEOUT_MS: '300',
        PAYLINK_BODY_TIMEOUT_MS: '600',
        PAYLINK_CONNECTIONS_CHECK_MS: '50',
        PAYLINK_MAX_CONNECTIONS_PER_CLIENT: '3',
      },
    });
    try {
      const slow = rawConnection(proxy.url, '127.0.0.2', 'GET /paylink/checkout/x HTTP/1.1\r\nHost: x\r\n');
      const held = [rawConnection(proxy.url, '127.0.0.2'), rawConnection(proxy.url, '127.0.0.2')];
      await until(async () => (await connections(proxy)) === 3, 'the server to hold three connections');
      const refused = await rawConnection(proxy.url, '127.0.0.2', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n').closed;
      const answer = parseRawAnswer(refused.data);
      assert.equal(answer.status, 503);
      assert.equal(answer.body.code, 'too_many_connections');
      assert.equal((await callFrom('127.0.0.1', proxy.url, 'GET', '/healthz')).status, 200, 'a customer is served meanwhile');
      const { data, ms } = await slow.closed;
      assert.equal(parseRawAnswer(data).status, 408);
      assert.ok(ms < 5000, `cut after ${ms} ms`);
      for (const connection of held) connection.socket.destroy();
    } finally {
      await proxy.close();
    }
  });
});

describe('the proxy in front of a service that trusts it', () => {
  let svc: TestService;
  let proxy: RunningProxy;
  let slug: string;
  before(async () => {
    svc = await startTestService('pglite', { payoutWorker: false, trustProxy: ['127.0.0.1'], sessionRateLimit: { burst: 2, perSecond: 0.001 } });
    const key = (await svc.newKey()).key;
    slug = (await call(svc.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() })).body.slug;
    proxy = await startProxyServer({ port: 0, upstream: svc.url, env: { PAYLINK_API_KEY: key, PAYLINK_RATE_LIMIT: 'off' } });
  });
  after(async () => {
    await proxy.close();
    await svc.close();
  });

  test("the service's per-client limits count each customer behind the proxy, not the proxy", async () => {
    const start = (from: string) => callFrom(from, proxy.url, 'POST', `/paylink/checkout/${slug}/sessions`, { body: { assetId: 'USDT' } });
    const first = [await start('127.0.0.2'), await start('127.0.0.2'), await start('127.0.0.2')];
    assert.deepEqual(
      first.map((res) => res.status),
      [201, 201, 429],
    );
    assert.equal(first[2]!.body.code, 'rate_limited');
    assert.ok(first[2]!.headers.get('retry-after'));
    const other = [await start('127.0.0.3'), await start('127.0.0.3')];
    assert.deepEqual(
      other.map((res) => res.status),
      [201, 201],
      'another customer has an allowance of its own',
    );
    const id = first[0]!.headers.get('x-request-id');
    assert.match(id ?? '', /^[0-9a-f-]{36}$/);
  });
});
