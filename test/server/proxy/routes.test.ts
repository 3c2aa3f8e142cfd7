/**
 * The proxy's route table (src/server/proxy/routes.ts) and what it routes: the matcher on its own, every
 * admin prefix forwarded with the key to its `/v1` path, the methods each route takes, and
 * `basePath/dist/<file>` served through the `bundles` option (a fake here; the service's `serveBundle`
 * in the product). Fake upstreams only: no database.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { describe, test } from 'node:test';
import { createPaylinkProxy, toNodeHandler, type PaylinkProxyOptions } from '../../../src/server/proxy/index.js';
import { compilePath, createRouter, PROXY_AREAS } from '../../../src/server/proxy/routes.js';
import { closeServer, listen } from '../../support/http-server.js';

const API_KEY = 'pl_sk_routes_test_key_0123456789abcdef';
const ADMIN = { authorization: 'Bearer admin-token-routes-0123456789abcdef0123' };

/** A fake service (as an injected fetch) that answers `{ ok: true }` and records what reached it. */
function recordingFetch(captured: Request[] = []): typeof fetch {
  return async (input, init) => {
    captured.push(new Request(input, init));
    return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

function proxyWith(overrides: Partial<PaylinkProxyOptions> = {}) {
  return createPaylinkProxy({
    upstream: 'http://upstream.test',
    apiKey: API_KEY,
    adminToken: 'admin-token-routes-0123456789abcdef0123',
    rateLimit: false,
    ...overrides,
  });
}

async function errorOf(response: Response) {
  const json = (await response.json()) as { status: string; statusCode: number; code: string; message: string };
  assert.equal(json.status, 'error');
  assert.equal(json.statusCode, response.status);
  return json;
}

describe('the route table', () => {
  test('patterns: literal segments, :name for one segment, a trailing * for any further ones', () => {
    const star = compilePath('/payment-link/*');
    for (const path of ['/payment-link', '/payment-link/abc', '/payment-link/abc/single']) assert.ok(star.test(path), path);
    for (const path of ['/payment-links', '/payment-link/', '/payment-link//x', '/x/payment-link']) assert.ok(!star.test(path), path);
    const param = compilePath('/sessions/:id/events');
    assert.ok(param.test('/sessions/s1/events'));
    assert.ok(!param.test('/sessions//events'));
    assert.ok(!param.test('/sessions/a/b/events'));
    assert.ok(compilePath('/file.js').test('/file.js') && !compilePath('/file.js').test('/fileXjs'), 'a dot is a dot');
    assert.throws(() => compilePath('/*/x'), /only at the end/);
  });

  test('areas are found under basePath only; suspicious paths belong to none', () => {
    const router = createRouter('/paylink', PROXY_AREAS);
    assert.equal(router.area('/paylink/checkout/abc')?.area.name, 'checkout');
    assert.equal(router.area('/paylink/checkout/abc')?.rest, '/abc');
    assert.equal(router.area('/paylink/admin')?.rest, '');
    assert.equal(router.area('/paylink/dist/paylink.js')?.area.name, 'dist');
    for (const path of ['/paylink/checkoutx', '/paylink', '/paylink/', '/checkout/abc', '/paylink/admin/payment-link%2F..%2Fkeys', '/paylink/admin\\balance']) {
      assert.equal(router.area(path), undefined, path);
    }
    const atRoot = createRouter('', PROXY_AREAS);
    assert.equal(atRoot.area('/admin/balance')?.area.name, 'admin');
  });

  test('the key only ever goes with admin auth, and every area that forwards has routes', () => {
    for (const area of PROXY_AREAS) {
      if (area.withKey) assert.equal(area.auth, 'admin', area.name);
      assert.ok(area.routes.length > 0, area.name);
      for (const route of area.routes) assert.ok(!route.methods.includes('OPTIONS'), `${area.name} ${route.path}: OPTIONS is the area's`);
    }
  });

  test('a 405 names what the path takes', () => {
    const router = createRouter('/paylink', PROXY_AREAS);
    const admin = PROXY_AREAS.find((area) => area.name === 'admin')!;
    const checkout = PROXY_AREAS.find((area) => area.name === 'checkout')!;
    assert.deepEqual(router.route(admin, '/balance', 'POST'), { refused: 405, allow: 'GET, HEAD, OPTIONS' });
    assert.deepEqual(router.route(admin, '/checkout-session/abc', 'PATCH'), { refused: 405, allow: 'GET, HEAD, OPTIONS' });
    assert.deepEqual(router.route(checkout, '/sessions/s1/events', 'PUT'), { refused: 405, allow: 'GET, HEAD, OPTIONS' });
    assert.deepEqual(router.route(checkout, '/abc/sessions', 'GET'), { refused: 405, allow: 'POST, OPTIONS' });
    assert.deepEqual(router.route(admin, '/keys', 'GET'), { refused: 404 });
  });
});

describe('admin routes', () => {
  const forwarded: [method: string, path: string, upstreamPath: string][] = [
    ['GET', '/payment-link?page=2&limit=5', '/v1/payment-link?page=2&limit=5'],
    ['GET', '/payment-link/l1/single', '/v1/payment-link/l1/single'],
    ['POST', '/payment-link', '/v1/payment-link'],
    ['PATCH', '/payment-link', '/v1/payment-link'],
    ['POST', '/order', '/v1/order'],
    ['GET', '/order?status=open&page=2', '/v1/order?status=open&page=2'],
    ['GET', '/order/o1', '/v1/order/o1'],
    ['POST', '/order/o1/cancel', '/v1/order/o1/cancel'],
    ['GET', '/withdrawal/w1', '/v1/withdrawal/w1'],
    ['POST', '/withdrawal', '/v1/withdrawal'],
    ['GET', '/balance', '/v1/balance'],
    ['GET', '/checkout-session?linkId=l1&status=paid', '/v1/checkout-session?linkId=l1&status=paid'],
    ['GET', '/checkout-session/cs1', '/v1/checkout-session/cs1'],
    ['POST', '/webhook-endpoint', '/v1/webhook-endpoint'],
    ['GET', '/webhook-endpoint', '/v1/webhook-endpoint'],
    ['GET', '/webhook-endpoint/we1', '/v1/webhook-endpoint/we1'],
    ['PATCH', '/webhook-endpoint', '/v1/webhook-endpoint'],
    ['DELETE', '/webhook-endpoint/we1', '/v1/webhook-endpoint/we1'],
    ['GET', '/webhook-endpoint/we1/deliveries', '/v1/webhook-endpoint/we1/deliveries'],
    ['POST', '/webhook-delivery/d1/retry', '/v1/webhook-delivery/d1/retry'],
  ];

  test('every admin route reaches its /v1 path with the key, its query and its JSON body', async () => {
    const captured: Request[] = [];
    const handler = proxyWith({ fetch: recordingFetch(captured) });
    for (const [method, path, upstreamPath] of forwarded) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{"x":1}';
      const response = await handler(
        new Request(`http://merchant.test/paylink/admin${path}`, { method, headers: { ...ADMIN, 'content-type': 'application/json' }, body }),
      );
      assert.equal(response.status, 200, `${method} ${path}`);
      const upstream = captured.at(-1)!;
      const url = new URL(upstream.url);
      assert.equal(url.pathname + url.search, upstreamPath, `${method} ${path}`);
      assert.equal(upstream.method, method);
      assert.equal(upstream.headers.get('x-api-key'), API_KEY);
      if (body) assert.equal(await upstream.text(), body);
    }
    assert.equal(captured.length, forwarded.length);
  });

  test('methods a route does not take are a 405 with Allow, and never reach the service', async () => {
    const captured: Request[] = [];
    const handler = proxyWith({ fetch: recordingFetch(captured) });
    for (const [method, path, allow] of [
      ['DELETE', '/balance', 'GET, HEAD, OPTIONS'],
      ['POST', '/checkout-session', 'GET, HEAD, OPTIONS'],
      ['PUT', '/payment-link', 'GET, HEAD, POST, PATCH, OPTIONS'],
      ['DELETE', '/withdrawal/w1', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/order/o1', 'GET, HEAD, OPTIONS'],
      ['PUT', '/order/o1/cancel', 'POST, OPTIONS'],
    ] as const) {
      const response = await handler(
        new Request(`http://merchant.test/paylink/admin${path}`, {
          method,
          headers: { ...ADMIN, 'content-type': 'application/json' },
          body: method === 'DELETE' ? undefined : '{}',
        }),
      );
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers.get('allow'), allow);
      assert.equal((await errorOf(response)).code, 'method_not_allowed');
    }
    assert.equal(captured.length, 0);
  });

  test('an unauthorized caller learns nothing about which admin paths exist', async () => {
    const handler = proxyWith({ fetch: recordingFetch() });
    for (const path of ['/webhook-endpoint', '/keys', '/balance/extra']) {
      assert.equal((await handler(new Request(`http://merchant.test/paylink/admin${path}`))).status, 401, path);
    }
  });

  test('an admin preflight gets Allow for the whole area and no CORS', async () => {
    const response = await proxyWith()(
      new Request('http://merchant.test/paylink/admin/webhook-endpoint', {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'DELETE' },
      }),
    );
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('allow'), 'GET, HEAD, POST, PATCH, DELETE, OPTIONS');
    assert.equal(response.headers.get('access-control-allow-origin'), null);
  });
});

describe('basePath itself: the index a newcomer opens', () => {
  test('GET answers a JSON index of the routes, never the key or the upstream; other methods and paths are 404', async () => {
    const captured: Request[] = [];
    const proxy = proxyWith({ basePath: '/paylink', fetch: recordingFetch(captured) });
    for (const path of ['/paylink', '/paylink/']) {
      const response = await proxy(new Request(`http://shop.test${path}`));
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const text = await response.text();
      assert.ok(!text.includes(API_KEY) && !text.includes('upstream.test') && !text.includes('admin-token'), text);
      const index = JSON.parse(text) as { name: string; routes: Array<{ path: string; access: string; methods: string[]; upstream?: string }> };
      assert.equal(index.name, 'Paylink proxy');
      const byPath = new Map(index.routes.map((route) => [route.path, route]));
      assert.deepEqual(byPath.get('/paylink/checkout/:slug'), {
        path: '/paylink/checkout/:slug',
        methods: ['GET', 'HEAD'],
        access: 'public',
        upstream: '/v1/checkout/:slug',
      });
      assert.deepEqual(byPath.get('/paylink/checkout/:slug/sessions')?.methods, ['POST']);
      assert.equal(byPath.get('/paylink/admin/balance')?.access, 'admin');
      assert.equal(byPath.get('/paylink/dist/:file')?.upstream, undefined, 'the bundles are served by the proxy itself');
    }
    assert.equal((await proxy(new Request('http://shop.test/paylink', { method: 'HEAD' }))).status, 200);
    assert.equal((await proxy(new Request('http://shop.test/paylink', { method: 'POST', body: '{}' }))).status, 404);
    assert.equal((await proxy(new Request('http://shop.test/paylinks'))).status, 404);
    assert.equal(captured.length, 0, 'the index never asks the service');
    const atRoot = proxyWith({ basePath: '', fetch: recordingFetch() });
    assert.equal(
      ((await (await atRoot(new Request('http://shop.test/'))).json()) as { routes: Array<{ path: string }> }).routes[0]!.path.startsWith('/checkout/'),
      true,
    );
  });
});

describe('checkout routes', () => {
  test('a method the checkout does not take is a 405 the page can read (CORS, Allow)', async () => {
    const response = await proxyWith({ allowedOrigins: ['https://shop.example'] })(
      new Request('http://merchant.test/paylink/checkout/abc', { method: 'DELETE', headers: { origin: 'https://shop.example' } }),
    );
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET, HEAD, OPTIONS');
    assert.equal(response.headers.get('access-control-allow-origin'), 'https://shop.example');
  });
});

describe('basePath/dist/<file>: the script-tag bundles', () => {
  /** A fake `serveBundle`: one file, gzip-labelled, with the headers the service sends; records its calls. */
  function fakeBundles() {
    const calls: { request: Request; fileName: string }[] = [];
    const bundles = async (request: Request, fileName: string): Promise<Response> => {
      calls.push({ request, fileName });
      if (fileName !== 'paylink-checkout.1a2b3c.js') {
        return new Response(JSON.stringify({ status: 'error', statusCode: 404, code: 'not_found', message: `No bundle ${fileName}` }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        });
      }
      const headers = {
        'content-type': 'text/javascript; charset=utf-8',
        'content-encoding': request.headers.get('accept-encoding')?.includes('gzip') ? 'gzip' : 'identity',
        'cache-control': 'public, max-age=31536000, immutable',
        'access-control-allow-origin': '*',
        vary: 'Accept-Encoding',
      };
      return new Response(request.method === 'HEAD' ? null : 'BUNDLE BYTES', { headers });
    };
    return { bundles, calls };
  }

  test('a bundle is served through the option, its headers as they are, with no key and no admin auth', async () => {
    const fake = fakeBundles();
    const captured: Request[] = [];
    const handler = proxyWith({ bundles: fake.bundles, fetch: recordingFetch(captured) });
    const response = await handler(new Request('http://merchant.test/paylink/dist/paylink-checkout.1a2b3c.js', { headers: { 'accept-encoding': 'gzip, br' } }));
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'BUNDLE BYTES');
    assert.equal(response.headers.get('content-encoding'), 'gzip');
    assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.equal(fake.calls.length, 1);
    assert.equal(fake.calls[0]!.fileName, 'paylink-checkout.1a2b3c.js');
    assert.equal(fake.calls[0]!.request.headers.get('accept-encoding'), 'gzip, br', 'the bundle server sees what the browser accepts');
    assert.equal(captured.length, 0, 'bundles never go to the service');

    const head = await handler(new Request('http://merchant.test/paylink/dist/paylink-checkout.1a2b3c.js', { method: 'HEAD' }));
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  test('404 JSON when the file is absent, when the option is absent, and for names that are not plain files', async () => {
    const fake = fakeBundles();
    const handler = proxyWith({ bundles: fake.bundles });
    const absent = await handler(new Request('http://merchant.test/paylink/dist/nope.js'));
    assert.equal(absent.status, 404);
    assert.equal((await errorOf(absent)).code, 'not_found');

    const without = await proxyWith()(new Request('http://merchant.test/paylink/dist/paylink-checkout.1a2b3c.js'));
    assert.equal(without.status, 404);
    assert.equal((await errorOf(without)).code, 'not_found');

    const before = fake.calls.length;
    for (const path of ['/dist/', '/dist', '/dist/.env', '/dist/a/b.js', '/dist/%2e%2e%2fpackage.json', '/dist/..%5cx.js', '/dist/x%20y.js']) {
      const response = await handler(new Request(`http://merchant.test/paylink${path}`));
      assert.equal(response.status, 404, path);
      assert.match(response.headers.get('content-type') ?? '', /application\/json/, path);
    }
    assert.equal(fake.calls.length, before, 'the bundle server was asked for a name that is not a plain file');
  });

  test("a bundle server's non-JSON 404 becomes the one error shape; a throw is a 500 without its message", async () => {
    const plain = proxyWith({ bundles: async () => new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } }) });
    const missing = await plain(new Request('http://merchant.test/paylink/dist/x.js'));
    assert.equal(missing.status, 404);
    assert.equal((await errorOf(missing)).code, 'not_found');

    const broken = proxyWith({
      bundles: async () => {
        throw new Error('ENOENT /srv/secret/path');
      },
    });
    const failed = await broken(new Request('http://merchant.test/paylink/dist/x.js'));
    assert.equal(failed.status, 500);
    const error = await errorOf(failed);
    assert.equal(error.code, 'bundle_failed');
    assert.ok(!error.message.includes('/srv/secret'));
  });

  test('only GET and HEAD: other methods are a 405 with Allow', async () => {
    const fake = fakeBundles();
    const response = await proxyWith({ bundles: fake.bundles })(
      new Request('http://merchant.test/paylink/dist/paylink-checkout.1a2b3c.js', { method: 'POST', body: 'x' }),
    );
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET, HEAD, OPTIONS');
    assert.equal(fake.calls.length, 0);
  });

  test('through node:http the bytes go out as the bundle server made them', async () => {
    const fake = fakeBundles();
    const server: Server = createServer(toNodeHandler(proxyWith({ bundles: fake.bundles })));
    const { port } = new URL(await listen(server));
    try {
      // node:http, not fetch: fetch would try to gunzip the fake's "gzip" bytes.
      const answer = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port, path: '/paylink/dist/paylink-checkout.1a2b3c.js', headers: { 'accept-encoding': 'gzip' } },
          (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
          },
        );
        request.on('error', reject);
        request.end();
      });
      assert.equal(answer.status, 200);
      assert.equal(answer.body, 'BUNDLE BYTES');
      assert.equal(answer.headers['content-encoding'], 'gzip');
      assert.equal(answer.headers['content-length'], String('BUNDLE BYTES'.length));
      assert.equal(fake.calls[0]!.request.headers.get('accept-encoding'), 'gzip');
    } finally {
      await closeServer(server);
    }
  });
});
