/**
 * Proxy hardening: cross-site admin changes, event streams per client and their sockets,
 * runtimes without a client address, and a Host header that tries to re-route the request.
 * Fake upstreams only (injected fetches and small node:http servers): no database.
 */
import assert from 'node:assert/strict';
import http, { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import express from 'express';
import { createNodeFetch, createPaylinkProxy, toNodeHandler, type PaylinkProxyOptions } from '../../../src/server/proxy/index.js';
import { closeServer, listen } from '../../support/http-server.js';
import { until } from '../../support/wait.js';
import { createLogger } from '../../../src/server/log.js';

const API_KEY = 'pl_sk_hardening_test_key_0123456789abcdef';
const encoder = new TextEncoder();

async function withServer(server: Server, check: (url: string) => Promise<void>) {
  const url = await listen(server);
  try {
    await check(url);
  } finally {
    await closeServer(server);
  }
}

/** A fake upstream that answers `{ ok: true }` and records what reached it. */
function recordingFetch(captured: Request[] = []): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    captured.push(request);
    return new Response(JSON.stringify({ ok: true }), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

function proxyWith(overrides: Partial<PaylinkProxyOptions> = {}) {
  return createPaylinkProxy({ upstream: 'http://upstream.test', apiKey: API_KEY, rateLimit: false, ...overrides });
}

async function errorOf(response: Response) {
  const json = (await response.json()) as { status: string; statusCode: number; code: string; message: string };
  assert.equal(json.status, 'error');
  assert.equal(json.statusCode, response.status);
  assert.equal(typeof json.message, 'string');
  return json;
}

describe('admin changes from another site', () => {
  test('a form post through Express after a body parser stays a form, and is refused with 415', async () => {
    const captured: Request[] = [];
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use(express.json());
    app.use(toNodeHandler(proxyWith({ authorize: (request) => request.headers.get('cookie') === 'shop=staff', fetch: recordingFetch(captured) })));
    await withServer(createServer(app), async (url) => {
      const form = await fetch(`${url}/paylink/admin/withdrawal`, {
        method: 'POST',
        headers: { cookie: 'shop=staff', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'amount=1&address=0xattacker&blockchainId=bsc&assetId=USDT',
      });
      assert.equal(form.status, 415);
      assert.equal((await errorOf(form)).code, 'unsupported_media_type');
      assert.equal(captured.length, 0, 'the form never reached the service');

      // JSON parsed by express.json() still goes through, as JSON.
      const json = await fetch(`${url}/paylink/admin/withdrawal`, {
        method: 'POST',
        headers: { cookie: 'shop=staff', 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '1' }),
      });
      assert.equal(json.status, 200);
      assert.equal(captured.length, 1);
      assert.match(captured[0]!.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await captured[0]!.json(), { amount: '1' });
    });
  });

  test('Sec-Fetch-Site: cross-site or a foreign Origin on an unsafe admin method is a 403', async () => {
    const captured: Request[] = [];
    const handler = proxyWith({ authorize: () => true, fetch: recordingFetch(captured) });
    const body = JSON.stringify({ amount: '1' });
    const cases: [string, Record<string, string>][] = [
      ['POST', { 'sec-fetch-site': 'cross-site' }],
      ['POST', { origin: 'https://evil.example' }],
      ['POST', { origin: 'null' }],
      ['POST', { origin: 'http://merchant.test:8080' }],
      ['PATCH', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
      ['DELETE', { origin: 'https://sub.merchant.test', 'sec-fetch-site': 'same-site' }],
      ['PUT', { origin: 'http://merchant.test', 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [method, headers] of cases) {
      const response = await handler(
        new Request('http://merchant.test/paylink/admin/payment-link', { method, headers: { 'content-type': 'application/json', ...headers }, body }),
      );
      assert.equal(response.status, 403, `${method} ${JSON.stringify(headers)}`);
      assert.equal((await errorOf(response)).code, 'cross_site_request');
    }
    assert.equal(captured.length, 0);
  });

  test('same-origin pages, callers without Origin, reads, and trusted origins pass', async () => {
    const captured: Request[] = [];
    const handler = proxyWith({ authorize: () => true, fetch: recordingFetch(captured), trustedAdminOrigins: ['https://admin.example/'] });
    const post = (url: string, headers: Record<string, string>) =>
      handler(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' }));
    const passing: [string, Record<string, string>][] = [
      ['http://merchant.test/paylink/admin/withdrawal', { origin: 'http://merchant.test', 'sec-fetch-site': 'same-origin' }],
      ['http://merchant.test/paylink/admin/withdrawal', {}], // a server or curl
      // TLS ended at a load balancer: the page is https, the proxy sees http, same host.
      ['http://merchant.test/paylink/admin/withdrawal', { origin: 'https://merchant.test', 'sec-fetch-site': 'same-origin' }],
      ['https://merchant.test/paylink/admin/withdrawal', { origin: 'https://merchant.test' }],
      ['http://merchant.test/paylink/admin/withdrawal', { origin: 'https://admin.example', 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [url, headers] of passing) assert.equal((await post(url, headers)).status, 200, `${url} ${JSON.stringify(headers)}`);
    // An http page is not the https site.
    assert.equal((await post('https://merchant.test/paylink/admin/withdrawal', { origin: 'http://merchant.test' })).status, 403);
    // Reads are not changes.
    const read = await handler(
      new Request('http://merchant.test/paylink/admin/balance', { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } }),
    );
    assert.equal(read.status, 200);
  });

  test('through node:http the origin the page came from is the Host it asked', async () => {
    const handler = toNodeHandler(proxyWith({ authorize: () => true, fetch: recordingFetch() }));
    await withServer(createServer(handler), async (url) => {
      const same = await fetch(`${url}/paylink/admin/withdrawal`, { method: 'POST', headers: { origin: url, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(same.status, 200);
      const other = await fetch(`${url}/paylink/admin/withdrawal`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(other.status, 403);
    });
  });
});

/** An upstream event stream (as an injected fetch) that stays open until aborted, or ends when `end()` is called. */
function streamingFetch() {
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const captured: Request[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    captured.push(request);
    if (!new URL(request.url).pathname.endsWith('/events')) {
      return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
    }
    if (new URL(request.url).pathname.includes('/missing/')) {
      return new Response('{"status":"error","statusCode":404,"code":"not_found","message":"No session"}', {
        status: 404,
        headers: { 'content-type': 'application/json' },
      });
    }
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        open.add(c);
        c.enqueue(encoder.encode('event: status\ndata: {"status":"awaiting_payment"}\n\n'));
        init?.signal?.addEventListener('abort', () => {
          open.delete(c);
          c.error(new Error('aborted'));
        });
      },
      cancel() {
        open.delete(controller);
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  return {
    fetch: fetchImpl,
    captured,
    open,
    endAll() {
      for (const c of open) c.close();
      open.clear();
    },
  };
}

describe('event streams per client', () => {
  const events = (id = 's1') => `http://merchant.test/paylink/checkout/sessions/${id}/events`;

  test('a fifth open stream from one client is a 429 with Retry-After; others are served; closing one frees a slot', async () => {
    const upstream = streamingFetch();
    const handler = proxyWith({ fetch: upstream.fetch, allowedOrigins: ['https://shop.example'] });
    const a = { clientIp: '203.0.113.7' };
    const streams: Response[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await handler(new Request(events(`s${i}`)), a);
      assert.equal(response.status, 200);
      streams.push(response);
    }
    const refused = await handler(new Request(events('s9'), { headers: { origin: 'https://shop.example' } }), a);
    assert.equal(refused.status, 429);
    assert.equal((await errorOf(refused)).code, 'too_many_streams');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(refused.headers.get('access-control-allow-origin'), 'https://shop.example', 'the checkout can read the 429');
    assert.equal(upstream.captured.length, 4, 'the refused stream never reached the service');

    const other = await handler(new Request(events('b1')), { clientIp: '203.0.113.8' });
    assert.equal(other.status, 200);
    await other.body!.cancel();

    // JSON calls of the same client are not streams.
    assert.equal((await handler(new Request('http://merchant.test/paylink/checkout/sessions/s0'), a)).status, 200);

    await streams[0]!.body!.cancel();
    const again = await handler(new Request(events('s5')), a);
    assert.equal(again.status, 200);
    assert.equal((await handler(new Request(events('s6')), a)).status, 429);
    for (const response of [...streams.slice(1), again]) await response.body!.cancel();
  });

  test('a slot is freed when the stream ends, when the client aborts, and at once for a non-stream answer', async () => {
    const upstream = streamingFetch();
    const handler = proxyWith({ fetch: upstream.fetch, maxEventStreams: 1 });
    const a = { clientIp: '203.0.113.9' };

    // Ended by the upstream (a terminal status): read to the end, then the slot is free.
    const first = await handler(new Request(events()), a);
    assert.equal((await handler(new Request(events()), a)).status, 429);
    upstream.endAll();
    assert.match(await first.text(), /awaiting_payment/);
    // Aborted by the client.
    const controller = new AbortController();
    const second = await handler(new Request(events(), { signal: controller.signal }), a);
    assert.equal(second.status, 200);
    assert.equal((await handler(new Request(events()), a)).status, 429);
    controller.abort();
    const third = await handler(new Request(events()), a);
    assert.equal(third.status, 200);
    await third.body!.cancel();

    // A 404 (no such session) holds no slot.
    for (let i = 0; i < 3; i++) assert.equal((await handler(new Request(events('missing')), a)).status, 404);
  });

  test('the upstream is always asked for text/event-stream on the events route', async () => {
    const upstream = streamingFetch();
    const handler = proxyWith({ fetch: upstream.fetch });
    const response = await handler(new Request(events(), { headers: { accept: 'application/json' } }), { clientIp: '203.0.113.10' });
    await response.body!.cancel();
    assert.equal(upstream.captured[0]!.headers.get('accept'), 'text/event-stream');
  });

  test('through node:http, a client that disconnects gives its slot back', { timeout: 10_000 }, async () => {
    const upstream = streamingFetch();
    const server = createServer(toNodeHandler(proxyWith({ fetch: upstream.fetch, maxEventStreams: 1 })));
    await withServer(server, async (url) => {
      const controller = new AbortController();
      const first = await fetch(`${url}/paylink/checkout/sessions/s1/events`, { signal: controller.signal });
      assert.equal(first.status, 200);
      const second = await fetch(`${url}/paylink/checkout/sessions/s1/events`);
      await second.body?.cancel();
      if (second.status !== 429) controller.abort();
      assert.equal(second.status, 429);
      controller.abort();
      // The server sees the disconnect a moment later: until then a new stream is refused (429).
      const statuses: number[] = [];
      await until(
        async () => {
          const response = await fetch(`${url}/paylink/checkout/sessions/s1/events`);
          await response.body?.cancel();
          statuses.push(response.status);
          return response.status === 200;
        },
        'the slot to come back after the disconnect',
        5_000,
        { everyMs: 20, explain: () => statuses.join(' ') },
      );
      assert.ok(
        statuses.every((status) => status === 200 || status === 429),
        statuses.join(' '),
      );
    });
  });

  test('createNodeFetch: open event streams do not take the sockets JSON calls need', { timeout: 10_000 }, async () => {
    const streamResponses = new Set<ServerResponse>();
    const upstreamServer = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.endsWith('/events')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: status\ndata: {}\n\n');
        streamResponses.add(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    await withServer(upstreamServer, async (upstreamUrl) => {
      const handler = createPaylinkProxy({
        upstream: upstreamUrl,
        apiKey: API_KEY,
        rateLimit: false,
        maxEventStreams: false,
        timeoutMs: 1000,
        fetch: createNodeFetch({ maxSockets: 2 }),
      });
      const controllers: AbortController[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          const controller = new AbortController();
          controllers.push(controller);
          // No Accept header from the client: the proxy still routes it as a stream.
          const response = await handler(new Request(`http://merchant.test/paylink/checkout/sessions/s${i}/events`, { signal: controller.signal }));
          assert.equal(response.status, 200);
        }
        const json = await handler(new Request('http://merchant.test/paylink/checkout/some-link'));
        assert.equal(json.status, 200, 'a JSON call was left without a socket');
      } finally {
        for (const controller of controllers) controller.abort();
      }
    });
  });

  test('createNodeFetch: a call still waiting for a socket times out as a 504', { timeout: 10_000 }, async () => {
    const held = new Set<ServerResponse>();
    const upstreamServer = createServer((_req, res) => void held.add(res)); // never answers
    await withServer(upstreamServer, async (upstreamUrl) => {
      const nodeFetch = createNodeFetch({ maxSockets: 1 });
      const options = { upstream: upstreamUrl, apiKey: API_KEY, rateLimit: false as const, fetch: nodeFetch };
      const holder = new AbortController();
      const holding = createPaylinkProxy({ ...options, timeoutMs: 5000 })(new Request('http://merchant.test/paylink/checkout/a', { signal: holder.signal }));
      try {
        await until(() => held.size === 1, 'the first call to hold the only socket');
        const started = Date.now();
        const queued = await createPaylinkProxy({ ...options, timeoutMs: 200 })(new Request('http://merchant.test/paylink/checkout/b'));
        assert.equal(queued.status, 504);
        assert.equal((await errorOf(queued)).code, 'upstream_timeout');
        assert.ok(Date.now() - started < 2000);
      } finally {
        holder.abort();
        await holding;
      }
    });
  });
});

describe('runtimes without a client address', () => {
  test('are not rate-limited as one shared client, and the proxy says so once, without the key', async () => {
    const warnings: Array<{ level: string; code: string; message: string }> = [];
    const logger = createLogger((line) => warnings.push(JSON.parse(line)));
    {
      const handler = proxyWith({ fetch: recordingFetch(), rateLimit: { burst: 1, perSecond: 0.01 }, logger });
      for (let i = 0; i < 3; i++) assert.equal((await handler(new Request('http://merchant.test/paylink/checkout/abc'))).status, 200);
      assert.equal(warnings.length, 1);
      assert.deepEqual([warnings[0]!.level, warnings[0]!.code], ['warn', 'client_address_unknown']);
      const text = JSON.stringify(warnings[0]);
      assert.match(text, /clientKey/);
      assert.ok(!text.includes(API_KEY));
      // With an address, the limit holds.
      assert.equal((await handler(new Request('http://merchant.test/paylink/checkout/abc'), { clientIp: '198.51.100.1' })).status, 200);
      assert.equal((await handler(new Request('http://merchant.test/paylink/checkout/abc'), { clientIp: '198.51.100.1' })).status, 429);
      const keyed = proxyWith({ fetch: recordingFetch(), rateLimit: { burst: 1, perSecond: 0.01 }, clientKey: () => 'k', logger });
      assert.equal((await keyed(new Request('http://merchant.test/paylink/checkout/abc'))).status, 200);
      assert.equal((await keyed(new Request('http://merchant.test/paylink/checkout/abc'))).status, 429);
      assert.equal(warnings.length, 1);
    }
  });
});

describe('toNodeHandler and the Host header', () => {
  /** Sends a raw node:http request with the Host header given, returning the status. */
  function rawRequest(url: string, path: string, host: string): Promise<number> {
    const { port } = new URL(url);
    return new Promise((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', reject);
      request.end();
    });
  }

  test('a Host header cannot change the path the proxy routes', async () => {
    const captured: Request[] = [];
    const nodeHandler = toNodeHandler(proxyWith({ authorize: () => true, fetch: recordingFetch(captured) }));
    let nexted = 0;
    const server = createServer((req, res) => {
      // Like a merchant that exposes only the checkout routes through the proxy.
      if (!req.url?.startsWith('/paylink/checkout/')) {
        res.statusCode = 404;
        return res.end();
      }
      nodeHandler(req, res, () => {
        nexted++;
        res.statusCode = 404;
        res.end();
      });
    });
    await withServer(server, async (url) => {
      for (const host of ['x/paylink/admin/withdrawal?', 'x/paylink/admin/balance#', 'evil@x/paylink/admin/balance?', 'x\\paylink\\admin\\balance?']) {
        const before = captured.length;
        const status = await rawRequest(url, '/paylink/checkout/abc', host);
        assert.equal(captured.length, before + 1, host);
        const upstream = captured.at(-1)!;
        assert.equal(new URL(upstream.url).pathname, '/v1/checkout/abc', host);
        assert.equal(upstream.headers.get('x-api-key'), null, `${host}: went to an admin route`);
        assert.equal(status, 200, host);
      }
      assert.equal(nexted, 0);

      // An ordinary Host still names the origin (for the same-origin check); a malformed one is replaced.
      assert.equal(await rawRequest(url, '/paylink/checkout/abc?x=1', 'shop.example:8080'), 200);
      assert.equal(new URL(captured.at(-1)!.url).search, '?x=1');
      assert.equal(await rawRequest(url, '/paylink/checkout/abc', '1.2.3.256'), 200);
    });
  });

  test('a path that looks like an authority (//host/…) stays a path', async () => {
    const captured: Request[] = [];
    const nodeHandler = toNodeHandler(proxyWith({ authorize: () => true, fetch: recordingFetch(captured) }));
    await withServer(createServer(nodeHandler), async (url) => {
      for (const path of ['//evil/paylink/admin/balance', '//127.0.0.1/paylink/admin/withdrawal']) {
        assert.equal(await rawRequest(url, path, 'shop.example'), 404, path);
      }
      assert.equal(captured.length, 0);
    });
  });
});
