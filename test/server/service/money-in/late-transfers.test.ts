/**
 * A paid (or overpaid) session is final: a further transfer the chain reports to its deposit
 * address (a distinct transaction) is the merchant's money, credited once as `late_payment` and
 * kept in `late_amount`, but the session keeps its status, `paidAmount` and `txHash`, and the link
 * does not count another payment. `simulate-payment` on a paid session stays a 409 `already_paid`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSandboxChain } from '../../../../src/server/chain/sandbox/index.js';
import type { IncomingTransfer } from '../../../../src/server/chain/types.js';
import { withMoneyDefaults } from '../../../../src/server/service/money-deps.js';
import { settleIncomingTransfer } from '../../../../src/server/service/money-in/index.js';
import { assertLedgerMatches, balanceOf, countRows, createUsdLink, startSession } from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';

const hash = (byte: string) => `0x${byte.repeat(32)}`;

for (const backend of backends()) {
  describe(`transfers to a settled session (${backend})`, () => {
    const chain = createSandboxChain();
    let t: TestService;
    let key: string;
    let integratorId: string;
    before(async () => {
      t = await startTestService(backend, { chain, payoutWorker: false });
      ({ key, integratorId } = await t.newKey());
    });
    after(() => t.close());

    const deps = () => withMoneyDefaults({ db: t.db, chain, publicUrl: `${t.url}/pay`, now: () => new Date() });
    const transferTo = (session: { payAddress: string }, amount: string, txHash: string): IncomingTransfer => ({
      blockchainId: 'bsc',
      assetId: 'USDT',
      toAddress: session.payAddress,
      amount,
      txHash,
      sandbox: true,
    });
    const read = async (id: string) => (await call(t.url, 'GET', `/v1/checkout/sessions/${id}`)).body;
    const paymentCount = async (slug: string) =>
      (await t.db.query<{ n: number }>('SELECT payment_count::int AS n FROM payment_links WHERE slug = $1', [slug])).rows[0]!.n;

    for (const [label, firstAmount, settledStatus] of [
      ['paid', '5', 'paid'],
      ['overpaid', '6', 'overpaid'],
    ] as const) {
      it(`a chain transfer to a session already ${label} is a late_payment: status, paidAmount and txHash stay`, async () => {
        const slug = await createUsdLink(t.url, key, '5');
        const session = await startSession(t.url, slug);
        const first = hash(label === 'paid' ? 'a1' : 'b1');
        const second = hash(label === 'paid' ? 'a2' : 'b2');
        await settleIncomingTransfer(deps(), transferTo(session, firstAmount, first));
        const settled = await read(session.id);
        assert.equal(settled.status, settledStatus);
        assert.equal(settled.txHash, first);
        const countBefore = await paymentCount(slug);
        const before = await balanceOf(t.url, key);

        const result = await settleIncomingTransfer(deps(), transferTo(session, '3', second));
        assert.deepEqual(result, { sessionId: session.id, duplicate: false });
        const after = await read(session.id);
        assert.equal(after.status, settledStatus);
        assert.equal(after.paidAmount, settled.paidAmount);
        assert.equal(after.txHash, first);
        const row = await t.db.query<{ late_amount: string; paid_amount: string }>(
          'SELECT late_amount::text, paid_amount::text FROM checkout_sessions WHERE id = $1',
          [session.id],
        );
        assert.equal(Number(row.rows[0]!.late_amount), 3);
        assert.equal(Number(row.rows[0]!.paid_amount), Number(firstAmount));
        assert.equal(countBefore, 1);
        assert.equal(await paymentCount(slug), 1);

        // Credited once, as a late payment; reporting the same transfer again changes nothing.
        const balance = await balanceOf(t.url, key);
        assert.equal((Number(balance.available) - Number(before.available)).toFixed(6), '3.000000');
        const again = await settleIncomingTransfer(deps(), transferTo(session, '3', second));
        assert.equal(again.duplicate, true);
        assert.equal((await balanceOf(t.url, key)).available, balance.available);
        const kinds = await t.db.query<{ kind: string; tx_hash: string }>(
          `SELECT e.kind, c.tx_hash FROM ledger_entries e JOIN chain_transfers c ON c.id = e.transfer_id
           WHERE c.session_id = $1 ORDER BY c.received_at, c.tx_hash`,
          [session.id],
        );
        assert.deepEqual(kinds.rows, [
          { kind: 'payment', tx_hash: first },
          { kind: 'late_payment', tx_hash: second },
        ]);
        assert.equal(await countRows(t.db, 'chain_transfers', "session_id = $1 AND kind = 'late_payment'", [session.id]), 1);
        await assertLedgerMatches(t.db, integratorId);
      });
    }

    it('simulate-payment on a paid session is still 409 already_paid and credits nothing', async () => {
      const slug = await createUsdLink(t.url, key, '4');
      const session = await startSession(t.url, slug);
      const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
      assert.equal(paid.body.status, 'paid');
      const before = await balanceOf(t.url, key);
      for (const body of [{}, { amount: '1' }, { txHash: hash('c3') }]) {
        const response = await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body });
        assert.equal(response.status, 409, JSON.stringify(body));
        assert.equal(response.body.code, 'already_paid');
      }
      assert.equal((await balanceOf(t.url, key)).available, before.available);
      assert.equal((await read(session.id)).txHash, paid.body.txHash);
      await assertLedgerMatches(t.db, integratorId);
    });
  });
}
