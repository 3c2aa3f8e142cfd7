/**
 * POST/GET /v1/withdrawal and GET /v1/balance: the rules, reservation, idempotency, concurrency,
 * and the payout's success and failure paths. Payouts run explicitly here (`processPayouts`) so
 * each step can be observed; the background worker is covered by scale-out.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SANDBOX_FAILING_ADDRESS, sandboxPayoutHash } from '../../../../src/server/chain/sandbox/index.js';
import { createSandboxChain } from '../../../../src/server/chain/sandbox/index.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { GOOD_ADDRESS, assertLedgerMatches, balanceOf, countRows, fund, testClock } from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';

const withdraw = (t: TestService, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(t.url, 'POST', '/v1/withdrawal', { key, body, headers });

const validBody = (overrides: Record<string, unknown> = {}) => ({
  amount: '1',
  address: GOOD_ADDRESS,
  blockchainId: 'bsc',
  assetId: 'USDT',
  ...overrides,
});

for (const backend of backends()) {
  describe(`withdrawals (${backend})`, () => {
    let t: TestService;
    const clock = testClock();
    const chain = createSandboxChain();
    const payOut = () => processPayouts({ db: t.db, chain, now: clock.now }, { batchSize: 200 });

    before(async () => {
      t = await startTestService(backend, { payoutWorker: false, chain, now: clock.now });
    });
    after(() => t.close());

    /** A fresh integrator holding `amount` USDT. */
    async function fundedKey(amount: string) {
      const created = await t.newKey();
      if (amount !== '0') await fund(t.url, created.key, amount);
      return created;
    }

    it('refuses calls without a valid key (401), so no one else can spend a balance', async () => {
      const missing = await call(t.url, 'POST', '/v1/withdrawal', { body: validBody() });
      assert.equal(missing.status, 401);
      const wrong = await withdraw(t, 'pl_sk_not-a-key', validBody());
      assert.equal(wrong.status, 401);
      assert.equal((await call(t.url, 'GET', '/v1/balance')).status, 401);
    });

    it('GET /v1/balance lists USDT and CNGN at 0 for a new integrator', async () => {
      const { key } = await t.newKey();
      const response = await call(t.url, 'GET', '/v1/balance', { key });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, {
        items: [
          { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '0.000000' },
          { assetId: 'CNGN', blockchainId: 'bsc', available: '0.000000', pending: '0.000000' },
        ],
      });
    });

    it('accepts a valid withdrawal with the spec body and reserves the funds at once', async () => {
      const { key, integratorId } = await fundedKey('100');
      const response = await withdraw(t, key, validBody({ amount: 30.5 }));
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.body.status, 'success');
      assert.equal(response.body.statusCode, 200);
      assert.equal(typeof response.body.message, 'string');
      assert.match(response.body.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '69.500000', pending: '30.500000' });
      await assertLedgerMatches(t.db, integratorId);

      const record = await call(t.url, 'GET', `/v1/withdrawal/${response.body.id}`, { key });
      assert.equal(record.status, 200);
      assert.deepEqual(Object.keys(record.body).sort(), [
        'address',
        'amount',
        'assetId',
        'blockchainId',
        'createdAt',
        'failureReason',
        'id',
        'receivedAmount',
        'stalledReason',
        'status',
        'txHash',
        'updatedAt',
      ]);
      assert.equal(record.body.status, 'pending');
      assert.equal(record.body.amount, '30.500000');
      assert.equal(record.body.blockchainId, 'bsc');
      assert.equal(record.body.txHash, null);
    });

    it('pays out in the background: pending → success with a sandbox tx hash, pending funds leave', async () => {
      const { key, integratorId } = await fundedKey('50');
      const created = await withdraw(t, key, validBody({ amount: '20' }));
      assert.equal(created.status, 200);
      await payOut();
      const record = await call(t.url, 'GET', `/v1/withdrawal/${created.body.id}`, { key });
      assert.equal(record.body.status, 'success');
      assert.equal(record.body.txHash, sandboxPayoutHash(created.body.id));
      assert.match(record.body.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(record.body.failureReason, null);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '30.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, integratorId);
    });

    it('returns the funds when the payout fails (pending → failed, with a reason)', async () => {
      const { key, integratorId } = await fundedKey('50');
      const created = await withdraw(t, key, validBody({ amount: '20', address: SANDBOX_FAILING_ADDRESS }));
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '30.000000', pending: '20.000000' });
      await payOut();
      const record = await call(t.url, 'GET', `/v1/withdrawal/${created.body.id}`, { key });
      assert.equal(record.body.status, 'failed');
      assert.equal(record.body.txHash, null);
      assert.match(record.body.failureReason, /sandbox/i);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '50.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, integratorId);
      const kinds = await t.db.query<{ kind: string }>('SELECT kind FROM ledger_entries WHERE withdrawal_id = $1 ORDER BY created_at, kind', [created.body.id]);
      assert.deepEqual(kinds.rows.map((r) => r.kind).sort(), ['withdrawal_release', 'withdrawal_reserve']);
      // The worker does not touch a finished withdrawal again.
      assert.equal(await payOut(), 0);
    });

    it('accepts the network aliases, any asset case, all-lower/upper addresses and string amounts', async () => {
      const { key } = await fundedKey('10');
      const variants = [
        { blockchainId: 'BSC', assetId: 'usdt' },
        { blockchainId: 'bnb-smart-chain', address: GOOD_ADDRESS.toLowerCase() },
        { blockchainId: 'BNB Smart Chain', address: `0x${GOOD_ADDRESS.slice(2).toUpperCase()}` },
        { blockchainId: 'bep20', amount: '0.000001' },
        { blockchainId: 'BEP20', amount: 1.25 },
      ];
      for (const variant of variants) {
        const response = await withdraw(t, key, validBody(variant));
        assert.equal(response.status, 200, `${JSON.stringify(variant)} → ${JSON.stringify(response.body)}`);
      }
      const list = await call(t.url, 'GET', '/v1/withdrawal?limit=100', { key });
      assert.ok(
        list.body.items.every(
          (w: { blockchainId: string; assetId: string; address: string }) => w.blockchainId === 'bsc' && w.assetId === 'USDT' && w.address === GOOD_ADDRESS,
        ),
      );
    });

    describe('refuses bad input with a 400 naming the field, and changes nothing', () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['amount 0', { amount: 0 }, 'amount'],
        ['a negative amount', { amount: -5 }, 'amount'],
        ['an amount with 7 decimals', { amount: '1.1234567' }, 'amount'],
        ['an amount that is not a number', { amount: 'ten' }, 'amount'],
        ['an amount in exponent form', { amount: '1e3' }, 'amount'],
        ['a missing amount', { amount: undefined }, 'amount'],
        ['an unknown asset', { assetId: 'BTC' }, 'assetId'],
        ['a missing asset', { assetId: undefined }, 'assetId'],
        ['an unknown network', { blockchainId: 'ethereum' }, 'blockchainId'],
        ['an empty network', { blockchainId: '' }, 'blockchainId'],
        ['an address without 0x', { address: GOOD_ADDRESS.slice(2) }, 'address'],
        ['a short address', { address: GOOD_ADDRESS.slice(0, 41) }, 'address'],
        ['an address with a non-hex character', { address: `${GOOD_ADDRESS.slice(0, 41)}g` }, 'address'],
        ['a mixed-case address with a bad checksum', { address: GOOD_ADDRESS.replace('aAeb', 'aaeb') }, 'address'],
        ['a missing address', { address: undefined }, 'address'],
        ['a numeric address', { address: 12345 }, 'address'],
      ];
      for (const [name, overrides, path] of cases) {
        it(name, async () => {
          const { key, integratorId } = await fundedKey('5');
          const before = await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]);
          const response = await withdraw(t, key, validBody(overrides));
          assert.equal(response.status, 400, JSON.stringify(response.body));
          assert.equal(response.body.status, 'error');
          assert.equal(response.body.statusCode, 400);
          assert.ok(
            response.body.errors.some((e: { path: string }) => e.path === path),
            JSON.stringify(response.body.errors),
          );
          assert.doesNotMatch(JSON.stringify(response.body), /at .*\.ts/); // no stack trace
          assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), before);
          assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '5.000000', pending: '0.000000' });
        });
      }

      it('a body that is not JSON', async () => {
        const { key } = await fundedKey('0');
        const response = await call(t.url, 'POST', '/v1/withdrawal', { key, rawBody: '{amount: 1' });
        assert.equal(response.status, 400);
        assert.equal(response.body.code, 'invalid_json');
      });
    });

    it('refuses an amount above the available balance with 422 insufficient_balance, changing nothing', async () => {
      const { key, integratorId } = await fundedKey('10');
      const response = await withdraw(t, key, validBody({ amount: '10.000001' }));
      assert.equal(response.status, 422);
      assert.equal(response.body.code, 'insufficient_balance');
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), 0);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '10.000000', pending: '0.000000' });
      // CNGN was never funded.
      const cngn = await withdraw(t, key, validBody({ assetId: 'CNGN' }));
      assert.equal(cngn.status, 422);
      assert.equal(cngn.body.code, 'insufficient_balance');
      // Exactly the balance is fine.
      assert.equal((await withdraw(t, key, validBody({ amount: '10' }))).status, 200);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('refuses one of the merchant’s own deposit addresses with 422 own_deposit_address on address, reserving nothing', async () => {
      const { key, integratorId } = await fundedKey('50');
      const sessionId = await fund(t.url, key, '1');
      const own = (await call(t.url, 'GET', `/v1/checkout/sessions/${sessionId}`)).body.payAddress as string;
      assert.match(own, /^0x[0-9a-fA-F]{40}$/);
      for (const address of [own, own.toLowerCase()]) {
        const refused = await withdraw(t, key, validBody({ amount: '5', address }), { 'Idempotency-Key': `own-${address}` });
        assert.equal(refused.status, 422, JSON.stringify(refused.body));
        assert.equal(refused.body.code, 'own_deposit_address');
        assert.equal(refused.body.errors[0].path, 'address');
        assert.match(refused.body.errors[0].message, /own deposit addresses.*late payment.*paylink sweep/);
        // The refusal is the answer to that key, as a short balance is.
        const replay = await withdraw(t, key, validBody({ amount: '5', address }), { 'Idempotency-Key': `own-${address}` });
        assert.deepEqual(replay.body, refused.body);
      }
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), 0);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '51.000000', pending: '0.000000' });
      // Another merchant's deposit address is a payment to that merchant, not a loop: it goes out.
      const other = await fundedKey('10');
      const theirs = (await call(t.url, 'GET', `/v1/checkout/sessions/${await fund(t.url, other.key, '1')}`)).body.payAddress as string;
      assert.equal((await withdraw(t, key, validBody({ amount: '5', address: theirs }))).status, 200);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('100 concurrent withdrawals against a balance covering 40: exactly 40 succeed, the balance ends at 0', async () => {
      const { key, integratorId } = await fundedKey('100');
      const responses = await Promise.all(Array.from({ length: 100 }, () => withdraw(t, key, validBody({ amount: '2.5' }))));
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 40, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 422).length, 60);
      assert.ok(responses.filter((r) => r.status === 422).every((r) => r.body.code === 'insufficient_balance'));
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '100.000000' });
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), 40);
      await assertLedgerMatches(t.db, integratorId);
      await payOut();
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, integratorId);
    });

    it('the same Idempotency-Key sent 20 times at once moves money once; another body with it is 409', async () => {
      const { key, integratorId } = await fundedKey('100');
      const headers = { 'Idempotency-Key': 'order-42-payout' };
      const responses = await Promise.all(Array.from({ length: 20 }, () => withdraw(t, key, validBody({ amount: '7' }), headers)));
      assert.ok(
        responses.every((r) => r.status === 200),
        JSON.stringify(responses.map((r) => r.body)),
      );
      const ids = new Set(responses.map((r) => r.body.id));
      assert.equal(ids.size, 1);
      assert.equal(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 19);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '93.000000', pending: '7.000000' });
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), 1);

      // A later replay (even as a number) returns the first response.
      const replay = await withdraw(t, key, validBody({ amount: 7 }), headers);
      assert.equal(replay.status, 200);
      assert.deepEqual(replay.body, responses[0]!.body);

      const conflict = await withdraw(t, key, validBody({ amount: '8' }), headers);
      assert.equal(conflict.status, 409);
      assert.equal(conflict.body.code, 'idempotency_conflict');
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), 1);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '93.000000', pending: '7.000000' });

      // Keys belong to one integrator: another integrator's same key is its own request.
      const other = await fundedKey('10');
      assert.equal((await withdraw(t, other.key, validBody({ amount: '8' }), headers)).status, 200);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('replays a stored 422 for its Idempotency-Key, and refuses a malformed key', async () => {
      const { key } = await fundedKey('1');
      const headers = { 'Idempotency-Key': 'too-much' };
      const first = await withdraw(t, key, validBody({ amount: '5' }), headers);
      assert.equal(first.status, 422);
      await fund(t.url, key, '10');
      const replay = await withdraw(t, key, validBody({ amount: '5' }), headers);
      assert.equal(replay.status, 422);
      assert.deepEqual(replay.body, first.body);
      const bad = await withdraw(t, key, validBody(), { 'Idempotency-Key': 'x'.repeat(300) });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].path, 'Idempotency-Key');
    });

    describe('GET /v1/withdrawal', () => {
      it('lists newest first with the spec meta, pages and filters by status', async () => {
        const { key } = await fundedKey('100');
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          clock.advance(1000);
          ids.push((await withdraw(t, key, validBody({ amount: String(i + 1) }))).body.id);
        }
        clock.advance(1000);
        ids.push((await withdraw(t, key, validBody({ amount: '1', address: SANDBOX_FAILING_ADDRESS }))).body.id);
        await payOut();

        const page1 = await call(t.url, 'GET', '/v1/withdrawal?page=1&limit=4', { key });
        assert.equal(page1.status, 200);
        assert.deepEqual(page1.body.meta, { totalItems: 6, itemCount: 4, itemsPerPage: 4, totalPages: 2, currentPage: 1 });
        assert.deepEqual(
          page1.body.items.map((w: { id: string }) => w.id),
          ids.slice().reverse().slice(0, 4),
        );
        const page2 = await call(t.url, 'GET', '/v1/withdrawal?page=2&limit=4', { key });
        assert.deepEqual(page2.body.meta, { totalItems: 6, itemCount: 2, itemsPerPage: 4, totalPages: 2, currentPage: 2 });

        const defaults = await call(t.url, 'GET', '/v1/withdrawal', { key });
        assert.equal(defaults.body.meta.itemsPerPage, 20);
        const failed = await call(t.url, 'GET', '/v1/withdrawal?status=failed', { key });
        assert.deepEqual(
          failed.body.items.map((w: { id: string }) => w.id),
          [ids[5]],
        );
        const success = await call(t.url, 'GET', '/v1/withdrawal?status=success', { key });
        assert.equal(success.body.meta.totalItems, 5);
      });

      it('filters by startDate/endDate, inclusive, as dates or date-times', async () => {
        const { key } = await fundedKey('10');
        const day = (iso: string) => new Date(iso).getTime();
        const saved = clock.now().getTime();
        const at = async (iso: string) => {
          clock.advance(day(iso) - clock.now().getTime());
          return (await withdraw(t, key, validBody())).body.id as string;
        };
        const a = await at('2031-03-01T00:00:00.000Z');
        const b = await at('2031-03-02T23:59:59.999Z');
        const c = await at('2031-03-03T12:00:00.000Z');
        clock.advance(saved - clock.now().getTime());
        const ids = async (query: string) => {
          const response = await call(t.url, 'GET', `/v1/withdrawal?${query}`, { key });
          assert.equal(response.status, 200, JSON.stringify(response.body));
          return response.body.items.map((w: { id: string }) => w.id).reverse();
        };
        assert.deepEqual(await ids('startDate=2031-03-01&endDate=2031-03-02'), [a, b]);
        assert.deepEqual(await ids('startDate=2031-03-02'), [b, c]);
        assert.deepEqual(await ids('endDate=2031-03-01'), [a]);
        assert.deepEqual(await ids('startDate=2031-03-03T12:00:00Z&endDate=2031-03-03T12:00:00.000Z'), [c]);
        assert.deepEqual(await ids('startDate=2031-03-01T00:00:00.001Z&endDate=2031-03-03T11:59:59Z'), [b]);
        assert.deepEqual(await ids('startDate=2031-03-02T23:59:59.999%2B00:00'), [b, c]);
      });

      const badQueries: Array<[string, string]> = [
        ['page=0', 'page'],
        ['page=abc', 'page'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['status=done', 'status'],
        ['startDate=yesterday', 'startDate'],
        ['startDate=2031-02-30', 'startDate'],
        ['endDate=2031-13-01', 'endDate'],
        ['endDate=2031-01-01T25:00:00Z', 'endDate'],
        ['startDate=2031-03-02&endDate=2031-03-01', 'endDate'],
      ];
      for (const [query, path] of badQueries) {
        it(`refuses ${query} with a 400 naming ${path}`, async () => {
          const { key } = await fundedKey('0');
          const response = await call(t.url, 'GET', `/v1/withdrawal?${query}`, { key });
          assert.equal(response.status, 400, JSON.stringify(response.body));
          assert.ok(
            response.body.errors.some((e: { path: string }) => e.path === path),
            JSON.stringify(response.body),
          );
        });
      }

      it("GET /v1/withdrawal/{id} is 404 for another integrator's, unknown or malformed ids", async () => {
        const owner = await fundedKey('5');
        const created = await withdraw(t, owner.key, validBody());
        const stranger = await t.newKey();
        assert.equal((await call(t.url, 'GET', `/v1/withdrawal/${created.body.id}`, { key: stranger.key })).status, 404);
        assert.equal((await call(t.url, 'GET', '/v1/withdrawal/00000000-0000-4000-8000-000000000000', { key: owner.key })).status, 404);
        assert.equal((await call(t.url, 'GET', '/v1/withdrawal/not-an-id', { key: owner.key })).status, 404);
        const list = await call(t.url, 'GET', '/v1/withdrawal', { key: stranger.key });
        assert.equal(list.body.meta.totalItems, 0);
      });
    });
  });
}
