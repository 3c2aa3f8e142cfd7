/**
 * The merchant's payments: a session's `reference` and `metadata` (stored, checked by the
 * rules), the keyed `GET /v1/checkout-session` (filters, paging, newest first) and
 * `GET /v1/checkout-session/{id}` (amounts, every transfer, customer details; another integrator's is
 * a 404), through the service and the proxy's admin routes; customer details in no keyless answer and
 * no log line; and retention of never-paid sessions.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createPaylinkClient } from '../../../../src/client/index.js';
import { createPaylinkProxy } from '../../../../src/server/proxy/index.js';
import { applyRetention } from '../../../../src/server/service/retention.js';
import { expireDueSessions } from '../../../../src/server/service/sessions/index.js';
import { settleIncomingTransfer } from '../../../../src/server/service/money-in/index.js';
import { countRows, createUsdLink, openEventStream, startSession, testClock } from '../../../support/money.js';
import { createApiKey } from '../../../../src/server/service/keys/index.js';
import { startService } from '../../../../src/server/service/serve.js';
import { backends, call, openTestDatabase, startTestService, type TestService } from '../../../support/service.js';

const DAY = 24 * 60 * 60 * 1000;
const CUSTOMER = { address: '12 Marina Road, Ikoyi, Lagos', phone: '+234 803 555 0199', email: 'ada.obi@example.org' };
/** What the customer typed, as it would appear anywhere (the phone as stored too). */
const SECRETS = [CUSTOMER.address, '+2348035550199', '803 555 0199', CUSTOMER.email, 'Marina Road'];

/** Captures every console call and every write to stdout/stderr while `work` runs (and still passes them on). */
async function captureLogs<T>(work: () => Promise<T>): Promise<{ result: T; lines: string }> {
  const lines: string[] = [];
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const originals = methods.map((name) => console[name]);
  const writes = [process.stdout.write, process.stderr.write];
  methods.forEach((name, index) => {
    console[name] = (...args: unknown[]) => {
      lines.push(
        args.map((arg) => (arg instanceof Error ? `${arg.stack} ${JSON.stringify(arg)}` : typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '),
      );
      originals[index]!.apply(console, args);
    };
  });
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return (original as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
  }
  try {
    return { result: await work(), lines: lines.join('\n') };
  } finally {
    methods.forEach((name, index) => (console[name] = originals[index]!));
    [process.stdout.write, process.stderr.write] = writes as [typeof process.stdout.write, typeof process.stderr.write];
  }
}

function assertNoCustomerDetails(text: string, where: string) {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} contains "${secret}"`);
}

for (const backend of backends()) {
  describe(`the merchant's payments (${backend})`, () => {
    let t: TestService;
    let key: string;
    let otherKey: string;
    const clock = testClock(Date.parse('2025-03-10T12:00:00.000Z'));

    before(async () => {
      t = await startTestService(backend, { now: clock.now, payoutWorker: false, webhookWorker: false, sseHeartbeatMs: 200 });
      ({ key } = await t.newKey());
      ({ key: otherKey } = await t.newKey());
    });
    after(() => t.close());

    const simulate = (id: string, amount?: string) => call(t.url, 'POST', `/v1/checkout/sessions/${id}/simulate-payment`, { body: amount ? { amount } : {} });
    const keyed = (path: string, apiKey = key) => call(t.url, 'GET', path, { key: apiKey });

    describe('reference and metadata', () => {
      it('are stored with the session (a keyless reference as clientReference) and returned on the keyed read only', async () => {
        const slug = await createUsdLink(t.url, key, '10');
        const session = await startSession(t.url, slug, { assetId: 'USDT', reference: '  order-1042 ', metadata: { cart: 'c_9', note: 'gift wrap' } });
        assert.equal('reference' in session, false, 'the keyless answer does not echo them');
        assert.equal('clientReference' in session, false);
        assert.equal('metadata' in session, false);
        const record = (await keyed(`/v1/checkout-session/${session.id}`)).body;
        assert.equal(record.clientReference, 'order-1042', 'trimmed');
        assert.equal(record.reference, null, 'a page never names the merchant’s order');
        assert.deepEqual(record.metadata, { cart: 'c_9', note: 'gift wrap' });
        const bare = await startSession(t.url, slug);
        const bareRecord = (await keyed(`/v1/checkout-session/${bare.id}`)).body;
        assert.equal(bareRecord.reference, null);
        assert.equal(bareRecord.clientReference, null);
        assert.deepEqual(bareRecord.metadata, {});
      });

      it('are refused with a 400 naming the field when too long, too many or not strings; nothing is stored', async () => {
        const slug = await createUsdLink(t.url, key, '10');
        const before = await countRows(t.db, 'checkout_sessions');
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ reference: 'r'.repeat(201) }, 'reference'],
          [{ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
          [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
          [{ metadata: { count: 3 } }, 'metadata.count'],
          [{ metadata: { note: 'x'.repeat(501) } }, 'metadata.note'],
          [{ metadata: ['a'] }, 'metadata'],
        ];
        for (const [extra, path] of cases) {
          const response = await call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId: 'USDT', ...extra } });
          assert.equal(response.status, 400, JSON.stringify(extra));
          assert.equal(response.body.code, 'validation_failed');
          assert.ok(
            response.body.errors.some((e: { path: string }) => e.path.startsWith(path)),
            `${JSON.stringify(response.body.errors)} names ${path}`,
          );
        }
        assert.equal(await countRows(t.db, 'checkout_sessions'), before);
      });
    });

    describe('GET /v1/checkout-session/{id}', () => {
      it('returns the amounts, every transfer (late ones marked), the customer details, and paidAt', async () => {
        const slug = await createUsdLink(t.url, key, '9', { options: { collectAddress: true, collectPhone: true }, title: 'Lamp' });
        const session = await startSession(t.url, slug, { assetId: 'USDT', customer: CUSTOMER, reference: 'o-7' });
        const first = `0x${'1'.repeat(64)}`;
        const second = `0x${'2'.repeat(64)}`;
        assert.equal((await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: { amount: '4', txHash: first } })).status, 200);
        clock.advance(1000);
        assert.equal(
          (await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: { amount: '6', txHash: second } })).status,
          200,
        );
        const late = `0x${'3'.repeat(64)}`;
        await settleIncomingTransfer(
          { db: t.db, now: clock.now },
          { blockchainId: 'bsc', txHash: late, assetId: 'USDT', toAddress: session.payAddress, amount: '0.5', sandbox: true },
        );

        const response = await keyed(`/v1/checkout-session/${session.id}`);
        assert.equal(response.status, 200);
        const record = response.body;
        const link = (await call(t.url, 'GET', '/v1/payment-link?limit=1', { key })).body.items[0];
        assert.deepEqual(
          Object.keys(record).sort(),
          [
            'assetId',
            'blockchainId',
            'createdAt',
            'cryptoAmount',
            'customer',
            'expiresAt',
            'fiatAmount',
            'fiatCurrency',
            'id',
            'lateAmount',
            'linkId',
            'linkTitle',
            'metadata',
            'networkName',
            'paidAmount',
            'paidAt',
            'payAddress',
            'rate',
            'rateAt',
            'rateBasis',
            'rateSource',
            'reference',
            'reversedAmount',
            'slug',
            'status',
            'transfers',
            'clientReference',
            'orderId',
            'paidBlockchainId',
            'finalizedAt',
            'refundedAmount',
            'resolution',
            'resolvedAt',
            'resolutionReason',
            'donorName',
            'message',
            'showPublicly',
            'donorHiddenAt',
          ].sort(),
        );
        assert.equal(record.linkId, link.id);
        assert.equal(record.linkTitle, 'Lamp');
        assert.equal(record.slug, slug);
        assert.equal(record.status, 'overpaid');
        assert.equal(record.fiatAmount, '9.00');
        assert.equal(record.fiatCurrency, 'USD');
        assert.equal(record.cryptoAmount, '9.000000');
        assert.deepEqual([record.rate, record.rateSource, record.rateAt], ['1', 'static', session.createdAt], 'what it was quoted with');
        assert.equal(record.paidAmount, '10.000000');
        assert.equal(record.lateAmount, '0.500000');
        assert.equal(record.payAddress, session.payAddress);
        assert.deepEqual(record.customer, { address: CUSTOMER.address, phone: '+2348035550199', email: CUSTOMER.email });
        assert.deepEqual(
          record.transfers.map((transfer: { txHash: string; amount: string; late: boolean }) => [transfer.txHash, transfer.amount, transfer.late]),
          [
            [first, '4.000000', false],
            [second, '6.000000', false],
            [late, '0.500000', true],
          ],
        );
        assert.ok(record.transfers.every((transfer: { confirmedAt: string }) => !Number.isNaN(Date.parse(transfer.confirmedAt))));
        assert.equal(record.paidAt, new Date(Date.parse(record.createdAt) + 1000).toISOString());
        assert.equal(record.finalizedAt, record.paidAt, 'the sandbox’s money is final when it is paid');
        assert.equal(record.paidBlockchainId, 'bsc');
        assert.deepEqual(
          record.transfers.map((transfer: { blockchainId: string }) => transfer.blockchainId),
          ['bsc', 'bsc', 'bsc'],
        );
        assert.equal(record.expiresAt, session.expiresAt);
      });

      it("is the caller's own: another integrator's session, an unknown id and a malformed id are 404; no key is 401", async () => {
        const slug = await createUsdLink(t.url, key, '2');
        const session = await startSession(t.url, slug);
        assert.equal((await keyed(`/v1/checkout-session/${session.id}`, otherKey)).status, 404);
        assert.equal((await keyed('/v1/checkout-session/00000000-0000-4000-8000-000000000000')).status, 404);
        assert.equal((await keyed('/v1/checkout-session/nope')).status, 404);
        assert.equal((await call(t.url, 'GET', `/v1/checkout-session/${session.id}`)).status, 401);
        assert.equal((await call(t.url, 'GET', '/v1/checkout-session')).status, 401);
        assert.equal(
          (await keyed('/v1/checkout-session', otherKey)).body.items.some((item: { id: string }) => item.id === session.id),
          false,
        );
      });

      it('reads an ended quote as expired, like the keyless read', async () => {
        const slug = await createUsdLink(t.url, key, '2');
        const session = await startSession(t.url, slug);
        clock.advance(16 * 60 * 1000);
        assert.equal((await keyed(`/v1/checkout-session/${session.id}`)).body.status, 'expired');
      });
    });

    describe('GET /v1/checkout-session', () => {
      it('lists newest first with its filters and the spec’s paging', async () => {
        const { key: apiKey } = await t.newKey();
        const linkA = await createUsdLink(t.url, apiKey, '5');
        const linkB = await createUsdLink(t.url, apiKey, '7');
        const linkAId = (await call(t.url, 'GET', '/v1/payment-link?limit=2', { key: apiKey })).body.items[1].id;
        clock.advance(DAY);
        const day1 = clock.now().toISOString().slice(0, 10);
        const a1 = await startSession(t.url, linkA, { assetId: 'USDT', reference: 'order-1' });
        clock.advance(1000);
        const a2 = await startSession(t.url, linkA, { assetId: 'USDT', reference: 'order-2' });
        await simulate(a2.id);
        clock.advance(DAY);
        const day2 = clock.now().toISOString().slice(0, 10);
        const b1 = await startSession(t.url, linkB, { assetId: 'USDT', reference: 'order-3' });
        await simulate(b1.id, '1');
        clock.advance(1000);
        const b2 = await startSession(t.url, linkB, { assetId: 'USDT', reference: 'order-1' });
        // What a page sends is only its word (clientReference): the reference filter finds none of it.
        assert.deepEqual((await keyed('/v1/checkout-session?reference=order-1', apiKey)).body.items, []);
        // The merchant's references, as an order's sessions carry them.
        for (const [session, reference] of [
          [a1, 'order-1'],
          [a2, 'order-2'],
          [b1, 'order-3'],
          [b2, 'order-1'],
        ] as const)
          await t.db.query('UPDATE checkout_sessions SET reference = $2 WHERE id = $1', [session.id, reference]);

        const list = async (query: string) => {
          const response = await keyed(`/v1/checkout-session${query}`, apiKey);
          assert.equal(response.status, 200, JSON.stringify(response.body));
          return response.body as { items: Array<{ id: string }>; meta: Record<string, number> };
        };
        const ids = async (query: string) => (await list(query)).items.map((item) => item.id);

        assert.deepEqual(await ids(''), [b2.id, b1.id, a2.id, a1.id], 'newest first');
        assert.deepEqual(await ids(`?linkId=${linkAId}`), [a2.id, a1.id]);
        assert.deepEqual(await ids('?status=paid'), [a2.id]);
        assert.deepEqual(await ids('?status=underpaid'), [b1.id]);
        assert.deepEqual(await ids('?status=awaiting_payment'), [b2.id, a1.id]);
        assert.deepEqual(await ids('?reference=order-1'), [b2.id, a1.id], 'exact reference');
        assert.deepEqual(await ids('?reference=order'), [], 'not a prefix search');
        assert.deepEqual(await ids(`?startDate=${day2}`), [b2.id, b1.id]);
        assert.deepEqual(await ids(`?endDate=${day1}`), [a2.id, a1.id], 'an end date covers its whole day');
        assert.deepEqual(await ids(`?startDate=${day1}&endDate=${day1}&status=paid&linkId=${linkAId}&reference=order-2`), [a2.id]);

        const page1 = await list('?limit=3');
        assert.deepEqual(page1.meta, { totalItems: 4, itemCount: 3, itemsPerPage: 3, totalPages: 2, currentPage: 1 });
        const page2 = await list('?limit=3&page=2');
        assert.deepEqual(
          page2.items.map((item) => item.id),
          [a1.id],
        );
        assert.deepEqual(page2.meta, { totalItems: 4, itemCount: 1, itemsPerPage: 3, totalPages: 2, currentPage: 2 });

        // The same list through the client over the proxy's admin routes, as the admin reads it.
        const proxy = createPaylinkProxy({ upstream: t.url, apiKey, adminToken: 'payments-admin-token-0123456789abcdef', rateLimit: false });
        const client = createPaylinkClient({
          baseUrl: 'http://shop.test/paylink/admin',
          token: 'payments-admin-token-0123456789abcdef',
          fetch: (input, init) => proxy(new Request(input, init)),
        });
        const viaProxy = await client.sessions.list({ linkId: linkAId, status: 'paid' });
        assert.deepEqual(
          viaProxy.items.map((item) => item.id),
          [a2.id],
        );
        assert.equal((await client.sessions.get(a2.id)).paidAmount, '5.000000');
      });

      it('refuses bad filters with a 400 naming them', async () => {
        for (const [query, path] of [
          ['?linkId=not-a-uuid', 'linkId'],
          ['?status=refunded', 'status'],
          ['?startDate=2025-02-30', 'startDate'],
          ['?endDate=yesterday', 'endDate'],
          ['?startDate=2025-03-02&endDate=2025-03-01', 'endDate'],
          ['?limit=101', 'limit'],
          ['?page=0', 'page'],
          [`?reference=${'r'.repeat(201)}`, 'reference'],
        ]) {
          const response = await keyed(`/v1/checkout-session${query}`);
          assert.equal(response.status, 400, query);
          assert.ok(
            response.body.errors.some((e: { path: string }) => e.path === path),
            `${query}: ${JSON.stringify(response.body.errors)}`,
          );
        }
      });
    });

    it('customer details appear in no keyless answer and no log line', async () => {
      const proxy = createPaylinkProxy({
        upstream: t.url,
        apiKey: key,
        adminToken: 'payments-admin-token-0123456789abcdef',
        rateLimit: false,
        allowedOrigins: ['http://shop.test'],
      });
      const { lines } = await captureLogs(async () => {
        const slug = await createUsdLink(t.url, key, '9', { options: { collectAddress: true, collectPhone: true } });
        const answers: Array<[string, string]> = [];
        const keyless = async (method: string, path: string, body?: unknown) => {
          const response = await call(t.url, method, path, { body });
          answers.push([`${method} ${path}`, JSON.stringify(response.body)]);
          const viaProxy = await proxy(
            new Request(`http://shop.test/paylink${path.replace(/^\/v1/, '')}`, {
              method,
              headers: body === undefined ? {} : { 'content-type': 'application/json' },
              body: body === undefined ? null : JSON.stringify(body),
            }),
          );
          answers.push([`proxy ${method} ${path}`, await viaProxy.text()]);
          return response;
        };
        const started = await keyless('POST', `/v1/checkout/${slug}/sessions`, {
          assetId: 'USDT',
          customer: CUSTOMER,
          reference: 'secret-ref',
          metadata: { m: 'secret-meta' },
        });
        assert.equal(started.status, 201);
        const id = started.body.id as string;
        // Refused bodies that carry the details must not echo them either.
        assert.equal(
          (await keyless('POST', `/v1/checkout/${slug}/sessions`, { assetId: 'USDT', customer: { ...CUSTOMER, email: `${CUSTOMER.email} x` } })).status,
          400,
        );
        assert.equal((await keyless('POST', `/v1/checkout/${slug}/sessions`, { assetId: 'BTC', customer: CUSTOMER })).status, 400);
        await keyless('GET', `/v1/checkout/${slug}`);
        await keyless('POST', `/v1/checkout/${slug}/visits`, {});
        await keyless('GET', `/v1/checkout/sessions/${id}`);
        const stream = await openEventStream(`${t.url}/v1/checkout/sessions/${id}/events`);
        answers.push(['SSE', (await stream.next()).data]);
        await keyless('POST', `/v1/checkout/sessions/${id}/simulate-payment`, { amount: '9' });
        answers.push(['SSE paid', (await stream.next()).data]);
        await stream.ended;
        await keyless('GET', `/v1/checkout/sessions/${id}`);
        await keyless('POST', `/v1/checkout/sessions/${id}/simulate-payment`, {});
        const page = await fetch(`${t.url}/pay/${slug}`);
        answers.push(['hosted page', await page.text()]);
        answers.push(['openapi', await (await fetch(`${t.url}/v1/openapi.json`)).text()]);
        for (const [where, text] of answers) {
          assertNoCustomerDetails(text, where);
          assert.ok(!text.includes('secret-ref') && !text.includes('secret-meta'), `${where} carries the reference or metadata`);
        }
        // The keyed read has them (so the test above is not vacuous).
        const record = await keyed(`/v1/checkout-session/${id}`);
        assert.equal(record.body.customer.email, CUSTOMER.email);
        // Expiry and the sweep run with details in the table.
        const other = await keyless('POST', `/v1/checkout/${slug}/sessions`, { assetId: 'USDT', customer: CUSTOMER });
        clock.advance(16 * 60 * 1000);
        await expireDueSessions({ db: t.db, now: clock.now });
        await keyless('GET', `/v1/checkout/sessions/${other.body.id}`);
        console.info('[test] the capture hears the console');
      });
      assert.ok(lines.includes('[test] the capture hears the console'), 'the capture works');
      assertNoCustomerDetails(lines, 'the log');
    });

    it('retention deletes only never-paid sessions that expired before the window; ledger-referenced ones stay', async () => {
      const { key: apiKey, integratorId } = await t.newKey();
      const slug = await createUsdLink(t.url, apiKey, '3');
      const start = () => startSession(t.url, slug);
      const oldNeverPaid = await start();
      const oldUnderpaid = await start();
      await simulate(oldUnderpaid.id, '1');
      const oldPaid = await start();
      await simulate(oldPaid.id);
      const oldLate = await start();
      clock.advance(16 * 60 * 1000);
      await expireDueSessions({ db: t.db, now: clock.now });
      await settleIncomingTransfer(
        { db: t.db, now: clock.now },
        { blockchainId: 'bsc', txHash: `0x${randomBytes(32).toString('hex')}`, assetId: 'USDT', toAddress: oldLate.payAddress, amount: '3', sandbox: true },
      );
      clock.advance(2 * DAY);
      const recentNeverPaid = await start();
      clock.advance(16 * 60 * 1000);
      await expireDueSessions({ db: t.db, now: clock.now });
      const open = await start();

      const statusOf = async (id: string) => (await keyed(`/v1/checkout-session/${id}`, apiKey)).status;
      // 29 days after the old ones expired: nothing is due yet.
      clock.advance(27 * DAY);
      await applyRetention(t.db, clock.now(), 30);
      assert.equal(await statusOf(oldNeverPaid.id), 200);

      clock.advance(2 * DAY); // 31 days after the old ones expired, 29 after the recent one
      const outcome = await applyRetention(t.db, clock.now(), 30);
      assert.ok(outcome.sessions >= 1);
      assert.equal(await statusOf(oldNeverPaid.id), 404, 'never paid, expired 31 days ago: deleted');
      assert.equal(await statusOf(oldUnderpaid.id), 200, 'part paid: in the ledger');
      assert.equal(await statusOf(oldPaid.id), 200, 'paid');
      assert.equal(await statusOf(oldLate.id), 200, 'paid late: in the ledger');
      assert.equal(await statusOf(recentNeverPaid.id), 200, 'expired 29 days ago: kept');
      assert.equal(await countRows(t.db, 'checkout_sessions', "id = $1 AND status = 'awaiting_payment'", [open.id]), 1, 'never marked expired: kept');
      assert.equal(await countRows(t.db, 'checkout_sessions', 'integrator_id = $1', [integratorId]), 5);

      clock.advance(2 * DAY);
      await applyRetention(t.db, clock.now(), 30);
      assert.equal(await statusOf(recentNeverPaid.id), 404);
      assert.equal(await countRows(t.db, 'checkout_sessions', 'integrator_id = $1', [integratorId]), 4);
    });
  });
}

describe('the keyed session list is indexed (postgres)', { skip: !backends().includes('postgres') }, () => {
  it('reads a page of each filter without scanning the table', async () => {
    const database = await openTestDatabase('postgres');
    try {
      const { db } = database;
      const { integratorId, key } = await db.transaction((tx) => createApiKey(tx));
      const service = await startService({ db, payoutWorker: false, webhookWorker: false });
      const slug = await createUsdLink(service.url, key, '1');
      await service.close();
      const { rows } = await db.query<{ id: string }>('SELECT id FROM payment_links WHERE slug = $1', [slug]);
      const linkId = rows[0]!.id;
      // 30,000 sessions of one integrator over a year: enough that a scan would show.
      await db.query(
        `INSERT INTO checkout_sessions (id, link_id, integrator_id, status, fiat_amount, fiat_currency, asset_id, blockchain_id, network_name,
           crypto_amount, pay_address, expires_at, created_at, updated_at, reference)
         SELECT gen_random_uuid(), $1, $2, CASE WHEN n % 3 = 0 THEN 'expired' ELSE 'awaiting_payment' END, 1, 'USD', 'USDT', 'bsc', 'BNB Smart Chain',
           1, 'addr-' || n, now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval - interval '15 minutes', now(),
           CASE WHEN n % 10 = 0 THEN 'order-' || n END
         FROM generate_series(1, 30000) AS n`,
        [linkId, integratorId],
      );
      await db.query('ANALYZE checkout_sessions');
      const page = 'ORDER BY s.created_at DESC, s.id DESC LIMIT 20';
      for (const [filter, params] of [
        ['', []],
        ['AND s.link_id = $2', [linkId]],
        ['AND s.status = $2', ['expired']],
        ['AND s.reference = $2', ['order-500']],
        ['AND s.created_at >= $2 AND s.created_at < $3', [new Date(Date.now() - 40 * DAY), new Date(Date.now() - 39 * DAY)]],
      ] as Array<[string, unknown[]]>) {
        const plan = await db.query<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (FORMAT JSON) SELECT s.id FROM checkout_sessions s WHERE s.integrator_id = $1 ${filter} ${page}`,
          [integratorId, ...params],
        );
        const text = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
        assert.ok(!text.includes('"Seq Scan"'), `${filter || 'no filter'}: ${text.slice(0, 400)}`);
      }
    } finally {
      await database.close();
    }
  });
});
