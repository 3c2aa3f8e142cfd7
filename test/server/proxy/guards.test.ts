/**
 * Each of the proxy's guards on its own (src/server/proxy/guards/): an `Exchange` over a fetch `Request`,
 * one guard, its verdict. No upstream, no database. What the proxy does with them together is in
 * proxy.test.ts and proxy-hardening.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClientKeyResolver } from '../../../src/server/proxy/client-key.js';
import { Exchange, runGuards, type Guard } from '../../../src/server/proxy/exchange.js';
import { ADMIN_FAILURE_LIMIT, authorizeGuard } from '../../../src/server/proxy/guards/authorize.js';
import { bodyGuard } from '../../../src/server/proxy/guards/body.js';
import { corsGuard, optionsGuard } from '../../../src/server/proxy/guards/cors.js';
import { crossSiteGuard, parsePublicOrigin } from '../../../src/server/proxy/guards/cross-site.js';
import { rateLimitGuard } from '../../../src/server/proxy/guards/rate-limit.js';
import { routeGuard } from '../../../src/server/proxy/guards/route.js';
import { createStreamCounter, streamsGuard } from '../../../src/server/proxy/guards/streams.js';
import { requestIncoming, type ProxyIncoming, type ProxyOutgoing } from '../../../src/server/proxy/messages.js';
import { createRateLimiter } from '../../../src/server/limits/rate-limit.js';
import { createPaylinkProxy } from '../../../src/server/proxy/proxy.js';
import { createRouter, PROXY_AREAS, type ProxyArea } from '../../../src/server/proxy/routes.js';
import { createLogger } from '../../../src/server/log.js';

const checkout = PROXY_AREAS.find((area) => area.name === 'checkout')!;
const admin = PROXY_AREAS.find((area) => area.name === 'admin')!;
const SHOP = 'https://shop.example';

/** An exchange for `url` (under `/paylink/<area>`), with `clientIp` as the client's address. */
function exchangeFor(url: string, init: RequestInit = {}, options: { area?: ProxyArea; clientIp?: string; incoming?: ProxyIncoming } = {}) {
  const area = options.area ?? (new URL(url).pathname.startsWith('/paylink/admin') ? admin : checkout);
  const incoming = options.incoming ?? requestIncoming(new Request(url, init));
  const rest = incoming.pathname.slice(`/paylink${area.prefix}`.length);
  return new Exchange(incoming, options.clientIp ? { clientIp: options.clientIp } : undefined, area, rest, createClientKeyResolver({ warn: () => {} }));
}

async function verdictOf(guard: Guard, exchange: Exchange): Promise<ProxyOutgoing | undefined> {
  return guard(exchange);
}

/** The one error shape of a refusal, checked, as JSON. */
function errorOf(verdict: ProxyOutgoing | undefined) {
  assert.ok(verdict, 'the guard let the request through');
  assert.equal(verdict.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(verdict.headers['cache-control'], 'no-store');
  const json = JSON.parse(new TextDecoder().decode(verdict.body as Uint8Array)) as { status: string; statusCode: number; code: string; message: string };
  assert.equal(json.status, 'error');
  assert.equal(json.statusCode, verdict.status);
  return json;
}

describe('cors guard', () => {
  const methods = 'GET, HEAD, POST, OPTIONS';

  test('an allowed origin may read the answer (refusals included); another origin and no origin get Vary only', async () => {
    const guard = corsGuard(['https://Shop.example/'], methods);
    const allowed = exchangeFor('http://merchant.test/paylink/checkout/abc', { headers: { origin: SHOP } });
    assert.equal(await verdictOf(guard, allowed), undefined, 'a GET goes on');
    assert.deepEqual({ ...allowed.answerHeaders }, { vary: 'Origin', 'access-control-allow-origin': SHOP, 'access-control-expose-headers': 'Retry-After' });

    const other = exchangeFor('http://merchant.test/paylink/checkout/abc', { headers: { origin: 'https://evil.example' } });
    await verdictOf(guard, other);
    assert.deepEqual({ ...other.answerHeaders }, { vary: 'Origin' });

    const none = exchangeFor('http://merchant.test/paylink/checkout/abc');
    await verdictOf(guard, none);
    assert.deepEqual({ ...none.answerHeaders }, { vary: 'Origin' });
  });

  test("'*' lets any origin read, as '*'", async () => {
    const exchange = exchangeFor('http://merchant.test/paylink/checkout/abc', { headers: { origin: 'https://anyone.example' } });
    await verdictOf(corsGuard('*', methods), exchange);
    assert.equal(exchange.answerHeaders?.['access-control-allow-origin'], '*');
  });

  test('a preflight is answered by the guard: methods and headers for an allowed origin, nothing granted to another', async () => {
    const guard = corsGuard([SHOP], methods);
    const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };
    const ok = await verdictOf(
      guard,
      exchangeFor('http://merchant.test/paylink/checkout/abc/visits', { method: 'OPTIONS', headers: { origin: SHOP, ...preflight } }),
    );
    assert.equal(ok?.status, 204);
    assert.equal(ok?.headers['access-control-allow-methods'], methods);
    assert.match(ok?.headers['access-control-allow-headers'] ?? '', /Content-Type/);
    assert.equal(ok?.headers['access-control-max-age'], '600');

    const refused = await verdictOf(
      guard,
      exchangeFor('http://merchant.test/paylink/checkout/abc/visits', { method: 'OPTIONS', headers: { origin: 'https://evil.example', ...preflight } }),
    );
    assert.equal(refused?.status, 204);
    assert.equal(refused?.headers['access-control-allow-methods'], undefined);
  });

  test('an area without CORS answers OPTIONS with Allow and no Access-Control header', async () => {
    const guard = optionsGuard('GET, HEAD, OPTIONS');
    const answer = await verdictOf(guard, exchangeFor('http://merchant.test/paylink/admin/balance', { method: 'OPTIONS', headers: { origin: SHOP } }));
    assert.equal(answer?.status, 204);
    assert.equal(answer?.headers.allow, 'GET, HEAD, OPTIONS');
    assert.ok(Object.keys(answer?.headers ?? {}).every((name) => !name.startsWith('access-control-')));
    assert.equal(await verdictOf(guard, exchangeFor('http://merchant.test/paylink/admin/balance')), undefined);
  });
});

describe('rate-limit guard', () => {
  test('a client past its burst gets 429 with Retry-After; another client and an unknown one go on', async () => {
    let now = 0;
    const guard = rateLimitGuard(createRateLimiter({ burst: 2, perSecond: 0.5, now: () => now }));
    const from = (clientIp?: string) => exchangeFor('http://merchant.test/paylink/checkout/abc', {}, clientIp ? { clientIp } : {});
    assert.equal(await verdictOf(guard, from('203.0.113.1')), undefined);
    assert.equal(await verdictOf(guard, from('203.0.113.1')), undefined);
    const refused = await verdictOf(guard, from('203.0.113.1'));
    assert.equal(refused?.status, 429);
    assert.equal(errorOf(refused).code, 'rate_limited');
    assert.equal(refused?.headers['retry-after'], '2');
    assert.equal(await verdictOf(guard, from('203.0.113.2')), undefined, 'another client has its own bucket');
    for (let i = 0; i < 5; i++) assert.equal(await verdictOf(guard, from()), undefined, 'no address: never one shared bucket');
    now += 2000;
    assert.equal(await verdictOf(guard, from('203.0.113.1')), undefined, 'the bucket refilled');
  });
});

describe('streams guard', () => {
  const events = (id: string) => `http://merchant.test/paylink/checkout/sessions/${id}/events`;
  const routed = (url: string, clientIp: string) => {
    const exchange = exchangeFor(url, {}, { clientIp });
    const match = createRouter('/paylink', PROXY_AREAS).route(checkout, exchange.rest, 'GET');
    assert.ok('route' in match);
    exchange.route = match.route;
    return exchange;
  };

  test('a stream route holds a slot until its answer settles; past the cap it is a 429 with Retry-After', async () => {
    const counter = createStreamCounter(2);
    const guard = streamsGuard(counter);
    const first = routed(events('s1'), '203.0.113.7');
    const second = routed(events('s2'), '203.0.113.7');
    assert.equal(await verdictOf(guard, first), undefined);
    assert.equal(await verdictOf(guard, second), undefined);
    assert.equal(counter.open, 2);
    assert.ok(first.holdsResources, 'the slot is released when the answer settles');

    const refused = await verdictOf(guard, routed(events('s3'), '203.0.113.7'));
    assert.equal(refused?.status, 429);
    assert.equal(errorOf(refused).code, 'too_many_streams');
    assert.equal(refused?.headers['retry-after'], '5');
    assert.equal(await verdictOf(guard, routed(events('b1'), '203.0.113.8')), undefined, 'another client is served');

    first.settle();
    first.settle(); // a second settle gives nothing back twice
    assert.equal(counter.open, 2);
    assert.equal(await verdictOf(guard, routed(events('s4'), '203.0.113.7')), undefined, 'the freed slot is taken again');
  });

  test('other routes take no slot', async () => {
    const counter = createStreamCounter(1);
    const exchange = routed('http://merchant.test/paylink/checkout/sessions/s1', '203.0.113.9');
    assert.equal(await verdictOf(streamsGuard(counter), exchange), undefined);
    assert.equal(counter.open, 0);
    assert.equal(exchange.holdsResources, false);
  });

  test('a cap below one is refused when the proxy is built', () => {
    assert.throws(() => createStreamCounter(0), RangeError);
  });
});

describe('cross-site guard', () => {
  const post = (url: string, headers: Record<string, string>) =>
    exchangeFor(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

  test('reads pass; changes from the same origin, from no origin and from a trusted origin pass', async () => {
    const guard = crossSiteGuard({ trustedAdminOrigins: ['https://admin.example/'] });
    assert.equal(
      await verdictOf(
        guard,
        exchangeFor('http://merchant.test/paylink/admin/balance', { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } }),
      ),
      undefined,
    );
    assert.equal(
      await verdictOf(guard, post('http://merchant.test/paylink/admin/withdrawal', { origin: 'http://merchant.test', 'sec-fetch-site': 'same-origin' })),
      undefined,
    );
    assert.equal(await verdictOf(guard, post('http://merchant.test/paylink/admin/withdrawal', {})), undefined);
    assert.equal(
      await verdictOf(guard, post('http://merchant.test/paylink/admin/withdrawal', { origin: 'https://admin.example', 'sec-fetch-site': 'cross-site' })),
      undefined,
    );
  });

  test('a change from another origin is a 403 that names both origins and what to set', async () => {
    const refused = await verdictOf(
      crossSiteGuard({}),
      post('http://127.0.0.1:8788/paylink/admin/withdrawal', { origin: SHOP, 'sec-fetch-site': 'same-origin' }),
    );
    assert.equal(refused?.status, 403);
    const error = errorOf(refused);
    assert.equal(error.code, 'cross_site_request');
    assert.match(error.message, /https:\/\/shop\.example/);
    assert.match(error.message, /http:\/\/127\.0\.0\.1:8788/);
    assert.match(error.message, /PAYLINK_PUBLIC_ORIGIN/);
    assert.match(error.message, /trustedAdminOrigins/);
  });

  test('publicOrigin: a change from the public origin passes although Host names another; others are still refused', async () => {
    const guard = crossSiteGuard({ publicOrigin: parsePublicOrigin('https://Shop.example/') });
    assert.equal(await verdictOf(guard, post('http://127.0.0.1:8788/paylink/admin/withdrawal', { origin: SHOP, 'sec-fetch-site': 'same-origin' })), undefined);
    const foreign = errorOf(await verdictOf(guard, post('http://127.0.0.1:8788/paylink/admin/withdrawal', { origin: 'https://evil.example' })));
    assert.equal(foreign.code, 'cross_site_request');
    assert.match(foreign.message, /https:\/\/evil\.example.*https:\/\/shop\.example/);
    const marked = errorOf(await verdictOf(guard, post('http://127.0.0.1:8788/paylink/admin/withdrawal', { origin: SHOP, 'sec-fetch-site': 'cross-site' })));
    assert.match(marked.message, /Sec-Fetch-Site/, 'the public origin does not overrule the browser saying cross-site');
  });

  test('the reason fits the case: a page without an origin, a browser that says cross-site', async () => {
    const guard = crossSiteGuard({});
    const sandboxed = errorOf(await verdictOf(guard, post('http://merchant.test/paylink/admin/withdrawal', { origin: 'null' })));
    assert.match(sandboxed.message, /without an origin/);
    const marked = errorOf(await verdictOf(guard, post('http://merchant.test/paylink/admin/withdrawal', { 'sec-fetch-site': 'cross-site' })));
    assert.match(marked.message, /Sec-Fetch-Site: cross-site/);
  });

  test('the message carries origins as URL writes them, never the header as sent', async () => {
    const error = errorOf(
      await verdictOf(crossSiteGuard({}), post('http://merchant.test/paylink/admin/withdrawal', { origin: 'https://evil.example/<script>"x' })),
    );
    assert.ok(!error.message.includes('<script>'), error.message);
    assert.match(error.message, /https:\/\/evil\.example/);
  });

  test('parsePublicOrigin takes an origin (a trailing slash too) and refuses paths, other schemes and garbage', () => {
    assert.equal(parsePublicOrigin('https://Shop.example/'), SHOP);
    assert.equal(parsePublicOrigin('http://shop.example:8080'), 'http://shop.example:8080');
    assert.equal(parsePublicOrigin(undefined), undefined);
    assert.equal(parsePublicOrigin('  '), undefined);
    for (const bad of ['https://shop.example/admin', 'ftp://shop.example', 'shop.example', 'https://shop.example/?x=1', 'https://user@shop.example']) {
      assert.throws(() => parsePublicOrigin(bad), TypeError, bad);
    }
  });
});

describe('authorize guard', () => {
  const adminExchange = (headers: Record<string, string> = {}) => exchangeFor('http://merchant.test/paylink/admin/balance', { headers });

  const TOKEN = 'token-0123456789-0123456789abcdef';

  test('the bearer token passes; a wrong, missing or malformed one is a 401 with WWW-Authenticate', async () => {
    const guard = authorizeGuard({ adminToken: ` ${TOKEN} ` });
    assert.equal(await verdictOf(guard, adminExchange({ authorization: `Bearer ${TOKEN}` })), undefined);
    assert.equal(await verdictOf(guard, adminExchange({ authorization: `bearer   ${TOKEN}` })), undefined, 'scheme in any case');
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, TOKEN, 'Basic dG9rZW4=']) {
      const refused = await verdictOf(guard, adminExchange(authorization ? { authorization } : {}));
      assert.equal(refused?.status, 401, String(authorization));
      assert.equal(errorOf(refused).code, 'unauthorized');
      assert.match(refused?.headers['www-authenticate'] ?? '', /^Bearer/);
    }
  });

  test('authorize decides instead of the token; a throw is a 500 that does not carry its message', async () => {
    const byCookie = authorizeGuard({ adminToken: TOKEN, authorize: async (request) => request.headers.get('cookie') === 'staff=1' });
    assert.equal(await verdictOf(byCookie, adminExchange({ cookie: 'staff=1' })), undefined);
    assert.equal((await verdictOf(byCookie, adminExchange({ authorization: `Bearer ${TOKEN}` })))?.status, 401);
    const broken = await verdictOf(
      authorizeGuard({
        authorize: () => {
          throw new Error('db password hunter2');
        },
      }),
      adminExchange(),
    );
    assert.equal(broken?.status, 500);
    const error = errorOf(broken);
    assert.equal(error.code, 'authorize_failed');
    assert.ok(!error.message.includes('hunter2'));
  });

  test('without a token or authorize, nobody passes', async () => {
    for (const adminToken of [undefined, '', '   ']) {
      assert.equal((await verdictOf(authorizeGuard({ adminToken }), adminExchange({ authorization: 'Bearer ' })))?.status, 401);
    }
  });

  test('a token shorter than 32 characters is refused at once, with how to make one', () => {
    for (const adminToken of ['a', 'admin', 'x'.repeat(31), ` ${'x'.repeat(31)} `]) {
      assert.throws(
        () => authorizeGuard({ adminToken }),
        (error: Error) =>
          error instanceof TypeError && /at least 32 characters/.test(error.message) && /randomBytes\(32\)\.toString\('base64url'\)/.test(error.message),
        JSON.stringify(adminToken),
      );
      assert.throws(() => createPaylinkProxy({ upstream: 'http://upstream.test', apiKey: 'key', adminToken }), /at least 32 characters/);
    }
    assert.doesNotThrow(() => authorizeGuard({ adminToken: 'x'.repeat(32) }));
  });

  test('failed attempts are limited per client (429 with Retry-After, before the token is even checked) and logged with a code, never the token', async () => {
    const lines: string[] = [];
    let now = 0;
    const guard = authorizeGuard({
      adminToken: TOKEN,
      logger: createLogger((line) => lines.push(line)),
      failureLimit: { ...ADMIN_FAILURE_LIMIT, now: () => now },
    });
    const from = (clientIp: string, authorization: string) =>
      exchangeFor('http://merchant.test/paylink/admin/balance', { headers: { authorization } }, { clientIp });
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) statuses.push((await verdictOf(guard, from('203.0.113.9', `Bearer guess-${i}-0123456789abcdef0123456789`)))?.status ?? 200);
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401), 'ten tries at once');
    assert.deepEqual(statuses.slice(10), Array(290).fill(429), 'then refused without a look at the token');
    const limited = await verdictOf(guard, from('203.0.113.9', `Bearer ${TOKEN}`));
    assert.equal(limited?.status, 429, 'the right token too, while the client is limited: a guess that hits learns nothing');
    assert.match(limited?.headers['retry-after'] ?? '', /^\d+$/);
    assert.equal(errorOf(limited).code, 'rate_limited');
    assert.equal(await verdictOf(guard, from('198.51.100.7', `Bearer ${TOKEN}`)), undefined, 'another client is not affected');
    const byCookie = authorizeGuard({
      authorize: (request) => request.headers.get('cookie') === 'staff=1',
      failureLimit: { ...ADMIN_FAILURE_LIMIT, now: () => now },
    });
    for (let i = 0; i < 12; i++) await verdictOf(byCookie, from('203.0.113.9', `Bearer guess-${i}`));
    const cookie = exchangeFor('http://merchant.test/paylink/admin/balance', { headers: { cookie: 'staff=1' } }, { clientIp: '203.0.113.9' });
    assert.equal(await verdictOf(byCookie, cookie), undefined, 'a session cookie still works from a limited client: it guesses nothing');
    const anonymous = exchangeFor('http://merchant.test/paylink/admin/balance', {}, { clientIp: '203.0.113.9' });
    assert.equal((await verdictOf(byCookie, anonymous))?.status, 401, 'no credentials: a 401, not an attempt');
    now += 5_000;
    assert.equal(await verdictOf(guard, from('203.0.113.9', `Bearer ${TOKEN}`)), undefined, 'one attempt back every 5 s');
    const failed = lines.map((line) => JSON.parse(line)).filter((line) => line.code === 'admin_auth_failed');
    assert.equal(failed.length, 10);
    assert.equal(failed[0].client, '203.0.113.9');
    assert.ok(lines.some((line) => JSON.parse(line).code === 'admin_auth_limited'));
    assert.ok(!lines.join('\n').includes('guess-'), 'no token in the log');
  });
});

describe('body guard', () => {
  const encoder = new TextEncoder();
  const postTo = (area: ProxyArea, body: BodyInit | null, headers: Record<string, string> = {}) =>
    exchangeFor(
      `http://merchant.test/paylink${area.prefix}/x`,
      { method: 'POST', headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit,
      { area },
    );

  test('a body within the limit is read once and kept for the forwarder; GET and HEAD read nothing', async () => {
    const guard = bodyGuard(100, false);
    const exchange = postTo(checkout, '{"visitId":"v1"}', { 'content-type': 'application/json' });
    assert.equal(await verdictOf(guard, exchange), undefined);
    assert.equal(new TextDecoder().decode(exchange.body), '{"visitId":"v1"}');
    const get = exchangeFor('http://merchant.test/paylink/checkout/x');
    assert.equal(await verdictOf(guard, get), undefined);
    assert.equal(get.body, undefined);
  });

  test('too large: by Content-Length before reading a byte, or while reading an undeclared stream', async () => {
    const guard = bodyGuard(10, false);
    let read = false;
    const declared = requestIncoming(
      new Request('http://merchant.test/paylink/checkout/x', { method: 'POST', headers: { 'content-length': '11' }, body: '{"a":1}' }),
    );
    const watched: ProxyIncoming = Object.assign(Object.create(declared) as ProxyIncoming, {
      readBody: (limit: number) => {
        read = true;
        return declared.readBody(limit);
      },
    });
    const byHeader = await verdictOf(guard, exchangeFor('http://merchant.test/paylink/checkout/x', {}, { incoming: watched }));
    assert.equal(byHeader?.status, 413);
    assert.equal(errorOf(byHeader).code, 'body_too_large');
    assert.equal(read, false, 'the body was read although its declared length was already too large');

    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(encoder.encode('xxxx'));
      },
    });
    const byStream = await verdictOf(guard, postTo(checkout, endless));
    assert.equal(byStream?.status, 413);
    assert.ok(pulled < 10, `reading went on after the limit (${pulled} chunks)`);
  });

  test('a body the client breaks off is a 400', async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('{"a":'));
        controller.error(new Error('connection reset'));
      },
    });
    const answer = await verdictOf(bodyGuard(100, false), postTo(checkout, broken));
    assert.equal(answer?.status, 400);
    assert.equal(errorOf(answer).code, 'unreadable_body');
  });

  test('where the area takes JSON only, another type is a 415; an empty body and JSON variants pass', async () => {
    const guard = bodyGuard(100, true);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
      const answer = await verdictOf(guard, postTo(admin, 'a=1', { 'content-type': type }));
      assert.equal(answer?.status, 415, type);
      assert.equal(errorOf(answer).code, 'unsupported_media_type');
    }
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/merchant+json']) {
      assert.equal(await verdictOf(guard, postTo(admin, '{}', { 'content-type': type })), undefined, type);
    }
    assert.equal(await verdictOf(guard, postTo(admin, null)), undefined, 'no body, no type needed');
    assert.equal(
      await verdictOf(bodyGuard(100, false), postTo(checkout, '{}', { 'content-type': 'text/plain' })),
      undefined,
      'checkout bodies may be any type',
    );
  });
});

describe('route guard', () => {
  const router = createRouter('/paylink', PROXY_AREAS);

  test('picks the route; a path outside the table is a 404, a method the path does not take a 405 with Allow', async () => {
    const guard = routeGuard(router);
    const ok = exchangeFor('http://merchant.test/paylink/admin/payment-link/abc/single');
    assert.equal(await verdictOf(guard, ok), undefined);
    assert.equal(ok.route?.path, '/payment-link/:id/single');

    const missing = await verdictOf(guard, exchangeFor('http://merchant.test/paylink/admin/keys'));
    assert.equal(missing?.status, 404);
    assert.equal(errorOf(missing).code, 'not_found');

    const wrongMethod = await verdictOf(guard, exchangeFor('http://merchant.test/paylink/admin/balance', { method: 'DELETE' }));
    assert.equal(wrongMethod?.status, 405);
    assert.equal(errorOf(wrongMethod).code, 'method_not_allowed');
    assert.equal(wrongMethod?.headers.allow, 'GET, HEAD, OPTIONS');
  });
});

describe('a chain of guards', () => {
  test('stops at the first verdict, and awaits only the guards that are async', async () => {
    const order: string[] = [];
    const pass =
      (name: string): Guard =>
      () =>
        void order.push(name);
    const refuse: Guard = async () => {
      order.push('refuse');
      return { status: 418, headers: {}, body: null };
    };
    const verdict = await runGuards([pass('a'), refuse, pass('never')], exchangeFor('http://merchant.test/paylink/checkout/x'));
    assert.equal(verdict?.status, 418);
    assert.deepEqual(order, ['a', 'refuse']);
  });
});
