/**
 * Refunds and resolutions on the sandbox chain: a refund leaves the available balance of the session's
 * asset on its network when it is made, never more than the payment brought in less earlier refunds
 * (concurrent ones included), and is paid out like a withdrawal; the customer's claim link (its token
 * kept hashed, the address set once); cancel and failure give the amount back; the merchant accepts an
 * underpaid or late payment (`resolve`); every bad request is a clear 4xx that moves nothing. Payouts
 * run explicitly (`processPayouts`) so each step can be observed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSandboxChain, SANDBOX_FAILING_ADDRESS, sandboxPayoutHash } from '../../../../src/server/chain/sandbox/index.js';
import { paymentsCsv } from '../../../../src/components/admin/payments/payments-export.js';
import { createPaylinkProxy } from '../../../../src/server/proxy/index.js';
import { withMoneyDefaults } from '../../../../src/server/service/money-deps.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { settleIncomingTransfer } from '../../../../src/server/service/money-in/index.js';
import {
  assertLedgerMatches,
  balanceOf,
  countRows,
  createUsdLink,
  createUsdOrder,
  fund,
  GOOD_ADDRESS,
  startOrderSession,
  startSession,
  testClock,
} from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';

const CUSTOMER = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
/** `CUSTOMER` with one letter's case flipped: a broken EIP-55 checksum. */
const BAD_CHECKSUM = '0x8Ba1f109551bD432803012645Ac136ddd64DBA72';

for (const backend of backends()) {
  describe(`refunds (${backend})`, () => {
    let t: TestService;
    const clock = testClock();
    const chain = createSandboxChain();
    const payOut = () => processPayouts({ db: t.db, chain, now: clock.now }, { batchSize: 200 });
    const deps = () => withMoneyDefaults({ db: t.db, chain, publicUrl: `${t.url}/pay`, now: clock.now });

    before(async () => {
      t = await startTestService(backend, { payoutWorker: false, webhookWorker: false, chain, now: clock.now });
    });
    after(() => t.close());

    /** A fresh integrator, with an endpoint that listens to every event (no worker sends: the outbox shows what would go). */
    async function merchant() {
      const created = await t.newKey();
      await t.db.query(
        `INSERT INTO webhook_endpoints (id, integrator_id, url, events, secret, created_at, updated_at) VALUES ($1, $2, 'https://merchant.example/hook', $3, 'whsec_test', now(), now())`,
        [
          randomUUID(),
          created.integratorId,
          ['checkout.session.resolved', 'order.paid', 'refund.created', 'refund.succeeded', 'refund.failed', 'withdrawal.succeeded', 'withdrawal.failed'],
        ],
      );
      return created;
    }
    /** A link session of `price` USD paid `paid` USDT (default: in full); returns its id. */
    async function paidSession(key: string, price: string, paid = price) {
      const slug = await createUsdLink(t.url, key, price);
      const session = await startSession(t.url, slug);
      const res = await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: { amount: paid } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return session.id as string;
    }
    const refund = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      call(t.url, 'POST', '/v1/refund', { key, body, headers });
    const getRefund = async (key: string, id: string) => (await call(t.url, 'GET', `/v1/refund/${id}`, { key })).body;
    const claimView = (id: string, token?: string) =>
      call(t.url, 'GET', `/v1/checkout/refunds/${id}`, { headers: token === undefined ? {} : { 'paylink-claim': token } });
    const claim = (id: string, token: string | undefined, address: unknown) =>
      call(t.url, 'POST', `/v1/checkout/refunds/${id}/address`, { headers: token === undefined ? {} : { 'paylink-claim': token }, body: { address } });
    const tokenOf = (claimUrl: string) => claimUrl.slice(claimUrl.indexOf('#') + 1);
    const events = async (integratorId: string, type?: string) =>
      (
        await t.db.query<{ type: string; body: string }>(
          `SELECT type, body FROM webhook_events WHERE integrator_id = $1 ${type ? 'AND type = $2' : ''}`,
          type ? [integratorId, type] : [integratorId],
        )
      ).rows.map((row) => ({ type: row.type, object: JSON.parse(row.body).data.object }));
    const ledgerKinds = async (refundId: string) =>
      (await t.db.query<{ kind: string }>('SELECT kind FROM ledger_entries WHERE refund_id = $1 ORDER BY created_at, kind', [refundId])).rows.map(
        (row) => row.kind,
      );
    const sessionRecord = async (key: string, id: string) => (await call(t.url, 'GET', `/v1/checkout-session/${id}`, { key })).body;

    it('refunds a payment in full to an address: the balance is held at once, paid out like a withdrawal, shown on the session', async () => {
      const { key, integratorId } = await merchant();
      const sessionId = await paidSession(key, '25');
      const created = await refund(key, { sessionId, address: CUSTOMER, reason: 'Out of stock' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(Object.keys(created.body).sort(), [
        'address',
        'amount',
        'assetId',
        'blockchainId',
        'claimUrl',
        'createdAt',
        'failureReason',
        'id',
        'orderId',
        'reason',
        'sessionId',
        'stalledReason',
        'status',
        'txHash',
        'updatedAt',
      ]);
      assert.equal(created.body.amount, '25.000000', 'the default: all the payment brought in');
      assert.equal(created.body.status, 'pending');
      assert.equal(created.body.address, CUSTOMER);
      assert.equal(created.body.claimUrl, null);
      assert.equal(created.body.blockchainId, 'bsc');
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '25.000000' });
      assert.equal((await sessionRecord(key, sessionId)).refundedAmount, '25.000000');

      await payOut();
      const paid = await getRefund(key, created.body.id);
      assert.equal(paid.status, 'success');
      assert.equal(
        paid.txHash,
        sandboxPayoutHash((await t.db.query<{ id: string }>('SELECT id FROM withdrawals WHERE refund_id = $1', [paid.id])).rows[0]!.id),
      );
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '0.000000' });
      assert.deepEqual(await ledgerKinds(paid.id), ['refund_reserve', 'refund_payout']);
      await assertLedgerMatches(t.db, integratorId);
      assert.deepEqual((await events(integratorId)).map((event) => [event.type, event.object.status]).sort(), [
        ['refund.created', 'pending'],
        ['refund.succeeded', 'success'],
      ]);
      // Its payout is the refund's: not a withdrawal of the merchant's history, nor a withdrawal webhook.
      assert.equal((await call(t.url, 'GET', '/v1/withdrawal', { key })).body.meta.totalItems, 0);
      const record = await sessionRecord(key, sessionId);
      assert.equal(record.refundedAmount, '25.000000');
      // The payments export carries it, as the API says it.
      const [header, row] = paymentsCsv([record]).split('\r\n');
      const column = header!.split(',').indexOf('"refundedAmount"');
      assert.ok(column >= 0, 'the export has a refundedAmount column');
      assert.equal(row!.split(',')[column], '"25.000000"');
    });

    it('partial refunds that together exceed the payment are refused, whatever else the balance holds; each leaves it exactly', async () => {
      const { key, integratorId } = await merchant();
      await fund(t.url, key, '100');
      const sessionId = await paidSession(key, '10');
      assert.equal((await refund(key, { sessionId, amount: '6', address: CUSTOMER })).status, 201);
      const tooMuch = await refund(key, { sessionId, amount: '4.000001', address: CUSTOMER });
      assert.equal(tooMuch.status, 422, JSON.stringify(tooMuch.body));
      assert.equal(tooMuch.body.code, 'refund_exceeds_payment');
      assert.match(tooMuch.body.message, /4\.000000 USDT/);
      const rest = await refund(key, { sessionId, amount: '4', address: CUSTOMER });
      assert.equal(rest.status, 201);
      const none = await refund(key, { sessionId });
      assert.equal(none.status, 422);
      assert.equal(none.body.code, 'refund_exceeds_payment');
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '100.000000', pending: '10.000000' });
      assert.equal(await countRows(t.db, 'refunds', 'session_id = $1', [sessionId]), 2);
      assert.equal((await call(t.url, 'GET', `/v1/refund?sessionId=${sessionId}`, { key })).body.meta.totalItems, 2);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('concurrent refunds of one session never give back more than it brought in', async () => {
      const { key, integratorId } = await merchant();
      await fund(t.url, key, '100');
      const sessionId = await paidSession(key, '10');
      const answers = await Promise.all(Array.from({ length: 12 }, () => refund(key, { sessionId, amount: '3', address: CUSTOMER })));
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [...Array(3).fill(201), ...Array(9).fill(422)], JSON.stringify(answers.map((a) => a.body.code)));
      assert.ok(answers.filter((a) => a.status === 422).every((a) => a.body.code === 'refund_exceeds_payment'));
      assert.equal((await sessionRecord(key, sessionId)).refundedAmount, '9.000000');
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '101.000000', pending: '9.000000' });
      await assertLedgerMatches(t.db, integratorId);
    });

    it('refunds the excess of an overpaid session alone, and no more than what it brought in', async () => {
      const { key, integratorId } = await merchant();
      const sessionId = await paidSession(key, '10', '12.5');
      const record = await sessionRecord(key, sessionId);
      assert.equal(record.status, 'overpaid');
      const excess = await refund(key, { sessionId, amount: '2.5', address: CUSTOMER });
      assert.equal(excess.status, 201, JSON.stringify(excess.body));
      assert.equal(excess.body.amount, '2.500000');
      assert.equal((await sessionRecord(key, sessionId)).refundedAmount, '2.500000');
      assert.equal((await refund(key, { sessionId, amount: '10.000001' })).body.code, 'refund_exceeds_payment');
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '10.000000', pending: '2.500000' });
      await assertLedgerMatches(t.db, integratorId);
    });

    it('a claim link: the token is 256 random bits, kept only hashed, shown again to the key that made it; the customer sets the address once', async () => {
      const { key, integratorId } = await merchant();
      const sessionId = await paidSession(key, '8');
      const created = await refund(key, { sessionId, amount: '5' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.status, 'awaiting_address');
      assert.equal(created.body.address, null);
      const { claimUrl, id } = created.body;
      assert.match(claimUrl, new RegExp(`^${t.url}/pay/refund/${id}#[A-Za-z0-9_-]{43}$`));
      const token = tokenOf(claimUrl);
      // Held already, though nobody knows yet where it goes.
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '3.000000', pending: '5.000000' });

      const stored = (await t.db.query<Record<string, unknown>>('SELECT * FROM refunds WHERE id = $1', [id])).rows[0]!;
      assert.ok(!JSON.stringify(stored).includes(token), 'the database never holds the token');
      assert.equal(
        (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM idempotency_keys WHERE response_body::text LIKE $1`, [`%${token}%`])).rows[0]!.n,
        0,
      );
      assert.ok(!(await events(integratorId)).some((event) => JSON.stringify(event).includes(token)), 'no webhook carries it');
      assert.equal((await getRefund(key, id)).claimUrl, claimUrl, 'the key that made it reads the link again');
      const otherKey = await t.db.transaction(async (tx) => (await import('../../../../src/server/service/keys/index.js')).createApiKey(tx, { integratorId }));
      assert.equal((await getRefund(otherKey.key, id)).claimUrl, null, 'another key of the merchant does not');

      const view = await claimView(id, token);
      assert.equal(view.status, 200, JSON.stringify(view.body));
      assert.equal(view.headers.get('cache-control'), 'no-store');
      assert.deepEqual(
        { ...view.body, id: undefined, createdAt: undefined },
        {
          id: undefined,
          createdAt: undefined,
          status: 'awaiting_address',
          amount: '5.000000',
          assetId: 'USDT',
          blockchainId: 'bsc',
          networkName: 'BNB Smart Chain',
          chainId: null,
          title: 'Test order',
          merchantName: null,
          address: null,
          txHash: null,
          explorerUrl: null,
          sandbox: true,
        },
      );

      assert.equal((await claim(id, token, BAD_CHECKSUM)).status, 400, 'a mixed-case address must pass its checksum');
      assert.equal((await getRefund(key, id)).status, 'awaiting_address');
      const claimed = await claim(id, token, CUSTOMER.toLowerCase());
      assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
      assert.equal(claimed.body.status, 'pending');
      assert.equal(claimed.body.address, CUSTOMER, 'kept in its checksummed spelling');
      const again = await claim(id, token, GOOD_ADDRESS);
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'address_already_set');
      assert.equal((await claim(id, token, CUSTOMER)).status, 409, 'even the same address again');
      assert.equal((await getRefund(key, id)).claimUrl, null, 'a spent link is not shown any more');

      await payOut();
      const after = await claimView(id, token);
      assert.equal(after.body.status, 'success');
      assert.match(after.body.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(await countRows(t.db, 'withdrawals', 'refund_id = $1', [id]), 1, 'one payout');
      assert.deepEqual(await ledgerKinds(id), ['refund_reserve', 'refund_payout']);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('a wrong or missing claim token, or an unknown refund, learns nothing and changes nothing', async () => {
      const { key } = await merchant();
      const sessionId = await paidSession(key, '3');
      const { id, claimUrl } = (await refund(key, { sessionId })).body;
      const wrong = `${tokenOf(claimUrl).slice(0, -1)}${tokenOf(claimUrl).endsWith('A') ? 'B' : 'A'}`;
      const missing = await claimView(id);
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 'claim_token_required');
      const unknown = await claimView(randomUUID(), tokenOf(claimUrl));
      const mismatched = await claimView(id, wrong);
      assert.equal(mismatched.status, 404);
      assert.deepEqual([unknown.status, unknown.body.message], [mismatched.status, mismatched.body.message], 'the same answer as an unknown refund');
      assert.equal((await claim(id, wrong, CUSTOMER)).status, 404);
      assert.equal((await claim(id, undefined, CUSTOMER)).status, 400);
      assert.equal((await claim(id, wrong, 'not an address')).status, 404, 'the token is checked before the body');
      assert.equal((await claim(id, tokenOf(claimUrl), '0x0000000000000000000000000000000000000000')).status, 400, 'never the zero address');
      assert.equal((await getRefund(key, id)).status, 'awaiting_address');
      assert.equal(await countRows(t.db, 'withdrawals', 'refund_id = $1', [id]), 0);
    });

    it('cancel gives the amount back while the refund awaits its address; then the link is closed', async () => {
      const { key, integratorId } = await merchant();
      const sessionId = await paidSession(key, '7');
      const { id, claimUrl } = (await refund(key, { sessionId, amount: '4' })).body;
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '3.000000', pending: '4.000000' });
      const cancelled = await call(t.url, 'POST', `/v1/refund/${id}/cancel`, { key });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.status, 'cancelled');
      assert.equal(cancelled.body.claimUrl, null);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '7.000000', pending: '0.000000' });
      assert.equal((await call(t.url, 'POST', `/v1/refund/${id}/cancel`, { key })).status, 200, 'a retried cancel is safe');
      assert.deepEqual((await ledgerKinds(id)).sort(), ['refund_release', 'refund_reserve']);
      const late = await claim(id, tokenOf(claimUrl), CUSTOMER);
      assert.equal(late.status, 410);
      assert.equal(late.body.code, 'refund_cancelled');
      assert.equal((await sessionRecord(key, sessionId)).refundedAmount, '0.000000');
      // The whole payment is refundable again.
      assert.equal((await refund(key, { sessionId, address: CUSTOMER })).body.amount, '7.000000');
      const paying = (await call(t.url, 'GET', `/v1/refund?sessionId=${sessionId}&status=pending`, { key })).body.items[0];
      const refused = await call(t.url, 'POST', `/v1/refund/${paying.id}/cancel`, { key });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'refund_not_cancellable');
      await assertLedgerMatches(t.db, integratorId);
    });

    it('a failed payout fails the refund and gives its amount back', async () => {
      const { key, integratorId } = await merchant();
      const sessionId = await paidSession(key, '6');
      const { id } = (await refund(key, { sessionId, address: SANDBOX_FAILING_ADDRESS })).body;
      await payOut();
      const failed = await getRefund(key, id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.failureReason, /sandbox/i);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '6.000000', pending: '0.000000' });
      assert.deepEqual((await ledgerKinds(id)).sort(), ['refund_release', 'refund_reserve']);
      assert.equal((await sessionRecord(key, sessionId)).refundedAmount, '0.000000');
      assert.deepEqual(
        (await events(integratorId, 'refund.failed')).map((event) => event.object.id),
        [id],
      );
      assert.equal((await call(t.url, 'GET', '/v1/refund?status=failed', { key })).body.items.length, 1);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('an Idempotency-Key refunds once: a replay answers the first refund, with its link; another body is 409', async () => {
      const { key } = await merchant();
      const sessionId = await paidSession(key, '9');
      const first = await refund(key, { sessionId, amount: '2' }, { 'idempotency-key': 'refund-42' });
      const replay = await refund(key, { sessionId, amount: '2' }, { 'idempotency-key': 'refund-42' });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.body.id, first.body.id);
      assert.equal(replay.body.claimUrl, first.body.claimUrl);
      assert.equal(await countRows(t.db, 'refunds', 'session_id = $1', [sessionId]), 1);
      assert.equal((await refund(key, { sessionId, amount: '3' }, { 'idempotency-key': 'refund-42' })).status, 409);
    });

    it('refuses bad requests with a clear 4xx, moving nothing', async () => {
      const { key, integratorId } = await merchant();
      const sessionId = await paidSession(key, '5');
      const slug = await createUsdLink(t.url, key, '5');
      const unpaid = (await startSession(t.url, slug)).id;
      const other = await merchant();
      const before = await balanceOf(t.url, key);
      const cases: Array<[string, Record<string, unknown>, number, string]> = [
        ['a negative amount', { sessionId, amount: '-1' }, 400, 'validation_failed'],
        ['a 7-decimal amount', { sessionId, amount: '1.0000001' }, 400, 'validation_failed'],
        ['a zero amount', { sessionId, amount: 0 }, 400, 'validation_failed'],
        ['a bad checksum', { sessionId, address: BAD_CHECKSUM }, 400, 'validation_failed'],
        ['a malformed session id', { sessionId: 'abc' }, 400, 'validation_failed'],
        ['no session', {}, 400, 'validation_failed'],
        ['an unpaid session', { sessionId: unpaid }, 422, 'nothing_to_refund'],
        ['an unknown session', { sessionId: randomUUID() }, 404, 'not_found'],
        ['another merchant’s session', { sessionId }, 404, 'not_found'],
      ];
      for (const [what, body, status, code] of cases) {
        const answer = await refund(what === 'another merchant’s session' ? other.key : key, body);
        assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, code, what);
      }
      const deposit = (await sessionRecord(key, sessionId)).payAddress;
      const own = await refund(key, { sessionId, address: deposit });
      assert.deepEqual([own.status, own.body.code], [422, 'own_deposit_address']);
      assert.deepEqual(await balanceOf(t.url, key), before);
      assert.equal(await countRows(t.db, 'refunds', 'integrator_id = $1', [integratorId]), 0);
      assert.equal((await call(t.url, 'POST', `/v1/refund/${randomUUID()}/cancel`, { key })).status, 404);
      assert.equal((await call(t.url, 'GET', '/v1/refund?sessionId=nope', { key })).status, 400);
      assert.equal((await call(t.url, 'GET', '/v1/refund?status=lost', { key })).status, 400);
      assert.equal((await call(t.url, 'POST', '/v1/refund', { body: { sessionId } })).status, 401);
    });

    it('resolves an underpaid order into order.paid (resolution: merchant); a later transfer is late, never a second payment', async () => {
      const { key, integratorId } = await merchant();
      const order = await createUsdOrder(t.url, key, '20', `ord-${randomUUID()}`);
      const session = await startOrderSession(t.url, order.id);
      await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: { amount: '19.5' } });
      assert.equal((await sessionRecord(key, session.id)).status, 'underpaid');

      const resolved = await call(t.url, 'POST', `/v1/checkout-session/${session.id}/resolve`, { key, body: { reason: 'Paid the rest in cash' } });
      assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
      assert.equal(resolved.body.resolution, 'merchant');
      assert.equal(resolved.body.resolutionReason, 'Paid the rest in cash');
      assert.equal(resolved.body.status, 'expired', 'closed to further payments');
      const paidOrder = (await call(t.url, 'GET', `/v1/order/${order.id}`, { key })).body;
      assert.deepEqual([paidOrder.status, paidOrder.paidSessionId, paidOrder.resolution], ['paid', session.id, 'merchant']);
      const sent = await events(integratorId);
      assert.deepEqual(sent.map((event) => event.type).sort(), ['checkout.session.resolved', 'order.paid']);
      assert.ok(
        sent.every((event) => event.object.resolution === 'merchant'),
        'both say the merchant resolved it',
      );

      assert.equal((await call(t.url, 'POST', `/v1/checkout-session/${session.id}/resolve`, { key, body: {} })).status, 200, 'a retried resolve is safe');
      await settleIncomingTransfer(deps(), {
        blockchainId: 'bsc',
        assetId: 'USDT',
        toAddress: session.payAddress,
        amount: '0.5',
        txHash: `0x${'c4'.repeat(32)}`,
        sandbox: true,
      });
      const after = await sessionRecord(key, session.id);
      assert.deepEqual([after.status, after.lateAmount], ['expired', '0.500000']);
      assert.equal((await events(integratorId, 'order.paid')).length, 1, 'order.paid once');
      // Its money is refundable like any payment's: 19.5 paid, 0.5 late.
      assert.equal((await refund(key, { sessionId: session.id, address: CUSTOMER })).body.amount, '20.000000');
      assert.equal((await call(t.url, 'GET', `/v1/order/${order.id}`, { key })).body.refundedAmount, '20.000000');
      await assertLedgerMatches(t.db, integratorId);
    });

    it('resolves a late-paid link session; refuses what there is nothing to resolve', async () => {
      const { key } = await merchant();
      const slug = await createUsdLink(t.url, key, '4');
      const late = await startSession(t.url, slug);
      clock.advance(16 * 60_000);
      try {
        await settleIncomingTransfer(deps(), {
          blockchainId: 'bsc',
          assetId: 'USDT',
          toAddress: late.payAddress,
          amount: '4',
          txHash: `0x${'d5'.repeat(32)}`,
          sandbox: true,
        });
      } finally {
        clock.advance(-16 * 60_000);
      }
      const record = await sessionRecord(key, late.id);
      assert.deepEqual([record.status, record.lateAmount], ['expired', '4.000000']);
      const resolved = await call(t.url, 'POST', `/v1/checkout-session/${late.id}/resolve`, { key, body: {} });
      assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
      assert.equal(resolved.body.resolution, 'merchant');
      const links = await call(t.url, 'GET', `/v1/payment-link?q=`, { key });
      assert.equal(links.body.items.find((link: { slug: string }) => link.slug === slug).paymentCount, 1, 'the link counts the accepted payment');

      const paid = await paidSession(key, '2');
      const unpaid = (await startSession(t.url, slug)).id;
      for (const [id, code] of [
        [paid, 'already_paid'],
        [unpaid, 'nothing_paid'],
      ] as const) {
        const answer = await call(t.url, 'POST', `/v1/checkout-session/${id}/resolve`, { key, body: {} });
        assert.deepEqual([answer.status, answer.body.code], [409, code]);
      }
      assert.equal((await call(t.url, 'POST', `/v1/checkout-session/${randomUUID()}/resolve`, { key, body: {} })).status, 404);
    });

    it('serves the claim page the same for any refund: strict CSP, no referrer, no cache, English or French', async () => {
      const { key } = await merchant();
      const sessionId = await paidSession(key, '2');
      const { claimUrl, id } = (await refund(key, { sessionId })).body;
      const pagePath = new URL(claimUrl).pathname;
      assert.equal(pagePath, `/pay/refund/${id}`);
      const page = await fetch(`${t.url}${pagePath}`);
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy')!, /script-src 'self'.*require-trusted-types-for 'script'/);
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.match(html, /<html lang="en">/);
      assert.match(html, new RegExp(`<paylink-refund refund="${id}" api-base="/v1">`));
      assert.match(html, /<script type="module" src="\/dist\/paylink-refund\.js">/);
      assert.ok(!html.includes('2.000000') && !html.includes('Test order'), 'the page names nothing of the refund: the token (never sent) opens it');
      const unknown = await (await fetch(`${t.url}/pay/refund/${randomUUID()}`)).text();
      assert.equal(unknown.replace(/refund="[^"]+"/, ''), html.replace(/refund="[^"]+"/, ''), 'an unknown refund gets the same page');
      const french = await (await fetch(`${t.url}${pagePath}`, { headers: { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8' } })).text();
      assert.match(french, /<html lang="fr">[^]*<h1>Votre remboursement<\/h1>/);
    });

    it('through the proxy’s admin routes: a refund made, read and listed with the admin token', async () => {
      const { key } = await merchant();
      const sessionId = await paidSession(key, '3');
      const proxy = createPaylinkProxy({ upstream: t.url, apiKey: key, adminToken: 'admin-token-of-the-test-proxy-0123456789', allowedOrigins: [] });
      const admin = (method: string, path: string, body?: unknown) =>
        proxy(
          new Request(`http://shop.test/paylink/admin${path}`, {
            method,
            headers: {
              authorization: 'Bearer admin-token-of-the-test-proxy-0123456789',
              'content-type': 'application/json',
              'idempotency-key': `k-${path}-${method}`,
            },
            body: body === undefined ? null : JSON.stringify(body),
          }),
        );
      const created = await admin('POST', '/refund', { sessionId, amount: '1' });
      assert.equal(created.status, 201, await created.clone().text());
      const body = (await created.json()) as { id: string; claimUrl: string };
      assert.match(body.claimUrl, /\/refund\/.+#/);
      assert.equal((await admin('GET', `/refund/${body.id}`)).status, 200);
      assert.equal(((await (await admin('GET', '/refund?status=awaiting_address')).json()) as { items: unknown[] }).items.length, 1);
      assert.equal((await admin('POST', `/refund/${body.id}/cancel`)).status, 200);
      assert.equal((await admin('POST', `/checkout-session/${sessionId}/resolve`, {})).status, 409);
    });
  });
}
