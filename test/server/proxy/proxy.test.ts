/**
 * The key-holding proxy, against the real service and against fake upstreams.
 * Every response a test receives goes through `send()`, which records it; the last test searches all
 * of them (bodies and headers, every status) for the API key.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import {
  createNodeFetch,
  createPaylinkProxy,
  createRateLimiter,
  toNodeHandler,
  type PaylinkProxyHandler,
  type PaylinkProxyOptions,
} from '../../../src/server/proxy/index.js';
import { createLogger } from '../../../src/server/log.js';
import { proxyOptionsFromEnv, startProxyServer } from '../../../src/server/proxy/command.js';
import { call, standardLinkBody, startTestService, type TestService } from '../../support/service.js';
import { closeServer, listen } from '../../support/http-server.js';
import { readable } from '../../support/processes.js';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const SHOP = 'https://shop.example';

interface Seen {
  label: string;
  status: number;
  headers: [string, string][];
  text: string;
}
const seen: Seen[] = [];
/** Keys whose absence every recorded response is checked for. */
const secrets = new Set<string>();

/** Records a response (headers and full body) for the final key search, and returns it read. */
async function record(label: string, response: Response) {
  const text = await response.text();
  const headers = [...response.headers.entries()];
  seen.push({ label, status: response.status, headers, text });
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Sends through a fetch handler (`handler`) or to a URL, and records. */
async function send(target: PaylinkProxyHandler | string, path: string, init: RequestInit = {}, info?: { clientIp?: string }) {
  if (typeof target === 'string') return record(`${init.method ?? 'GET'} ${path}`, await fetch(target + path, init));
  return record(`${init.method ?? 'GET'} ${path}`, await target(new Request(`http://merchant.test${path}`, init), info));
}

function assertErrorShape(json: any, statusCode: number, code?: string) {
  assert.equal(json?.status, 'error');
  assert.equal(json.statusCode, statusCode);
  assert.equal(typeof json.code, 'string');
  assert.equal(typeof json.message, 'string');
  if (code) assert.equal(json.code, code);
}

/** A port nothing listens on. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await closeServer(server);
  return url;
}

/** A fake upstream (as an injected fetch) that echoes what it received, in its body and its headers. */
function echoingFetch(captured: Request[] = []): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    captured.push(request.clone());
    const headers = Object.fromEntries(request.headers.entries());
    return new Response(JSON.stringify({ url: request.url, method: request.method, headers, body: await request.text() }), {
      status: 200,
      headers: {
        'content-type': 'application/json',
        'x-echo-api-key': request.headers.get('x-api-key') ?? '',
        'set-cookie': `k=${request.headers.get('x-api-key') ?? ''}`,
        'access-control-allow-origin': '*',
        'x-request-id': 'req-1',
      },
    });
  };
}

let svc: TestService;
let apiKey: string;
let slug: string;
let linkId: string;
let proxy: PaylinkProxyHandler;
let proxyServer: Server;
let proxyUrl: string;

function realProxy(overrides: Partial<PaylinkProxyOptions> = {}) {
  return createPaylinkProxy({
    upstream: svc.url,
    apiKey,
    adminToken: ADMIN_TOKEN,
    allowedOrigins: [SHOP],
    rateLimit: false,
    ...overrides,
  });
}

before(async () => {
  svc = await startTestService('pglite');
  apiKey = (await svc.newKey()).key;
  secrets.add(apiKey);
  const created = await call(svc.url, 'POST', '/v1/payment-link', { key: apiKey, body: standardLinkBody() });
  assert.equal(created.status, 201);
  slug = created.body.slug;
  linkId = created.body.id;
  proxy = realProxy();
  proxyServer = createServer(toNodeHandler(proxy));
  proxyUrl = await listen(proxyServer);
});

after(async () => {
  await closeServer(proxyServer);
  await svc.close();
});

describe('checkout routes', () => {
  test('a shopper reads a link through the proxy without any key', async () => {
    const response = await send(proxyUrl, `/paylink/checkout/${slug}`);
    assert.equal(response.status, 200);
    assert.equal(response.json.slug, slug);
    assert.equal(response.json.userId, undefined, 'the public view has no owner ids');
  });

  test('query strings pass through to the service', async () => {
    const captured: Request[] = [];
    const handler = realProxy({ fetch: echoingFetch(captured) });
    await send(handler, `/paylink/checkout/${slug}?lang=fr&x=1`);
    assert.equal(new URL(captured[0]!.url).search, '?lang=fr&x=1');
    assert.equal(new URL(captured[0]!.url).pathname, `/v1/checkout/${slug}`);
  });

  test('an allowed origin gets CORS headers; another origin and a same-origin call get none', async () => {
    const allowed = await send(proxyUrl, `/paylink/checkout/${slug}`, { headers: { origin: SHOP } });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), SHOP);
    assert.match(allowed.headers.get('vary') ?? '', /origin/i);

    const other = await send(proxyUrl, `/paylink/checkout/${slug}`, { headers: { origin: 'https://evil.example' } });
    assert.equal(other.status, 200);
    // The service itself answers `*` on /v1/checkout; the proxy must not pass that on.
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    for (const [name] of other.headers) assert.ok(!name.startsWith('access-control-'), `unexpected ${name}`);

    const none = await send(proxyUrl, `/paylink/checkout/${slug}`);
    assert.equal(none.headers.get('access-control-allow-origin'), null);
  });

  test('a preflight from an allowed origin is answered; from another origin it gets no CORS headers', async () => {
    const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };
    const ok = await send(proxyUrl, `/paylink/checkout/${slug}/visits`, { method: 'OPTIONS', headers: { origin: SHOP, ...preflight } });
    assert.ok(ok.status === 204 || ok.status === 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), SHOP);
    assert.match(ok.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(ok.headers.get('access-control-allow-headers') ?? '', /content-type/i);

    const refused = await send(proxyUrl, `/paylink/checkout/${slug}/visits`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', ...preflight },
    });
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    assert.equal(refused.headers.get('access-control-allow-methods'), null);
  });

  test("allowedOrigins '*' lets any page call the checkout routes", async () => {
    const handler = realProxy({ allowedOrigins: '*' });
    const response = await send(handler, `/paylink/checkout/${slug}`, { headers: { origin: 'https://anyone.example' } });
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
  });

  test('a visit is posted through the proxy (the body reaches the service)', async () => {
    const visitId = 'visit-from-proxy-1';
    const first = await send(proxyUrl, `/paylink/checkout/${slug}/visits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: SHOP },
      body: JSON.stringify({ visitId }),
    });
    assert.equal(first.status, 200);
    assert.deepEqual(first.json, { counted: true, visitId });
    const again = await send(proxyUrl, `/paylink/checkout/${slug}/visits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ visitId }),
    });
    assert.equal(again.json.counted, false);
  });

  test("the service's own errors pass through in the one error shape", async () => {
    const response = await send(proxyUrl, '/paylink/checkout/no-such-slug-here');
    assert.equal(response.status, 404);
    assertErrorShape(response.json, 404);
  });

  test("a browser's X-API-KEY, cookies and Authorization never reach the service; Idempotency-Key and Last-Event-ID do", async () => {
    const captured: Request[] = [];
    const handler = realProxy({ fetch: echoingFetch(captured) });
    await send(handler, `/paylink/checkout/${slug}/sessions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-api-key': 'pl_sk_browser_supplied',
        cookie: 'session=abc',
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'idempotency-key': 'idem-checkout-1',
        'last-event-id': '7',
      },
      body: JSON.stringify({ assetId: 'USDT' }),
    });
    const upstream = captured[0]!;
    assert.equal(upstream.headers.get('x-api-key'), null, 'checkout calls carry no key at all');
    assert.equal(upstream.headers.get('cookie'), null);
    assert.equal(upstream.headers.get('authorization'), null);
    assert.equal(upstream.headers.get('idempotency-key'), 'idem-checkout-1');
    assert.equal(upstream.headers.get('last-event-id'), '7');
    assert.equal(upstream.headers.get('content-type'), 'application/json');
    assert.equal(upstream.headers.get('accept'), 'application/json');
    assert.deepEqual(JSON.parse(await upstream.text()), { assetId: 'USDT' });
  });

  test('a body over the limit is refused with 413 before it reaches the service', async () => {
    const captured: Request[] = [];
    const handler = realProxy({ fetch: echoingFetch(captured), maxBodyBytes: 100 });
    const response = await send(handler, `/paylink/checkout/${slug}/visits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ visitId: 'x'.repeat(200) }),
    });
    assert.equal(response.status, 413);
    assertErrorShape(response.json, 413, 'body_too_large');
    assert.equal(captured.length, 0);
  });
});

describe('admin routes', () => {
  test('401 without auth, with a wrong token, and with the API key itself as the token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${ADMIN_TOKEN}x`, `Bearer ${apiKey}`, ADMIN_TOKEN]) {
      const response = await send(proxyUrl, '/paylink/admin/payment-link', { headers: authorization ? { authorization } : {} });
      assert.equal(response.status, 401, `authorization ${authorization ? 'given' : 'missing'}`);
      assertErrorShape(response.json, 401, 'unauthorized');
    }
  });

  test('a browser-sent X-API-KEY does not authorize anything', async () => {
    const response = await send(proxyUrl, '/paylink/admin/payment-link', { headers: { 'x-api-key': apiKey } });
    assert.equal(response.status, 401);
  });

  test('the right bearer token reaches the service with the key added', async () => {
    const list = await send(proxyUrl, '/paylink/admin/payment-link?limit=1', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(list.status, 200);
    assert.equal(list.json.meta.itemsPerPage, 1, 'the query string reached the service');
    assert.ok(list.json.items.some((item: { id: string }) => item.id === linkId));

    const single = await send(proxyUrl, `/paylink/admin/payment-link/${linkId}/single`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(single.status, 200);
    assert.equal(single.json.id, linkId);
  });

  test('a link is created and updated through the proxy', async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = await send(proxyUrl, '/paylink/admin/payment-link', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(standardLinkBody({ title: 'Via proxy' })),
    });
    assert.equal(created.status, 201);
    const updated = await send(proxyUrl, '/paylink/admin/payment-link', {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({ id: created.json.id, title: 'Renamed via proxy' }),
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.json.title, 'Renamed via proxy');
  });

  test("a browser's X-API-KEY is replaced by the proxy's key; its cookies and Authorization are dropped", async () => {
    const captured: Request[] = [];
    const handler = realProxy({ fetch: echoingFetch(captured) });
    await send(handler, '/paylink/admin/withdrawal', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'x-api-key': 'pl_sk_browser_supplied',
        cookie: 'merchant_session=s3cr3t',
        'content-type': 'application/json',
        'idempotency-key': 'payout-42',
      },
      body: JSON.stringify({ amount: '1', address: '0x0', blockchainId: 'bsc', assetId: 'USDT' }),
    });
    const upstream = captured[0]!;
    assert.equal(new URL(upstream.url).pathname, '/v1/withdrawal');
    assert.equal(upstream.headers.get('x-api-key'), apiKey);
    assert.equal(upstream.headers.get('cookie'), null);
    assert.equal(upstream.headers.get('authorization'), null);
    assert.equal(upstream.headers.get('idempotency-key'), 'payout-42');
  });

  test('authorize decides instead of the token: yes passes, no is 401, a throw is a 500 without details', async () => {
    const byCookie = realProxy({ adminToken: undefined, authorize: (request) => request.headers.get('cookie') === 'session=merchant' });
    const yes = await send(byCookie, '/paylink/admin/payment-link', { headers: { cookie: 'session=merchant' } });
    assert.equal(yes.status, 200);
    const no = await send(byCookie, '/paylink/admin/payment-link', { headers: { cookie: 'session=other' } });
    assert.equal(no.status, 401);
    const withToken = await send(byCookie, '/paylink/admin/payment-link', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(withToken.status, 401, 'with authorize, the token is not consulted');

    const asyncYes = realProxy({ authorize: async () => true });
    assert.equal((await send(asyncYes, `/paylink/admin/payment-link/${linkId}/single`)).status, 200);

    // The merchant's log hears of it (captured here, not printed): its code and request id, never the error's words.
    const lines: string[] = [];
    const broken = realProxy({
      authorize: () => {
        throw new Error(`boom ${apiKey}`);
      },
      logger: createLogger((line) => lines.push(line)),
    });
    const failed = await send(broken, '/paylink/admin/balance');
    assert.equal(failed.status, 500);
    assertErrorShape(failed.json, 500);
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(line.level, 'error');
    assert.equal(line.code, 'authorize_failed');
    assert.equal(line.requestId, failed.headers.get('x-request-id'));
    assert.ok(!lines[0]!.includes('boom') && !lines[0]!.includes(apiKey));
  });

  test('without adminToken or authorize, admin routes are closed', async () => {
    const closed = realProxy({ adminToken: undefined });
    assert.equal((await send(closed, '/paylink/admin/payment-link', { headers: { authorization: 'Bearer ' } })).status, 401);
    assert.equal((await send(closed, '/paylink/admin/payment-link', { headers: { authorization: 'Bearer undefined' } })).status, 401);
  });

  test('paths outside the allow-list are 404 even when authorized', async () => {
    const captured: Request[] = [];
    const handler = realProxy({ fetch: echoingFetch(captured) });
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    for (const path of [
      '/paylink/admin/openapi.json',
      '/paylink/admin/keys',
      '/paylink/admin/checkout/' + slug,
      '/paylink/admin/balance/extra',
      '/paylink/admin/payment-links',
      '/paylink/admin/',
      '/paylink/admin',
      '/paylink/admin/payment-link%2F..%2F..%2Fopenapi.json',
      '/paylink/admin/payment-link/%2e%2e/%2e%2e/openapi.json',
      '/paylink/admin/withdrawal/..%5c..%5copenapi.json',
      '/paylink/other',
      '/elsewhere/admin/balance',
    ]) {
      const response = await send(handler, path, { headers: auth });
      assert.equal(response.status, 404, path);
      assertErrorShape(response.json, 404);
    }
    assert.equal(captured.length, 0, 'nothing outside the allow-list reached the service');
  });

  test('a cross-site form post (not JSON) to an admin route is refused', async () => {
    const captured: Request[] = [];
    const handler = realProxy({ authorize: () => true, fetch: echoingFetch(captured) });
    const response = await send(handler, '/paylink/admin/withdrawal', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"amount":"1","address":"0xattacker","blockchainId":"bsc","assetId":"USDT"}',
    });
    assert.equal(response.status, 415);
    assert.equal(captured.length, 0);
  });

  test('admin routes never grant CORS, even to an allowed origin', async () => {
    const preflight = await send(proxyUrl, '/paylink/admin/payment-link', {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    const get = await send(proxyUrl, '/paylink/admin/payment-link', { headers: { origin: SHOP, authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(get.headers.get('access-control-allow-origin'), null);
  });
});

describe('upstream failures', () => {
  test('the upstream down is a 502 in the one error shape', async () => {
    const handler = realProxy({ upstream: await deadUrl() });
    const checkout = await send(handler, `/paylink/checkout/${slug}`, { headers: { origin: SHOP } });
    assert.equal(checkout.status, 502);
    assertErrorShape(checkout.json, 502, 'upstream_unavailable');
    assert.equal(checkout.headers.get('access-control-allow-origin'), SHOP, 'the checkout can read the error');
    const admin = await send(handler, '/paylink/admin/balance', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(admin.status, 502);
    assertErrorShape(admin.json, 502);
  });

  test('a slow upstream is a 504 after timeoutMs', async () => {
    const slow = createServer((_req, res) => {
      setTimeout(() => res.end('{}'), 2000).unref();
    });
    const slowUrl = await listen(slow);
    try {
      const handler = realProxy({ upstream: slowUrl, timeoutMs: 150 });
      const started = Date.now();
      const response = await send(handler, '/paylink/admin/balance', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(response.status, 504);
      assertErrorShape(response.json, 504, 'upstream_timeout');
      assert.ok(Date.now() - started < 1500);

      // Headers on time but a body that stalls is just as slow.
      const stalling = realProxy({
        timeoutMs: 150,
        fetch: async (_input, init) =>
          new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode('{"items":'));
                init?.signal?.addEventListener('abort', () => controller.error(new Error('aborted')));
              },
            }),
            { headers: { 'content-type': 'application/json' } },
          ),
      });
      const stalled = await send(stalling, `/paylink/checkout/${slug}`);
      assert.equal(stalled.status, 504);
    } finally {
      await closeServer(slow);
    }
  });

  test('an upstream that echoes the key back is redacted, in headers and in the body', async () => {
    const handler = realProxy({ fetch: echoingFetch() });
    const response = await send(handler, '/paylink/admin/balance', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(response.status, 200);
    assert.ok(!response.text.includes(apiKey));
    assert.match(response.text, /\[redacted\]/);
    assert.equal(response.headers.get('x-echo-api-key'), null);
    assert.equal(response.headers.get('set-cookie'), null);
    assert.equal(response.headers.get('x-request-id'), 'req-1', 'harmless headers pass');
    assert.equal(response.headers.get('access-control-allow-origin'), null, "the upstream's CORS headers are dropped");
  });

  test('an upstream error message that contains the key is redacted too', async () => {
    const handler = realProxy({
      fetch: async () =>
        new Response(JSON.stringify({ status: 'error', statusCode: 500, code: 'internal_error', message: `key ${apiKey} failed` }), {
          status: 500,
          headers: { 'content-type': 'application/json', 'www-authenticate': `ApiKey ${apiKey}` },
        }),
    });
    const response = await send(handler, '/paylink/admin/balance', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(response.status, 500);
    assert.equal(response.json.message, 'key [redacted] failed');
  });

  test('the proxy never follows an upstream redirect (the key would travel with it)', async () => {
    let calls = 0;
    const handler = realProxy({
      fetch: async (_input, init) => {
        calls++;
        assert.equal(init?.redirect, 'manual');
        return new Response(null, { status: 302, headers: { location: 'https://elsewhere.example/' } });
      },
    });
    const response = await send(handler, '/paylink/admin/balance', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(response.status, 302);
    assert.equal(calls, 1);
  });
});

describe('Server-Sent Events', () => {
  for (const [name, upstreamFetch] of [
    ['global fetch', undefined],
    ['createNodeFetch', createNodeFetch()],
  ] as const) {
    test(`an event stream flows through live, unbuffered, and outlives the timeout (${name})`, async () => {
      let upstreamClosed: () => void = () => {};
      const upstreamGone = new Promise<void>((resolve) => (upstreamClosed = resolve));
      const events = createServer((req, res) => {
        assert.equal(req.url, '/v1/checkout/sessions/s1/events');
        assert.equal(req.headers['x-api-key'], undefined);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'access-control-allow-origin': '*' });
        res.write('event: status\ndata: {"status":"awaiting_payment"}\n\n');
        const later = setTimeout(() => res.write('event: status\ndata: {"status":"paid"}\n\n'), 400);
        res.on('close', () => {
          clearTimeout(later);
          upstreamClosed();
        });
      });
      const eventsUrl = await listen(events);
      const handler = createPaylinkProxy({ upstream: eventsUrl, apiKey, allowedOrigins: [SHOP], timeoutMs: 150, fetch: upstreamFetch });
      const server = createServer(toNodeHandler(handler));
      const url = await listen(server);
      try {
        const controller = new AbortController();
        const response = await fetch(`${url}/paylink/checkout/sessions/s1/events`, {
          headers: { origin: SHOP, accept: 'text/event-stream' },
          signal: controller.signal,
        });
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
        assert.equal(response.headers.get('access-control-allow-origin'), SHOP);
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        const first = await reader.read();
        text += decoder.decode(first.value);
        assert.match(text, /awaiting_payment/, 'the first event arrived while the stream is still open');
        while (!text.includes('paid"')) {
          const next = await reader.read();
          assert.ok(!next.done, 'the stream was cut before the second event');
          text += decoder.decode(next.value);
        }
        seen.push({ label: 'SSE', status: response.status, headers: [...response.headers.entries()], text });
        controller.abort();
        await upstreamGone; // the client leaving closed the upstream stream too
      } finally {
        await closeServer(server);
        await closeServer(events);
      }
    });
  }
});

describe('createNodeFetch (what `paylink proxy` uses on Node)', () => {
  const nodeFetch = createNodeFetch();

  test('forwards bodies, headers and query strings to the real service', async () => {
    const handler = realProxy({ fetch: nodeFetch });
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = await send(handler, '/paylink/admin/payment-link', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(standardLinkBody({ title: 'Node fetch' })),
    });
    assert.equal(created.status, 201);
    assert.equal(created.json.title, 'Node fetch');
    const list = await send(handler, '/paylink/admin/payment-link?limit=2', { headers: auth });
    assert.equal(list.json.meta.itemsPerPage, 2);
    const missing = await send(handler, '/paylink/checkout/nope-nope');
    assert.equal(missing.status, 404);
    assertErrorShape(missing.json, 404);
    const head = await send(handler, `/paylink/checkout/${slug}`, { method: 'HEAD' });
    assert.equal(head.text, '');
  });

  test('502 when the upstream is down, 504 when it is slow', async () => {
    const down = realProxy({ upstream: await deadUrl(), fetch: nodeFetch });
    assert.equal((await send(down, `/paylink/checkout/${slug}`)).status, 502);
    const slow = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
      setTimeout(() => res.end('1}'), 2000).unref();
    });
    const slowUrl = await listen(slow);
    try {
      const timed = realProxy({ upstream: slowUrl, timeoutMs: 150, fetch: nodeFetch });
      const response = await send(timed, '/paylink/admin/balance', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(response.status, 504);
      assertErrorShape(response.json, 504, 'upstream_timeout');
    } finally {
      await closeServer(slow);
    }
  });

  test('an echoing upstream is redacted the same way', async () => {
    const echo = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-seen-key': String(req.headers['x-api-key']) });
      res.end(JSON.stringify({ headers: req.headers }));
    });
    const echoUrl = await listen(echo);
    try {
      const response = await send(realProxy({ upstream: echoUrl, fetch: nodeFetch }), '/paylink/admin/balance', {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(response.status, 200);
      assert.equal(response.json.headers['x-api-key'], '[redacted]', 'the key reached the upstream, and not the client');
      assert.equal(response.headers.get('x-seen-key'), null);
    } finally {
      await closeServer(echo);
    }
  });
});

describe('rate limit', () => {
  test('a client past its burst gets 429 with Retry-After while another client is still served', async () => {
    const handler = realProxy({ rateLimit: { burst: 3, perSecond: 0.5 } });
    for (let i = 0; i < 3; i++) assert.equal((await send(handler, `/paylink/checkout/${slug}`, {}, { clientIp: '203.0.113.1' })).status, 200);
    const limited = await send(handler, `/paylink/checkout/${slug}`, { headers: { origin: SHOP } }, { clientIp: '203.0.113.1' });
    assert.equal(limited.status, 429);
    assertErrorShape(limited.json, 429, 'rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${limited.headers.get('retry-after')}`);
    assert.equal(limited.headers.get('access-control-allow-origin'), SHOP, 'the checkout can read the 429');
    assert.equal((await send(handler, `/paylink/checkout/${slug}`, {}, { clientIp: '203.0.113.2' })).status, 200);
  });

  test('through node:http the socket address is the key; X-Forwarded-For counts only with trustProxy', async () => {
    const untrusting = createServer(toNodeHandler(realProxy({ rateLimit: { burst: 2, perSecond: 0.1 } })));
    const trusting = createServer(toNodeHandler(realProxy({ rateLimit: { burst: 2, perSecond: 0.1 }, trustProxy: true })));
    const [plainUrl, trustUrl] = [await listen(untrusting), await listen(trusting)];
    try {
      const statuses = async (base: string, forwardedFor: string, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push((await send(base, `/paylink/checkout/${slug}`, { headers: { 'x-forwarded-for': forwardedFor } })).status);
        return out;
      };
      // Without trustProxy, rotating X-Forwarded-For doesn't escape the limit.
      assert.deepEqual([...(await statuses(plainUrl, '198.51.100.1', 2)), ...(await statuses(plainUrl, '198.51.100.2', 1))], [200, 200, 429]);
      // With it, each forwarded client has its own bucket.
      assert.deepEqual(await statuses(trustUrl, '198.51.100.1', 3), [200, 200, 429]);
      assert.deepEqual(await statuses(trustUrl, 'spoofed, 198.51.100.2', 1), [200]);
    } finally {
      await closeServer(untrusting);
      await closeServer(trusting);
    }
  });

  test('the bucket refills over time and forgets idle clients', () => {
    let now = 0;
    const limiter = createRateLimiter({ burst: 2, perSecond: 1, now: () => now });
    assert.equal(limiter.take('a').allowed, true);
    assert.equal(limiter.take('a').allowed, true);
    const refused = limiter.take('a');
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 1);
    now += 1000;
    assert.equal(limiter.take('a').allowed, true);
    now += 60_000;
    limiter.take('b');
    assert.equal(limiter.size, 1, 'the idle, refilled bucket of a is gone');
  });
});

describe('paylink proxy command', () => {
  test('refuses to start without PAYLINK_API_KEY, with a clear message', async () => {
    assert.throws(() => proxyOptionsFromEnv({ port: 0, upstream: svc.url, env: {} }), /PAYLINK_API_KEY/);
    const child = spawn(process.execPath, ['bin/paylink.mjs', 'proxy', '--port', '0', '--upstream', svc.url], {
      env: { ...process.env, PAYLINK_API_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.notEqual(code, 0);
    assert.match(stderr, /PAYLINK_API_KEY/);
  });

  test('refuses to start with a PAYLINK_ADMIN_TOKEN shorter than 32 characters, saying how to make one', async () => {
    assert.throws(
      () => proxyOptionsFromEnv({ port: 0, upstream: svc.url, env: { PAYLINK_API_KEY: apiKey, PAYLINK_ADMIN_TOKEN: 'a' } }),
      /PAYLINK_ADMIN_TOKEN must be at least 32 characters/,
    );
    const child = spawn(process.execPath, ['bin/paylink.mjs', 'proxy', '--port', '0', '--upstream', svc.url], {
      env: { ...process.env, PAYLINK_API_KEY: apiKey, PAYLINK_ADMIN_TOKEN: 'a' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /PAYLINK_ADMIN_TOKEN must be at least 32 characters/);
    assert.match(readable(stderr), /node -e "console\.log\(require\('crypto'\)\.randomBytes\(32\)\.toString\('base64url'\)\)"/);
    assert.doesNotMatch(stderr, /^\s+at /m, 'one line, no stack');
  });

  test('reads the environment: admin token, allowed origins; serves /healthz', async () => {
    const running = await startProxyServer({
      port: 0,
      upstream: svc.url,
      env: { PAYLINK_API_KEY: apiKey, PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN, PAYLINK_ALLOWED_ORIGINS: `${SHOP}, https://other.example` },
    });
    try {
      const health = await send(running.url, '/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(health.json, { status: 'ok' });
      const admin = await send(running.url, '/paylink/admin/payment-link', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(admin.status, 200);
      const cors = await send(running.url, `/paylink/checkout/${slug}`, { headers: { origin: 'https://other.example' } });
      assert.equal(cors.headers.get('access-control-allow-origin'), 'https://other.example');
    } finally {
      await running.close();
    }
  });

  test('serves the script-tag bundles at /paylink/dist/*, compressed and loadable cross-origin', async () => {
    const running = await startProxyServer({ port: 0, upstream: svc.url, env: { PAYLINK_API_KEY: apiKey } });
    try {
      const response = await fetch(`${running.url}/paylink/dist/paylink-checkout.js`, {
        headers: { 'accept-encoding': 'br, gzip', origin: 'https://storefront.example' },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-encoding'), 'br');
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.match(response.headers.get('content-type') ?? '', /javascript/);
      assert.match(await response.text(), /paylink-checkout/, 'the bundle itself, decompressed');
      const unknown = await fetch(`${running.url}/paylink/dist/../package.json`);
      assert.equal(unknown.status, 404);
    } finally {
      await running.close();
    }
  });

  test('the real command starts, answers /healthz and never prints the key', async () => {
    const child = spawn(process.execPath, ['bin/paylink.mjs', 'proxy', '--port', '0', '--upstream', svc.url], {
      env: { ...process.env, PAYLINK_API_KEY: apiKey, PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${output}`)), 15_000);
        child.stdout.on('data', () => {
          const match = /listening on (http:\/\/[^\s/]+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      const health = await send(url, '/healthz');
      assert.deepEqual(health.json, { status: 'ok' });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
    }
    assert.ok(!output.includes(apiKey), 'the key was printed');
  });

  test('createPaylinkProxy refuses a missing key or a bad upstream', () => {
    assert.throws(() => createPaylinkProxy({ upstream: svc.url, apiKey: '' }), /apiKey/);
    assert.throws(() => createPaylinkProxy({ upstream: 'not a url', apiKey }), /upstream/);
  });
});

describe('the docs’ proxy examples', () => {
  /** Runs a node:http server built by an example, sends `check` requests and closes it. */
  async function withServer(server: Server, check: (url: string) => Promise<void>) {
    const url = await listen(server);
    try {
      await check(url);
    } finally {
      await closeServer(server);
    }
  }

  test('examples/node-http.ts: proxy routes next to the shop', async () => {
    const { createMerchantServer } = await import('../../../examples/node-http.js');
    const server = createMerchantServer({ PAYLINK_URL: svc.url, PAYLINK_API_KEY: apiKey, PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN });
    await withServer(server, async (url) => {
      assert.equal((await send(url, '/')).text, 'my shop');
      const link = await send(url, `/paylink/checkout/${slug}`, { headers: { origin: 'https://shop.example' } });
      assert.equal(link.status, 200);
      assert.equal(link.headers.get('access-control-allow-origin'), 'https://shop.example');
      assert.equal((await send(url, '/paylink/admin/payment-link')).status, 401);
      assert.equal((await send(url, '/paylink/admin/payment-link', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 200);
    });
  });

  test('examples/express.ts: mounted under /paylink, admin by the shop session, JSON bodies after it', async () => {
    const { createShopApp } = await import('../../../examples/express.js');
    const app = createShopApp({
      upstream: svc.url,
      apiKey,
      findSession: async (cookie) => (cookie === 'shop_session=staff-1' ? { staff: true } : undefined),
    });
    // A route of the shop that reads JSON, registered after the proxy, still gets its parsed body.
    app.post('/echo', (req, res) => {
      res.json(req.body);
    });
    await withServer(createServer(app), async (url) => {
      assert.equal((await send(url, '/')).text, 'my shop');
      assert.equal((await send(url, `/paylink/checkout/${slug}`)).status, 200);
      assert.equal((await send(url, '/paylink/admin/payment-link')).status, 401);
      const staff = { cookie: 'shop_session=staff-1', 'content-type': 'application/json' };
      assert.equal((await send(url, '/paylink/admin/payment-link', { headers: staff })).status, 200);
      const created = await send(url, '/paylink/admin/payment-link', {
        method: 'POST',
        headers: staff,
        body: JSON.stringify(standardLinkBody({ title: 'From Express' })),
      });
      assert.equal(created.status, 201);
      assert.equal(created.json.title, 'From Express');
      assert.equal((await send(url, '/paylink/admin/keys', { headers: staff })).status, 404);
      assert.deepEqual((await send(url, '/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })).json, { a: 1 });
    });
  });

  test('toNodeHandler forwards a body Express already parsed', async () => {
    const express = (await import('express')).default;
    const app = express();
    app.use(express.json());
    app.use(toNodeHandler(realProxy()));
    app.get('/', (_req, res) => {
      res.send('after the proxy');
    });
    await withServer(createServer(app), async (url) => {
      assert.equal((await send(url, '/')).text, 'after the proxy', 'paths outside basePath go to next()');
      const created = await send(url, '/paylink/admin/payment-link', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(standardLinkBody({ title: 'Pre-parsed body' })),
      });
      assert.equal(created.status, 201);
      assert.equal(created.json.title, 'Pre-parsed body');
    });
  });

  test('examples/hono.ts: the proxy as one route of a Hono app', async () => {
    const { createShopApp } = await import('../../../examples/hono.js');
    const app = createShopApp({ PAYLINK_URL: svc.url, PAYLINK_API_KEY: apiKey, PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN });
    assert.equal(await (await app.request('/')).text(), 'my shop');
    const link = await record('hono checkout', await app.request(`/paylink/checkout/${slug}`));
    assert.equal(link.status, 200);
    assert.equal(link.json.slug, slug);
    assert.equal((await record('hono admin', await app.request('/paylink/admin/balance'))).status, 401);
    const list = await record('hono admin ok', await app.request('/paylink/admin/payment-link', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }));
    assert.equal(list.status, 200);
  });

  test('examples/next-route.ts: the route handler exports', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { PAYLINK_URL: svc.url, PAYLINK_API_KEY: apiKey, PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN, PAYLINK_ALLOWED_ORIGINS: SHOP });
    try {
      const route = await import('../../../examples/next-route.js');
      const link = await record('next GET', await route.GET(new Request(`https://shop.example/paylink/checkout/${slug}`, { headers: { origin: SHOP } })));
      assert.equal(link.status, 200);
      assert.equal(link.headers.get('access-control-allow-origin'), SHOP);
      const visit = await record(
        'next POST',
        await route.POST(
          new Request(`https://shop.example/paylink/checkout/${slug}/visits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
        ),
      );
      assert.equal(visit.status, 200);
      const preflight = await route.OPTIONS(
        new Request(`https://shop.example/paylink/checkout/${slug}`, { method: 'OPTIONS', headers: { origin: SHOP, 'access-control-request-method': 'GET' } }),
      );
      assert.equal(preflight.headers.get('access-control-allow-origin'), SHOP);
      const admin = await record(
        'next PATCH',
        await route.PATCH(
          new Request('https://shop.example/paylink/admin/payment-link', {
            method: 'PATCH',
            headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' },
            body: '{}',
          }),
        ),
      );
      assert.equal(admin.status, 401);
    } finally {
      for (const name of ['PAYLINK_URL', 'PAYLINK_API_KEY', 'PAYLINK_ADMIN_TOKEN', 'PAYLINK_ALLOWED_ORIGINS']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

describe('the API key', () => {
  test('appears in no response body or header, whatever the status', () => {
    const statuses = new Set(seen.map((response) => response.status));
    for (const status of [200, 401, 404, 413, 429, 502, 504]) assert.ok(statuses.has(status), `no ${status} response was checked`);
    for (const response of seen) {
      for (const secret of secrets) {
        assert.ok(!response.text.includes(secret), `${response.label} (${response.status}) has the key in its body`);
        for (const [name, value] of response.headers) assert.ok(!value.includes(secret), `${response.label} (${response.status}) has the key in ${name}`);
      }
    }
  });
});
