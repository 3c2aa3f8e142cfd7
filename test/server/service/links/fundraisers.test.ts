/**
 * Fundraisers: a donation link's goal, what its paid donations raised and from how many donors (a
 * running total kept by the transactions that settle and reverse sessions), the donors who chose to be
 * listed, and the merchant's Hide. A donor who did not choose to be shown appears nowhere public.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { reverseCredit, settleIncomingTransfer } from '../../../../src/server/service/money-in/index.js';
import { eventually, openEventStream, testClock } from '../../../support/money.js';
import { backends, call, donationLinkBody, standardLinkBody, startTestService, type TestService } from '../../../support/service.js';

const MINUTE = 60_000;
const hash = () => `0x${randomBytes(32).toString('hex')}`;

for (const backend of backends()) {
  describe(`fundraisers (${backend})`, () => {
    let t: TestService;
    let key: string;
    const clock = testClock();

    before(async () => {
      t = await startTestService(backend, { now: clock.now, payoutWorker: false, sseHeartbeatMs: 200 });
      ({ key } = await t.newKey());
    });
    after(() => t.close());

    const createLink = async (body: Record<string, unknown>) => {
      const response = await call(t.url, 'POST', '/v1/payment-link', { key, body });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body as { id: string; slug: string; goalAmount: string | null; raised: string; donorCount: number };
    };
    const fundraiser = (overrides: Record<string, unknown> = {}) =>
      createLink(donationLinkBody({ fiatCurrency: ['USD', 'NGN'], goalAmount: '1000', ...overrides }));
    const view = async (slug: string) => {
      const response = await call(t.url, 'GET', `/v1/checkout/${slug}`);
      assert.equal(response.status, 200);
      return response.body;
    };
    const donors = async (slug: string, query = '') => {
      const response = await call(t.url, 'GET', `/v1/checkout/${slug}/donors${query}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.items as Array<Record<string, unknown>>;
    };
    const give = async (slug: string, body: Record<string, unknown>) => {
      const response = await call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId: 'USDT', ...body } });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body as { id: string; cryptoAmount: string; payAddress: string; status: string };
    };
    const pay = async (id: string, amount?: string) => {
      const response = await call(t.url, 'POST', `/v1/checkout/sessions/${id}/simulate-payment`, { body: amount ? { amount } : {} });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };
    /** The sum the running total must equal, straight from the sessions (the slow way a view never takes). */
    const summed = async (linkId: string) => {
      const { rows } = await t.db.query<{ raised: string; n: number }>(
        `SELECT coalesce(sum(raise_amount), 0)::text AS raised, count(raise_amount)::int AS n FROM checkout_sessions
         WHERE link_id = $1 AND status IN ('paid', 'overpaid')`,
        [linkId],
      );
      return rows[0]!;
    };

    describe('the goal', () => {
      it('is taken on create and update, read everywhere, and removed with null', async () => {
        const link = await fundraiser({ goalAmount: 250000.5 });
        assert.equal(link.goalAmount, '250000.50');
        assert.equal(link.raised, '0.00');
        assert.equal(link.donorCount, 0);
        const single = await call(t.url, 'GET', `/v1/payment-link/${link.id}/single`, { key });
        assert.equal(single.body.goalAmount, '250000.50');
        const listed = await call(t.url, 'GET', '/v1/payment-link?linkType=Donation&limit=100', { key });
        assert.equal(listed.body.items.find((item: { id: string }) => item.id === link.id).goalAmount, '250000.50');
        const publicView = await view(link.slug);
        assert.deepEqual([publicView.goalAmount, publicView.raised, publicView.donorCount], ['250000.50', '0.00', 0]);

        const updated = await call(t.url, 'PATCH', '/v1/payment-link', { key, body: { id: link.id, goalAmount: '300' } });
        assert.equal(updated.status, 200, JSON.stringify(updated.body));
        assert.equal(updated.body.goalAmount, '300.00');
        assert.equal((await view(link.slug)).goalAmount, '300.00', 'the cached public view follows the update');
        const removed = await call(t.url, 'PATCH', '/v1/payment-link', { key, body: { id: link.id, goalAmount: null } });
        assert.equal(removed.body.goalAmount, null);
      });

      it('a Standard link has none: its public view says null for the fundraiser fields', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 10, fiatCurrency: ['USD'] }));
        const publicView = await view(link.slug);
        assert.deepEqual([publicView.goalAmount, publicView.raised, publicView.donorCount], [null, null, null]);
      });

      for (const [what, body, path] of [
        ['a goal on a Standard link', standardLinkBody({ fiatAmount: 10, goalAmount: '500' }), 'goalAmount'],
        ['a negative goal', donationLinkBody({ goalAmount: -5 }), 'goalAmount'],
        ['a goal of 0', donationLinkBody({ goalAmount: '0' }), 'goalAmount'],
        ['a goal that is not a number', donationLinkBody({ goalAmount: 'lots' }), 'goalAmount'],
        ['a goal with more digits than its currency', donationLinkBody({ fiatCurrency: 'NGN', goalAmount: '10.123' }), 'goalAmount'],
      ] as const) {
        it(`refuses ${what} with a 400 naming goalAmount, and creates nothing`, async () => {
          const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links');
          const response = await call(t.url, 'POST', '/v1/payment-link', { key, body });
          assert.equal(response.status, 400, JSON.stringify(response.body));
          assert.equal(response.body.code, 'validation_failed');
          assert.ok(
            response.body.errors.some((error: { path: string }) => error.path === path),
            JSON.stringify(response.body.errors),
          );
          const after = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links');
          assert.equal(after.rows[0]!.n, before.rows[0]!.n);
        });
      }

      it('refuses to turn a fundraiser with a goal into a Standard link while the goal is sent', async () => {
        const link = await fundraiser();
        const response = await call(t.url, 'PATCH', '/v1/payment-link', { key, body: { id: link.id, linkType: 'Standard', fiatAmount: 5, goalAmount: '9' } });
        assert.equal(response.status, 400);
        assert.ok(response.body.errors.some((error: { path: string }) => error.path === 'goalAmount'));
      });
    });

    describe('a donor’s name and message', () => {
      const refused = async (slug: string, body: Record<string, unknown>, path: string) => {
        const response = await call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId: 'USDT', fiatAmount: '5', ...body } });
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.ok(
          response.body.errors.some((error: { path: string }) => error.path === path),
          JSON.stringify(response.body.errors),
        );
      };

      it('are capped (60 and 280 characters) and text only: a clear 400 on the field, no session', async () => {
        const link = await fundraiser();
        const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM checkout_sessions WHERE link_id = $1', [link.id]);
        await refused(link.slug, { donorName: 'n'.repeat(61) }, 'donorName');
        await refused(link.slug, { message: 'm'.repeat(281) }, 'message');
        await refused(link.slug, { donorName: 'Ada\u0007' }, 'donorName');
        await refused(link.slug, { message: 'line one\nline two' }, 'message');
        await refused(link.slug, { message: 'evil \u202Etxt.exe' }, 'message');
        await refused(link.slug, { donorName: 'Ada\u0000' }, 'donorName');
        await refused(link.slug, { showPublicly: 'yes' }, 'showPublicly');
        const after = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM checkout_sessions WHERE link_id = $1', [link.id]);
        assert.equal(after.rows[0]!.n, before.rows[0]!.n);
        // At the caps exactly, they are taken.
        await give(link.slug, { fiatAmount: '5', donorName: 'n'.repeat(60), message: 'm'.repeat(280), showPublicly: true });
      });

      it('are for donations: a Standard link refuses them', async () => {
        const link = await createLink(standardLinkBody({ fiatAmount: 10, fiatCurrency: ['USD'] }));
        await refused(link.slug, { fiatAmount: undefined, donorName: 'Ada' }, 'donorName');
        await refused(link.slug, { fiatAmount: undefined, showPublicly: true }, 'showPublicly');
      });
    });

    describe('the public donors and the raised amount', () => {
      it('lists only paid donations whose donor chose to be shown, newest first, with nothing else of the customer', async () => {
        const link = await fundraiser();
        const first = await give(link.slug, { fiatAmount: '10', donorName: '  Ada  ', message: 'For the books', showPublicly: true });
        const secret = await give(link.slug, { fiatAmount: '20', donorName: 'Secret Sam', message: 'Do not tell', showPublicly: false });
        const unpaid = await give(link.slug, { fiatAmount: '30', donorName: 'Not Yet', showPublicly: true });
        const nameless = await give(link.slug, { fiatAmount: '7.5', showPublicly: true });
        await pay(first.id);
        clock.advance(1000);
        await pay(secret.id);
        clock.advance(1000);
        await pay(nameless.id);

        const items = await donors(link.slug);
        assert.deepEqual(
          items.map((item) => Object.keys(item).sort()),
          items.map(() => ['amount', 'currency', 'message', 'name', 'paidAt']),
        );
        assert.deepEqual(
          items.map(({ name, message, amount, currency }) => ({ name, message, amount, currency })),
          [
            { name: null, message: null, amount: '7.50', currency: 'USD' },
            { name: 'Ada', message: 'For the books', amount: '10.00', currency: 'USD' },
          ],
        );
        assert.ok(Date.parse(items[0]!.paidAt as string) > Date.parse(items[1]!.paidAt as string));
        assert.deepEqual(await donors(link.slug, '?limit=1'), items.slice(0, 1));

        // The private donor counts (and the unpaid one does not), but is nowhere public.
        const publicView = await view(link.slug);
        assert.equal(publicView.raised, '37.50');
        assert.equal(publicView.donorCount, 3);
        const seen = [
          JSON.stringify(publicView),
          JSON.stringify(await donors(link.slug, '?limit=50')),
          JSON.stringify((await call(t.url, 'GET', `/v1/checkout/sessions/${secret.id}`)).body),
          JSON.stringify((await call(t.url, 'GET', `/v1/checkout/sessions/${unpaid.id}`)).body),
          await fetch(`${t.url}/pay/${link.slug}`).then((response) => response.text()),
        ];
        const stream = await openEventStream(`${t.url}/v1/checkout/sessions/${secret.id}/events`);
        seen.push((await stream.next()).data);
        stream.close();
        for (const text of seen)
          for (const secretWord of ['Secret Sam', 'Do not tell', 'Not Yet']) assert.ok(!text.includes(secretWord), `${secretWord} in ${text.slice(0, 200)}`);
        // The merchant sees them all.
        const record = await call(t.url, 'GET', `/v1/checkout-session/${secret.id}`, { key });
        assert.deepEqual(
          [record.body.donorName, record.body.message, record.body.showPublicly, record.body.donorHiddenAt],
          ['Secret Sam', 'Do not tell', false, null],
        );
      });

      it('keeps a message with markup as the text it is', async () => {
        const link = await fundraiser();
        const markup = '<img src=x onerror="alert(1)"><b>bold</b> & co';
        const session = await give(link.slug, { fiatAmount: '5', donorName: '<script>x</script>', message: markup, showPublicly: true });
        await pay(session.id);
        const [item] = await donors(link.slug);
        assert.equal(item!.message, markup);
        assert.equal(item!.name, '<script>x</script>');
      });

      it('refuses a limit outside 1–50 with a 400, and answers an unknown slug with 404', async () => {
        const link = await fundraiser();
        for (const limit of ['0', '51', 'x', '-1']) {
          const response = await call(t.url, 'GET', `/v1/checkout/${link.slug}/donors?limit=${limit}`);
          assert.equal(response.status, 400, limit);
        }
        assert.equal((await call(t.url, 'GET', '/v1/checkout/Nope000000/donors')).status, 404);
      });

      it('counts a gift in another of the link’s currencies at its quote’s rate, in the price currency', async () => {
        const link = await fundraiser({ fiatCurrency: ['NGN', 'USD'], goalAmount: '1000000' });
        const usd = await give(link.slug, { fiatAmount: '10', fiatCurrency: 'USD' });
        await pay(usd.id);
        const ngn = await give(link.slug, { fiatAmount: '1000', fiatCurrency: 'NGN' });
        await pay(ngn.id);
        const publicView = await view(link.slug);
        // 10 USD at the sandbox table's 1,550 NGN a dollar, and 1,000 NGN.
        assert.equal(publicView.raised, '16500.00');
        assert.equal(publicView.donorCount, 2);
      });

      it('moves within the public view’s cache as soon as a donation is paid', async () => {
        const link = await fundraiser();
        assert.equal((await view(link.slug)).raised, '0.00'); // cached now
        const session = await give(link.slug, { fiatAmount: '12' });
        await pay(session.id);
        // The settling transaction told every link cache (its NOTIFY reaches the listener a moment after
        // the commit): well under the 2 s a cached copy lives, so the notification, not the expiry, did it.
        await eventually(async () => (await view(link.slug)).raised === '12.00', 1500, 'the gift in the cached public view');
      });
    });

    describe('hiding a donor', () => {
      it('needs the key, and only the session’s own merchant can', async () => {
        const link = await fundraiser();
        const session = await give(link.slug, { fiatAmount: '5', donorName: 'Ada', showPublicly: true });
        await pay(session.id);
        const path = `/v1/checkout-session/${session.id}/hide-donor`;
        assert.equal((await call(t.url, 'POST', path)).status, 401);
        assert.equal((await call(t.url, 'POST', path, { key: 'plk_wrong' })).status, 401);
        const other = await t.newKey();
        assert.equal((await call(t.url, 'POST', path, { key: other.key })).status, 404);
        assert.equal((await call(t.url, 'POST', '/v1/checkout-session/not-a-uuid/hide-donor', { key })).status, 404);
        assert.equal((await donors(link.slug)).length, 1, 'refused hides change nothing');

        const hidden = await call(t.url, 'POST', path, { key });
        assert.equal(hidden.status, 200, JSON.stringify(hidden.body));
        assert.equal(hidden.body.id, session.id);
        assert.ok(hidden.body.donorHiddenAt);
        assert.deepEqual(await donors(link.slug), []);
        // The gift still counts; hiding again changes nothing.
        assert.deepEqual([(await view(link.slug)).raised, (await view(link.slug)).donorCount], ['5.00', 1]);
        const again = await call(t.url, 'POST', path, { key });
        assert.equal(again.body.donorHiddenAt, hidden.body.donorHiddenAt);
      });
    });

    it('raised equals the sum of the paid and overpaid donations, whatever happens to them (property)', async () => {
      type Step = { kind: 'pay' | 'underpay' | 'overpay' | 'underpayThenTopUp' | 'expire' | 'payThenReverse'; cents: number };
      const step = fc.record({
        kind: fc.constantFrom<Step['kind']>('pay', 'underpay', 'overpay', 'underpayThenTopUp', 'expire', 'payThenReverse'),
        cents: fc.integer({ min: 100, max: 500_000 }),
      });
      const deps = { db: t.db, now: clock.now };
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
          const link = await fundraiser({ fiatCurrency: ['USD'] });
          let expected = 0;
          let count = 0;
          for (const { kind, cents } of steps) {
            const amount = (cents / 100).toFixed(2);
            const session = await give(link.slug, { fiatAmount: amount });
            // USD → USDT is 1:1 in the sandbox table: the crypto amount is the fiat amount.
            const part = (Math.max(1, Math.floor(cents / 2)) / 100).toFixed(2);
            if (kind === 'pay') await pay(session.id);
            else if (kind === 'underpay') await pay(session.id, part);
            else if (kind === 'overpay') await pay(session.id, ((cents + 1) / 100).toFixed(2));
            else if (kind === 'underpayThenTopUp') {
              await pay(session.id, part);
              await pay(session.id);
            } else if (kind === 'expire') {
              clock.advance(16 * MINUTE);
              assert.equal((await call(t.url, 'GET', `/v1/checkout/sessions/${session.id}`)).body.status, 'expired');
            } else {
              // A real chain's transfer, not final yet, that a reorg then takes back.
              await settleIncomingTransfer(deps, {
                blockchainId: 'bsc',
                txHash: hash(),
                assetId: 'USDT',
                toAddress: session.payAddress,
                amount: session.cryptoAmount,
                sandbox: false,
              });
              const { rows } = await t.db.query<{ id: string }>('SELECT id FROM chain_transfers WHERE session_id = $1', [session.id]);
              assert.ok(await t.db.transaction((tx) => reverseCredit(tx, rows[0]!.id, clock.now())));
            }
            if (kind === 'pay' || kind === 'overpay' || kind === 'underpayThenTopUp') {
              expected += cents;
              count++;
            }
          }
          const publicView = await view(link.slug);
          assert.equal(publicView.raised, (expected / 100).toFixed(2), JSON.stringify(steps));
          assert.equal(publicView.donorCount, count);
          const keyed = await call(t.url, 'GET', `/v1/payment-link/${link.id}/single`, { key });
          assert.deepEqual([keyed.body.raised, keyed.body.donorCount], [publicView.raised, count]);
          const sum = await summed(link.id);
          assert.deepEqual([Number(sum.raised), sum.n], [expected / 100, count]);
        }),
        { numRuns: 12 },
      );
    });
  });
}
