/**
 * A refund's payout on a real chain (anvil, instant mining, 1 confirmation) goes through the
 * withdrawals' stored signed transactions: one nonce, one transaction stored before it is sent. A
 * process that dies between signing and sending leaves it stored; the restarted one sends those very
 * bytes, and the customer is paid once; the refund succeeds with its own ledger entries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseEventLogs, parseUnits, type Address } from 'viem';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { assertLedgerMatches, eventually } from '../../../support/money.js';
import { backends, call, type TestService } from '../../../support/service.js';
import { hookPayouts, randomAddress, startPayoutService, type EvmFixture, type PayoutService } from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`EVM refunds (${backend})`, () => {
    let setup: PayoutService;
    let f: EvmFixture;
    let base: RealChainAdapter;
    let hot: Address;
    let t: TestService;
    let key: string;
    let integratorId: string;
    let sessionId: string;

    before(async () => {
      setup = await startPayoutService(backend, '100');
      ({ f, chain: base, hot, t, key, integratorId } = setup);
      // The payment that credited the merchant: the refunds give it back.
      sessionId = (await call(t.url, 'GET', '/v1/checkout-session', { key })).body.items[0].id;
    });
    after(() => setup?.close());

    const refundOf = async (id: string) => (await call(t.url, 'GET', `/v1/refund/${id}`, { key })).body;
    const stored = (refundId: string) =>
      t.db.query<{ nonce: number; tx_hash: string; raw_transaction: string; status: string }>(
        'SELECT p.nonce::int AS nonce, p.tx_hash, p.raw_transaction, p.status FROM payout_transactions p JOIN withdrawals w ON w.id = p.withdrawal_id WHERE w.refund_id = $1',
        [refundId],
      );
    /** The hot wallet's USDT transfers to `to`, as units. */
    const paidTo = async (to: Address) => {
      const logs = await f.t.client.getLogs({
        address: f.usdt,
        event: TEST_TOKEN_ABI.find((x) => x.type === 'event' && x.name === 'Transfer')!,
        args: { from: hot, to },
        fromBlock: 0n,
      });
      return parseEventLogs({ abi: TEST_TOKEN_ABI, logs, eventName: 'Transfer' }).map((log) => log.args.value);
    };

    it('a crash between signing and sending a refund’s payout: the restart sends the same stored transaction, once', async () => {
      const to = randomAddress();
      const created = await call(t.url, 'POST', '/v1/refund', { key, body: { sessionId, amount: '7.25', address: to } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { id } = created.body;

      // The first process signs and stores the payout, then dies before the node hears of it.
      const crashing = hookPayouts(base);
      crashing.hooks.broadcastMany = () => new Promise(() => {});
      crashing.hooks.broadcast = () => new Promise(() => {});
      void processPayouts({ db: t.db, chain: crashing.chain, now: () => new Date() }, { checkMs: 60_000 });
      await eventually(async () => (await stored(id)).rows.length === 1, 10_000, 'the payout stored');
      const before = (await stored(id)).rows[0]!;
      assert.equal(before.status, 'signed', 'stored, never sent');
      assert.equal(crashing.hooks.sent.length, 0);
      const shown = await refundOf(id);
      assert.equal(shown.status, 'processing');
      assert.equal(shown.txHash, before.tx_hash, 'its transaction hash shows before it is sent');
      assert.deepEqual(await paidTo(to), []);

      // The restarted process: a new connection, the same database.
      const restarted = hookPayouts(await f.adapter({ confirmations: 1 }));
      try {
        await eventually(
          async () => {
            await processPayouts({ db: t.db, chain: restarted.chain, now: () => new Date() }, { checkMs: 0 });
            return (await refundOf(id)).status === 'success';
          },
          20_000,
          'the refund paid',
        );
        for (let round = 0; round < 2; round++) await processPayouts({ db: t.db, chain: restarted.chain, now: () => new Date() }, { checkMs: 0 });
        const after = (await stored(id)).rows;
        assert.deepEqual(
          after.map((r) => [r.nonce, r.tx_hash]),
          [[before.nonce, before.tx_hash]],
          'the same transaction',
        );
        assert.ok(restarted.hooks.sent.length > 0 && restarted.hooks.sent.every((raw) => raw === before.raw_transaction), 'only its stored bytes were sent');
        assert.deepEqual(await paidTo(to), [parseUnits('7.25', 18)], 'paid once, the exact amount');
        const paid = await refundOf(id);
        assert.deepEqual([paid.status, paid.txHash, paid.stalledReason], ['success', before.tx_hash, null]);
        const kinds = await t.db.query<{ kind: string }>('SELECT kind FROM ledger_entries WHERE refund_id = $1 ORDER BY created_at', [id]);
        assert.deepEqual(kinds.rows.map((row) => row.kind).sort(), ['refund_payout', 'refund_reserve']);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await restarted.chain.close();
      }
    });

    it('a refund’s payout that is held up says why (stalledReason), like a withdrawal’s', async () => {
      const created = await call(t.url, 'POST', '/v1/refund', { key, body: { sessionId, amount: '1', address: randomAddress() } });
      const { id } = created.body;
      // What the payouts write on a withdrawal they cannot pay yet (the hot wallet short of gas).
      await t.db.query(`UPDATE withdrawals SET stalled_reason = 'hot_wallet_gas' WHERE refund_id = $1`, [id]);
      assert.equal((await refundOf(id)).stalledReason, 'hot_wallet_gas');
      const listed = (await call(t.url, 'GET', `/v1/refund?sessionId=${sessionId}&status=pending`, { key })).body.items;
      assert.deepEqual(
        listed.map((r: { id: string; stalledReason: string }) => [r.id, r.stalledReason]),
        [[id, 'hot_wallet_gas']],
      );
      await t.db.query(`UPDATE withdrawals SET stalled_reason = NULL WHERE refund_id = $1`, [id]);
      await eventually(
        async () => {
          await processPayouts({ db: t.db, chain: base, now: () => new Date() }, { checkMs: 0 });
          return (await refundOf(id)).status === 'success';
        },
        20_000,
        'paid',
      );
    });
  });
}
