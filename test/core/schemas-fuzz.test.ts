/**
 * Property-based fuzzing of every endpoint's body, query and headers (fast-check): thousands of
 * malformed inputs, and for each one no 5xx, every error in the one shape, and nothing written by a
 * request that was refused. Runs through `app.request()` (no socket) on PGlite, so it stays fast.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ErrorBody } from '../../src/core/schemas.js';
import { startTestService, standardLinkBody, donationLinkBody, type TestService } from '../support/service.js';
import { fund } from '../support/money.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** Any JSON value, biased toward the shapes the API expects so that deep fields get hit. */
const anyJson = fc.jsonValue({ maxDepth: 4 });
const nasty = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    'Infinity',
    '0x',
    'null',
    'true',
    '<script>alert(1)</script>',
    'javascript:alert(1)',
    '\u0000',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    "'; DROP TABLE payment_links; --",
  ),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.anything(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.anything(), { maxKeys: 3 }),
);

/** A valid body with some fields replaced by junk: malformed in the ways clients really get wrong. */
function mutated(base: Record<string, unknown>) {
  const keys = Object.keys(base);
  return fc
    .record({
      replace: fc.subarray(keys, { minLength: 1 }),
      values: fc.array(nasty, { minLength: keys.length, maxLength: keys.length }),
      extra: fc.dictionary(fc.string({ maxLength: 8 }), nasty, { maxKeys: 2 }),
    })
    .map(({ replace, values, extra }) => {
      const body: Record<string, unknown> = { ...extra, ...base };
      replace.forEach((key, index) => (body[key] = values[index]));
      return body;
    });
}

const bodyText = fc.oneof(
  anyJson.map((value) => JSON.stringify(value)),
  fc.string(),
  mutated(standardLinkBody()).map((value) => JSON.stringify(value)),
  mutated(donationLinkBody()).map((value) => JSON.stringify(value)),
  mutated({ amount: 1, address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', blockchainId: 'bsc', assetId: 'USDT' }).map((value) => JSON.stringify(value)),
  mutated({ assetId: 'USDT', fiatAmount: 10, fiatCurrency: 'NGN', customer: { address: 'x', phone: '+2348000000000' } }).map((value) => JSON.stringify(value)),
);

const queryText = fc
  .dictionary(
    fc.constantFrom('page', 'limit', 'linkType', 'isActive', 'q', 'status', 'startDate', 'endDate', 'id', 'junk'),
    fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String), fc.constantFrom('0', '-1', '101', '1e3', 'true', 'TRUE', '2026-13-45', '%', '_')),
    { maxKeys: 4 },
  )
  .map((query) => new URLSearchParams(query).toString());

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  fc.constantFrom('', 'pl_sk_', 'pl_sk_' + 'x'.repeat(32), 'Bearer x', 'application/xml', 'text/plain'),
);

interface Counts {
  links: number;
  withdrawals: number;
  sessions: number;
  ledger: number;
  visits: number;
}

describe('fuzzing every endpoint (PGlite, app.request)', { timeout: 600_000 }, () => {
  let t: TestService;
  let key: string;
  let slug: string;
  let linkId: string;
  let sessionId: string;

  before(async () => {
    t = await startTestService('pglite');
    key = (await t.newKey()).key;
    const app = t.service.app;
    const link = await (
      await app.request('/v1/payment-link', {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(standardLinkBody()),
      })
    ).json();
    slug = link.slug;
    linkId = link.id;
    const session = await (
      await app.request(`/v1/checkout/${slug}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ assetId: 'USDT' }),
      })
    ).json();
    sessionId = session.id;
    await fund(t.url, key, '5');
  });
  after(() => t.close());

  const counts = async (): Promise<Counts> => {
    const { rows } = await t.db.query<Counts>(
      `SELECT (SELECT count(*)::int FROM payment_links) AS links, (SELECT count(*)::int FROM withdrawals) AS withdrawals,
              (SELECT count(*)::int FROM checkout_sessions) AS sessions, (SELECT count(*)::int FROM ledger_entries) AS ledger,
              (SELECT coalesce(sum(visited_count), 0)::int FROM payment_links) AS visits`,
    );
    return rows[0]!;
  };

  /** Sends one request and checks the invariants of any answer. Returns the status. */
  async function probe(method: string, path: string, init: { body?: string; headers?: Record<string, string> }) {
    const res = await t.service.app.request(path, { method, headers: init.headers, body: init.body });
    const text = await res.text();
    assert.ok(res.status < 500, `${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    if (res.status >= 400) {
      const parsed = ErrorBody.safeParse(JSON.parse(text));
      assert.ok(parsed.success, `${method} ${path} ${res.status} error body not in the one shape: ${text.slice(0, 300)}`);
      assert.equal(parsed.data.statusCode, res.status);
      assert.ok(!/at .+\.(ts|js):\d+/.test(text), 'no stack trace in an error');
    }
    return res.status;
  }

  const writes: Array<[string, (p: { slug: string; linkId: string; sessionId: string }) => string, keyof Counts | null]> = [
    ['POST', () => '/v1/payment-link', 'links'],
    ['PATCH', () => '/v1/payment-link', null],
    ['POST', () => '/v1/withdrawal', 'withdrawals'],
    ['POST', (p) => `/v1/checkout/${p.slug}/sessions`, 'sessions'],
    ['POST', (p) => `/v1/checkout/${p.slug}/visits`, 'visits'],
    ['POST', (p) => `/v1/checkout/sessions/${p.sessionId}/simulate-payment`, 'ledger'],
  ];

  for (const [method, path, table] of writes) {
    it(`${method} ${path({ slug: '{slug}', linkId: '{id}', sessionId: '{id}' })}: malformed bodies never 5xx, refusals write nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(bodyText, fc.boolean(), async (body, withKey) => {
          const before = await counts();
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (withKey) headers['x-api-key'] = key;
          const status = await probe(method, path({ slug, linkId, sessionId }), { body, headers });
          if (status >= 400) {
            const after = await counts();
            if (table) assert.equal(after[table], before[table], `a refused request changed ${table}`);
            assert.deepEqual({ ...after, visits: 0 }, { ...before, visits: 0 }, 'a refused request wrote nothing');
          }
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('every GET: malformed queries and ids never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/v1/payment-link',
          '/v1/withdrawal',
          '/v1/balance',
          `/v1/checkout/${'SLUG'}`,
          '/v1/checkout/sessions/ID',
          '/v1/payment-link/ID/single',
          '/v1/withdrawal/ID',
        ),
        queryText,
        fc.oneof(fc.string({ maxLength: 40 }), fc.uuid()).map((s) => encodeURIComponent(s)),
        async (route, query, id) => {
          const path = route.replace('SLUG', slug).replace('ID', id || 'x');
          await probe('GET', `${path}${query ? `?${query}` : ''}`, { headers: { 'x-api-key': key } });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('malformed headers (API key, content type, idempotency key) never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(headerValue, headerValue, headerValue, async (apiKey, contentType, idempotencyKey) => {
        const before = await counts();
        const status = await probe('POST', '/v1/withdrawal', {
          headers: { 'x-api-key': apiKey, 'content-type': contentType, 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ amount: 1, address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', blockchainId: 'bsc', assetId: 'USDT' }),
        });
        assert.notEqual(status, 200, 'a made-up key never withdraws');
        assert.deepEqual(await counts(), before);
      }),
      { numRuns: RUNS },
    );
  });
});
