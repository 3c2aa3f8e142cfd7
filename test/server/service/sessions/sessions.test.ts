/**
 * The public checkout sessions: quotes, link rules, prepay fields, payments (full, partial,
 * excess, late), their idempotency, expiry and the SSE status stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BSC, createSandboxChain } from '../../../../src/server/chain/sandbox/index.js';
import { type ChainAdapter } from '../../../../src/server/chain/types.js';
import { expireDueSessions } from '../../../../src/server/service/sessions/index.js';
import { assertLedgerMatches, balanceOf, countRows, createUsdLink, openEventStream, startSession, testClock } from '../../../support/money.js';
import { backends, call, donationLinkBody, standardLinkBody, startTestService, type TestService } from '../../../support/service.js';
import { until } from '../../../support/wait.js';

const MINUTE = 60_000;

for (const backend of backends()) {
  describe(`checkout sessions (${backend})`, () => {
    let t: TestService;
    let key: string;
    let integratorId: string;
    const clock = testClock();

    before(async () => {
      t = await startTestService(backend, { now: clock.now, payoutWorker: false, sseHeartbeatMs: 200 });
      ({ key, integratorId } = await t.newKey());
    });
    after(() => t.close());

    const createLink = async (body: Record<string, unknown>) => {
      const response = await call(t.url, 'POST', '/v1/payment-link', { key, body });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body as { id: string; slug: string };
    };
    const post = (slug: string, body: unknown) => call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body });
    const simulate = (id: string, body: Record<string, unknown> = {}) => call(t.url, 'POST', `/v1/checkout/sessions/${id}/simulate-payment`, { body });
    const getSession = async (id: string) => (await call(t.url, 'GET', `/v1/checkout/sessions/${id}`)).body;
    const paymentCount = async (id: string) => (await call(t.url, 'GET', `/v1/payment-link/${id}/single`, { key })).body.paymentCount as number;

    describe('starting a session', () => {
      it('quotes a Standard link at its fixed price, rounded up to 6 decimals, holding 15 minutes', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 2000, fiatCurrency: ['NGN', 'USD'] }));
        const response = await post(link.slug, { assetId: 'USDT' });
        assert.equal(response.status, 201);
        const s = response.body;
        assert.equal(s.slug, link.slug);
        assert.equal(s.status, 'awaiting_payment');
        assert.equal(s.fiatAmount, '2000.00');
        assert.equal(s.fiatCurrency, 'NGN');
        assert.equal(s.assetId, 'USDT');
        assert.equal(s.blockchainId, 'bsc');
        assert.equal(s.networkName, 'BNB Smart Chain');
        assert.equal(s.cryptoAmount, '1.290323'); // 2000 / 1550 = 1.2903225… rounded up
        assert.equal(s.paidAmount, '0.000000');
        assert.equal(s.remainingAmount, '1.290323');
        assert.match(s.payAddress, /^0x[0-9a-fA-F]{40}$/);
        assert.equal(s.txHash, null);
        assert.equal(s.sandbox, true);
        assert.equal(s.postpayAction, null);
        assert.equal(new Date(s.expiresAt).getTime() - new Date(s.createdAt).getTime(), 15 * MINUTE);
        assert.deepEqual(await getSession(s.id), s);

        const cngn = await post(link.slug, { assetId: 'cngn' });
        assert.equal(cngn.body.cryptoAmount, '2000.000000');
        assert.notEqual(cngn.body.payAddress, s.payAddress);

        // Another of the link's currencies: the price converted (2000 NGN → 1.30 USD, rounded up).
        const usd = await post(link.slug, { assetId: 'USDT', fiatCurrency: 'usd' });
        assert.equal(usd.status, 201);
        assert.equal(usd.body.fiatCurrency, 'USD');
        assert.equal(usd.body.fiatAmount, '1.30');
        assert.equal(usd.body.cryptoAmount, '1.300000');
      });

      it('refuses a client-sent amount that differs from a Standard link price, accepts the same one', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 50, fiatCurrency: ['USD'] }));
        const before = await countRows(t.db, 'checkout_sessions');
        const cheaper = await post(link.slug, { assetId: 'USDT', fiatAmount: 1 });
        assert.equal(cheaper.status, 400);
        assert.equal(cheaper.body.errors[0].path, 'fiatAmount');
        assert.equal(await countRows(t.db, 'checkout_sessions'), before);
        const same = await post(link.slug, { assetId: 'USDT', fiatAmount: '50.00' });
        assert.equal(same.status, 201);
        assert.equal(same.body.cryptoAmount, '50.000000');
      });

      it("takes a donor's amount within min/max, with the currency's digits", async () => {
        const link = await createLink(donationLinkBody({ fiatCurrency: ['USD', 'JPY'], minAmount: 5, maxAmount: 500 }));
        const before = await countRows(t.db, 'checkout_sessions');
        const refused: Array<[unknown, string]> = [
          [undefined, 'missing'],
          [0, 'zero'],
          [-3, 'negative'],
          ['4.99', 'below min'],
          ['500.01', 'above max'],
          ['10.001', 'three decimals in USD'],
          ['abc', 'not a number'],
        ];
        for (const [fiatAmount, why] of refused) {
          const response = await post(link.slug, { assetId: 'USDT', ...(fiatAmount === undefined ? {} : { fiatAmount }) });
          assert.equal(response.status, 400, why);
          assert.equal(response.body.errors[0].path, 'fiatAmount', why);
        }
        const jpyDecimals = await post(link.slug, { assetId: 'USDT', fiatCurrency: 'JPY', fiatAmount: '1000.5' });
        assert.equal(jpyDecimals.status, 400);
        const jpyTooSmall = await post(link.slug, { assetId: 'USDT', fiatCurrency: 'JPY', fiatAmount: 700 }); // < 5 USD
        assert.equal(jpyTooSmall.status, 400);
        assert.equal(await countRows(t.db, 'checkout_sessions'), before);

        const ok = await post(link.slug, { assetId: 'USDT', fiatAmount: 12.5 });
        assert.equal(ok.status, 201);
        assert.equal(ok.body.fiatAmount, '12.50');
        assert.equal(ok.body.cryptoAmount, '12.500000');
        const jpy = await post(link.slug, { assetId: 'USDT', fiatCurrency: 'JPY', fiatAmount: 1500 });
        assert.equal(jpy.status, 201);
        assert.equal(jpy.body.fiatAmount, '1500');
        assert.equal(jpy.body.cryptoAmount, '10.000000');
      });

      it('requires the prepay fields the link asks for, and checks them', async () => {
        const link = await createLink(standardLinkBody({ options: { collectAddress: true, collectPhone: true } }));
        const before = await countRows(t.db, 'checkout_sessions');
        const cases: Array<[Record<string, unknown> | undefined, string]> = [
          [undefined, 'customer.address'],
          [{ phone: '+2348012345678' }, 'customer.address'],
          [{ address: '   ', phone: '+2348012345678' }, 'customer.address'],
          [{ address: 'x'.repeat(501), phone: '+2348012345678' }, 'customer.address'],
          [{ address: '1 Marina, Lagos' }, 'customer.phone'],
          [{ address: '1 Marina, Lagos', phone: 'call me' }, 'customer.phone'],
          [{ address: '1 Marina, Lagos', phone: '+12' }, 'customer.phone'],
          [{ address: '1 Marina, Lagos', phone: '+2348012345678', email: 'not-an-email' }, 'customer.email'],
          // An address with header fields would become a mailto: link that copies someone else in.
          [{ address: '1 Marina, Lagos', phone: '+2348012345678', email: 'support@shop.example?bcc=thief%40evil.example' }, 'customer.email'],
          [{ address: '1 Marina, Lagos', phone: '+2348012345678', email: 'support%40shop.example@evil.example' }, 'customer.email'],
        ];
        for (const [customer, path] of cases) {
          const response = await post(link.slug, { assetId: 'USDT', ...(customer ? { customer } : {}) });
          assert.equal(response.status, 400, JSON.stringify(customer));
          assert.ok(
            response.body.errors.some((e: { path: string }) => e.path === path),
            JSON.stringify(response.body),
          );
        }
        assert.equal(await countRows(t.db, 'checkout_sessions'), before);
        const ok = await post(link.slug, {
          assetId: 'USDT',
          customer: { address: '1 Marina, Lagos', phone: '+234 (801) 234-5678', email: 'ada@example.com' },
        });
        assert.equal(ok.status, 201, JSON.stringify(ok.body));
        const stored = await t.db.query<{ customer_phone: string }>('SELECT customer_phone FROM checkout_sessions WHERE id = $1', [ok.body.id]);
        assert.equal(stored.rows[0]!.customer_phone, '+2348012345678');
        assert.equal(JSON.stringify(ok.body).includes('Marina'), false); // customer details are not echoed publicly
      });

      it('refuses unknown slugs (404), inactive links (422) and closed donations (410)', async () => {
        assert.equal((await post('nosuchslug', { assetId: 'USDT' })).status, 404);
        const inactive = await createLink(standardLinkBody({ action: { isActive: false } }));
        const r1 = await post(inactive.slug, { assetId: 'USDT' });
        assert.equal(r1.status, 422);
        assert.equal(r1.body.code, 'link_inactive');
        const donation = await createLink(donationLinkBody({ closesAt: new Date(clock.now().getTime() + 10 * MINUTE).toISOString() }));
        assert.equal((await post(donation.slug, { assetId: 'USDT', fiatAmount: 10 })).status, 201);
        clock.advance(11 * MINUTE);
        const r2 = await post(donation.slug, { assetId: 'USDT', fiatAmount: 10 });
        assert.equal(r2.status, 410);
        assert.equal(r2.body.code, 'link_closed');
      });

      it('refuses an unknown asset or a currency the link does not take (400)', async () => {
        const link = await createLink(standardLinkBody({ fiatCurrency: ['NGN'] }));
        const before = await countRows(t.db, 'checkout_sessions');
        const asset = await post(link.slug, { assetId: 'BTC' });
        assert.equal(asset.status, 400);
        assert.equal(asset.body.errors[0].path, 'assetId');
        const missing = await post(link.slug, {});
        assert.equal(missing.status, 400);
        assert.equal(missing.body.errors[0].path, 'assetId');
        const currency = await post(link.slug, { assetId: 'USDT', fiatCurrency: 'EUR' });
        assert.equal(currency.status, 400);
        assert.equal(currency.body.errors[0].path, 'fiatCurrency');
        assert.equal((await call(t.url, 'POST', `/v1/checkout/${link.slug}/sessions`, { rawBody: '[1,' })).status, 400);
        assert.equal(await countRows(t.db, 'checkout_sessions'), before);
      });

      it('GET is 404 for unknown and malformed session ids', async () => {
        assert.equal((await call(t.url, 'GET', '/v1/checkout/sessions/00000000-0000-4000-8000-000000000000')).status, 404);
        assert.equal((await call(t.url, 'GET', '/v1/checkout/sessions/nope')).status, 404);
        assert.equal((await simulate('nope')).status, 404);
      });
    });

    describe('payments', () => {
      it('a full payment settles: paid, balance credited, paymentCount +1, postpayAction shown', async () => {
        const link = await createLink(
          standardLinkBody({ fiatAmount: 25, fiatCurrency: ['USD'], action: { successMessage: 'Merci', redirect: false, showConfirmationPage: true } }),
        );
        const before = await balanceOf(t.url, key);
        const s = await startSession(t.url, link.slug);
        const paid = await simulate(s.id);
        assert.equal(paid.status, 200);
        assert.equal(paid.body.status, 'paid');
        assert.equal(paid.body.paidAmount, '25.000000');
        assert.equal(paid.body.remainingAmount, '0.000000');
        assert.match(paid.body.txHash, /^0x[0-9a-f]{64}$/);
        assert.deepEqual(paid.body.postpayAction, { redirect: false, showConfirmationPage: true, successMessage: 'Merci', redirectUrl: '' });
        assert.equal(await paymentCount(link.id), 1);
        const after = await balanceOf(t.url, key);
        assert.equal(Number(after.available) - Number(before.available), 25);
        await assertLedgerMatches(t.db, integratorId);
      });

      it('a partial payment is underpaid until topped up; an excess is overpaid and counts as paid once', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 10, fiatCurrency: ['USD'] }));
        const s = await startSession(t.url, link.slug);
        const part = await simulate(s.id, { amount: '4' });
        assert.equal(part.body.status, 'underpaid');
        assert.equal(part.body.paidAmount, '4.000000');
        assert.equal(part.body.remainingAmount, '6.000000');
        assert.equal(part.body.postpayAction, null);
        assert.equal(await paymentCount(link.id), 0);
        const rest = await simulate(s.id); // default: what is left
        assert.equal(rest.body.status, 'paid');
        assert.equal(rest.body.paidAmount, '10.000000');
        assert.equal(await paymentCount(link.id), 1);

        const s2 = await startSession(t.url, link.slug);
        const before = await balanceOf(t.url, key);
        const over = await simulate(s2.id, { amount: 12.5 });
        assert.equal(over.body.status, 'overpaid');
        assert.equal(over.body.paidAmount, '12.500000');
        assert.equal(over.body.remainingAmount, '0.000000');
        assert.notEqual(over.body.postpayAction, null);
        assert.equal(await paymentCount(link.id), 2);
        const after = await balanceOf(t.url, key);
        assert.equal((Number(after.available) - Number(before.available)).toFixed(6), '12.500000');
        await assertLedgerMatches(t.db, integratorId);
      });

      it('a payment simulated twice credits once: same txHash, or concurrent full payments', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 3, fiatCurrency: ['USD'] }));
        const s = await startSession(t.url, link.slug);
        const before = await balanceOf(t.url, key);
        const txHash = `0x${'ab'.repeat(32)}`;
        const first = await simulate(s.id, { txHash, amount: '1' });
        const again = await simulate(s.id, { txHash, amount: '1' });
        assert.equal(first.status, 200);
        assert.equal(again.status, 200);
        assert.equal(again.body.paidAmount, '1.000000');
        assert.equal(await countRows(t.db, 'chain_transfers', 'session_id = $1', [s.id]), 1);

        // The same hash can't pay another session.
        const s2 = await startSession(t.url, link.slug);
        const stolen = await simulate(s2.id, { txHash });
        assert.equal(stolen.status, 409);
        assert.equal(stolen.body.code, 'tx_hash_conflict');

        const racing = await Promise.all(Array.from({ length: 10 }, () => simulate(s.id)));
        const statuses = racing.map((r) => r.status).sort();
        assert.equal(statuses.filter((x) => x === 200).length, 1, JSON.stringify(statuses));
        assert.ok(racing.filter((r) => r.status === 409).every((r) => r.body.code === 'already_paid'));
        const final = await getSession(s.id);
        assert.equal(final.status, 'paid');
        assert.equal(final.paidAmount, '3.000000');
        const after = await balanceOf(t.url, key);
        assert.equal((Number(after.available) - Number(before.available)).toFixed(6), '3.000000');
        assert.equal(await paymentCount(link.id), 1);
        // A replay of a recorded hash on a paid session is still a harmless 200.
        assert.equal((await simulate(s.id, { txHash })).status, 200);
        await assertLedgerMatches(t.db, integratorId);
      });

      it('refuses bad simulated amounts with a 400 that changes nothing', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 3, fiatCurrency: ['USD'] }));
        const s = await startSession(t.url, link.slug);
        for (const body of [{ amount: 0 }, { amount: -1 }, { amount: '1.1234567' }, { amount: 'lots' }, { txHash: '0x12' }]) {
          const response = await simulate(s.id, body);
          assert.equal(response.status, 400, JSON.stringify(body));
        }
        assert.equal((await getSession(s.id)).paidAmount, '0.000000');
        assert.equal(await countRows(t.db, 'chain_transfers', 'session_id = $1', [s.id]), 0);
      });

      it('expires after 15 minutes; a transfer after expiry is credited as late_payment, not as a link payment', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 8, fiatCurrency: ['USD'] }));
        const s = await startSession(t.url, link.slug);
        const partial = await startSession(t.url, link.slug);
        await simulate(partial.id, { amount: '2' });
        clock.advance(14 * MINUTE);
        assert.equal((await getSession(s.id)).status, 'awaiting_payment');
        clock.advance(MINUTE + 1);
        const expired = await getSession(s.id);
        assert.equal(expired.status, 'expired');
        assert.equal(expired.remainingAmount, '0.000000');
        const partialExpired = await getSession(partial.id);
        assert.equal(partialExpired.status, 'expired');
        assert.equal(partialExpired.paidAmount, '2.000000'); // what did arrive stays credited

        const before = await balanceOf(t.url, key);
        const late = await simulate(s.id);
        assert.equal(late.status, 200);
        assert.equal(late.body.status, 'expired');
        assert.equal(late.body.paidAmount, '0.000000');
        assert.equal(late.body.postpayAction, null);
        const after = await balanceOf(t.url, key);
        assert.equal((Number(after.available) - Number(before.available)).toFixed(6), '8.000000');
        assert.equal(await paymentCount(link.id), 0);
        const kinds = await t.db.query<{ kind: string }>(
          'SELECT e.kind FROM ledger_entries e JOIN chain_transfers c ON c.id = e.transfer_id WHERE c.session_id = $1',
          [s.id],
        );
        assert.deepEqual(
          kinds.rows.map((r) => r.kind),
          ['late_payment'],
        );
        await assertLedgerMatches(t.db, integratorId);
      });

      it('the sweep expires due sessions without anyone reading them', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 1, fiatCurrency: ['USD'] }));
        const s = await startSession(t.url, link.slug);
        clock.advance(16 * MINUTE);
        assert.ok((await expireDueSessions({ db: t.db, now: clock.now })) >= 1);
        const row = await t.db.query<{ status: string }>('SELECT status FROM checkout_sessions WHERE id = $1', [s.id]);
        assert.equal(row.rows[0]!.status, 'expired');
      });
    });

    describe('GET /v1/checkout/sessions/{id}/events', () => {
      it('sends the current state first, one status event per change, and closes after a terminal state', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 6, fiatCurrency: ['USD'] }));
        const s = await startSession(t.url, link.slug);
        const stream = await openEventStream(`${t.url}/v1/checkout/sessions/${s.id}/events`);
        assert.equal(stream.response.status, 200);
        assert.match(stream.response.headers.get('content-type') ?? '', /text\/event-stream/);
        const first = await stream.next();
        assert.equal(first.event, 'status');
        assert.equal(JSON.parse(first.data).status, 'awaiting_payment');
        await simulate(s.id, { amount: '1' });
        const second = JSON.parse((await stream.next()).data);
        assert.equal(second.status, 'underpaid');
        assert.equal(second.paidAmount, '1.000000');
        await simulate(s.id);
        const third = JSON.parse((await stream.next()).data);
        assert.equal(third.status, 'paid');
        assert.ok(await stream.ended);
        assert.equal(stream.events.length, 3);
      });

      it('sends heartbeats while waiting and reports expiry', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 6, fiatCurrency: ['USD'] }));
        const s = await startSession(t.url, link.slug);
        const stream = await openEventStream(`${t.url}/v1/checkout/sessions/${s.id}/events`);
        assert.equal(JSON.parse((await stream.next()).data).status, 'awaiting_payment');
        await until(() => stream.comments >= 1, 'a heartbeat');
        clock.advance(16 * MINUTE);
        assert.equal(JSON.parse((await stream.next()).data).status, 'expired');
        assert.ok(await stream.ended);
      });

      it('is a JSON 404 for an unknown session', async () => {
        const response = await call(t.url, 'GET', '/v1/checkout/sessions/00000000-0000-4000-8000-000000000000/events');
        assert.equal(response.status, 404);
        assert.equal(response.body.code, 'not_found');
      });
    });
  });

  describe(`checkout sessions on a non-sandbox chain (${backend})`, () => {
    let t: TestService;
    before(async () => {
      const sandbox = createSandboxChain();
      // A real chain without networks to scan or pay on: only what the checkout shows differs.
      const realish: ChainAdapter = {
        kind: 'real',
        sandbox: false,
        networks: [BSC],
        chains: [],
        depositAddress: (request) => sandbox.depositAddress(request),
        close: async () => {},
      };
      t = await startTestService(backend, { chain: realish, payoutWorker: false });
    });
    after(() => t.close());

    it('has no simulate-payment (404) and marks sessions as not sandbox', async () => {
      const { key } = await t.newKey();
      const slug = await createUsdLink(t.url, key, '5');
      const s = await startSession(t.url, slug);
      assert.equal(s.sandbox, false);
      const response = await call(t.url, 'POST', `/v1/checkout/sessions/${s.id}/simulate-payment`, { body: {} });
      assert.equal(response.status, 404);
      assert.equal((await call(t.url, 'GET', `/v1/checkout/sessions/${s.id}`)).body.paidAmount, '0.000000');
    });
  });
}
