/**
 * Money out through the service on a real chain: a withdrawal gets one nonce and
 * one signed transaction, stored before broadcast (its hash shown while `processing`); a retry
 * re-sends those bytes; it succeeds at N confirmations. A transfer that would revert fails at once
 * (no nonce taken), one that reverts on chain fails at N confirmations, both with the funds back.
 * A nonce taken (for good: in a final block) by a transaction the service did not sign, or a
 * transaction the node refuses for good, never stalls later payouts nor pays twice. 50 withdrawals on two instances sharing one
 * database get consecutive nonces and are each paid exactly once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createWalletClient, http, parseUnits, type Address } from 'viem';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import { PayoutError, type RealChainAdapter } from '../../../../src/server/chain/types.js';
import { openDatabase, type Database } from '../../../../src/server/db/index.js';
import { startService, type RunningService } from '../../../../src/server/service/serve.js';
import { assertLedgerMatches, balanceOf, countRows } from '../../../support/money.js';
import { backends, call, openTestDatabase } from '../../../support/service.js';
import {
  creditDirectly,
  hookPayouts,
  outgoingOf,
  randomAddress,
  startEvmFixture,
  waitForPayouts,
  type EvmFixture,
  type PayoutHooks,
} from '../../../support/evm-service.js';
import { createApiKey } from '../../../../src/server/service/keys/index.js';

const WORKER = { pollIntervalMs: 20, checkMs: 30, rebroadcastMs: 200 };

for (const backend of backends()) {
  describe(`EVM money out through the service (${backend})`, () => {
    let f: EvmFixture;
    let base: RealChainAdapter;
    let chain: RealChainAdapter;
    let hooks: PayoutHooks;
    let database: Awaited<ReturnType<typeof openTestDatabase>>;
    let service: RunningService;
    let key: string;
    let integratorId: string;
    let hot: Address;
    let miner: NodeJS.Timeout | undefined;

    before(async () => {
      f = await startEvmFixture();
      base = await f.adapter({ confirmations: 3, replaceAfterMs: 0 });
      ({ chain, hooks } = hookPayouts(base));
      hot = outgoingOf(base).hotWallet as Address;
      await f.t.mint(f.usdt, hot, parseUnits('1000000', 18));
      await f.t.mint(f.cngn, hot, parseUnits('1000000', 6));
      database = await openTestDatabase(backend);
      service = await startService({ db: database.db, chain, scanner: false, webhookWorker: false, payouts: WORKER });
      ({ key, integratorId } = await database.db.transaction((tx) => createApiKey(tx)));
      // An endpoint that listens (no worker sends to it here), so the webhook outbox is written.
      await database.db.query(
        `INSERT INTO webhook_endpoints (id, integrator_id, url, events, secret, created_at, updated_at) VALUES ($1, $2, 'https://merchant.example/hook', $3, 'whsec_test', now(), now())`,
        [randomUUID(), integratorId, ['withdrawal.succeeded', 'withdrawal.failed']],
      );
      await creditDirectly({ url: service.url, db: database.db }, chain, key, '5000');
      await creditDirectly({ url: service.url, db: database.db }, chain, key, '100', 'CNGN');
    });
    after(async () => {
      clearInterval(miner);
      await service?.close();
      await database?.close();
      await base?.close?.();
      await f?.stop();
    });

    const withdraw = async (amount: string, address: string, url = service.url, assetId = 'USDT') => {
      const res = await call(url, 'POST', '/v1/withdrawal', { key, body: { amount, address, blockchainId: 'bsc', assetId } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.id as string;
    };
    const record = async (id: string) => (await call(service.url, 'GET', `/v1/withdrawal/${id}`, { key })).body;
    /** Mines a block every `ms` until `check` holds; timed out, says where the payouts of `ids` (and any other unfinished) were. */
    const mineUntil = (check: () => Promise<boolean>, what: string, ids: readonly string[], ms = 60, timeoutMs = 30_000) =>
      waitForPayouts({ db: database.db, f, hot }, check, what, { ids, mineEveryMs: ms, timeoutMs });
    /** Polls until `check` holds; timed out, says where the payouts of `ids` were. */
    const until = (check: () => Promise<boolean>, what: string, ids: readonly string[]) => waitForPayouts({ db: database.db, f, hot }, check, what, { ids });
    const stored = (withdrawalId: string) =>
      database.db.query<{ nonce: number; tx_hash: string; status: string; raw_transaction: string }>(
        'SELECT nonce::int AS nonce, tx_hash, status, raw_transaction FROM payout_transactions WHERE withdrawal_id = $1 ORDER BY created_at',
        [withdrawalId],
      );
    /** The webhook events written for a withdrawal: type, and the status and hash of the object they carry. */
    const webhooksOf = async (withdrawalId: string) =>
      (
        await database.db.query<{ type: string; body: string }>(
          "SELECT type, body FROM webhook_events WHERE body::jsonb -> 'data' -> 'object' ->> 'id' = $1 ORDER BY created_at",
          [withdrawalId],
        )
      ).rows.map((row) => [row.type, JSON.parse(row.body).data.object.status, JSON.parse(row.body).data.object.txHash]);
    const tokenUnits = (address: string, token = f.usdt) =>
      f.t.client.readContract({ address: token, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [address as Address] });

    it('pays a withdrawal with one stored signed transaction, shown while processing, done at 3 confirmations', async () => {
      const to = randomAddress();
      const nonceBefore = await f.t.client.getTransactionCount({ address: hot });
      const id = await withdraw('12.5', to);
      let processing: { status: string; txHash: string | null } | undefined;
      await mineUntil(
        async () => {
          const r = await record(id);
          if (r.status === 'processing' && r.txHash) processing ??= r;
          return r.status === 'success';
        },
        'success',
        [id],
      );
      const done = await record(id);
      const rows = (await stored(id)).rows;
      assert.equal(rows.length, 1, 'one stored transaction');
      assert.equal(rows[0]!.status, 'success');
      assert.equal(rows[0]!.nonce, nonceBefore, "the hot wallet's next nonce");
      assert.equal(done.txHash, rows[0]!.tx_hash);
      assert.equal(processing?.txHash, rows[0]!.tx_hash, 'the hash is shown while the payout confirms');
      assert.equal(await tokenUnits(to), parseUnits('12.5', 18));
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), nonceBefore + 1);
      const receipt = await f.t.client.getTransactionReceipt({ hash: rows[0]!.tx_hash as `0x${string}` });
      assert.equal(receipt.status, 'success');
      assert.deepEqual(await webhooksOf(id), [['withdrawal.succeeded', 'success', rows[0]!.tx_hash]], 'the merchant hears of it once, when it succeeded');
      await assertLedgerMatches(database.db, integratorId);
    });

    it('a retry re-sends the same stored transaction; a repeat broadcast of it changes nothing', async () => {
      let failures = 2;
      hooks.broadcast = async () => {
        if (failures-- > 0) throw new Error('connection reset by the node');
      };
      hooks.sent.length = 0;
      const to = randomAddress();
      const id = await withdraw('3', to, service.url, 'CNGN');
      try {
        await mineUntil(async () => (await record(id)).status === 'success', 'success', [id]);
      } finally {
        hooks.broadcast = null;
      }
      const rows = (await stored(id)).rows;
      assert.equal(rows.length, 1);
      assert.ok(hooks.sent.filter((raw) => raw === rows[0]!.raw_transaction).length >= 1);
      assert.deepEqual(new Set(hooks.sent), new Set([rows[0]!.raw_transaction]), 'every broadcast sent the same bytes');
      // The node is asked again for the mined transaction: "nonce too low", and nothing moves.
      assert.ok(['nonce_too_low', 'already_known'].includes(await outgoingOf(base).broadcast(rows[0]!.raw_transaction)));
      await f.t.mine(1);
      assert.equal(await tokenUnits(to, f.cngn), parseUnits('3', 6));
      assert.equal((await record(id)).status, 'success');
    });

    it('fails at once, funds back and no nonce taken, a transfer that would revert (the token is paused)', async () => {
      const next = await database.db.query<{ n: number }>('SELECT next_nonce::int AS n FROM payout_nonces');
      const { available } = await balanceOf(service.url, key);
      await f.t.setTokenPaused(f.usdt, true);
      try {
        const id = await withdraw('1', randomAddress());
        await mineUntil(async () => (await record(id)).status === 'failed', 'failed', [id]);
        assert.match((await record(id)).failureReason, /cannot be sent.*revert/i);
        assert.equal((await stored(id)).rows.length, 0);
      } finally {
        await f.t.setTokenPaused(f.usdt, false);
      }
      assert.deepEqual((await database.db.query('SELECT next_nonce::int AS n FROM payout_nonces')).rows, next.rows, 'no nonce was taken');
      assert.equal((await balanceOf(service.url, key)).available, available);
      await assertLedgerMatches(database.db, integratorId);
    });

    it('fails a transfer that reverts on chain once it has its confirmations, funds back', async () => {
      const { available } = await balanceOf(service.url, key);
      await f.t.setAutomine(false);
      let id = '';
      try {
        id = await withdraw('2', randomAddress());
        // Its transaction waits in the mempool; the token owner pauses the token ahead of it (a higher tip).
        await until(async () => (await stored(id)).rows[0]?.status === 'sent', 'the payout broadcast', [id]);
        const owner = createWalletClient({ account: f.t.accounts[0]!, transport: http(f.t.url) });
        await owner.writeContract({
          address: f.usdt,
          abi: TEST_TOKEN_ABI,
          functionName: 'setTransfersPaused',
          args: [true],
          chain: null,
          maxPriorityFeePerGas: parseUnits('50', 9),
          maxFeePerGas: parseUnits('100', 9),
        });
        await f.t.mine(1);
      } finally {
        await f.t.setAutomine(true);
        await f.t.setTokenPaused(f.usdt, false);
      }
      await mineUntil(async () => (await record(id)).status === 'failed', 'failed', [id]);
      const failed = await record(id);
      assert.match(failed.failureReason, /reverted on chain/);
      assert.equal((await stored(id)).rows[0]!.status, 'reverted');
      assert.deepEqual(await webhooksOf(id), [['withdrawal.failed', 'failed', (await stored(id)).rows[0]!.tx_hash]]);
      assert.equal((await balanceOf(service.url, key)).available, available, 'the funds are back');
      await assertLedgerMatches(database.db, integratorId);
    });

    it('signs again, with a fresh nonce, a payout whose nonce another transaction of the hot wallet used; pays once', async () => {
      let open = false;
      hooks.broadcast = async () => {
        if (!open) throw new Error('node unreachable');
      };
      const to = randomAddress();
      const id = await withdraw('4', to);
      try {
        await until(async () => (await stored(id)).rows[0] !== undefined, 'the payout signed', [id]);
        // Someone uses the hot wallet's key elsewhere: that nonce is gone, for good once its block is final.
        const foreign = createWalletClient({ account: hot, transport: http(f.t.url) });
        await f.t.mined(await foreign.sendTransaction({ to: hot, value: 1n, chain: null }));
        await f.t.mine(64);
        open = true;
        // The other transaction's block must become final after the service first finds the nonce
        // used, and then the finalized block move on once more: 65 blocks or so, 8 a look, so a busy
        // machine's slow looks do not stretch the wait past its bound.
        await mineUntil(
          async () => {
            await f.t.mine(8);
            return (await record(id)).status === 'success';
          },
          'success',
          [id],
        );
      } finally {
        hooks.broadcast = null;
      }
      const rows = (await stored(id)).rows;
      assert.deepEqual(
        rows.map((r) => r.status),
        ['replaced', 'success'],
      );
      assert.ok(rows[1]!.nonce > rows[0]!.nonce);
      assert.equal((await record(id)).txHash, rows[1]!.tx_hash);
      assert.equal(await tokenUnits(to), parseUnits('4', 18), 'paid once');
    });

    it('fails a payout the node refuses for good, fills its nonce, and the next payout still goes out', async () => {
      const { available } = await balanceOf(service.url, key);
      let refuse = true;
      hooks.broadcast = async () => {
        if (refuse) {
          refuse = false;
          throw new PayoutError('The node refused the transaction: invalid sender');
        }
      };
      const id = await withdraw('5', randomAddress());
      try {
        await mineUntil(async () => (await record(id)).status === 'failed', 'failed', [id]);
      } finally {
        hooks.broadcast = null;
      }
      const rejected = (await stored(id)).rows[0]!;
      assert.equal(rejected.status, 'rejected');
      assert.match((await record(id)).failureReason, /refused/);
      assert.equal((await balanceOf(service.url, key)).available, available);
      await mineUntil(
        async () =>
          (await database.db.query(`SELECT 1 FROM payout_transactions WHERE purpose = 'nonce_filler' AND nonce = $1 AND status = 'success'`, [rejected.nonce]))
            .rows.length === 1,
        'the filler',
        [id],
      );
      const to = randomAddress();
      const next = await withdraw('1', to);
      await mineUntil(async () => (await record(next)).status === 'success', 'the next payout', [next]);
      assert.equal(await tokenUnits(to), parseUnits('1', 18));
      await assertLedgerMatches(database.db, integratorId);
    });

    it('at start, reconciles what a stopped service left pending: mined meanwhile → finished from its receipt, never sent again', async () => {
      const { available } = await balanceOf(service.url, key);
      const to = [randomAddress(), randomAddress()];
      const ids = [await withdraw('6', to[0]!), await withdraw('7', to[1]!)];
      // Broadcast (instant mining: mined at once), short of its 3 confirmations, when the service stops.
      await until(async () => (await Promise.all(ids.map(stored))).every((r) => r.rows[0] && r.rows[0].status !== 'signed'), 'both payouts broadcast', ids);
      await service.close();
      for (const id of ids)
        assert.equal((await database.db.query<{ status: string }>('SELECT status FROM withdrawals WHERE id = $1', [id])).rows[0]!.status, 'processing');
      await f.t.mine(5); // confirmed while nobody watched
      hooks.sent.length = 0;
      service = await startService({ db: database.db, chain, scanner: false, webhookWorker: false, payouts: WORKER });
      await until(
        async () => (await Promise.all(ids.map(record))).every((r) => r.status === 'success'),
        'the restarted service to finish both without a new block',
        ids,
      );
      assert.deepEqual(hooks.sent, [], 'read from the receipts: nothing broadcast again');
      for (const [i, id] of ids.entries()) {
        const rows = (await stored(id)).rows;
        assert.deepEqual(
          rows.map((r) => r.status),
          ['success'],
        );
        assert.equal((await record(id)).txHash, rows[0]!.tx_hash);
        assert.equal(await tokenUnits(to[i]!), parseUnits(i ? '7' : '6', 18), 'paid once');
      }
      assert.equal((await balanceOf(service.url, key)).available, (Number(available) - 13).toFixed(6));
      await assertLedgerMatches(database.db, integratorId);
    });

    it('50 concurrent withdrawals on two instances of one database: consecutive nonces, each paid exactly once', async () => {
      const secondDb: Database = database.url ? await openDatabase({ databaseUrl: database.url }) : database.db;
      const secondChain = hookPayouts(await f.adapter({ confirmations: 3 })).chain;
      const second = await startService({ db: secondDb, chain: secondChain, scanner: false, webhookWorker: false, payouts: WORKER });
      try {
        const start = (await database.db.query<{ n: number }>('SELECT next_nonce::int AS n FROM payout_nonces')).rows[0]!.n;
        const recipients = Array.from({ length: 50 }, () => randomAddress());
        const amounts = recipients.map((_, i) => `${i + 1}.25`);
        const ids = await Promise.all(recipients.map((to, i) => withdraw(amounts[i]!, to, i % 2 ? service.url : second.url)));
        miner = setInterval(() => void f.t.mine(1).catch(() => {}), 100);
        await mineUntil(
          async () => (await countRows(database.db, 'withdrawals', "id = ANY($1) AND status = 'success'", [ids])) === 50,
          'all 50 withdrawals',
          ids,
          100,
          90_000,
        );
        clearInterval(miner);
        const rows = await database.db.query<{ nonce: number; status: string; withdrawal_id: string }>(
          'SELECT nonce::int AS nonce, status, withdrawal_id FROM payout_transactions WHERE withdrawal_id = ANY($1) ORDER BY nonce',
          [ids],
        );
        assert.equal(rows.rows.length, 50, 'one stored transaction each');
        assert.deepEqual(
          rows.rows.map((r) => r.nonce),
          Array.from({ length: 50 }, (_, i) => start + i),
          'consecutive nonces, no gap, no twin',
        );
        assert.ok(rows.rows.every((r) => r.status === 'success'));
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 50);
        for (const [i, to] of recipients.entries()) assert.equal(await tokenUnits(to), parseUnits(amounts[i]!, 18), `recipient ${i} got its amount once`);
        await assertLedgerMatches(database.db, integratorId);
      } finally {
        clearInterval(miner);
        await second.close();
        await secondChain.close?.();
        if (secondDb !== database.db) await secondDb.close();
      }
    });
  });
}
