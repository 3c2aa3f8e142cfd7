/**
 * Money in through a node that answers the way nodes behind a load balancer do (a JSON-RPC proxy in
 * front of anvil): an empty `eth_getLogs` for the newest blocks until the scanner's cursor is well past
 * the payment's block; `null` for a transaction and its receipt while its block is there, before and
 * after it is credited, and `null` for that block itself. Nothing of that loses the payment or takes
 * it back: it is credited once when the node shows it, and becomes final. And a node that stops
 * answering for 15 s (on the service's clock) is logged as a 15 s outage, in JSON lines with codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hash } from 'viem';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { createLogger } from '../../../../src/server/log.js';
import { startChainScanner } from '../../../../src/server/service/money-in/index.js';
import { startRpcProxy, type RpcProxy } from '../../../support/rpc-proxy.js';
import { assertLedgerMatches, balanceOf, countRows, createUsdLink, eventually, startSession, testClock } from '../../../support/money.js';
import { backends, startTestService, type TestService } from '../../../support/service.js';
import { manualScanner, readSession, startEvmFixture, type EvmFixture } from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`EVM money in through inconsistent nodes (${backend})`, () => {
    let f: EvmFixture;
    let proxy: RpcProxy;
    let chain: RealChainAdapter;
    let t: TestService;
    let key: string;
    let integratorId: string;
    const lines: Array<{ code: string; [field: string]: unknown }> = [];
    let scanner: ReturnType<typeof manualScanner>;
    const scan = async (rounds = 1) => {
      for (let i = 0; i < rounds; i++) await scanner.runOnce();
    };
    const nextBlock = async () =>
      Number((await t.db.query<{ n: string }>(`SELECT next_block::text AS n FROM chain_cursors WHERE blockchain_id = 'bsc'`)).rows[0]!.n);
    const blockOf = async (hash: Hash) => Number((await f.t.client.getTransactionReceipt({ hash })).blockNumber);
    const credited = (sessionId: string) => countRows(t.db, 'chain_transfers', 'session_id = $1', [sessionId]);
    const newSession = async (amount: string) =>
      (await startSession(t.url, await createUsdLink(t.url, key, amount))) as { id: string; payAddress: string; cryptoAmount: string };

    before(async () => {
      f = await startEvmFixture();
      proxy = await startRpcProxy(f.t.url);
      chain = await f.adapter({ confirmations: 3, rpcUrl: proxy.url });
      t = await startTestService(backend, { chain, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
      ({ key, integratorId } = await t.newKey());
      scanner = manualScanner({ db: t.db, chain, now: () => new Date(), logger: createLogger((line) => lines.push(JSON.parse(line))) });
      await scan();
    });
    after(async () => {
      await t?.close();
      await chain?.close();
      await proxy?.close();
      await f?.stop();
    });

    it('credits, once, a payment whose logs the node hid ([]) until the scanner had read 16 blocks past it', async () => {
      const session = await newSession('3');
      const hash = await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
      const paidIn = await blockOf(hash);
      let hiding = true;
      // A lagging backend: no logs for any range that holds the payment's block.
      proxy.override(({ method, params }) => {
        const filter = params[0] as { fromBlock?: string; toBlock?: string } | undefined;
        return hiding && method === 'eth_getLogs' && Number(filter?.fromBlock) <= paidIn && Number(filter?.toBlock) >= paidIn ? { result: [] } : undefined;
      });
      try {
        while ((await nextBlock()) <= paidIn + 16) {
          await scan();
          await f.t.mine(1);
        }
        await scan();
        assert.equal((await readSession(t.url, session.id)).status, 'awaiting_payment', 'nothing seen while the node hides it');
        hiding = false;
        await f.t.mine(1);
        await scan();
        const view = await readSession(t.url, session.id);
        assert.deepEqual([view.status, view.paidAmount, view.txHash], ['paid', '3.000000', hash], 'seen when it shows, with its confirmations already');
        await scan(3);
        assert.equal(await credited(session.id), 1, 'credited once');
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        proxy.override(null);
      }
    });

    it('never drops a payment on a null receipt or transaction: it waits while its block is there, and is credited once the node answers', async () => {
      const session = await newSession('4');
      const hash = await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
      const paidIn = await blockOf(hash);
      proxy.hideTransactions([hash]);
      try {
        await scan();
        assert.equal((await readSession(t.url, session.id)).status, 'confirming', 'its log is seen');
        // Far past its confirmations (and past any fixed window behind the cursor), the node still has no receipt.
        while ((await nextBlock()) <= paidIn + 16) {
          await f.t.mine(1);
          await scan();
        }
        assert.equal((await readSession(t.url, session.id)).status, 'confirming', 'it waits: its block is still there');
        assert.ok(
          lines.some((line) => line.code === 'transfer_receipt_missing' && line.txHash === hash),
          'the log says why it waits',
        );
        proxy.hideTransactions(null);
        await f.t.mine(1);
        await scan();
        assert.deepEqual([(await readSession(t.url, session.id)).status, await credited(session.id)], ['paid', 1]);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        proxy.hideTransactions(null);
      }
    });

    it('never takes back a credited payment on a null block, receipt or transaction: it becomes final', async () => {
      const session = await newSession('5');
      const hash = await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
      const paidIn = await blockOf(hash);
      await f.t.mine(2);
      await scan();
      assert.equal((await readSession(t.url, session.id)).status, 'paid');
      const before = await balanceOf(t.url, key);
      // Credited, not final: the node now answers null for its block, its receipt and its transaction.
      proxy.hideTransactions([hash]);
      proxy.override(({ method, params }) => (method === 'eth_getBlockByNumber' && Number(params[0]) === paidIn ? { result: null } : undefined));
      try {
        for (let i = 0; i < 3; i++) {
          await f.t.mine(1);
          await scan();
        }
        assert.equal((await readSession(t.url, session.id)).status, 'paid', 'not reversed on nulls');
      } finally {
        proxy.hideTransactions(null);
        proxy.override(null);
      }
      await f.t.mine(64);
      await scan();
      const after = await balanceOf(t.url, key);
      assert.deepEqual([Number(after.available), Number(after.pending)], [Number(before.available) + Number(before.pending), 0], 'final, available');
      assert.equal(await countRows(t.db, 'ledger_entries', "kind = 'payment_reversal'"), 0);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('logs an outage as long as it lasted on the service clock, from the first failed round to the first good one, in JSON lines', async () => {
      const clock = testClock();
      const logged: Array<{ code: string; [field: string]: unknown }> = [];
      const loop = startChainScanner(
        { db: t.db, chain, now: clock.now, logger: createLogger((line) => logged.push(JSON.parse(line))) },
        { pollMs: 20, maxBackoffMs: 40 },
      );
      try {
        await proxy.setMode('down');
        await eventually(async () => logged.some((line) => line.code === 'scanner_node_unavailable'), 15_000, 'the outage logged');
        clock.advance(15_000);
        await proxy.setMode('pass');
        await eventually(async () => logged.some((line) => line.code === 'scanner_node_recovered'), 15_000, 'the recovery logged');
      } finally {
        await proxy.setMode('pass');
        await loop.stop();
      }
      const down = logged.find((line) => line.code === 'scanner_node_unavailable')!;
      assert.equal(down.level, 'warn');
      assert.equal(down.blockchainId, 'bsc');
      assert.equal(typeof (down.error as { message?: unknown } | undefined)?.message, 'string', 'the error is a field of the line');
      const up = logged.find((line) => line.code === 'scanner_node_recovered')!;
      assert.equal(up.outageSeconds, 15);
      assert.equal(logged.filter((line) => line.code === 'scanner_node_unavailable').length, 1, 'one line when it starts');
      for (const line of logged)
        assert.ok(typeof line.time === 'string' && typeof line.message === 'string' && !String(line.message).includes('\n'), JSON.stringify(line));
    });
  });
}
