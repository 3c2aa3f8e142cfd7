/**
 * Finality on a real chain (anvil, whose `finalized` block is 64 below its head): a payment credited
 * at its confirmations counts in the balance's `pending`, not withdrawable, until its block is
 * final, then in `available`. A 5-block reorg after crediting (3 confirmations) takes the payment
 * back: it is reversed by a ledger entry of its own (the balance still equals its entries), its
 * session says `reversed`, a `payment.reversed` webhook is written, the operator's log says so, and
 * the money never becomes withdrawable. A database used with another chain, or with a chain since
 * reset, refuses to start and says which; one whose final block the chain reorganized refuses too, and
 * halts payouts on that network (the `chain_finality_violated` alert) until `paylink chain resume`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../../src/server/db/index.js';
import { createLogger } from '../../../../src/server/log.js';
import { listAlerts } from '../../../../src/server/service/alerts/index.js';
import { ChainIdentityError, reverseCredit } from '../../../../src/server/service/money-in/index.js';
import { startService } from '../../../../src/server/service/serve.js';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { assertLedgerMatches, balanceOf, createUsdLink, startSession } from '../../../support/money.js';
import { createPgliteDataDir } from '../../../support/pglite-template.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { manualScanner, randomAddress, readSession, startEvmFixture, type EvmFixture } from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`EVM finality (${backend})`, () => {
    let f: EvmFixture;
    let chain: RealChainAdapter;
    let t: TestService;
    let key: string;
    let integratorId: string;
    const logged: Array<{ code: string; [field: string]: unknown }> = [];
    let scanner: ReturnType<typeof manualScanner>;
    const scan = async (rounds = 1) => {
      for (let i = 0; i < rounds; i++) await scanner.runOnce();
    };
    const newSession = async (amount: string) =>
      (await startSession(t.url, await createUsdLink(t.url, key, amount))) as { id: string; payAddress: string; cryptoAmount: string };
    const withdraw = (amount: string) =>
      call(t.url, 'POST', '/v1/withdrawal', { key, body: { amount, address: randomAddress(), blockchainId: 'bsc', assetId: 'USDT' } });

    before(async () => {
      f = await startEvmFixture();
      chain = await f.adapter({ confirmations: 3 });
      t = await startTestService(backend, { chain, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
      ({ key, integratorId } = await t.newKey());
      await t.db.query(
        `INSERT INTO webhook_endpoints (id, integrator_id, url, events, secret, created_at, updated_at) VALUES ($1, $2, 'https://merchant.example/hook', $3, 'whsec_test', now(), now())`,
        [randomUUID(), integratorId, ['checkout.session.paid', 'payment.reversed']],
      );
      const logger = createLogger((line) => logged.push(JSON.parse(line)));
      scanner = manualScanner({ db: t.db, chain, now: () => new Date(), logger });
      await scan();
    });
    after(async () => {
      await t?.close();
      await chain?.close();
      await f?.stop();
    });

    it('keeps a credited payment pending, not withdrawable, until its block is final; then it is available', async () => {
      const session = await newSession('4');
      await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
      await f.t.mine(2);
      await scan();
      assert.equal((await readSession(t.url, session.id)).status, 'paid');
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '4.000000' });
      const early = await withdraw('1');
      assert.equal(early.status, 422, 'pending funds cannot be withdrawn');
      assert.equal(early.body.code, 'insufficient_balance');

      await f.t.mine(64);
      await scan();
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '4.000000', pending: '0.000000' });
      await scan(2);
      assert.equal((await balanceOf(t.url, key)).available, '4.000000', 'made available once');
      await assertLedgerMatches(t.db, integratorId);
      const entries = await t.db.query<{ kind: string }>(
        'SELECT e.kind FROM ledger_entries e JOIN chain_transfers c ON c.id = e.transfer_id WHERE c.session_id = $1 ORDER BY e.created_at',
        [session.id],
      );
      assert.deepEqual(
        entries.rows.map((r) => r.kind),
        ['payment', 'payment_final'],
      );
      assert.equal((await withdraw('1')).status, 200, 'final funds can be withdrawn');
    });

    it('reverses a payment that a 5-block reorg takes back after it was credited: never withdrawable, its own ledger entry, the session reversed, a webhook and a log line', async () => {
      const before = await balanceOf(t.url, key);
      const fork = await f.t.snapshot();
      const session = await newSession('6');
      const hash = await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
      await f.t.mine(2);
      await scan();
      assert.equal((await readSession(t.url, session.id)).status, 'paid', 'credited at 3 confirmations');
      await f.t.mine(2);
      await scan();
      assert.equal(Number((await balanceOf(t.url, key)).pending), Number(before.pending) + 6);

      // The chain goes back 5 blocks (the payment's and the 4 after it) and grows another way, without it.
      await f.t.revert(fork);
      await f.t.mine(6);
      await scan();

      const reversed = await readSession(t.url, session.id);
      assert.equal(reversed.status, 'reversed');
      assert.deepEqual(await balanceOf(t.url, key), before, 'the credit left the balance');
      await assertLedgerMatches(t.db, integratorId);
      const entries = await t.db.query<{ kind: string; pending_delta: string }>(
        'SELECT e.kind, e.pending_delta::text FROM ledger_entries e JOIN chain_transfers c ON c.id = e.transfer_id WHERE c.session_id = $1 ORDER BY e.created_at',
        [session.id],
      );
      assert.deepEqual(
        entries.rows.map((r) => [r.kind, Number(r.pending_delta)]),
        [
          ['payment', 6],
          ['payment_reversal', -6],
        ],
      );
      const record = await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key });
      assert.equal(record.body.status, 'reversed');
      assert.equal(record.body.reversedAmount, '6.000000');
      const events = await t.db.query<{ type: string }>(
        "SELECT type FROM webhook_events WHERE body::jsonb -> 'data' -> 'object' ->> 'id' = $1 ORDER BY created_at",
        [session.id],
      );
      assert.deepEqual(
        events.rows.map((r) => r.type),
        ['checkout.session.paid', 'payment.reversed'],
      );
      const line = logged.find((l) => l.code === 'payment_reversed');
      assert.ok(line, 'the operator is told');
      assert.equal(line.sessionId, session.id);
      assert.equal(line.txHash, hash.toLowerCase());

      // A second reversal (another instance, or a retry after a crash) changes nothing.
      const { rows } = await t.db.query<{ id: string }>('SELECT id FROM chain_transfers WHERE session_id = $1', [session.id]);
      assert.equal(await t.db.transaction((tx) => reverseCredit(tx, rows[0]!.id, new Date())), undefined);
      // Never withdrawable, even once everything around it is final.
      await f.t.mine(70);
      await scan(2);
      assert.deepEqual(await balanceOf(t.url, key), before);
      assert.equal((await withdraw(String(Number(before.available) + 1))).status, 422);
      await assertLedgerMatches(t.db, integratorId);
    });
  });
}

describe('EVM chain identity at start', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-identity-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs a service on `f`'s chain over a new data dir until a final block is recorded, then stops it. */
  const runUntilCheckpoint = async (f: EvmFixture, dataDir: string) => {
    await createPgliteDataDir(dataDir);
    const chain = await f.adapter({ confirmations: 3 });
    const service = await startService({ dataDir, chain, scanner: false, payoutWorker: false, webhookWorker: false });
    try {
      const scanner = manualScanner({ db: service.db, chain, now: () => new Date() });
      await scanner.runOnce();
      await f.t.mine(70);
      await scanner.runOnce();
      const { rows } = await service.db.query<{ checkpoint_block: string | null }>('SELECT checkpoint_block FROM chain_networks');
      assert.ok(rows[0]?.checkpoint_block !== null, 'a final block was recorded');
    } finally {
      await service.close();
      await chain.close();
    }
  };

  it('refuses to start on a chain that was reset (same chain id, other blocks), naming the block and the way out', async () => {
    const dataDir = path.join(dir, 'reset');
    const first = await startEvmFixture();
    try {
      await runUntilCheckpoint(first, dataDir);
    } finally {
      await first.stop();
    }
    const reset = await startEvmFixture();
    const chain = await reset.adapter({ confirmations: 3 });
    try {
      await assert.rejects(startService({ dataDir, chain, scanner: false, payoutWorker: false, webhookWorker: false }), (error: unknown) => {
        assert.ok(error instanceof ChainIdentityError, String(error));
        assert.match(error.message, /network bsc: the node has no block \d+ .*reset/);
        assert.match(error.message, /fresh database/);
        return true;
      });
    } finally {
      await chain.close();
      await reset.stop();
    }
  });

  it('refuses to start on a chain reorganized past a block it held as final, and halts payouts there until resumed', async () => {
    const dataDir = path.join(dir, 'reorganized');
    const f = await startEvmFixture();
    try {
      const fork = await f.t.snapshot();
      await runUntilCheckpoint(f, dataDir);
      // Another history from before the checkpoint, longer than the first.
      await f.t.revert(fork);
      await f.t.mine(80);
      const chain = await f.adapter({ confirmations: 3 });
      try {
        await assert.rejects(
          startService({ dataDir, chain, scanner: false, payoutWorker: false, webhookWorker: false, logger: createLogger(() => {}) }),
          (error: unknown) => {
            assert.ok(error instanceof ChainIdentityError, String(error));
            assert.match(
              error.message,
              /network bsc: the node's block \d+ is 0x[0-9a-f]{64}, but this database held 0x[0-9a-f]{64} there as final: the chain was reorganized past finality/,
            );
            assert.match(error.message, /paylink chain resume --network bsc/);
            return true;
          },
        );
      } finally {
        await chain.close();
      }
      const db = await openDatabase({ dataDir });
      try {
        assert.deepEqual(
          (await listAlerts(db)).map((alert) => [alert.blockchainId, alert.code]),
          [['bsc', 'chain_finality_violated']],
          'payouts on bsc are halted',
        );
      } finally {
        await db.close();
      }
    } finally {
      await f.stop();
    }
  });

  it('refuses to start on another chain (another chain id), naming both ids', async () => {
    const dataDir = path.join(dir, 'other');
    const first = await startEvmFixture();
    try {
      await runUntilCheckpoint(first, dataDir);
    } finally {
      await first.stop();
    }
    const other = await startEvmFixture({ chainId: 1337 });
    const chain = await other.adapter({ confirmations: 3 });
    try {
      await assert.rejects(startService({ dataDir, chain, scanner: false, payoutWorker: false, webhookWorker: false }), (error: unknown) => {
        assert.ok(error instanceof ChainIdentityError, String(error));
        assert.match(error.message, /network bsc: this database was used with chain 31337, but the node serves chain 1337/);
        return true;
      });
    } finally {
      await chain.close();
      await other.stop();
    }
  });
});
