/**
 * Payouts in batches on a real chain (anvil, instant mining, 1 confirmation): a burst of withdrawals
 * is signed and stored in a few transactions under the nonce lock and each paid exactly once, with
 * consecutive nonces, the worker woken by the POSTs themselves; a crash while a batch is on its way
 * to the node, a broadcast that fails for one transaction of a batch (for now, or for good), and a
 * node that refuses nonces ahead of a gap, never pay anyone twice nor leave the others waiting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseEventLogs, parseTransaction, parseUnits, type Address, type Hex } from 'viem';
import { TEST_TOKEN_ABI } from '../../src/server/chain/evm/test-token.js';
import { PayoutError, type BroadcastOutcome, type RealChainAdapter } from '../../src/server/chain/types.js';
import { processPayouts } from '../../src/server/service/payouts/index.js';
import { startService } from '../../src/server/service/serve.js';
import { assertLedgerMatches, balanceOf, countRows, eventually } from '../support/money.js';
import { backends, call, type TestService } from '../support/service.js';
import { hookPayouts, randomAddress, startPayoutService, type EvmFixture, type PayoutService } from '../support/evm-service.js';

for (const backend of backends()) {
  describe(`EVM payouts in batches (${backend})`, () => {
    let setup: PayoutService;
    let f: EvmFixture;
    let base: RealChainAdapter;
    let hot: Address;
    let t: TestService;
    let key: string;
    let integratorId: string;

    before(async () => {
      setup = await startPayoutService(backend);
      ({ f, chain: base, hot, t, key, integratorId } = setup);
    });
    after(() => setup?.close());

    const withdraw = async (amount: string, to: string, url = t.url) => {
      const res = await call(url, 'POST', '/v1/withdrawal', { key, body: { amount, address: to, blockchainId: 'bsc', assetId: 'USDT' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.id as string;
    };
    const statusOf = async (id: string) => (await call(t.url, 'GET', `/v1/withdrawal/${id}`, { key })).body.status as string;
    const stored = (ids: string[]) =>
      t.db.query<{ withdrawal_id: string; nonce: number; tx_hash: string; raw_transaction: string; status: string; created_at: Date }>(
        'SELECT withdrawal_id, nonce::int AS nonce, tx_hash, raw_transaction, status, created_at FROM payout_transactions WHERE withdrawal_id = ANY($1) ORDER BY nonce',
        [ids],
      );
    const nextNonce = async () => (await t.db.query<{ n: number }>('SELECT next_nonce::int AS n FROM payout_nonces')).rows[0]?.n ?? (await f.t.client.getTransactionCount({ address: hot }));
    /** The hot wallet's USDT transfers on chain since block `from`, as [recipient, units]. */
    const transfersFromHot = async (from: bigint) => {
      const logs = await f.t.client.getLogs({ address: f.usdt, event: TEST_TOKEN_ABI.find((x) => x.type === 'event' && x.name === 'Transfer')!, args: { from: hot }, fromBlock: from });
      return parseEventLogs({ abi: TEST_TOKEN_ABI, logs, eventName: 'Transfer' }).map((log) => [log.args.to.toLowerCase(), log.args.value] as const);
    };
    /** Asserts that each recipient received its amount in exactly one transfer, and nobody else anything. */
    const assertPaidOnce = async (from: bigint, paid: Array<{ to: string; amount: string }>) => {
      const onChain = await transfersFromHot(from);
      assert.deepEqual(
        onChain.map(([to, units]) => `${to} ${units}`).sort(),
        paid.map(({ to, amount }) => `${to.toLowerCase()} ${parseUnits(amount, 18)}`).sort(),
        'one transfer per withdrawal, of its amount, and no other',
      );
    };
    /** Runs payout rounds (`chain`'s) until every withdrawal of `ids` is `status`. */
    const payUntil = async (chain: RealChainAdapter, ids: string[], status = 'success') =>
      eventually(
        async () => {
          await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 });
          return (await countRows(t.db, 'withdrawals', 'id = ANY($1) AND status = $2', [ids, status])) === ids.length;
        },
        20_000,
        `${ids.length} withdrawal(s) ${status}`,
      );

    it('pays 50 concurrent withdrawals once each, with consecutive nonces, signed and stored in batches, the worker woken by the POSTs', async () => {
      // A worker that would not look for work for a minute on its own: only the POSTs wake it.
      const service = await startService({ db: t.db, chain: base, scanner: false, webhookWorker: false, payouts: { pollIntervalMs: 60_000, checkMs: 20 } });
      try {
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await nextNonce();
        const paid = Array.from({ length: 50 }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.5` }));
        const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to, service.url)));
        await eventually(async () => (await countRows(t.db, 'withdrawals', "id = ANY($1) AND status = 'success'", [ids])) === 50, 20_000, 'all 50 paid');

        const rows = (await stored(ids)).rows;
        assert.deepEqual(rows.map((r) => r.nonce), Array.from({ length: 50 }, (_, i) => start + i), 'consecutive nonces, no gap, no twin');
        assert.ok(rows.every((r) => r.status === 'success'));
        // Rows stored in one transaction share its clock reading: each round stored what had arrived, together.
        const counts = new Map<number, number>();
        for (const row of rows) counts.set(row.created_at.getTime(), (counts.get(row.created_at.getTime()) ?? 0) + 1);
        const perTransaction = [...counts.values()];
        assert.ok(perTransaction.length < 50 && Math.max(...perTransaction) > 1, `stored ${perTransaction.join(', ')} at a time`);
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 50);
        await assertPaidOnce(from, paid);
        for (const [i, id] of ids.entries()) {
          const record = (await call(t.url, 'GET', `/v1/withdrawal/${id}`, { key })).body;
          assert.equal(record.txHash, rows.find((r) => r.withdrawal_id === id)!.tx_hash, `withdrawal ${i} shows its transaction`);
        }
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await service.close();
      }
    });

    it('a crash while a stored batch is on its way to the node: the restart sends the very same transactions, and nobody is paid twice', async () => {
      const from = (await f.t.client.getBlockNumber()) + 1n;
      const start = await nextNonce();
      const paid = Array.from({ length: 6 }, (_, i) => ({ to: randomAddress(), amount: `${i + 2}` }));
      const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to)));

      // The first process reaches the node with two of the batch, then dies: its round never ends.
      const crashing = hookPayouts(base);
      let reached!: () => void;
      const twoSent = new Promise<void>((resolve) => (reached = resolve));
      crashing.hooks.broadcastMany = async (raws, send) => {
        await send(raws.slice(0, 2));
        reached();
        return new Promise(() => {});
      };
      void processPayouts({ db: t.db, chain: crashing.chain, now: () => new Date() }, { checkMs: 60_000 });
      await twoSent;
      const before = (await stored(ids)).rows;
      assert.equal(before.length, 6, 'the whole batch was stored before anything was sent');
      assert.equal(new Set(before.map((r) => r.created_at.getTime())).size, 1, 'in one transaction');
      assert.deepEqual(before.map((r) => r.nonce), Array.from({ length: 6 }, (_, i) => start + i));
      await eventually(async () => (await f.t.client.getTransactionCount({ address: hot })) === start + 2, 5_000, 'two reached the chain');

      // The restarted process: a new connection, the same database.
      const restarted = hookPayouts(await f.adapter({ confirmations: 1 }));
      try {
        await payUntil(restarted.chain, ids);
        const after = (await stored(ids)).rows;
        assert.deepEqual(
          after.map((r) => [r.withdrawal_id, r.nonce, r.tx_hash]),
          before.map((r) => [r.withdrawal_id, r.nonce, r.tx_hash]),
          'the same transactions, with the same nonces and hashes',
        );
        assert.ok(after.every((r) => r.status === 'success'));
        const storedRaws = new Set(before.map((r) => r.raw_transaction));
        assert.ok(restarted.hooks.sent.length > 0 && restarted.hooks.sent.every((raw) => storedRaws.has(raw)), 'only stored bytes were sent');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 6);
        await assertPaidOnce(from, paid);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await restarted.chain.close();
      }
    });

    it('one transaction of a batch the node did not take: the rest go, it is sent again with the same bytes, each paid once', async () => {
      const from = (await f.t.client.getBlockNumber()) + 1n;
      const start = await nextNonce();
      const paid = Array.from({ length: 5 }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.25` }));
      const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to)));
      const { chain, hooks } = hookPayouts(base);
      const attempts = new Map<string, number>();
      hooks.broadcast = async (raw) => {
        attempts.set(raw, (attempts.get(raw) ?? 0) + 1);
        // The third nonce of the batch meets a connection reset, once.
        if (parseTransaction(raw as Hex).nonce === start + 2 && attempts.get(raw) === 1) throw new Error('connection reset by the node');
      };
      await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 60_000 });
      const rows = (await stored(ids)).rows;
      assert.equal(rows.length, 5, 'the batch was stored');
      assert.deepEqual(rows.map((r) => r.status), ['sent', 'sent', 'signed', 'sent', 'sent'], 'the node took all but the third');
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 2, 'the two after the gap wait at the node');

      await payUntil(chain, ids);
      const failed = rows[2]!;
      assert.equal(attempts.get(failed.raw_transaction), 2, 'the third was sent again');
      assert.deepEqual((await stored(ids)).rows.map((r) => [r.nonce, r.tx_hash, r.status]), rows.map((r) => [r.nonce, r.tx_hash, 'success']), 'the same transactions, all paid');
      assert.ok([...attempts.keys()].every((raw) => rows.some((r) => r.raw_transaction === raw)), 'nothing but the stored bytes was sent');
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 5);
      await assertPaidOnce(from, paid);
    });

    it('a node that takes a nonce only after the one before it, the batch arriving out of order: the refused ones follow in nonce order, in the same round', async () => {
      const from = (await f.t.client.getBlockNumber()) + 1n;
      const start = await nextNonce();
      const paid = Array.from({ length: 4 }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.75` }));
      const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to)));
      const { chain, hooks } = hookPayouts(base);
      hooks.broadcastMany = async (raws, send) => {
        const answers: Array<PromiseSettledResult<BroadcastOutcome>> = new Array(raws.length);
        for (const i of [...raws.keys()].reverse()) {
          const next = await f.t.client.getTransactionCount({ address: hot, blockTag: 'pending' });
          answers[i] = parseTransaction(raws[i] as Hex).nonce! > next ? { status: 'fulfilled', value: 'nonce_gap' } : (await send([raws[i]!]))[0]!;
        }
        return answers;
      };
      await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 60_000 });
      assert.deepEqual((await stored(ids)).rows.map((r) => r.status), ['sent', 'sent', 'sent', 'sent'], 'all four taken in the first round');
      await eventually(async () => (await f.t.client.getTransactionCount({ address: hot })) === start + 4, 5_000, 'all four on chain');
      await payUntil(chain, ids);
      await assertPaidOnce(from, paid);
    });

    it('one transaction of a batch the node refuses for good: its withdrawal fails with the funds back, a filler takes its nonce, the others are paid once', async () => {
      const from = (await f.t.client.getBlockNumber()) + 1n;
      const start = await nextNonce();
      const { available } = await balanceOf(t.url, key);
      const paid = Array.from({ length: 4 }, (_, i) => ({ to: randomAddress(), amount: `${i + 3}` }));
      const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to)));
      const { chain, hooks } = hookPayouts(base);
      hooks.broadcast = async (raw) => {
        if (parseTransaction(raw as Hex).nonce === start + 1 && parseTransaction(raw as Hex).to?.toLowerCase() === f.usdt.toLowerCase()) {
          throw new PayoutError('The node refused the transaction: invalid sender');
        }
      };
      const refused = async () => (await stored(ids)).rows.find((r) => r.nonce === start + 1)!;
      await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 });
      const rejected = await refused();
      assert.equal(rejected.status, 'rejected');
      await eventually(
        async () => {
          await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 });
          return (await Promise.all(ids.map(statusOf))).every((s) => s === 'success' || s === 'failed');
        },
        20_000,
        'every withdrawal finished',
      );
      const statuses = await Promise.all(ids.map(statusOf));
      const failedAt = ids.indexOf(rejected.withdrawal_id);
      assert.deepEqual(statuses, ids.map((_, i) => (i === failedAt ? 'failed' : 'success')));
      const filler = await t.db.query<{ status: string }>("SELECT status FROM payout_transactions WHERE purpose = 'nonce_filler' AND nonce = $1", [start + 1]);
      assert.deepEqual(filler.rows, [{ status: 'success' }], 'a filler took the refused nonce');
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 4, 'no nonce left unused, none used twice');
      await assertPaidOnce(from, paid.filter((_, i) => i !== failedAt));
      const back = (Number(available) - paid.reduce((sum, p, i) => sum + (i === failedAt ? 0 : Number(p.amount)), 0)).toFixed(6);
      assert.equal((await balanceOf(t.url, key)).available, back, "the refused withdrawal's funds are back");
      await assertLedgerMatches(t.db, integratorId);
    });
  });
}
