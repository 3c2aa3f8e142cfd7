/**
 * The payment-link endpoints over real HTTP, on PGlite and PostgreSQL:
 * fields and types, the tolerance rules, each rejection, isolation and paging.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../../../src/server/service/keys/index.js';
import { backends, call, callFrom, donationLinkBody, standardLinkBody, startTestService, type TestService } from '../../../support/service.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const backend of backends()) {
  describe(`payment links on ${backend}`, () => {
    let t: TestService;
    let key: string;
    before(async () => {
      t = await startTestService(backend);
      key = (await t.newKey()).key;
    });
    after(() => t.close());

    const create = (body: unknown, apiKey = key) => call(t.url, 'POST', '/v1/payment-link', { key: apiKey, body });
    const linkCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links')).rows[0]!.n;

    describe('POST /v1/payment-link', () => {
      it('creates a Standard link with every field of a link', async () => {
        const res = await create(standardLinkBody());
        assert.equal(res.status, 201);
        const link = res.body;
        assert.match(link.id, /^[0-9a-f-]{36}$/);
        assert.match(link.slug, /^[A-Za-z0-9]{10}$/);
        assert.equal(link.url, `${t.url}/pay/${link.slug}`);
        assert.equal(link.title, 'Test order');
        assert.equal(link.description, 'A test link');
        assert.equal(link.linkType, 'Standard');
        assert.equal(typeof link.userId, 'string');
        assert.equal(typeof link.integratorId, 'string');
        assert.equal(link.fiatAmount, '2000.00');
        assert.deepEqual(link.fiatCurrency, ['NGN', 'USD']);
        assert.deepEqual(link.prepayOptions, { collectAddress: false, collectPhone: false });
        assert.deepEqual(link.postpayAction, { redirect: false, showConfirmationPage: false, successMessage: 'Thanks!', redirectUrl: '' });
        assert.deepEqual(link.cart, { items: [] });
        assert.equal(link.isActive, true);
        assert.equal(link.visitedCount, 0);
        assert.equal(link.paymentCount, 0);
        assert.match(link.createdAt, ISO_MS);
        assert.match(link.updatedAt, ISO_MS);
        assert.equal(link.deletedAt, null);
        assert.equal('__type' in link, false, '__type is only in list items and the single response');
      });

      it('gives every link its own 10-character slug', async () => {
        const slugs = new Set<string>();
        const results = await Promise.all(Array.from({ length: 20 }, () => create(standardLinkBody())));
        for (const res of results) slugs.add(res.body.slug);
        assert.equal(slugs.size, 20);
      });

      it('accepts redirectURL as well as redirectUrl and returns redirectUrl', async () => {
        const upper = await create(standardLinkBody({ action: { redirect: true, redirectURL: 'https://shop.example/thanks', successMessage: '' } }));
        assert.equal(upper.status, 201);
        assert.equal(upper.body.postpayAction.redirectUrl, 'https://shop.example/thanks');
        assert.equal(upper.body.postpayAction.redirect, true);
        const lower = await create(standardLinkBody({ action: { redirect: true, redirectUrl: 'http://shop.example/ok' } }));
        assert.equal(lower.status, 201);
        assert.equal(lower.body.postpayAction.redirectUrl, 'http://shop.example/ok');
      });

      it('reads linkType in any case (DONATION → Donation)', async () => {
        const res = await create(donationLinkBody({ linkType: 'DONATION' }));
        assert.equal(res.status, 201);
        assert.equal(res.body.linkType, 'Donation');
        const lower = await create(standardLinkBody({ linkType: 'standard' }));
        assert.equal(lower.body.linkType, 'Standard');
      });

      it('accepts fiatCurrency as one code or a list', async () => {
        const one = await create(standardLinkBody({ fiatCurrency: 'usd' }));
        assert.equal(one.status, 201);
        assert.deepEqual(one.body.fiatCurrency, ['USD']);
        const list = await create(standardLinkBody({ fiatCurrency: ['NGN', 'USD', 'EUR', 'GBP', 'GHS', 'AUD', 'JPY'] }));
        assert.deepEqual(list.body.fiatCurrency, ['NGN', 'USD', 'EUR', 'GBP', 'GHS', 'AUD', 'JPY']);
      });

      it('accepts fiatAmount as a number or a decimal string and returns a decimal string', async () => {
        const num = await create(standardLinkBody({ fiatAmount: 10.1, fiatCurrency: 'USD' }));
        assert.equal(num.body.fiatAmount, '10.10');
        const str = await create(standardLinkBody({ fiatAmount: '10.10', fiatCurrency: 'USD' }));
        assert.equal(str.body.fiatAmount, '10.10');
        const yen = await create(standardLinkBody({ fiatAmount: 1500, fiatCurrency: 'JPY' }));
        assert.equal(yen.body.fiatAmount, '1500');
      });

      it('reads fiatAmount and fiatCurrency given inside cart, as some spec examples do', async () => {
        const res = await create(
          standardLinkBody({ fiatAmount: undefined, fiatCurrency: undefined, cart: { items: [], fiatAmount: 75, fiatCurrency: 'GHS' } }),
        );
        assert.equal(res.status, 201);
        assert.equal(res.body.fiatAmount, '75.00');
        assert.deepEqual(res.body.fiatCurrency, ['GHS']);
      });

      it('takes isActive inside action', async () => {
        const res = await create(standardLinkBody({ action: { isActive: false, successMessage: '' } }));
        assert.equal(res.status, 201);
        assert.equal(res.body.isActive, false);
      });

      it('ignores unknown fields', async () => {
        const res = await create(standardLinkBody({ colour: 'blue', action: { successMessage: 'x', sparkle: true } }));
        assert.equal(res.status, 201);
        assert.equal('colour' in res.body, false);
      });

      it('prices a Standard link with a cart at the items total', async () => {
        const res = await create(
          standardLinkBody({
            fiatAmount: undefined,
            fiatCurrency: 'NGN',
            cart: {
              items: [
                { name: 'Beans', quantity: 2, unitAmount: '8500' },
                { name: 'Filters', quantity: 1, unitAmount: 2500.5 },
              ],
            },
          }),
        );
        assert.equal(res.status, 201);
        assert.equal(res.body.fiatAmount, '19500.50');
        assert.deepEqual(res.body.cart.items[1], { name: 'Filters', quantity: 1, unitAmount: '2500.50' });
      });

      it('creates a Donation link with its extras', async () => {
        const closesAt = new Date(Date.now() + 86_400_000).toISOString();
        const res = await create(donationLinkBody({ closesAt, minAmount: 500, maxAmount: '100000', suggestedAmounts: [1000, '5000'] }));
        assert.equal(res.status, 201);
        assert.equal(res.body.linkType, 'Donation');
        assert.equal(res.body.closesAt, closesAt);
        assert.equal(res.body.minAmount, '500.00');
        assert.equal(res.body.maxAmount, '100000.00');
        assert.deepEqual(res.body.suggestedAmounts, ['1000.00', '5000.00']);
        assert.equal(res.body.fiatAmount, '0.00');
      });

      describe('refuses, writing nothing', () => {
        const rejections: Array<[string, Record<string, unknown>, string]> = [
          ['a missing title', { title: undefined }, 'title'],
          ['an empty title', { title: '   ' }, 'title'],
          ['a missing action', { action: undefined }, 'action'],
          ['a missing options', { options: undefined }, 'options'],
          ['a missing cart', { cart: undefined }, 'cart'],
          ['a missing description', { description: undefined }, 'description'],
          ['a title of the wrong type', { title: 42 }, 'title'],
          ['a boolean of the wrong type', { options: { collectAddress: 'yes' } }, 'options.collectAddress'],
          ['an unknown linkType', { linkType: 'Subscription' }, 'linkType'],
          ['an unknown currency', { fiatCurrency: ['NGN', 'XYZ'] }, 'fiatCurrency'],
          ['a negative amount', { fiatAmount: -5 }, 'fiatAmount'],
          ['a non-numeric amount', { fiatAmount: 'ten' }, 'fiatAmount'],
          ['more decimals than the currency has', { fiatAmount: '10.001', fiatCurrency: 'USD' }, 'fiatAmount'],
          ['decimals on a zero-decimal currency', { fiatAmount: 10.5, fiatCurrency: 'JPY' }, 'fiatAmount'],
          ['a Standard link without an amount', { fiatAmount: undefined }, 'fiatAmount'],
          ['a zero amount', { fiatAmount: 0 }, 'fiatAmount'],
          ['an amount that is not the cart total', { fiatAmount: 100, cart: { items: [{ name: 'A', quantity: 1, unitAmount: 50 }] } }, 'fiatAmount'],
          ['a cart item with quantity 0', { fiatAmount: undefined, cart: { items: [{ name: 'A', quantity: 0, unitAmount: 50 }] } }, 'cart.items.0.quantity'],
          [
            'a cart item with a fractional quantity',
            { fiatAmount: undefined, cart: { items: [{ name: 'A', quantity: 1.5, unitAmount: 50 }] } },
            'cart.items.0.quantity',
          ],
          [
            'a cart item image that is not https',
            { fiatAmount: undefined, cart: { items: [{ name: 'A', quantity: 1, unitAmount: 5, imageUrl: 'javascript:alert(1)' }] } },
            'cart.items.0.imageUrl',
          ],
          ['redirect: true without a redirectUrl', { action: { redirect: true } }, 'action.redirectUrl'],
          ['a javascript: redirectUrl', { action: { redirect: true, redirectUrl: 'javascript:alert(1)' } }, 'action.redirectUrl'],
          ['a data: redirectURL', { action: { redirect: true, redirectURL: 'data:text/html,<script>alert(1)</script>' } }, 'action.redirectURL'],
          ['a relative redirectUrl', { action: { redirect: true, redirectUrl: '/thanks' } }, 'action.redirectUrl'],
          ['a javascript: redirectUrl even with redirect off', { action: { redirect: false, redirectUrl: 'JavaScript:alert(1)' } }, 'action.redirectUrl'],
          ['donation extras on a Standard link', { closesAt: '2099-01-01T00:00:00Z' }, 'closesAt'],
        ];
        for (const [what, overrides, path] of rejections) {
          it(`${what} (400, errors[].path = ${path})`, async () => {
            const before = await linkCount();
            const res = await create(standardLinkBody(overrides));
            assert.equal(res.status, 400, JSON.stringify(res.body));
            assert.equal(res.body.status, 'error');
            assert.equal(res.body.statusCode, 400);
            assert.equal(typeof res.body.code, 'string');
            assert.equal(typeof res.body.message, 'string');
            assert.ok(
              res.body.errors.some((e: { path: string }) => e.path === path),
              `expected an error on ${path}, got ${JSON.stringify(res.body.errors)}`,
            );
            assert.equal(await linkCount(), before);
          });
        }

        const donationRejections: Array<[string, Record<string, unknown>, string]> = [
          ['a closing time in the past', { closesAt: '2001-01-01T00:00:00Z' }, 'closesAt'],
          ['a closing time that is not a date', { closesAt: 'next tuesday' }, 'closesAt'],
          ['minAmount above maxAmount', { minAmount: 500, maxAmount: 100 }, 'minAmount'],
          ['a suggested amount below minAmount', { minAmount: 500, suggestedAmounts: [100] }, 'suggestedAmounts.0'],
          ['a suggested amount above maxAmount', { maxAmount: 500, suggestedAmounts: [100, 1000] }, 'suggestedAmounts.1'],
        ];
        for (const [what, overrides, path] of donationRejections) {
          it(`a donation with ${what} (400, errors[].path = ${path})`, async () => {
            const before = await linkCount();
            const res = await create(donationLinkBody(overrides));
            assert.equal(res.status, 400, JSON.stringify(res.body));
            assert.ok(
              res.body.errors.some((e: { path: string }) => e.path === path),
              JSON.stringify(res.body.errors),
            );
            assert.equal(await linkCount(), before);
          });
        }

        it('malformed JSON (400 invalid_json)', async () => {
          const res = await call(t.url, 'POST', '/v1/payment-link', { key, rawBody: '{"title": ' });
          assert.equal(res.status, 400);
          assert.equal(res.body.code, 'invalid_json');
        });

        it('a JSON array body (400)', async () => {
          const res = await call(t.url, 'POST', '/v1/payment-link', { key, rawBody: '[1,2]' });
          assert.equal(res.status, 400);
          assert.equal(res.body.status, 'error');
        });
      });
    });

    describe('authentication', () => {
      for (const [method, path] of [
        ['POST', '/v1/payment-link'],
        ['PATCH', '/v1/payment-link'],
        ['GET', '/v1/payment-link'],
        ['GET', '/v1/payment-link/00000000-0000-0000-0000-000000000000/single'],
      ] as const) {
        it(`${method} ${path} is 401 without a key and with a wrong one`, async () => {
          const none = await call(t.url, method, path, { body: method === 'GET' ? undefined : standardLinkBody() });
          assert.equal(none.status, 401);
          assert.equal(none.body.code, 'missing_api_key');
          const wrong = await call(t.url, method, path, {
            key: 'pl_sk_wrongwrongwrongwrongwrongwrong12',
            body: method === 'GET' ? undefined : standardLinkBody(),
          });
          assert.equal(wrong.status, 401);
          assert.equal(wrong.body.code, 'invalid_api_key');
        });
      }

      it('stores keys hashed, never in clear', async () => {
        const { rows } = await t.db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys');
        assert.ok(rows.length > 0);
        assert.ok(rows.every((row) => /^[0-9a-f]{64}$/.test(row.key_hash) && row.key_hash !== key));
      });
    });

    describe('PATCH /v1/payment-link', () => {
      it('updates the link named by id in the body, partially', async () => {
        const created = (await create(standardLinkBody())).body;
        const res = await call(t.url, 'PATCH', '/v1/payment-link', { key, body: { id: created.id, title: 'Renamed', action: { isActive: false } } });
        assert.equal(res.status, 200);
        assert.equal(res.body.title, 'Renamed');
        assert.equal(res.body.isActive, false);
        assert.equal(res.body.description, 'A test link', 'fields not sent are kept');
        assert.equal(res.body.postpayAction.successMessage, 'Thanks!', 'action members not sent are kept');
        assert.equal(res.body.fiatAmount, '2000.00');
        assert.ok(res.body.updatedAt >= created.updatedAt);
      });

      it('accepts the id as ?id=', async () => {
        const created = (await create(standardLinkBody())).body;
        const res = await call(t.url, 'PATCH', `/v1/payment-link?id=${created.id}`, { key, body: { fiatAmount: '2500' } });
        assert.equal(res.status, 200);
        assert.equal(res.body.fiatAmount, '2500.00');
      });

      it('is 400 without an id and 404 for an unknown one', async () => {
        const noId = await call(t.url, 'PATCH', '/v1/payment-link', { key, body: { title: 'x' } });
        assert.equal(noId.status, 400);
        assert.equal(noId.body.errors[0].path, 'id');
        const unknown = await call(t.url, 'PATCH', '/v1/payment-link', { key, body: { id: '00000000-0000-0000-0000-000000000000', title: 'x' } });
        assert.equal(unknown.status, 404);
        const notUuid = await call(t.url, 'PATCH', '/v1/payment-link', { key, body: { id: 'nope', title: 'x' } });
        assert.equal(notUuid.status, 404);
      });

      it('refuses a bad update and leaves the link as it was', async () => {
        const created = (await create(standardLinkBody())).body;
        const res = await call(t.url, 'PATCH', '/v1/payment-link', {
          key,
          body: { id: created.id, title: 'Changed', action: { redirect: true, redirectUrl: 'javascript:alert(1)' } },
        });
        assert.equal(res.status, 400);
        const after = await call(t.url, 'GET', `/v1/payment-link/${created.id}/single`, { key });
        assert.equal(after.body.title, 'Test order');
        assert.equal(after.body.postpayAction.redirect, false);
      });

      it('recomputes the amount when the cart changes', async () => {
        const created = (
          await create(standardLinkBody({ fiatAmount: undefined, fiatCurrency: 'USD', cart: { items: [{ name: 'A', quantity: 1, unitAmount: 5 }] } }))
        ).body;
        const res = await call(t.url, 'PATCH', '/v1/payment-link', {
          key,
          body: { id: created.id, cart: { items: [{ name: 'A', quantity: 3, unitAmount: 5 }] } },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.fiatAmount, '15.00');
      });
    });

    describe('GET /v1/payment-link/{id}/single', () => {
      it('returns the link with __type', async () => {
        const created = (await create(standardLinkBody())).body;
        const res = await call(t.url, 'GET', `/v1/payment-link/${created.id}/single`, { key });
        assert.equal(res.status, 200);
        assert.equal(res.body.__type, 'PaymentLink');
        assert.equal(res.body.id, created.id);
        assert.equal(res.body.linkType, 'Standard');
      });

      it('is 404 for an unknown id', async () => {
        const res = await call(t.url, 'GET', '/v1/payment-link/00000000-0000-0000-0000-000000000000/single', { key });
        assert.equal(res.status, 404);
        assert.equal(res.body.code, 'not_found');
      });
    });

    describe('per-integrator isolation', () => {
      it("hides another integrator's links from get, update and list", async () => {
        const other = (await t.newKey()).key;
        const mine = (await create(standardLinkBody({ title: 'Mine' }))).body;
        assert.equal((await call(t.url, 'GET', `/v1/payment-link/${mine.id}/single`, { key: other })).status, 404);
        assert.equal((await call(t.url, 'PATCH', '/v1/payment-link', { key: other, body: { id: mine.id, title: 'Stolen' } })).status, 404);
        const list = await call(t.url, 'GET', '/v1/payment-link', { key: other });
        assert.equal(list.body.meta.totalItems, 0);
        assert.equal((await call(t.url, 'GET', `/v1/payment-link/${mine.id}/single`, { key })).body.title, 'Mine');
      });
    });

    describe('GET /v1/payment-link', () => {
      let listKey: string;
      before(async () => {
        listKey = (await t.newKey()).key;
        for (let i = 0; i < 25; i++) {
          const body = i % 5 === 0 ? donationLinkBody({ title: `Fundraiser ${i}` }) : standardLinkBody({ title: `Order ${i}` });
          const res = await create(body, listKey);
          assert.equal(res.status, 201);
        }
        const first = await call(t.url, 'GET', '/v1/payment-link?limit=1', { key: listKey });
        await call(t.url, 'PATCH', '/v1/payment-link', { key: listKey, body: { id: first.body.items[0].id, action: { isActive: false } } });
      });

      it('returns {items, meta} newest first, 20 per page by default', async () => {
        const res = await call(t.url, 'GET', '/v1/payment-link', { key: listKey });
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.meta, { totalItems: 25, itemCount: 20, itemsPerPage: 20, totalPages: 2, currentPage: 1 });
        assert.equal(res.body.items[0].title, 'Order 24');
        assert.ok(res.body.items.every((item: { __type: string; linkType: string }) => item.__type === 'PaymentLink' && item.linkType));
      });

      it('pages', async () => {
        const res = await call(t.url, 'GET', '/v1/payment-link?page=2&limit=10', { key: listKey });
        assert.deepEqual(res.body.meta, { totalItems: 25, itemCount: 10, itemsPerPage: 10, totalPages: 3, currentPage: 2 });
        assert.equal(res.body.items[0].title, 'Order 14');
        const past = await call(t.url, 'GET', '/v1/payment-link?page=9', { key: listKey });
        assert.equal(past.body.items.length, 0);
      });

      it('filters by linkType (any case), isActive and q', async () => {
        const donations = await call(t.url, 'GET', '/v1/payment-link?linkType=DONATION', { key: listKey });
        assert.equal(donations.body.meta.totalItems, 5);
        assert.ok(donations.body.items.every((item: { linkType: string }) => item.linkType === 'Donation'));
        const inactive = await call(t.url, 'GET', '/v1/payment-link?isActive=false', { key: listKey });
        assert.equal(inactive.body.meta.totalItems, 1);
        const search = await call(t.url, 'GET', '/v1/payment-link?q=fundraiser%2010', { key: listKey });
        assert.equal(search.body.meta.totalItems, 1);
        assert.equal(search.body.items[0].title, 'Fundraiser 10');
        const wildcard = await call(t.url, 'GET', '/v1/payment-link?q=%25', { key: listKey });
        assert.equal(wildcard.body.meta.totalItems, 0, 'LIKE wildcards in q are literal');
      });

      for (const query of ['page=0', 'limit=0', 'limit=101', 'page=abc', 'isActive=maybe', 'linkType=Other']) {
        it(`is 400 for ${query}`, async () => {
          const res = await call(t.url, 'GET', `/v1/payment-link?${query}`, { key: listKey });
          assert.equal(res.status, 400);
          assert.equal(res.body.status, 'error');
          assert.ok(res.body.errors.length > 0);
        });
      }
    });

    describe('public checkout API', () => {
      it('GET /v1/checkout/{slug} shows the link without owner ids or counts', async () => {
        const link = (await create(standardLinkBody())).body;
        const res = await call(t.url, 'GET', `/v1/checkout/${link.slug}`);
        assert.equal(res.status, 200);
        assert.equal(res.body.state, 'open');
        assert.equal(res.body.title, 'Test order');
        assert.equal(res.body.sandbox, true);
        assert.deepEqual(res.body.assets.map((a: { assetId: string }) => a.assetId).sort(), ['CNGN', 'USDT']);
        for (const hidden of ['userId', 'integratorId', 'visitedCount', 'paymentCount', 'postpayAction']) {
          assert.equal(hidden in res.body, false, `${hidden} must not be public`);
        }
      });

      it('names the merchant when its key was created with a name, and no one otherwise', async () => {
        const link = (await create(standardLinkBody())).body;
        assert.equal((await call(t.url, 'GET', `/v1/checkout/${link.slug}`)).body.merchantName, null);
        const named = await t.db.transaction((tx) => createApiKey(tx, { name: 'Ada Stores' }));
        const res = await call(t.url, 'POST', '/v1/payment-link', { key: named.key, body: standardLinkBody() });
        assert.equal((await call(t.url, 'GET', `/v1/checkout/${res.body.slug}`)).body.merchantName, 'Ada Stores');
      });

      it('says where a link stands on every keyed read (state: open, inactive, closed by the closing time)', async () => {
        const created = (await create(donationLinkBody({ closesAt: new Date(Date.now() + 60_000).toISOString() }))).body;
        assert.equal(created.state, 'open');
        const keyed = async () => {
          const one = (await call(t.url, 'GET', `/v1/payment-link/${created.id}/single`, { key })).body;
          const listed = (await call(t.url, 'GET', '/v1/payment-link?limit=100', { key })).body.items.find((l: { id: string }) => l.id === created.id);
          assert.equal(listed.state, one.state, 'the list says what the link says');
          return one.state;
        };
        assert.equal(await keyed(), 'open');
        await t.db.query("UPDATE payment_links SET closes_at = now() - interval '1 minute' WHERE id = $1", [created.id]);
        assert.equal(await keyed(), 'closed', 'the closing time passed, by the service clock');
        const off = await call(t.url, 'PATCH', '/v1/payment-link', { key, body: { id: created.id, action: { isActive: false } } });
        assert.equal(off.body.state, 'inactive', 'switched off wins over closed');
        assert.equal(await keyed(), 'inactive');
      });

      it('reports inactive and closed links', async () => {
        const inactive = (await create(standardLinkBody({ action: { isActive: false } }))).body;
        assert.equal((await call(t.url, 'GET', `/v1/checkout/${inactive.slug}`)).body.state, 'inactive');
        const donation = (await create(donationLinkBody({ closesAt: new Date(Date.now() + 60_000).toISOString() }))).body;
        await t.db.query("UPDATE payment_links SET closes_at = now() - interval '1 minute' WHERE id = $1", [donation.id]);
        assert.equal((await call(t.url, 'GET', `/v1/checkout/${donation.slug}`)).body.state, 'closed');
      });

      it('lets any page call it (CORS *), answers preflight, and keeps keyed routes out of CORS', async () => {
        const link = (await create(standardLinkBody())).body;
        const read = await call(t.url, 'GET', `/v1/checkout/${link.slug}`, { headers: { origin: 'https://shop.example' } });
        assert.equal(read.headers.get('access-control-allow-origin'), '*');
        const missing = await call(t.url, 'GET', '/v1/checkout/NoSuchSlug', { headers: { origin: 'https://shop.example' } });
        assert.equal(missing.headers.get('access-control-allow-origin'), '*', 'errors are readable cross-origin too');
        const preflight = await fetch(`${t.url}/v1/checkout/${link.slug}/sessions`, {
          method: 'OPTIONS',
          headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        assert.equal(preflight.status, 204);
        assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
        assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Content-Type/i);
        const keyed = await call(t.url, 'GET', '/v1/payment-link', { key, headers: { origin: 'https://shop.example' } });
        assert.equal(keyed.headers.get('access-control-allow-origin'), null);
      });

      it('is 404 for an unknown slug', async () => {
        const res = await call(t.url, 'GET', '/v1/checkout/NoSuchSlug');
        assert.equal(res.status, 404);
        assert.equal(res.body.status, 'error');
      });

      it('counts 200 concurrent visits exactly', async () => {
        const link = (await create(standardLinkBody())).body;
        // 200 visitors, each from an address of its own: one address may hold only so many connections
        // (and, by default, add only a few visits per link), so the concurrency is real clients'.
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            callFrom(`127.0.${1 + (i >> 7)}.${1 + (i & 127)}`, t.url, 'POST', `/v1/checkout/${link.slug}/visits`, { body: {} }),
          ),
        );
        assert.ok(results.every((res) => res.status === 200 && res.body.counted === true));
        const after = await call(t.url, 'GET', `/v1/payment-link/${link.id}/single`, { key });
        assert.equal(after.body.visitedCount, 200);
      });

      it('counts a repeat visit with the same visitId once', async () => {
        const link = (await create(standardLinkBody())).body;
        const visitId = 'visitor-abc-123';
        const results = await Promise.all(Array.from({ length: 10 }, () => call(t.url, 'POST', `/v1/checkout/${link.slug}/visits`, { body: { visitId } })));
        assert.equal(results.filter((res) => res.body.counted).length, 1);
        const after = await call(t.url, 'GET', `/v1/payment-link/${link.id}/single`, { key });
        assert.equal(after.body.visitedCount, 1);
      });

      it('refuses a malformed visitId', async () => {
        const link = (await create(standardLinkBody())).body;
        const res = await call(t.url, 'POST', `/v1/checkout/${link.slug}/visits`, { body: { visitId: 42 } });
        assert.equal(res.status, 400);
        assert.equal(res.body.errors[0].path, 'visitId');
      });
    });

    describe('service basics', () => {
      it('answers /healthz', async () => {
        const res = await call(t.url, 'GET', '/healthz');
        assert.deepEqual([res.status, res.body], [200, { status: 'ok' }]);
      });

      it('serves an OpenAPI document generated from the schemas', async () => {
        const res = await call(t.url, 'GET', '/v1/openapi.json');
        assert.equal(res.status, 200);
        assert.equal(res.body.openapi, '3.0.3');
        const create = res.body.paths['/v1/payment-link'].post;
        assert.ok(create.requestBody.content['application/json'].schema.properties.title);
        assert.ok(res.body.paths['/v1/payment-link/{id}/single'].get);
      });

      it('answers unknown routes with the one error shape', async () => {
        const res = await call(t.url, 'GET', '/v1/nothing-here');
        assert.equal(res.status, 404);
        assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message', 'status', 'statusCode']);
      });
    });
  });
}
