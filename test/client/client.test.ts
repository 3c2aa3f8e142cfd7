/**
 * The headless client (`paylink/client`): against the real service directly, through the proxy's
 * admin and checkout routes, and against fake fetches for shapes and failures.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  PaylinkAuthError,
  PaylinkError,
  PaylinkNetworkError,
  PaylinkNotFoundError,
  PaylinkRateLimitError,
  PaylinkServerError,
  PaylinkValidationError,
  createPaylinkClient,
  resolveApiBase,
} from '../../src/client/index.js';
import { createPaylinkProxy, toNodeHandler } from '../../src/server/proxy/index.js';
import { standardLinkBody, startTestService, type TestService } from '../support/service.js';

const ADMIN_TOKEN = 'client-test-admin-token-abcdef-0123456789';

/** A fake fetch that answers `body` with `status` and records every request. */
function fakeFetch(body: unknown, status = 200, headers: Record<string, string> = {}) {
  const requests: Request[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    requests.push(new Request(input, init));
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  };
  return { fetch, requests };
}

/** A link as the spec's samples show it: no `linkType`, a numeric `fiatAmount`. */
function quirkyLink(overrides: Record<string, unknown> = {}) {
  return {
    id: '0b3c3a57-3d0f-4b4e-9a53-3b1c1c2f7e11',
    slug: 'AbCdE12345',
    url: 'https://pay.example/AbCdE12345',
    title: 'Sample',
    description: '',
    userId: 'u1',
    integratorId: 'i1',
    fiatAmount: 2000,
    fiatCurrency: ['NGN'],
    prepayOptions: { collectAddress: false, collectPhone: false },
    postpayAction: { redirect: false, showConfirmationPage: false, successMessage: '', redirectUrl: '' },
    cart: { items: [] },
    isActive: true,
    visitedCount: 0,
    paymentCount: 0,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    deletedAt: null,
    ...overrides,
  };
}

let svc: TestService;
let apiKey: string;
let proxyServer: Server;
let proxyUrl: string;

before(async () => {
  svc = await startTestService('pglite');
  apiKey = (await svc.newKey()).key;
  proxyServer = createServer(toNodeHandler(createPaylinkProxy({ upstream: svc.url, apiKey, adminToken: ADMIN_TOKEN, rateLimit: false })));
  await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}`;
});

after(async () => {
  proxyServer.closeAllConnections();
  await new Promise<void>((resolve) => proxyServer.close(() => resolve()));
  await svc.close();
});

describe('baseUrl', () => {
  test('a bare origin is the service (the client adds /v1); a URL with a path is used as is', () => {
    assert.equal(resolveApiBase('http://127.0.0.1:8787'), 'http://127.0.0.1:8787/v1');
    assert.equal(resolveApiBase('https://api.paylink.example/'), 'https://api.paylink.example/v1');
    assert.equal(resolveApiBase('https://api.paylink.example/v1'), 'https://api.paylink.example/v1');
    assert.equal(resolveApiBase('https://shop.example/paylink/admin/'), 'https://shop.example/paylink/admin');
    assert.equal(resolveApiBase('/paylink/admin'), '/paylink/admin');
  });

  test('checkout calls of an admin-proxy client go to the proxy base, beside /admin', () => {
    const viaProxy = createPaylinkClient({ baseUrl: 'https://shop.example/paylink/admin' });
    assert.equal(viaProxy.baseUrl, 'https://shop.example/paylink/admin');
    assert.equal(viaProxy.checkoutBaseUrl, 'https://shop.example/paylink');
    const direct = createPaylinkClient({ baseUrl: 'https://api.paylink.example' });
    assert.equal(direct.checkoutBaseUrl, 'https://api.paylink.example/v1');
    const custom = createPaylinkClient({ baseUrl: '/paylink/admin', checkoutBaseUrl: 'https://cdn.example/pl' });
    assert.equal(custom.checkoutBaseUrl, 'https://cdn.example/pl');
  });
});

describe('against the service directly', () => {
  test('creates, reads, updates and lists links; every answer parsed', async () => {
    const client = createPaylinkClient({ baseUrl: svc.url, apiKey });
    const created = await client.links.create(standardLinkBody({ title: 'Client order' }));
    assert.equal(created.title, 'Client order');
    assert.equal(created.fiatAmount, '2000.00');
    assert.equal(created.linkType, 'Standard');

    const fetched = await client.links.get(created.id);
    assert.equal(fetched.id, created.id);
    assert.deepEqual(await client.links.get({ id: created.id }), fetched);

    const updated = await client.links.update({ id: created.id, title: 'Renamed', isActive: false });
    assert.equal(updated.title, 'Renamed');
    assert.equal(updated.isActive, false);

    const page = await client.links.list({ limit: 1, isActive: false });
    assert.equal(page.meta.itemsPerPage, 1);
    assert.equal(page.items[0]?.id, created.id);

    const publicView = await client.checkout.getLink(created.slug);
    assert.equal(publicView.slug, created.slug);
    assert.equal(publicView.state, 'inactive');
  });

  test("a bad redirect URL is a PaylinkValidationError carrying the server's field errors", async () => {
    const client = createPaylinkClient({ baseUrl: svc.url, apiKey });
    const error = await client.links.create(standardLinkBody({ action: { redirect: true, redirectURL: 'javascript:alert(1)' } })).then(
      () => assert.fail('expected a validation error'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PaylinkValidationError, String(error));
    assert.ok(error instanceof PaylinkError);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'validation_failed');
    assert.ok(
      error.errors.some((field) => field.path.startsWith('action.redirect')),
      JSON.stringify(error.errors),
    );
    assert.ok(error.fieldError(error.errors[0]!.path));
  });

  test('a wrong key is a PaylinkAuthError; an unknown link a PaylinkNotFoundError', async () => {
    const wrong = createPaylinkClient({ baseUrl: svc.url, apiKey: 'pl_sk_wrong' });
    await assert.rejects(wrong.links.list(), (e) => e instanceof PaylinkAuthError && e.status === 401);
    const client = createPaylinkClient({ baseUrl: svc.url, apiKey });
    await assert.rejects(client.links.get('00000000-0000-4000-8000-000000000000'), PaylinkNotFoundError);
  });

  test('a network failure is a PaylinkNetworkError, not a raw TypeError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = createPaylinkClient({ baseUrl: url, apiKey });
    const error = await client.links.list().catch((e: unknown) => e);
    assert.ok(error instanceof PaylinkNetworkError, String(error));
    assert.equal(error.status, 0);
    assert.ok(!(error instanceof TypeError));
    await assert.rejects(client.checkout.getLink('abc'), PaylinkNetworkError);
  });

  test('an aborted call rejects with the abort, not a network error', async () => {
    const client = createPaylinkClient({ baseUrl: svc.url, apiKey });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(client.links.list({}, { signal: controller.signal }), (e: any) => e?.name === 'AbortError');
  });
});

describe('through the proxy', () => {
  test("an admin client with the proxy's token manages links; checkout calls go to the public routes", async () => {
    const client = createPaylinkClient({ baseUrl: `${proxyUrl}/paylink/admin`, token: ADMIN_TOKEN });
    const created = await client.links.create(standardLinkBody({ title: 'Through the proxy' }));
    assert.equal((await client.links.get(created.id)).title, 'Through the proxy');
    const page = await client.links.list({ q: 'Through the proxy' });
    assert.ok(page.items.some((item) => item.id === created.id));
    const publicView = await client.checkout.getLink(created.slug);
    assert.equal(publicView.slug, created.slug);
  });

  test('the admin reads the configured withdrawal networks through the proxy’s admin routes', async () => {
    const client = createPaylinkClient({ baseUrl: `${proxyUrl}/paylink/admin`, token: ADMIN_TOKEN });
    const { items } = await client.withdrawals.networks();
    assert.deepEqual(
      items.map(({ id, name, assets }) => ({ id, name, assets })),
      [{ id: 'bsc', name: 'BNB Smart Chain', assets: ['USDT', 'CNGN'] }],
    );
    await assert.rejects(createPaylinkClient({ baseUrl: `${proxyUrl}/paylink/admin`, token: 'nope' }).withdrawals.networks(), PaylinkAuthError);
  });

  test('a wrong token is a PaylinkAuthError; a browser-style client without a key reads checkout only', async () => {
    const wrong = createPaylinkClient({ baseUrl: `${proxyUrl}/paylink/admin`, token: 'nope' });
    await assert.rejects(wrong.links.list(), PaylinkAuthError);
    const shopper = createPaylinkClient({ baseUrl: `${proxyUrl}/paylink` });
    await assert.rejects(shopper.checkout.getLink('missing-slug'), PaylinkNotFoundError);
  });

  test('the proxy being unreachable upstream surfaces as a PaylinkServerError (502)', async () => {
    const proxy = createPaylinkProxy({ upstream: 'http://127.0.0.1:9', apiKey, adminToken: ADMIN_TOKEN });
    const client = createPaylinkClient({
      baseUrl: 'http://shop.test/paylink/admin',
      token: ADMIN_TOKEN,
      fetch: (input, init) => proxy(new Request(input, init)),
    });
    await assert.rejects(client.balance.get(), (e) => e instanceof PaylinkServerError && e.status === 502 && e.code === 'upstream_unavailable');
  });
});

describe('README example: examples/node-client.ts', () => {
  test('creates the order on the shop’s server, finds it again on a reload, replaces an expired one; a bad price names its field', async () => {
    const { paylinkClient, paylinkOrderFor } = await import('../../examples/node-client.js');
    const paylink = paylinkClient({ baseUrl: svc.url, apiKey });
    const order = {
      id: 'A-1001',
      title: 'Two coffees',
      total: '7.50',
      currency: 'USD',
      items: [{ name: 'Coffee', quantity: 2, unitAmount: '3.75' }],
      paylinkOrderId: null as string | null,
    };
    const made = await paylinkOrderFor(paylink, order);
    assert.deepEqual([made.status, made.reference, made.fiatAmount, made.fiatCurrency], ['open', 'A-1001', '7.50', 'USD']);
    assert.match(made.url, /\/pay\/order\/[0-9a-f-]{36}$/);
    assert.equal((await paylinkOrderFor(paylink, order)).id, made.id, 'a retry before it was remembered gets the same order (Idempotency-Key)');
    order.paylinkOrderId = made.id;
    assert.equal((await paylinkOrderFor(paylink, order)).id, made.id, 'a reload finds it');
    await paylink.orders.cancel(made.id);
    const again = await paylinkOrderFor(paylink, order);
    assert.notEqual(again.id, made.id, 'one that can no longer be paid is replaced');
    assert.equal(again.status, 'open');
    await assert.rejects(
      paylinkOrderFor(paylink, { ...order, id: 'A-1002', total: '7.505', items: [], paylinkOrderId: null }),
      /Paylink refused the order: .*fiatAmount/,
    );
  });
});

describe('with a fake fetch', () => {
  test('tolerates a missing linkType and a numeric fiatAmount', async () => {
    const { fetch } = fakeFetch(quirkyLink());
    const client = createPaylinkClient({ baseUrl: 'https://api.paylink.example', apiKey: 'k', fetch });
    const link = await client.links.get('0b3c3a57-3d0f-4b4e-9a53-3b1c1c2f7e11');
    assert.equal(link.linkType, 'Standard');
    assert.equal(link.fiatAmount, '2000');

    const list = fakeFetch({
      items: [quirkyLink({ fiatAmount: '12.50', linkType: 'Donation' }), quirkyLink()],
      meta: { totalItems: 2, itemCount: 2, itemsPerPage: 20, totalPages: 1, currentPage: 1 },
    });
    const page = await createPaylinkClient({ baseUrl: 'https://api.paylink.example', fetch: list.fetch }).links.list();
    assert.deepEqual(
      page.items.map((item) => [item.linkType, item.fiatAmount]),
      [
        ['Donation', '12.50'],
        ['Standard', '2000'],
      ],
    );
  });

  test('sends the key, the token, Idempotency-Key and the signal; builds the spec paths', async () => {
    const created = { message: 'Withdrawal initiated', status: 'success', statusCode: 200, id: 'w1' };
    const { fetch, requests } = fakeFetch(created);
    const client = createPaylinkClient({ baseUrl: 'https://api.paylink.example', apiKey: 'pl_sk_test', fetch });
    const controller = new AbortController();
    const result = await client.withdrawals.create(
      { amount: '10.5', address: '0x52908400098527886E0F7030069857D2E4169EE7', blockchainId: 'bsc', assetId: 'USDT' },
      { idempotencyKey: 'payout-1', signal: controller.signal },
    );
    assert.equal(result.id, 'w1');
    const request = requests[0]!;
    assert.equal(request.url, 'https://api.paylink.example/v1/withdrawal');
    assert.equal(request.method, 'POST');
    assert.equal(request.headers.get('x-api-key'), 'pl_sk_test');
    assert.equal(request.headers.get('idempotency-key'), 'payout-1');
    assert.equal(request.headers.get('content-type'), 'application/json');
    assert.deepEqual(await request.json(), { amount: '10.5', address: '0x52908400098527886E0F7030069857D2E4169EE7', blockchainId: 'bsc', assetId: 'USDT' });

    // Without a key given, none is invented (the client never retries on its own).
    await client.withdrawals.create({ amount: '1', address: '0x0', blockchainId: 'bsc', assetId: 'USDT' });
    assert.equal(requests[1]!.headers.get('idempotency-key'), null);

    const viaTokenAbs = fakeFetch({ items: [] });
    await createPaylinkClient({ baseUrl: 'https://shop.example/paylink/admin', token: 'tkn', fetch: viaTokenAbs.fetch }).balance.get();
    assert.equal(viaTokenAbs.requests[0]!.url, 'https://shop.example/paylink/admin/balance');
    assert.equal(viaTokenAbs.requests[0]!.headers.get('authorization'), 'Bearer tkn');
    assert.equal(viaTokenAbs.requests[0]!.headers.get('x-api-key'), null);
  });

  test('lists withdrawals with filters, reads one, and reads balances', async () => {
    const withdrawal = {
      id: 'w1',
      amount: '10.5',
      assetId: 'USDT',
      blockchainId: 'bsc',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      status: 'pending',
      txHash: null,
      failureReason: null,
      receivedAmount: null,
      stalledReason: null,
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:00.000Z',
    };
    const list = fakeFetch({ items: [withdrawal], meta: { totalItems: 1, itemCount: 1, itemsPerPage: 20, totalPages: 1, currentPage: 1 } });
    const client = createPaylinkClient({ baseUrl: 'https://api.paylink.example', apiKey: 'k', fetch: list.fetch });
    const page = await client.withdrawals.list({ status: 'pending', startDate: new Date('2024-01-01T00:00:00Z'), endDate: '2024-01-31', page: 2 });
    assert.equal(page.items[0]?.id, 'w1');
    const url = new URL(list.requests[0]!.url);
    assert.equal(url.pathname, '/v1/withdrawal');
    assert.equal(url.searchParams.get('status'), 'pending');
    assert.equal(url.searchParams.get('startDate'), '2024-01-01T00:00:00.000Z');
    assert.equal(url.searchParams.get('endDate'), '2024-01-31');
    assert.equal(url.searchParams.get('page'), '2');

    const one = fakeFetch(withdrawal);
    await createPaylinkClient({ baseUrl: 'https://api.paylink.example', fetch: one.fetch }).withdrawals.get('w1');
    assert.equal(new URL(one.requests[0]!.url).pathname, '/v1/withdrawal/w1');

    const balance = fakeFetch({ items: [{ assetId: 'USDT', blockchainId: 'bsc', available: '12.000000', pending: '0' }] });
    const result = await createPaylinkClient({ baseUrl: 'https://api.paylink.example', fetch: balance.fetch }).balance.get();
    assert.deepEqual(result.items, [{ assetId: 'USDT', blockchainId: 'bsc', available: '12.000000', pending: '0' }]);
  });

  test('a response of the wrong shape is a PaylinkServerError, not a zod error', async () => {
    const { fetch } = fakeFetch({ items: 'nope' });
    const client = createPaylinkClient({ baseUrl: 'https://api.paylink.example', fetch });
    await assert.rejects(client.balance.get(), (e) => e instanceof PaylinkServerError && e.code === 'invalid_response');
  });

  test('429 is a PaylinkRateLimitError with retryAfter; a fetch that throws is a PaylinkNetworkError', async () => {
    const limited = fakeFetch({ status: 'error', statusCode: 429, code: 'rate_limited', message: 'slow down' }, 429, { 'retry-after': '7' });
    const error = await createPaylinkClient({ baseUrl: 'https://x.example', fetch: limited.fetch })
      .links.list()
      .catch((e: unknown) => e);
    assert.ok(error instanceof PaylinkRateLimitError);
    assert.equal(error.retryAfter, 7);
    assert.equal(error.code, 'rate_limited');

    const throwing: typeof fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const network = await createPaylinkClient({ baseUrl: 'https://x.example', fetch: throwing })
      .withdrawals.list()
      .catch((e: unknown) => e);
    assert.ok(network instanceof PaylinkNetworkError);
    assert.ok((network as Error).cause instanceof TypeError);
  });

  test('get refuses an empty id before sending anything', async () => {
    const { fetch, requests } = fakeFetch({});
    const client = createPaylinkClient({ baseUrl: 'https://x.example', fetch });
    assert.throws(() => client.links.get(''), TypeError);
    assert.equal(requests.length, 0);
  });
});
