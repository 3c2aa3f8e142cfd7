/**
 * A reorganization past finality (anvil with 2 slots an epoch: its finalized block is 4 below the
 * head), after a payment became final and part of it was withdrawn and paid out: the scanner sees that
 * a block the database holds as final has another hash, halts payouts on the network (alert, error
 * line), signs nothing more there while money in is still scanned, and a restart refuses, naming the
 * network and the way out. `paylink chain resume` then reverses the vanished payment (its session
 * `reversed`, a `payment.reversed` webhook), fails the withdrawal still waiting on those funds (its
 * funds back, a `withdrawal.failed` webhook), leaves the balance owing what was paid out already
 * (`owed`, nothing withdrawable), records a checkpoint on the current chain and clears the alert; the
 * service starts again, a later payment repays the debt, and payouts go on. A session's money that
 * becomes final is announced once (`checkout.session.finalized`, `finalizedAt`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseUnits, type Address, type Hash, type Hex } from 'viem';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { runChainCommand } from '../../../../src/server/chain-command.js';
import { createLogger } from '../../../../src/server/log.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { startService, type RunningService } from '../../../../src/server/service/serve.js';
import { ChainIdentityError } from '../../../../src/server/service/money-in/index.js';
import { createApiKey } from '../../../../src/server/service/keys/index.js';
import { UsageError } from '../../../../src/server/mnemonic-file.js';
import { assertLedgerMatches, balanceOf, countRows, createUsdLink, eventually, startSession } from '../../../support/money.js';
import { createPgliteDataDir } from '../../../support/pglite-template.js';
import { backends, call, createPostgresDatabase } from '../../../support/service.js';
import { manualScanner, outgoingOf, randomAddress, readSession, startEvmFixture, type EvmFixture } from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`EVM reorganization past finality (${backend})`, () => {
    let dir: string;
    let storage: { dataDir: string; databaseUrl: string | undefined };
    let drop: (() => Promise<void>) | undefined;
    let f: EvmFixture;
    let chain: RealChainAdapter;
    let service: RunningService | undefined;
    const lines: Array<{ code: string; [field: string]: unknown }> = [];
    const logger = createLogger((line) => lines.push(JSON.parse(line)));
    const start = () => startService({ ...storage, chain, scanner: false, payoutWorker: false, webhookWorker: false, sseHeartbeatMs: 60_000, logger });

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-finality-'));
      if (backend === 'postgres') {
        const created = await createPostgresDatabase();
        storage = { dataDir: path.join(dir, 'unused'), databaseUrl: created.url };
        drop = created.drop;
      } else {
        storage = { dataDir: path.join(dir, 'data'), databaseUrl: undefined };
        await createPgliteDataDir(storage.dataDir);
      }
      f = await startEvmFixture({ extraArgs: ['--slots-in-an-epoch', '2'] });
      chain = await f.adapter({ confirmations: 1 });
      await f.t.mint(f.usdt, outgoingOf(chain).hotWallet as Address, parseUnits('1000', 18));
    });
    after(async () => {
      await service?.close();
      await chain?.close();
      await f?.stop();
      await drop?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('halts payouts, refuses to start, and resumes with the vanished payment reversed and its debt kept', async () => {
      service = await start();
      const db = () => service!.db;
      const { key, integratorId } = await db().transaction((tx) => createApiKey(tx));
      await db().query(
        `INSERT INTO webhook_endpoints (id, integrator_id, url, events, secret, created_at, updated_at) VALUES ($1, $2, 'https://merchant.example/hook', $3, 'whsec_test', now(), now())`,
        [randomUUID(), integratorId, ['checkout.session.paid', 'checkout.session.finalized', 'payment.reversed', 'withdrawal.failed']],
      );
      const scanner = () => manualScanner({ db: db(), chain, now: () => new Date(), logger });
      const scan = async (rounds = 1) => {
        const s = scanner();
        for (let i = 0; i < rounds; i++) await s.runOnce();
      };
      const withdraw = (amount: string) =>
        call(service!.url, 'POST', '/v1/withdrawal', { key, body: { amount, address: randomAddress(), blockchainId: 'bsc', assetId: 'USDT' } });
      const payOut = async (id: string) =>
        eventually(
          async () => {
            await processPayouts({ db: db(), chain, now: () => new Date(), log: logger }, { checkMs: 0 });
            return (await call(service!.url, 'GET', `/v1/withdrawal/${id}`, { key })).body.status === 'success';
          },
          20_000,
          `withdrawal ${id} paid out`,
        );
      const eventsOf = async (sessionId: string) =>
        (
          await db().query<{ type: string }>("SELECT type FROM webhook_events WHERE body::jsonb -> 'data' -> 'object' ->> 'id' = $1 ORDER BY created_at", [
            sessionId,
          ])
        ).rows.map((r) => r.type);
      await scan();

      // A payment, credited, then final: available, announced once.
      const vanishing = await startSession(service.url, await createUsdLink(service.url, key, '2'));
      const paymentHash: Hash = await f.pay(vanishing.payAddress, 'USDT', vanishing.cryptoAmount);
      const paidIn = Number((await f.t.client.getTransactionReceipt({ hash: paymentHash })).blockNumber);
      await scan();
      assert.equal((await readSession(service.url, vanishing.id)).status, 'paid');
      const unfinal = (await call(service.url, 'GET', `/v1/checkout-session/${vanishing.id}`, { key })).body;
      assert.equal(unfinal.finalizedAt, null, 'paid, not final yet');
      await f.t.mine(5);
      await scan(2);
      const final = (await call(service.url, 'GET', `/v1/checkout-session/${vanishing.id}`, { key })).body;
      assert.match(final.finalizedAt, /^\d{4}-/, 'its money is final');
      assert.deepEqual(await eventsOf(vanishing.id), ['checkout.session.paid', 'checkout.session.finalized'], 'checkout.session.finalized, once');
      assert.equal((await balanceOf(service.url, key)).available, '2.000000');

      // 1.5 of it withdrawn and paid out; the checkpoint moves past both.
      const first = await withdraw('1.5');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      await payOut(first.body.id);
      const payout = (await db().query<{ raw_transaction: Hex }>('SELECT raw_transaction FROM payout_transactions WHERE withdrawal_id = $1', [first.body.id]))
        .rows[0]!;
      await f.t.mine(6);
      await scan(2);
      const checkpoint = (await db().query<{ block: number }>(`SELECT checkpoint_block::int AS block FROM chain_networks WHERE blockchain_id = 'bsc'`))
        .rows[0]!;
      assert.ok(checkpoint.block > paidIn, `the checkpoint (${checkpoint.block}) is past the payment's block (${paidIn})`);

      // The chain is reorganized from the payment's block on, past finality: the payout stays, the payment is gone.
      const head = Number(await f.t.client.getBlockNumber());
      await f.t.reorg(head - paidIn + 1, [{ raw: payout.raw_transaction, blockOffset: 0 }]);
      await f.t.mine(6);
      assert.equal(await f.t.client.getTransactionReceipt({ hash: paymentHash }).catch(() => null), null, 'the payment is not on the chain any more');
      await scan();
      assert.ok(
        lines.some((line) => line.code === 'chain_finality_violated' && line.level === 'error' && line.blockchainId === 'bsc'),
        'the operator is told',
      );
      const networks = (await call(service.url, 'GET', '/v1/withdrawal/networks', { key })).body.items;
      assert.deepEqual(
        networks.find((n: { id: string }) => n.id === 'bsc').alerts.map((a: { code: string }) => a.code),
        ['chain_finality_violated'],
      );

      // Payouts halt: what is left of the vanished money is taken, held, and nothing is signed.
      const held = await withdraw('0.5');
      assert.equal(held.status, 200, 'a withdrawal is taken, and held');
      const signed = await countRows(db(), 'payout_transactions');
      for (let i = 0; i < 3; i++) await processPayouts({ db: db(), chain, now: () => new Date(), log: logger }, { checkMs: 0 });
      assert.equal(await countRows(db(), 'payout_transactions'), signed, 'nothing signed on a halted network');
      assert.equal((await call(service.url, 'GET', `/v1/withdrawal/${held.body.id}`, { key })).body.status, 'pending');

      // Money in is still scanned.
      const later = await startSession(service.url, await createUsdLink(service.url, key, '3'));
      await f.pay(later.payAddress, 'USDT', later.cryptoAmount);
      await scan();
      assert.equal((await readSession(service.url, later.id)).status, 'paid', 'money in goes on');

      // A restart refuses, naming the network and the way out.
      await service.close();
      service = undefined;
      await assert.rejects(start(), (error: unknown) => {
        assert.ok(error instanceof ChainIdentityError, String(error));
        assert.match(error.message, /network bsc: payouts are halted/);
        assert.match(error.message, /paylink chain resume --network bsc/);
        return true;
      });

      // The operator looked, and resumes.
      const out: string[] = [];
      const env = {
        PAYLINK_EVM_RPC_URL: f.t.url,
        PAYLINK_EVM_CHAIN_ID: String(f.t.chainId),
        PAYLINK_EVM_TOKENS: `USDT=${f.usdt},CNGN=${f.cngn}`,
        PAYLINK_EVM_CONFIRMATIONS: '1',
      };
      const code = await runChainCommand({
        action: 'resume',
        network: 'bsc',
        ...storage,
        env,
        out: (line) => out.push(line),
        err: (line) => out.push(line),
        logger,
      });
      assert.equal(code, 0, out.join('\n'));
      assert.ok(
        out.some((line) => line.includes('Reversed 2.000000 USDT') && line.includes(paymentHash)),
        out.join('\n'),
      );
      assert.ok(
        lines.some((line) => line.code === 'balance_owed' && line.owed === '1.500000'),
        'the debt is logged',
      );

      service = await start();
      assert.equal(await countRows(db(), 'network_alerts'), 0, 'the alert is cleared');
      const reversed = (await call(service.url, 'GET', `/v1/checkout-session/${vanishing.id}`, { key })).body;
      assert.deepEqual([reversed.status, reversed.reversedAmount], ['reversed', '2.000000']);
      assert.deepEqual(await eventsOf(vanishing.id), ['checkout.session.paid', 'checkout.session.finalized', 'payment.reversed']);
      const failed = (await call(service.url, 'GET', `/v1/withdrawal/${held.body.id}`, { key })).body;
      assert.equal(failed.status, 'failed', 'the withdrawal that waited on the vanished money is not paid');
      assert.match(failed.failureReason, /reorganization/);
      assert.deepEqual(await balanceOf(service.url, key), {
        assetId: 'USDT',
        blockchainId: 'bsc',
        available: '0.000000',
        pending: '3.000000',
        owed: '1.500000',
      });
      assert.equal((await withdraw('0.1')).status, 422, 'nothing can be withdrawn while the balance owes');
      await assertLedgerMatches(db(), integratorId);

      // The later payment becomes final and repays the debt; payouts go on.
      await f.t.mine(6);
      await scan(2);
      assert.deepEqual(await balanceOf(service.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '1.500000', pending: '0.000000' });
      const next = await withdraw('1');
      assert.equal(next.status, 200);
      await payOut(next.body.id);
      await assertLedgerMatches(db(), integratorId);
      const entries = (
        await db().query<{ kind: string; available: string }>(
          `SELECT e.kind, e.available_delta::text AS available FROM ledger_entries e JOIN chain_transfers c ON c.id = e.transfer_id WHERE c.session_id = $1 ORDER BY e.created_at`,
          [vanishing.id],
        )
      ).rows.map((r) => [r.kind, Number(r.available)]);
      assert.deepEqual(entries, [
        ['payment', 0],
        ['payment_final', 2],
        ['payment_reversal', -2],
      ]);
    });
  });
}

describe('paylink chain', () => {
  const options = {
    databaseUrl: undefined,
    dataDir: '/nonexistent',
    env: { PAYLINK_EVM_RPC_URL: 'http://127.0.0.1:1', PAYLINK_EVM_CHAIN_ID: '56', PAYLINK_EVM_TOKENS: `USDT=0x${'11'.repeat(20)}` },
  };
  it('says how to use it, before it opens anything: an unknown action, no --network, a network not configured', async () => {
    await assert.rejects(
      runChainCommand({ ...options, action: 'pause', network: 'bsc' }),
      (error: unknown) => error instanceof UsageError && /try "paylink chain resume --network <id>"/.test(error.message),
    );
    await assert.rejects(
      runChainCommand({ ...options, action: 'resume', network: undefined }),
      (error: unknown) => error instanceof UsageError && /needs --network/.test(error.message),
    );
    await assert.rejects(
      runChainCommand({ ...options, action: 'resume', network: 'polygon' }),
      (error: unknown) => error instanceof UsageError && /no network polygon.*configured: bsc/.test(error.message),
    );
  });
});
