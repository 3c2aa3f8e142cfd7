/**
 * The proxy on Node: `toNodeHandler` (incoming requests) and `createNodeUpstream` (the way to the
 * service that `paylink proxy` and the demo use), against small node:http servers. No database.
 */
import assert from 'node:assert/strict';
import http, { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { createFetchUpstream, createNodeUpstream, createPaylinkProxy, toNodeHandler, type PaylinkProxyOptions } from '../../../src/server/proxy/index.js';
import { closeServer, listen } from '../../support/http-server.js';
import { sleep } from '../../support/wait.js';

const API_KEY = 'pl_sk_node_test_key_0123456789abcdef';
const ADMIN = { authorization: 'Bearer admin-token-node-0123456789abcdef0123' };

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A fake service that records each request (body included) and answers with `answer` (default `{ ok: true }`). */
async function fakeService(answer?: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (answer) return answer(req, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  const url = await listen(server);
  return { url, seen, close: () => closeServer(server) };
}

function proxyFor(upstream: PaylinkProxyOptions['upstream'], overrides: Partial<PaylinkProxyOptions> = {}) {
  return createPaylinkProxy({ upstream, apiKey: API_KEY, adminToken: 'admin-token-node-0123456789abcdef0123', rateLimit: false, ...overrides });
}

/** A raw node:http request (so the test sees exactly what the server did with the connection). */
function rawRequest(url: string, init: { method: string; path: string; headers?: Record<string, string>; body?: string }) {
  const { port } = new URL(url);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: init.path, method: init.method, headers: init.headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

describe('toNodeHandler', () => {
  test('a body over the limit is a JSON 413 the client can read, the connection closes, and nothing reaches the service', async () => {
    const service = await fakeService();
    const server = createServer(toNodeHandler(proxyFor(createNodeUpstream(service.url), { maxBodyBytes: 100 })));
    const url = await listen(server);
    try {
      // No Content-Length (chunked), so only reading finds out.
      const { port } = new URL(url);
      const answer = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const request = http.request(
          { host: '127.0.0.1', port, path: '/paylink/checkout/abc/visits', method: 'POST', headers: { 'content-type': 'application/json' }, agent: false },
          (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
          },
        );
        request.on('error', reject);
        request.write('x'.repeat(150));
      });
      assert.equal(answer.status, 413);
      assert.equal(JSON.parse(answer.body).code, 'body_too_large');
      assert.equal(answer.headers.connection, 'close');
      assert.equal(service.seen.length, 0);
    } finally {
      await closeServer(server);
      await service.close();
    }
  });

  test('bodies are read off the socket and forwarded whole, with their length', async () => {
    const service = await fakeService();
    const server = createServer(toNodeHandler(proxyFor(createNodeUpstream(service.url))));
    const url = await listen(server);
    try {
      const body = JSON.stringify({ title: 'ü'.repeat(5000) });
      const answer = await rawRequest(url, {
        method: 'POST',
        path: '/paylink/admin/payment-link',
        headers: { ...ADMIN, 'content-type': 'application/json' },
        body,
      });
      assert.equal(answer.status, 200);
      const seen = service.seen.at(-1)!;
      assert.equal(seen.body, body);
      assert.equal(seen.headers['content-length'], String(Buffer.byteLength(body)));
      assert.equal(seen.headers['x-api-key'], API_KEY);
    } finally {
      await closeServer(server);
      await service.close();
    }
  });

  test('any other fetch handler gets a Request with its body and streams its Response back', async () => {
    const handler = async (request: Request) =>
      new Response(`${request.method} ${new URL(request.url).pathname} ${await request.text()}`, { status: 202, headers: { 'x-handled': '1' } });
    const server = createServer(toNodeHandler(handler));
    const url = await listen(server);
    try {
      const answer = await rawRequest(url, { method: 'POST', path: '/anything?x=1', body: 'hello' });
      assert.equal(answer.status, 202);
      assert.equal(answer.headers['x-handled'], '1');
      assert.equal(answer.body, 'POST /anything hello');
    } finally {
      await closeServer(server);
    }
  });
});

describe('createNodeUpstream', () => {
  test('an upstream URL with a path is kept as the prefix of every call', async () => {
    const service = await fakeService();
    try {
      const handler = proxyFor(createNodeUpstream(`${service.url}/paylink-service/`));
      assert.equal((await handler(new Request('http://merchant.test/paylink/checkout/abc?x=1'))).status, 200);
      assert.equal(service.seen.at(-1)!.url, '/paylink-service/v1/checkout/abc?x=1');
      assert.equal(service.seen.at(-1)!.headers['accept-encoding'], 'identity', 'no compressed answers to redact');
    } finally {
      await service.close();
    }
  });

  test('a redirect is passed back, never followed (the key would travel with it)', async () => {
    let followed = 0;
    const elsewhere = await fakeService(() => void followed++);
    const service = await fakeService((_req, res) => {
      res.writeHead(302, { location: `${elsewhere.url}/steal` });
      res.end();
    });
    try {
      const response = await proxyFor(createNodeUpstream(service.url))(new Request('http://merchant.test/paylink/admin/balance', { headers: ADMIN }));
      assert.equal(response.status, 302);
      assert.equal(elsewhere.seen.length + followed, 0);
    } finally {
      await service.close();
      await elsewhere.close();
    }
  });

  test('a GET whose reused keep-alive socket the service closed is sent again on a fresh one; a POST is not', async () => {
    // A service that drops every connection on its second request, unanswered: the race of a
    // keep-alive socket closed by the server just as the proxy reuses it.
    let arrived = 0;
    const perSocket = new WeakMap<object, number>();
    const service = createServer((req, res) => {
      arrived++;
      const count = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, count);
      if (count > 1) return void req.socket.destroy();
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    const url = await listen(service);
    try {
      const handler = proxyFor(createNodeUpstream(url));
      assert.equal((await handler(new Request('http://merchant.test/paylink/checkout/a'))).status, 200);
      assert.equal((await handler(new Request('http://merchant.test/paylink/checkout/b'))).status, 200, 'the GET came back as a 502');
      assert.equal(arrived, 3, 'the GET went out twice: once on the dropped socket, once on a fresh one');

      // The fresh socket has served one request: a POST now reuses it, and is dropped.
      const post = await handler(
        new Request('http://merchant.test/paylink/checkout/a/visits', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      );
      assert.equal(post.status, 502, 'a POST on a dropped socket is not sent again');
      assert.equal(arrived, 4);
    } finally {
      await closeServer(service);
    }
  });

  test('502 when the service is down, 504 when it is slow', async () => {
    const gone = createServer();
    const goneUrl = await listen(gone);
    await closeServer(gone);
    const down = await proxyFor(createNodeUpstream(goneUrl))(new Request('http://merchant.test/paylink/checkout/abc'));
    assert.equal(down.status, 502);
    assert.equal(((await down.json()) as { code: string }).code, 'upstream_unavailable');

    const slow = await fakeService((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
      setTimeout(() => res.end('1}'), 2000).unref();
    });
    try {
      const timed = await proxyFor(createNodeUpstream(slow.url), { timeoutMs: 150 })(new Request('http://merchant.test/paylink/checkout/abc'));
      assert.equal(timed.status, 504);
      assert.equal(((await timed.json()) as { code: string }).code, 'upstream_timeout');
    } finally {
      await slow.close();
    }
  });

  test('an event stream flows through live and is cut upstream when the client goes', { timeout: 10_000 }, async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    let upstream: ServerResponse | undefined;
    const events = createServer((req, res) => {
      assert.equal(req.headers.accept, 'text/event-stream');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: status\ndata: {"status":"awaiting_payment"}\n\n');
      res.on('close', upstreamClosed);
      upstream = res;
    });
    const eventsUrl = await listen(events);
    const server = createServer(toNodeHandler(proxyFor(createNodeUpstream(eventsUrl), { timeoutMs: 100 })));
    const url = await listen(server);
    try {
      const controller = new AbortController();
      const response = await fetch(`${url}/paylink/checkout/sessions/s1/events`, { signal: controller.signal });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-accel-buffering'), 'no');
      const reader = response.body!.getReader();
      assert.match(new TextDecoder().decode((await reader.read()).value), /awaiting_payment/);
      await sleep(200); // time must pass: past the proxy's timeoutMs (100 ms), which a stream is not held to
      upstream!.write('event: status\ndata: {"status":"paid"}\n\n');
      assert.match(new TextDecoder().decode((await reader.read()).value), /paid/, 'the stream still flows');
      controller.abort();
      await closed;
    } finally {
      await closeServer(server);
      await closeServer(events);
    }
  });
});

describe('the upstream option', () => {
  test('a URL or an Upstream; fetch only with a URL; anything else is refused at once', () => {
    assert.doesNotThrow(() => proxyFor('http://127.0.0.1:1'));
    assert.doesNotThrow(() => proxyFor(new URL('http://127.0.0.1:1')));
    assert.doesNotThrow(() => proxyFor(createFetchUpstream('http://127.0.0.1:1')));
    assert.throws(() => proxyFor(createNodeUpstream('http://127.0.0.1:1'), { fetch: globalThis.fetch }), /fetch only with a URL/);
    assert.throws(() => proxyFor({ url: 'http://x' } as never), /upstream/);
    assert.throws(() => createNodeUpstream('ftp://127.0.0.1'), /upstream/);
  });
});
