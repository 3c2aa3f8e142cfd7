/**
 * Bad input and hygiene: bytes no text can hold and impossible or out-of-range dates are a 400
 * naming the field (they were 500s), bodies not labelled JSON a 415, a cart's total is held to the amount
 * cap, the zero address is refused, keyed answers are `no-store`, every answer has a request id, and the
 * log says what failed with a code and the request id, never what the request carried.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { MAX_AMOUNT } from '../../../src/core/rules/limits.js';
import { createSandboxChain } from '../../../src/server/chain/sandbox/index.js';
import type { Database } from '../../../src/server/db/index.js';
import { createLogger } from '../../../src/server/log.js';
import { createApp } from '../../../src/server/service/app.js';
import { rawConnection, until } from '../../support/attack.js';
import { fund, GOOD_ADDRESS } from '../../support/money.js';
import { call, donationLinkBody, standardLinkBody, startTestService, type TestService } from '../../support/service.js';

const NUL = '\u0000';

describe('bad input (pglite)', () => {
  let t: TestService;
  let key: string;
  let slug: string;
  let linkId: string;
  const lines: string[] = [];

  before(async () => {
    t = await startTestService('pglite', { payoutWorker: false, logger: createLogger((line) => lines.push(line)) });
    key = (await t.newKey()).key;
    const link = await call(t.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ options: { collectAddress: true, collectPhone: false } }) });
    slug = link.body.slug;
    linkId = link.body.id;
  });
  after(() => t.close());

  const counts = async () =>
    (
      await t.db.query<{ links: number; sessions: number; visits: number; withdrawals: number }>(
        `SELECT (SELECT count(*)::int FROM payment_links) AS links, (SELECT count(*)::int FROM checkout_sessions) AS sessions,
                (SELECT count(*)::int FROM link_visits) AS visits, (SELECT count(*)::int FROM withdrawals) AS withdrawals`,
      )
    ).rows[0]!;

  /** Sends `body` and expects a 400 naming `path`, and nothing written. */
  async function refused(method: string, path: string, body: unknown, field: string, options: { key?: string } = {}) {
    const before = await counts();
    const res = await call(t.url, method, path, { body, ...options });
    assert.equal(res.status, 400, `${method} ${path} ${field}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'validation_failed');
    assert.ok(
      res.body.errors.some((error: { path: string }) => error.path === field),
      `${field} named in ${JSON.stringify(res.body.errors)}`,
    );
    assert.deepEqual(await counts(), before, 'a refused request wrote nothing');
  }

  it('a NUL or another control character in any string of a link is a 400 naming the field', async () => {
    const link = (overrides: Record<string, unknown>) => standardLinkBody(overrides);
    const cases: Array<[Record<string, unknown>, string]> = [
      [link({ title: `Coffee${NUL}` }), 'title'],
      [link({ title: 'Coffee\u0007beans' }), 'title'],
      [link({ description: `Beans${NUL}` }), 'description'],
      [link({ description: 'Beans\u001b[31m' }), 'description'],
      [link({ linkType: `Standard${NUL}` }), 'linkType'],
      [link({ fiatCurrency: `NGN${NUL}` }), 'fiatCurrency'],
      [link({ fiatAmount: `20${NUL}` }), 'fiatAmount'],
      [link({ action: { successMessage: `Thanks${NUL}` } }), 'action.successMessage'],
      [link({ action: { redirectUrl: `https://shop.example/${NUL}` } }), 'action.redirectUrl'],
      [link({ cart: { items: [{ name: `Mug${NUL}`, quantity: 1, unitAmount: '5' }] }, fiatAmount: undefined }), 'cart.items.0.name'],
      [
        link({ cart: { items: [{ name: 'Mug', quantity: 1, unitAmount: '5', description: `Blue${NUL}` }] }, fiatAmount: undefined }),
        'cart.items.0.description',
      ],
      [
        link({ cart: { items: [{ name: 'Mug', quantity: 1, unitAmount: '5', imageUrl: `https://img.example/${NUL}.png` }] }, fiatAmount: undefined }),
        'cart.items.0.imageUrl',
      ],
      [link({ title: 'Lone \ud800 surrogate' }), 'title'],
    ];
    for (const [body, field] of cases) await refused('POST', '/v1/payment-link', body, field, { key });
    await refused('POST', '/v1/payment-link', donationLinkBody({ closesAt: `2031-01-01T00:00:00Z${NUL}` }), 'closesAt', { key });
    await refused('PATCH', '/v1/payment-link', { id: linkId, title: `x${NUL}` }, 'title', { key });
  });

  it('tabs and line breaks are kept where text spans lines, and a pasted trailing newline is trimmed from a title', async () => {
    const res = await call(t.url, 'POST', '/v1/payment-link', {
      key,
      body: standardLinkBody({ title: 'Coffee beans\n', description: 'Line one\r\n\tLine two', action: { successMessage: 'Thanks!\nSee you' } }),
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.title, 'Coffee beans');
    assert.equal(res.body.description, 'Line one\r\n\tLine two');
    await refused('POST', '/v1/payment-link', standardLinkBody({ title: 'Coffee\nbeans' }), 'title', { key });
  });

  it('customer details, reference, metadata and visitId with bad bytes are a 400; nothing is stored', async () => {
    const start = (body: Record<string, unknown>) => ({ assetId: 'USDT', customer: { address: '1 Marina, Lagos' }, ...body });
    await refused('POST', `/v1/checkout/${slug}/sessions`, start({ customer: { address: `1 Marina${NUL}` } }), 'customer.address');
    await refused('POST', `/v1/checkout/${slug}/sessions`, start({ customer: { address: '1 Marina', phone: `+2348012345678${NUL}` } }), 'customer.phone');
    await refused('POST', `/v1/checkout/${slug}/sessions`, start({ customer: { address: '1 Marina', email: `ada${NUL}@example.com` } }), 'customer.email');
    await refused('POST', `/v1/checkout/${slug}/sessions`, start({ assetId: `USDT${NUL}` }), 'assetId');
    await refused('POST', `/v1/checkout/${slug}/sessions`, start({ reference: `order-1${NUL}` }), 'reference');
    await refused('POST', `/v1/checkout/${slug}/sessions`, start({ metadata: { [`k${NUL}`]: 'v' } }), `metadata.k${NUL}`);
    await refused('POST', `/v1/checkout/${slug}/sessions`, start({ metadata: { k: `v${NUL}` } }), 'metadata.k');
    await refused('POST', `/v1/checkout/${slug}/visits`, { visitId: `visitor-1${NUL}` }, 'visitId');
    await refused('POST', `/v1/checkout/${slug}/visits`, { visitId: 'visitor\n12345' }, 'visitId');
    const multiline = await call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: start({ customer: { address: '1 Marina\nLagos' } }) });
    assert.equal(multiline.status, 201, 'an address may span lines');
  });

  it('withdrawals and query strings: bad bytes are a 400', async () => {
    const withdrawal = { amount: '1', address: GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' };
    await refused('POST', '/v1/withdrawal', { ...withdrawal, address: `${GOOD_ADDRESS}${NUL}` }, 'address', { key });
    await refused('POST', '/v1/withdrawal', { ...withdrawal, blockchainId: `bsc${NUL}` }, 'blockchainId', { key });
    for (const [query, field] of [
      ['q=%00', 'q'],
      ['linkType=Standard%00', 'linkType'],
      ['q=a%07b', 'q'],
    ]) {
      const res = await call(t.url, 'GET', `/v1/payment-link?${query}`, { key });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.errors[0].path, field);
    }
    const dates = await call(t.url, 'GET', '/v1/withdrawal?startDate=2025-01-01%00', { key });
    assert.equal(dates.status, 400);
  });

  it('out-of-range and impossible dates are a 400, not a 500', async () => {
    for (const query of ['startDate=0000-01-01', 'endDate=9999-12-31', 'startDate=1969-12-31', 'endDate=2025-02-30', 'startDate=2025-01-01T00:00:00-23:59']) {
      const res = await call(t.url, 'GET', `/v1/withdrawal?${query}`, { key });
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'validation_failed');
    }
    assert.equal(
      (await call(t.url, 'GET', '/v1/withdrawal?startDate=2025-01-01&endDate=9999-12-30', { key })).status,
      200,
      'the last whole day a filter may name',
    );
    for (const closesAt of [
      '2030-02-30T00:00:00Z',
      '2031-06-01T12:00:00-23:59',
      '9999-12-31T23:59:59-12:00',
      '2031-06-01T12:00:00+14:01',
      '2031-06-01T24:00:00Z',
    ]) {
      await refused('POST', '/v1/payment-link', donationLinkBody({ closesAt }), 'closesAt', { key });
    }
    const kiribati = await call(t.url, 'POST', '/v1/payment-link', { key, body: donationLinkBody({ closesAt: '2031-06-01T12:00:00+14:00' }) });
    assert.equal(kiribati.status, 201);
    assert.equal(kiribati.body.closesAt, '2031-05-31T22:00:00.000Z');
  });

  it('a cart whose total passes the amount cap is refused, though each line is within it', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ name: `Item ${i}`, quantity: 10_000, unitAmount: MAX_AMOUNT }));
    await refused('POST', '/v1/payment-link', standardLinkBody({ fiatAmount: undefined, cart: { items } }), 'fiatAmount', { key });
    const atCap = await call(t.url, 'POST', '/v1/payment-link', {
      key,
      body: standardLinkBody({ fiatAmount: undefined, cart: { items: [{ name: 'All of it', quantity: 1, unitAmount: MAX_AMOUNT }] } }),
    });
    assert.equal(atCap.status, 201);
    assert.equal(atCap.body.fiatAmount, `${MAX_AMOUNT}.00`);
  });

  it('a withdrawal to the zero address is refused, whatever the balance', async () => {
    await fund(t.url, key, '5');
    await refused(
      'POST',
      '/v1/withdrawal',
      { amount: '1', address: '0x0000000000000000000000000000000000000000', blockchainId: 'bsc', assetId: 'USDT' },
      'address',
      { key },
    );
  });

  it('a body not labelled JSON is a 415 (text/plain is never parsed); an empty body needs no type', async () => {
    const json = JSON.stringify(standardLinkBody());
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const before = await counts();
      const res = await call(t.url, 'POST', '/v1/payment-link', { key, rawBody: json, headers: { 'content-type': type } });
      assert.equal(res.status, 415, type);
      assert.equal(res.body.code, 'unsupported_media_type');
      assert.deepEqual(await counts(), before);
    }
    const untyped = await fetch(`${t.url}/v1/checkout/${slug}/visits`, { method: 'POST', body: new Uint8Array(Buffer.from('{"visitId":"untyped-visitor"}')) });
    assert.equal(untyped.status, 415, 'a body without a type is not JSON either');
    const empty = await fetch(`${t.url}/v1/checkout/${slug}/visits`, { method: 'POST' });
    assert.equal(empty.status, 200, 'an empty body without a type is fine');
    const vendor = await call(t.url, 'POST', `/v1/checkout/${slug}/visits`, {
      rawBody: '{}',
      headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
    });
    assert.equal(vendor.status, 200, '+json types are JSON');
  });

  it('a body over 256 KiB is a 413 body_too_large whether its length is declared or it streams in chunks, and writes nothing; one under it is read', async () => {
    const link = JSON.stringify(standardLinkBody());
    const padded = (bytes: number) => `${link.slice(0, -1)}${' '.repeat(bytes - link.length)}}`;
    const before = await counts();
    const declared = await call(t.url, 'POST', '/v1/payment-link', { key, rawBody: padded(300 * 1024), headers: { 'content-type': 'application/json' } });
    assert.equal(declared.status, 413);
    assert.equal(declared.body.code, 'body_too_large');
    const chunks = [padded(300 * 1024)];
    const streamed = await fetch(`${t.url}/v1/payment-link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: new ReadableStream({
        pull: (controller) => (chunks.length > 0 ? controller.enqueue(new TextEncoder().encode(chunks.shift())) : controller.close()),
      }),
      duplex: 'half',
    } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.equal(((await streamed.json()) as { code: string }).code, 'body_too_large');
    assert.deepEqual(await counts(), before);
    const within = await call(t.url, 'POST', '/v1/payment-link', { key, rawBody: padded(200 * 1024), headers: { 'content-type': 'application/json' } });
    assert.equal(within.status, 201, JSON.stringify(within.body));
  });

  it('every keyed answer is Cache-Control: no-store, refusals included; the public link is not', async () => {
    const keyed = [
      ['GET', '/v1/balance', key],
      ['GET', '/v1/payment-link', key],
      ['GET', `/v1/payment-link/${linkId}/single`, key],
      ['GET', '/v1/withdrawal', key],
      ['GET', '/v1/withdrawal/networks', key],
      ['GET', '/v1/balance', undefined],
      ['GET', '/v1/withdrawal/00000000-0000-4000-8000-000000000000', key],
      ['GET', '/v1/checkout-session', key],
      ['GET', '/v1/checkout-session/abc', undefined],
      ['GET', '/v1/webhook-endpoint', key],
      ['POST', '/v1/webhook-delivery/abc/retry', key],
    ] as const;
    for (const [method, path, withKey] of keyed) {
      const res = await call(t.url, method, path, withKey ? { key: withKey } : {});
      assert.equal(res.headers.get('cache-control'), 'no-store', `${method} ${path} (${res.status})`);
    }
    const publicLink = await call(t.url, 'GET', `/v1/checkout/${slug}`);
    assert.equal(publicLink.headers.get('cache-control'), null);
  });

  it('every answer has a request id: a plain incoming X-Request-Id is kept, anything else replaced', async () => {
    const kept = await call(t.url, 'GET', '/healthz', { headers: { 'x-request-id': 'lb-4f2a.9:trace/1' } });
    assert.equal(kept.headers.get('x-request-id'), 'lb-4f2a.9:trace/1');
    for (const header of ['has space', 'x'.repeat(129), '<script>', '']) {
      const replaced = await call(t.url, 'GET', `/v1/checkout/${slug}`, { headers: { 'x-request-id': header } });
      assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, JSON.stringify(header));
    }
    const refusal = await call(t.url, 'GET', '/v1/balance');
    assert.match(refusal.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'refusals carry one too');
    const ids = new Set(await Promise.all([1, 2, 3].map(async () => (await call(t.url, 'GET', '/healthz')).headers.get('x-request-id'))));
    assert.equal(ids.size, 3);
  });

  it('an aborted upload is one short log line with its request id, not a stack (sized or chunked)', async () => {
    const part = '{"assetId":"USDT","customer":{"email":"ada@example.com"';
    const framings = {
      sized: `Content-Length: 5000\r\n\r\n${part}`,
      chunked: `Transfer-Encoding: chunked\r\n\r\n${part.length.toString(16)}\r\n${part}\r\n`,
    };
    for (const [framing, rest] of Object.entries(framings)) {
      lines.length = 0;
      const arrived = once(t.service.server, 'request');
      const upload = rawConnection(
        t.url,
        '127.0.0.1',
        `POST /v1/checkout/${slug}/sessions HTTP/1.1\r\nHost: x\r\nX-Request-Id: upload-${framing}\r\nContent-Type: application/json\r\n${rest}`,
      );
      await arrived; // its headers are read: the service is reading its body
      upload.socket.destroy();
      await until(() => lines.length > 0, `${framing}: the aborted upload's log line`);
      assert.equal(lines.length, 1, `${framing}: ${lines.join('\n')}`);
      const line = JSON.parse(lines[0]!);
      assert.equal(line.code, 'body_aborted', framing);
      assert.equal(line.requestId, `upload-${framing}`);
      assert.equal(line.error, undefined, 'no stack');
      assert.ok(!lines[0]!.includes('ada@example.com'));
    }
  });
});

describe('log lines of an unexpected error', () => {
  it('carry the code and the request id, and never the SQL, its parameters or the customer', async () => {
    const lines: string[] = [];
    // A database that fails the way a driver does: the message quotes the value, the error carries the query and its parameters.
    const failing = {
      query: async () => {
        throw Object.assign(new Error('invalid input syntax for type uuid: "ada@example.com"'), {
          name: 'DatabaseError',
          code: '22P02',
          query: 'SELECT * FROM payment_links WHERE slug = $1',
          params: ['ada@example.com', '+2348012345678', '1 Marina, Lagos'],
          detail: 'Key (email)=(ada@example.com)',
        });
      },
      transaction: async () => {
        throw new Error('unreachable');
      },
      listen: async () => async () => {},
      close: async () => {},
    } as unknown as Database;
    const app = createApp({
      db: failing,
      chain: createSandboxChain(),
      publicUrl: 'http://localhost/pay',
      now: () => new Date(),
      log: createLogger((line) => lines.push(line)),
    });
    const res = await app.request('/v1/checkout/AbCdEf1234/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' },
      body: JSON.stringify({ assetId: 'USDT', customer: { address: '1 Marina, Lagos', phone: '+2348012345678', email: 'ada@example.com' } }),
    });
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { status: 'error', statusCode: 500, code: 'internal_error', message: 'Something went wrong on our side' });
    assert.equal(res.headers.get('x-request-id'), 'req-42');
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0]!);
    assert.equal(line.level, 'error');
    assert.equal(line.code, 'internal_error');
    assert.equal(line.requestId, 'req-42');
    assert.equal(line.route, '/v1/checkout/:slug/sessions');
    assert.equal(line.error.type, 'DatabaseError');
    assert.equal(line.error.sqlState, '22P02');
    assert.equal(line.error.message, 'invalid input syntax for type uuid: "…"');
    assert.match(line.error.stack, /\n {4}at /, "the frames say where, in the error's stack");
    for (const secret of ['ada@example.com', '+2348012345678', 'Marina', 'SELECT', 'AbCdEf1234']) {
      assert.ok(!lines[0]!.includes(secret), `the line holds no ${secret}`);
    }
  });
});
