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
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import { PayoutError, type BroadcastOutcome, type RealChainAdapter } from '../../../../src/server/chain/types.js';
import { createLogger } from '../../../../src/server/log.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { startService } from '../../../../src/server/service/serve.js';
import { assertLedgerMatches, balanceOf, countRows } from '../../../support/money.js';
import { backends, call, type TestService } from '../../../support/service.js';
import { hookPayouts, randomAddress, startPayoutService, waitForPayouts, type EvmFixture, type PayoutService } from '../../../support/evm-service.js';
import { startRpcProxy } from '../../../support/rpc-proxy.js';

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
    const nextNonce = async () =>
      (await t.db.query<{ n: number }>('SELECT next_nonce::int AS n FROM payout_nonces')).rows[0]?.n ??
      (await f.t.client.getTransactionCount({ address: hot }));
    /** The hot wallet's USDT transfers on chain since block `from`, as [recipient, units]. */
    const transfersFromHot = async (from: bigint) => {
      const logs = await f.t.client.getLogs({
        address: f.usdt,
        event: TEST_TOKEN_ABI.find((x) => x.type === 'event' && x.name === 'Transfer')!,
        args: { from: hot },
        fromBlock: from,
      });
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
    /** Asserts that stored transactions (lowest nonce first) have consecutive nonces from `start`. */
    const assertNoncesFrom = (rows: ReadonlyArray<{ nonce: number }>, start: number) =>
      assert.deepEqual(
        rows.map((r) => r.nonce),
        rows.map((_, i) => start + i),
        'consecutive nonces, no gap, no twin',
      );
    /** Runs payout rounds (`chain`'s) until every withdrawal of `ids` is `status`. */
    const payUntil = async (chain: RealChainAdapter, ids: string[], status = 'success') =>
      waitForPayouts(
        setup,
        async () => {
          await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 });
          return (await countRows(t.db, 'withdrawals', 'id = ANY($1) AND status = $2', [ids, status])) === ids.length;
        },
        `${ids.length} withdrawal(s) ${status}`,
        { ids },
      );

    it('pays 50 concurrent withdrawals once each, with consecutive nonces, signed and stored in batches, the worker woken by the POSTs', async () => {
      // A worker that would not look for work for a minute on its own: only the POSTs wake it.
      const service = await startService({ db: t.db, chain: base, scanner: false, webhookWorker: false, payouts: { pollIntervalMs: 60_000, checkMs: 20 } });
      try {
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await nextNonce();
        const paid = Array.from({ length: 50 }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.5` }));
        const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to, service.url)));
        await waitForPayouts(setup, async () => (await countRows(t.db, 'withdrawals', "id = ANY($1) AND status = 'success'", [ids])) === 50, 'all 50 paid', {
          ids,
        });

        const rows = (await stored(ids)).rows;
        assert.deepEqual(
          rows.map((r) => r.nonce),
          Array.from({ length: 50 }, (_, i) => start + i),
          'consecutive nonces, no gap, no twin',
        );
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

    it('a worker whose receipts read pending goes back to them every checkMs, not at its next poll a minute later', async () => {
      // The node shows the batch's receipts only from the third read on (a slow block, a lagging node):
      // the rounds that read them pending move nothing, and the worker sleeps; it must wake for them.
      const { chain, hooks } = hookPayouts(base);
      let reads = 0;
      hooks.states = async (transactions, read) => {
        reads += 1;
        return reads <= 2 ? transactions.map(() => ({ status: 'fulfilled', value: { status: 'pending' } }) as const) : read();
      };
      const service = await startService({ db: t.db, chain, scanner: false, webhookWorker: false, payouts: { pollIntervalMs: 60_000, checkMs: 20 } });
      try {
        const paid = Array.from({ length: 3 }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.75` }));
        const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to, service.url)));
        await waitForPayouts(setup, async () => (await countRows(t.db, 'withdrawals', "id = ANY($1) AND status = 'success'", [ids])) === 3, 'all 3 paid', {
          ids,
          timeoutMs: 30_000,
        });
        assert.ok(reads > 2, `the receipts were read ${reads} times`);
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
      // (Its send lease, `rebroadcastMs`, is taken as run out when the restart looks: a restart comes later.)
      void processPayouts({ db: t.db, chain: crashing.chain, now: () => new Date() }, { checkMs: 60_000, rebroadcastMs: 0 });
      await twoSent;
      const before = (await stored(ids)).rows;
      assert.equal(before.length, 6, 'the whole batch was stored before anything was sent');
      assert.equal(new Set(before.map((r) => r.created_at.getTime())).size, 1, 'in one transaction');
      assert.deepEqual(
        before.map((r) => r.nonce),
        Array.from({ length: 6 }, (_, i) => start + i),
      );
      await waitForPayouts(setup, async () => (await f.t.client.getTransactionCount({ address: hot })) === start + 2, 'two reached the chain', {
        ids,
        timeoutMs: 5_000,
      });

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
      assert.deepEqual(
        rows.map((r) => r.status),
        ['sent', 'sent', 'signed', 'sent', 'sent'],
        'the node took all but the third',
      );
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 2, 'the two after the gap wait at the node');

      await payUntil(chain, ids);
      const failed = rows[2]!;
      assert.equal(attempts.get(failed.raw_transaction), 2, 'the third was sent again');
      assert.deepEqual(
        (await stored(ids)).rows.map((r) => [r.nonce, r.tx_hash, r.status]),
        rows.map((r) => [r.nonce, r.tx_hash, 'success']),
        'the same transactions, all paid',
      );
      assert.ok(
        [...attempts.keys()].every((raw) => rows.some((r) => r.raw_transaction === raw)),
        'nothing but the stored bytes was sent',
      );
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
      assert.deepEqual(
        (await stored(ids)).rows.map((r) => r.status),
        ['sent', 'sent', 'sent', 'sent'],
        'all four taken in the first round',
      );
      await waitForPayouts(setup, async () => (await f.t.client.getTransactionCount({ address: hot })) === start + 4, 'all four on chain', {
        ids,
        timeoutMs: 5_000,
      });
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
      await waitForPayouts(
        setup,
        async () => {
          await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 });
          return (await Promise.all(ids.map(statusOf))).every((s) => s === 'success' || s === 'failed');
        },
        'every withdrawal finished',
        { ids },
      );
      const statuses = await Promise.all(ids.map(statusOf));
      const failedAt = ids.indexOf(rejected.withdrawal_id);
      assert.deepEqual(
        statuses,
        ids.map((_, i) => (i === failedAt ? 'failed' : 'success')),
      );
      const filler = await t.db.query<{ status: string }>("SELECT status FROM payout_transactions WHERE purpose = 'nonce_filler' AND nonce = $1", [start + 1]);
      assert.deepEqual(filler.rows, [{ status: 'success' }], 'a filler took the refused nonce');
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 4, 'no nonce left unused, none used twice');
      await assertPaidOnce(
        from,
        paid.filter((_, i) => i !== failedAt),
      );
      const back = (Number(available) - paid.reduce((sum, p, i) => sum + (i === failedAt ? 0 : Number(p.amount)), 0)).toFixed(6);
      assert.equal((await balanceOf(t.url, key)).available, back, "the refused withdrawal's funds are back");
      await assertLedgerMatches(t.db, integratorId);
    });

    // Two instances on one database, the machine busy: one stores a batch and is still on its way to the
    // node with it when the other's round looks for unfinished transactions. Had the other sent the
    // batch too, one of the two would have met "nonce too low" for each payout and asked every node,
    // one payout after another, whether another transaction used its nonce: at load 15 on two cores that
    // held both rounds, and every payout of the burst, for more than 90 s.
    it('a batch one instance stored and is sending is left to it by the other instances: sent by its storer alone, paid once', async () => {
      const from = (await f.t.client.getBlockNumber()) + 1n;
      const start = await nextNonce();
      const paid = Array.from({ length: 5 }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.5` }));
      const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to)));
      const storer = hookPayouts(base);
      let onItsWay!: () => void;
      const storedAndSending = new Promise<void>((resolve) => (onItsWay = resolve));
      let go!: () => void;
      const gate = new Promise<void>((resolve) => (go = resolve));
      storer.hooks.broadcastMany = async (raws, send) => {
        onItsWay();
        await gate;
        return send(raws);
      };
      const storing = processPayouts({ db: t.db, chain: storer.chain, now: () => new Date() }, { checkMs: 0, rebroadcastMs: 60_000 });
      await storedAndSending;
      const other = hookPayouts(await f.adapter({ confirmations: 1 }));
      try {
        await processPayouts({ db: t.db, chain: other.chain, now: () => new Date() }, { checkMs: 0, rebroadcastMs: 60_000 });
        assert.deepEqual(other.hooks.sent, [], 'the other instance sent none of the batch its storer is sending');
        go();
        await storing;
        assert.equal(storer.hooks.sent.length, 5, 'the storer sent its batch');
        await payUntil(other.chain, ids);
        assert.deepEqual(other.hooks.sent, [], 'taken by the node from its storer: nothing sent again');
        assertNoncesFrom((await stored(ids)).rows, start);
        await assertPaidOnce(from, paid);
      } finally {
        go();
        await other.chain.close();
      }
    });

    it('"nonce too low" to transactions mined already (sent by another instance, or an answer lost): their receipts, read together, say so; no node is asked, payout by payout, whether another transaction used the nonce', async () => {
      const from = (await f.t.client.getBlockNumber()) + 1n;
      const paid = Array.from({ length: 6 }, (_, i) => ({ to: randomAddress(), amount: `${i + 2}.75` }));
      const ids = await Promise.all(paid.map(({ to, amount }) => withdraw(amount, to)));
      // The node takes the batch (instant mining: mined), the answer is lost: the rows stay `signed`.
      const lost = hookPayouts(base);
      lost.hooks.broadcastMany = async (raws, send) => {
        await send(raws);
        return raws.map((): PromiseRejectedResult => ({ status: 'rejected', reason: new Error('connection reset after the node took the batch') }));
      };
      await processPayouts({ db: t.db, chain: lost.chain, now: () => new Date() }, { checkMs: 60_000, rebroadcastMs: 0 });
      assert.deepEqual(
        (await stored(ids)).rows.map((r) => r.status),
        ids.map(() => 'signed'),
      );
      // Sent again through a proxy that counts what the node is asked.
      const proxy = await startRpcProxy(f.t.url);
      const asked: string[] = [];
      proxy.override(({ method }) => void asked.push(method));
      const lines: Array<{ code: string }> = [];
      const counted = await f.adapter({ confirmations: 1, rpcUrl: proxy.url });
      try {
        await processPayouts(
          { db: t.db, chain: counted, now: () => new Date(), log: createLogger((line) => lines.push(JSON.parse(line))) },
          { checkMs: 0, rebroadcastMs: 0 },
        );
        assert.equal(asked.filter((method) => method === 'eth_sendRawTransaction').length, 6, 'each sent again once');
        assert.deepEqual(
          (await stored(ids)).rows.map((r) => r.status),
          ids.map(() => 'sent'),
          'each known as taken by the node',
        );
        assert.equal(asked.filter((method) => method === 'eth_getTransactionCount').length, 0, "the hot wallet's nonce was not counted for each payout");
        assert.deepEqual(
          lines.map((line) => line.code).filter((code) => code.startsWith('payout_')),
          [],
          'nothing for the operator to look into',
        );
        await payUntil(counted, ids);
        await assertPaidOnce(from, paid);
      } finally {
        await counted.close();
        await proxy.close();
      }
    });
  });
}
