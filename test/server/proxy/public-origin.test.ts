/**
 * The proxy behind a reverse proxy that rewrites `Host` (nginx's default: `proxy_pass` sends the
 * upstream's address as `Host`). The browser's page is `https://shop.example`; the proxy sees requests
 * for `127.0.0.1:<port>`. Same-site admin changes must still pass once the merchant names its public
 * origin (`publicOrigin` / `PAYLINK_PUBLIC_ORIGIN`), and until then the refusal must say why.
 * A fake service and a small Host-rewriting forwarder stand in for the service and nginx.
 */
import assert from 'node:assert/strict';
import http, { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ProxyConfigError, proxyOptionsFromEnv, startProxyServer } from '../../../src/server/proxy/command.js';
import { createNodeUpstream, createPaylinkProxy, toNodeHandler, type PaylinkProxyOptions } from '../../../src/server/proxy/index.js';
import { closeServer, listen } from '../../support/http-server.js';

const API_KEY = 'pl_sk_public_origin_test_key_0123456789';
const ADMIN_TOKEN = 'admin-token-public-origin-0123456789abcdef';
const SHOP = 'https://shop.example';

/** Like nginx's `location /paylink/ { proxy_pass http://<target>; }`: forwards everything, with `Host` set to the target. */
function hostRewritingProxy(target: string): Server {
  const { hostname, port, host } = new URL(target);
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const upstream = http.request({ host: hostname, port, path: req.url, method: req.method, headers: { ...req.headers, host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
}

/** What reached the fake service. */
const reached: { method: string; url: string; key: string | undefined }[] = [];
let service: Server;
let serviceUrl: string;

before(async () => {
  service = createServer((req, res) => {
    reached.push({ method: req.method ?? '', url: req.url ?? '', key: req.headers['x-api-key'] as string | undefined });
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"id":"l1"}');
    });
  });
  serviceUrl = await listen(service);
});

after(async () => {
  await closeServer(service);
});

/** Runs the proxy (built by `start`) behind the Host-rewriting forwarder; gives the forwarder's URL. */
async function behindReverseProxy(proxyServer: Server, check: (publicUrl: string) => Promise<void>) {
  const proxyUrl = await listen(proxyServer);
  const front = hostRewritingProxy(proxyUrl);
  const frontUrl = await listen(front);
  try {
    await check(frontUrl);
  } finally {
    await closeServer(front);
    await closeServer(proxyServer);
  }
}

/** What the admin element sends from `https://shop.example` to create a link. */
function adminWrite(frontUrl: string, origin = SHOP) {
  return fetch(`${frontUrl}/paylink/admin/payment-link`, {
    method: 'POST',
    headers: { origin, 'sec-fetch-site': 'same-origin', authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{"title":"From the shop"}',
  });
}

function proxyServerWith(overrides: Partial<PaylinkProxyOptions> = {}): Server {
  return createServer(
    toNodeHandler(createPaylinkProxy({ upstream: createNodeUpstream(serviceUrl), apiKey: API_KEY, adminToken: ADMIN_TOKEN, rateLimit: false, ...overrides })),
  );
}

describe('behind a reverse proxy that rewrites Host', () => {
  test('without publicOrigin, a same-site admin write is refused, and the refusal says why and what to set', async () => {
    await behindReverseProxy(proxyServerWith(), async (frontUrl) => {
      const before = reached.length;
      const response = await adminWrite(frontUrl);
      assert.equal(response.status, 403);
      const error = (await response.json()) as { status: string; statusCode: number; code: string; message: string };
      assert.deepEqual(
        { status: error.status, statusCode: error.statusCode, code: error.code },
        { status: 'error', statusCode: 403, code: 'cross_site_request' },
      );
      assert.match(error.message, /https:\/\/shop\.example/, 'names the page origin');
      assert.match(error.message, /127\.0\.0\.1/, 'names the origin the proxy was reached at');
      assert.match(error.message, /PAYLINK_PUBLIC_ORIGIN/, 'says what to set');
      assert.ok(!error.message.includes(API_KEY));
      assert.equal(reached.length, before, 'nothing reached the service');
    });
  });

  test('with publicOrigin, the same write passes with the key; another origin is still refused', async () => {
    await behindReverseProxy(proxyServerWith({ publicOrigin: `${SHOP}/` }), async (frontUrl) => {
      const response = await adminWrite(frontUrl);
      assert.equal(response.status, 201);
      assert.deepEqual(reached.at(-1), { method: 'POST', url: '/v1/payment-link', key: API_KEY });
      const foreign = await adminWrite(frontUrl, 'https://evil.example');
      assert.equal(foreign.status, 403);
      assert.equal(((await foreign.json()) as { code: string }).code, 'cross_site_request');
    });
  });

  test('paylink proxy reads PAYLINK_PUBLIC_ORIGIN', async () => {
    const running = await startProxyServer({
      port: 0,
      upstream: serviceUrl,
      env: { PAYLINK_API_KEY: API_KEY, PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN, PAYLINK_PUBLIC_ORIGIN: SHOP, PAYLINK_RATE_LIMIT: 'off' },
    });
    const front = hostRewritingProxy(running.url);
    const frontUrl = await listen(front);
    try {
      assert.equal((await adminWrite(frontUrl)).status, 201);
      assert.equal((await adminWrite(frontUrl, 'https://evil.example')).status, 403);
    } finally {
      await closeServer(front);
      await running.close();
    }
  });

  test('a PAYLINK_PUBLIC_ORIGIN or publicOrigin that is not an origin is refused at start, saying what is expected', () => {
    for (const value of ['https://shop.example/admin', 'shop.example', 'ftp://shop.example']) {
      assert.throws(
        () => proxyOptionsFromEnv({ port: 0, upstream: serviceUrl, env: { PAYLINK_API_KEY: API_KEY, PAYLINK_PUBLIC_ORIGIN: value } }),
        (error: unknown) => {
          assert.ok(error instanceof ProxyConfigError);
          assert.match(error.message, /PAYLINK_PUBLIC_ORIGIN must be an origin such as https:\/\/shop\.example/);
          return true;
        },
      );
      assert.throws(() => createPaylinkProxy({ upstream: serviceUrl, apiKey: API_KEY, publicOrigin: value }), /publicOrigin must be an origin/);
    }
    assert.equal(
      proxyOptionsFromEnv({ port: 0, upstream: serviceUrl, env: { PAYLINK_API_KEY: API_KEY, PAYLINK_PUBLIC_ORIGIN: 'https://Shop.example/' } }).publicOrigin,
      SHOP,
    );
  });
});
