/**
 * Reconciliation on real chains: two anvil networks (bsc behind a JSON-RPC proxy that can leave a
 * transaction's logs out of `eth_getLogs`, as a node whose log index lacks them; polygon straight), with
 * Multicall3 at its usual address, the service's books held against every deposit address's balance at
 * the final block. A transfer the scanner never sees is found in its block's receipts and credited once;
 * money the books cannot explain (a balance set without any transfer) is raised once (error line, the
 * network's alert, one webhook) and cleared when the chain and the books agree again; a sweep between
 * runs is money out of the address, not a hole in it; every address is reconciled on every network.
 * Reconciliation is driven by hand (`runOnce`), like the scanner.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parseUnits, type Address } from 'viem';
import { connectEvmAdapter } from '../../../../src/server/chain/evm/adapter.js';
import { MULTICALL3_ADDRESS } from '../../../../src/server/chain/evm/balances.js';
import { connectEvmChain } from '../../../../src/server/chain/evm/connect.js';
import { parseEvmNetworks } from '../../../../src/server/chain/evm/config.js';
import { sweepDeposits } from '../../../../src/server/chain/evm/sweep.js';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { createLogger } from '../../../../src/server/log.js';
import { createReconciler, recordSweepTransfer, settleSweepTransfer } from '../../../../src/server/service/reconciliation/index.js';
import { startService } from '../../../../src/server/service/serve.js';
import { DEPOSIT_MNEMONIC } from '../../../support/anvil.js';
import { assertLedgerMatches, createUsdLink, eventually, startSession } from '../../../support/money.js';
import { startRpcProxy, type RpcProxy } from '../../../support/rpc-proxy.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { manualScanner, networksEnv, readSession, startEvmFixture, type EvmFixture } from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`reconciliation of deposit addresses with the chain (${backend})`, () => {
    let bsc: EvmFixture;
    let polygon: EvmFixture;
    let proxy: RpcProxy;
    let chain: RealChainAdapter;
    let t: TestService;
    let key: string;
    let integratorId: string;
    let logged: Array<{ code: string; level: string; [field: string]: unknown }> = [];
    const logger = createLogger((line) => logged.push(JSON.parse(line)));
    const now = () => new Date();
    let scanners: Record<'bsc' | 'polygon', ReturnType<typeof manualScanner>>;
    const fixture = (network: 'bsc' | 'polygon') => (network === 'bsc' ? bsc : polygon);
    const reconciler = () => createReconciler({ db: t.db, chain, now, logger });
    const reconcile = async () => Object.fromEntries((await reconciler().runOnce()).map((run) => [run.blockchainId, run]));
    /** Blocks on `network` until everything so far is final there (anvil's finalized block is 64 below its head). */
    const makeFinal = (network: 'bsc' | 'polygon') => fixture(network).t.mine(65);
    const newSession = async (amount: string, blockchainId: 'bsc' | 'polygon' = 'bsc') =>
      (await startSession(t.url, await createUsdLink(t.url, key, amount), { assetId: 'USDT', blockchainId })) as {
        id: string;
        payAddress: Address;
        cryptoAmount: string;
      };
    /** Pays `session` on its network and lets the scanner credit it. */
    const payAndCredit = async (session: { id: string; payAddress: Address; cryptoAmount: string }, network: 'bsc' | 'polygon' = 'bsc') => {
      await fixture(network).pay(session.payAddress, 'USDT', session.cryptoAmount);
      await fixture(network).t.mine(2);
      await scanners[network].runOnce();
      assert.equal((await readSession(t.url, session.id)).status, 'paid');
    };
    const creditsOf = async (sessionId: string) => (await t.db.query('SELECT 1 FROM chain_transfers WHERE session_id = $1', [sessionId])).rows.length;
    const mismatchEvents = async () =>
      (await t.db.query<{ body: string }>("SELECT body FROM webhook_events WHERE type = 'reconciliation.mismatch' ORDER BY created_at")).rows.map(
        (row) => (typeof row.body === 'string' ? JSON.parse(row.body) : row.body).data.object as Record<string, unknown>,
      );
    const alertsOf = async (network: string) =>
      ((await call(t.url, 'GET', '/v1/withdrawal/networks', { key })).body.items as Array<{ id: string; alerts: Array<{ code: string }> }>)
        .find((n) => n.id === network)!
        .alerts.map((a) => a.code);
    const units = (amount: string) => parseUnits(amount, 18);

    before(async () => {
      [bsc, polygon] = await Promise.all([startEvmFixture({ chainId: 31337 }), startEvmFixture({ chainId: 31338 })]);
      await Promise.all([bsc.t.deployMulticall3(), polygon.t.deployMulticall3()]);
      proxy = await startRpcProxy(bsc.t.url);
      const env = networksEnv([
        { id: 'bsc', name: 'Local BNB Smart Chain', f: bsc },
        { id: 'polygon', name: 'Local Polygon', f: polygon },
      ]);
      env.PAYLINK_EVM_BSC_RPC_URL = proxy.url;
      chain = await connectEvmAdapter(parseEvmNetworks(env), { timeoutMs: 2_000, retries: 1, retryDelayMs: 20, log: () => {} });
      t = await startTestService(backend, { chain, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
      ({ key, integratorId } = await t.newKey());
      await t.db.query(
        `INSERT INTO webhook_endpoints (id, integrator_id, url, events, secret, created_at, updated_at) VALUES ($1, $2, 'https://merchant.example/hook', $3, 'whsec_test', now(), now())`,
        [randomUUID(), integratorId, ['checkout.session.paid', 'reconciliation.mismatch']],
      );
      scanners = {
        bsc: manualScanner({ db: t.db, chain, now, logger }, { network: 'bsc' }),
        polygon: manualScanner({ db: t.db, chain, now, logger }, { network: 'polygon' }),
      };
      await scanners.bsc.runOnce();
      await scanners.polygon.runOnce();
    });
    after(async () => {
      await t?.close();
      await chain?.close();
      await proxy?.close();
      await Promise.all([bsc?.stop(), polygon?.stop()]);
    });

    it('credits, once, a transfer whose log the node never shows: not again when the scanner sees it after all, nor on a second run or instance', async () => {
      const session = await newSession('3');
      const hidden = await bsc.t.client.getBlockNumber();
      // The node's log index never has this transfer: the scanner reads past it and never sees it.
      proxy.hideLogs([await bsc.pay(session.payAddress, 'USDT', session.cryptoAmount)]);
      await bsc.t.mine(3);
      await scanners.bsc.runOnce();
      assert.equal((await readSession(t.url, session.id)).status, 'awaiting_payment', 'the scanner saw nothing');
      await makeFinal('bsc');
      await scanners.bsc.runOnce();

      logged = [];
      const first = await reconcile();
      assert.equal(first.bsc!.credited, 1);
      assert.equal(first.bsc!.mismatches, 0);
      assert.equal((await readSession(t.url, session.id)).status, 'paid', 'paid by the transfer found in its block');
      assert.equal(await creditsOf(session.id), 1);
      const line = logged.find((l) => l.code === 'reconciliation_credited');
      assert.ok(line, 'the operator is told that the scanner missed a transfer');
      assert.equal(line.level, 'warn');
      assert.equal(line.address, session.payAddress.toLowerCase());
      await assertLedgerMatches(t.db, integratorId);

      // A second run, and two instances at once: one of them reconciles, nothing is credited again.
      const second = await reconcile();
      assert.equal(second.bsc!.credited, 0);
      const both = await Promise.all([reconciler().runOnce(), reconciler().runOnce()]);
      assert.equal(both.flat().filter((run) => run.blockchainId === 'bsc' && run.claimed).length, 1, 'one instance reconciles a network at a time');
      assert.equal(
        both.flat().reduce((sum, run) => sum + run.credited, 0),
        0,
      );
      // The node shows the log after all, and the scanner reads that block again: it is known, not credited twice.
      proxy.hideLogs(null);
      await t.db.query('UPDATE chain_cursors SET next_block = $2 WHERE blockchain_id = $1', ['bsc', Number(hidden)]);
      await scanners.bsc.runOnce();
      await scanners.bsc.runOnce();
      assert.equal(await creditsOf(session.id), 1);
      assert.equal((await reconcile()).bsc!.mismatches, 0);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('credits a missed transfer once when the scanner and two reconciliations find it at the same moment', async () => {
      const session = await newSession('2');
      const hash = await bsc.pay(session.payAddress, 'USDT', session.cryptoAmount);
      proxy.hideLogs([hash]);
      const { blockNumber } = await bsc.t.client.getTransactionReceipt({ hash });
      await makeFinal('bsc');
      const latest = Number(await bsc.t.client.getBlockNumber());
      const found = (await chain.chains[0]!.reconcile!.blockTransfers(Number(blockNumber), session.payAddress)).incoming;
      assert.equal(found.length, 1);
      const other = manualScanner({ db: t.db, chain, now, logger }, { network: 'bsc' });
      const outcomes = await Promise.all([scanners.bsc.creditFound(found[0]!, latest), other.creditFound(found[0]!, latest), reconciler().runOnce()]);
      assert.deepEqual(outcomes.slice(0, 2), ['credited', 'credited']);
      assert.equal(await creditsOf(session.id), 1, 'one credit, whoever got there first');
      assert.equal((await readSession(t.url, session.id)).paidAmount, '2.000000');
      proxy.hideLogs(null);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('raises money the books cannot explain once (error line, alert, one webhook), and clears it once they agree again; a deficit too', async () => {
      const session = await newSession('4');
      await payAndCredit(session);
      await makeFinal('bsc');
      // Every balance is read through Multicall3, many per call.
      const calls: string[] = [];
      proxy.override(({ method, params }) => {
        if (method === 'eth_call') calls.push(String((params[0] as { to?: string }).to).toLowerCase());
        return undefined;
      });
      try {
        assert.equal((await reconcile()).bsc!.mismatches, 0);
      } finally {
        proxy.override(null);
      }
      assert.ok(calls.length > 0 && calls.every((to) => to === MULTICALL3_ADDRESS.toLowerCase()), calls.join(' '));

      // 2 USDT more than anyone paid, with no transfer at all.
      await bsc.t.setTokenBalance(bsc.usdt, session.payAddress, units('6'));
      await makeFinal('bsc');
      logged = [];
      const before = (await mismatchEvents()).length;
      const raised = await reconcile();
      assert.equal(raised.bsc!.mismatches, 1);
      assert.equal(raised.bsc!.credited, 0);
      const line = logged.find((l) => l.code === 'reconciliation_mismatch');
      assert.ok(line, JSON.stringify(logged));
      assert.equal(line.level, 'error');
      assert.deepEqual(
        [line.blockchainId, line.address, line.expected, line.actual, line.reason],
        ['bsc', session.payAddress.toLowerCase(), '4', '6', 'unexplained'],
      );
      assert.deepEqual(await alertsOf('bsc'), ['reconciliation_mismatch']);
      assert.deepEqual(await alertsOf('polygon'), []);
      const events = (await mismatchEvents()).slice(before);
      assert.equal(events.length, 1);
      assert.deepEqual(
        [events[0]!.object, events[0]!.blockchainId, events[0]!.address, events[0]!.sessionId, events[0]!.assetId, events[0]!.expected, events[0]!.actual],
        ['reconciliation_mismatch', 'bsc', session.payAddress.toLowerCase(), session.id, 'USDT', '4', '6'],
      );

      // It still holds: no second event, no second line.
      logged = [];
      assert.equal((await reconcile()).bsc!.mismatches, 1);
      assert.equal((await mismatchEvents()).length, before + 1, 'once per raise, not every run');
      assert.equal(logged.filter((l) => l.code === 'reconciliation_mismatch').length, 0);

      // The chain holds what the books say again: cleared.
      await bsc.t.setTokenBalance(bsc.usdt, session.payAddress, units('4'));
      await makeFinal('bsc');
      logged = [];
      assert.equal((await reconcile()).bsc!.mismatches, 0);
      assert.deepEqual(await alertsOf('bsc'), []);
      assert.ok(logged.some((l) => l.code === 'reconciliation_matched' && l.address === session.payAddress.toLowerCase()));

      // Less than the books is a mismatch too, raised anew.
      await bsc.t.setTokenBalance(bsc.usdt, session.payAddress, units('3'));
      await makeFinal('bsc');
      logged = [];
      assert.equal((await reconcile()).bsc!.mismatches, 1);
      const deficit = logged.find((l) => l.code === 'reconciliation_mismatch');
      assert.deepEqual([deficit?.expected, deficit?.actual, deficit?.reason], ['4', '3', 'deficit']);
      assert.equal((await mismatchEvents()).length, before + 2);
      await bsc.t.setTokenBalance(bsc.usdt, session.payAddress, units('4'));
      await makeFinal('bsc');
      assert.equal((await reconcile()).bsc!.mismatches, 0);
      assert.deepEqual(await alertsOf('bsc'), []);
    });

    it('raises a difference it cannot trace on a node that keeps no state of past blocks, and goes on', async () => {
      const session = await newSession('2');
      await payAndCredit(session);
      await makeFinal('bsc');
      assert.equal((await reconcile()).bsc!.mismatches, 0);
      await bsc.t.setTokenBalance(bsc.usdt, session.payAddress, units('3'));
      await makeFinal('bsc');
      // A full node, not an archive: state only at the final block and above.
      const final = Number(await bsc.t.client.getBlockNumber()) - 64;
      proxy.override(({ method, params }) =>
        method === 'eth_call' && typeof params[1] === 'string' && Number(params[1]) < final
          ? { error: { code: -32000, message: 'missing trie node' } }
          : undefined,
      );
      logged = [];
      try {
        const run = await reconcile();
        assert.equal(run.bsc!.mismatches, 1);
        const line = logged.find((l) => l.code === 'reconciliation_mismatch');
        assert.deepEqual([line?.reason, line?.expected, line?.actual], ['untraced', '2', '3']);
        assert.match(String((line?.error as { message?: unknown } | undefined)?.message), /missing trie node/);
      } finally {
        proxy.override(null);
      }
      await bsc.t.setTokenBalance(bsc.usdt, session.payAddress, units('2'));
      await makeFinal('bsc');
      assert.equal((await reconcile()).bsc!.mismatches, 0);
    });

    it('takes a sweep between runs for money out of the address, also when the sweep was killed before recording its outcome', async () => {
      const sweeper = await connectEvmChain(bsc.t.config({ tokens: { USDT: bsc.usdt, CNGN: bsc.cngn } }));
      try {
        for (const killed of [false, true]) {
          const session = await newSession('5');
          await payAndCredit(session);
          await makeFinal('bsc');
          assert.equal((await reconcile()).bsc!.mismatches, 0);
          const { rows } = await t.db.query<{ n: number }>('SELECT deposit_index::int AS n FROM checkout_sessions WHERE id = $1', [session.id]);
          const report = await sweepDeposits({
            chain: sweeper,
            mnemonic: DEPOSIT_MNEMONIC,
            indexes: [rows[0]!.n],
            pollMs: 10,
            record: {
              signed: (transfer) =>
                recordSweepTransfer(
                  t.db,
                  {
                    blockchainId: 'bsc',
                    txHash: transfer.txHash,
                    depositIndex: transfer.index,
                    address: transfer.address,
                    assetId: transfer.assetId,
                    token: transfer.token,
                    amount: transfer.amount,
                  },
                  now(),
                ),
              // Killed after sending: the outcome is never written by the sweep.
              settled: async (txHash, outcome) => {
                if (!killed) await settleSweepTransfer(t.db, 'bsc', txHash, outcome, now());
              },
            },
          });
          // What the sweep reports aside (it reads the receipt once), the tokens left the address.
          assert.equal(report.addresses.length, 1);
          assert.equal(await bsc.t.client.readContract({ address: bsc.usdt, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [session.payAddress] }), 0n);
          await makeFinal('bsc');
          const run = await reconcile();
          assert.equal(run.bsc!.mismatches, 0, JSON.stringify(logged.filter((l) => l.code === 'reconciliation_mismatch')));
          const swept = await t.db.query<{ status: string; amount: string }>('SELECT status, amount::text AS amount FROM deposit_sweeps WHERE address = $1', [
            session.payAddress.toLowerCase(),
          ]);
          assert.deepEqual(
            swept.rows.map((r) => [r.status, Number(r.amount)]),
            [['success', 5]],
          );
        }
      } finally {
        await sweeper.close();
      }
    });

    it('runs in the background of a service, each network at its interval, and stops with it', async () => {
      const runs = async () =>
        (
          await t.db.query<{ blockchain_id: string; at: Date | null }>(
            'SELECT blockchain_id, last_finished_at AS at FROM reconciliation_runs ORDER BY blockchain_id',
          )
        ).rows.map((r) => [r.blockchain_id, r.at?.getTime() ?? 0] as const);
      const before = new Map(await runs());
      // Every network is due now; another instance of the service reconciles it every 200 ms.
      await t.db.query('UPDATE reconciliation_runs SET next_run_at = now()');
      const instance = await startService({
        db: t.db,
        chain,
        scanner: false,
        reconciler: { intervalMs: 200 },
        payoutWorker: false,
        webhookWorker: false,
        sseHeartbeatMs: 60_000,
        logger,
      });
      try {
        await eventually(
          async () => (await runs()).every(([network, at]) => at > (before.get(network) ?? 0)),
          20_000,
          'a run of each network in the background',
        );
      } finally {
        await instance.close();
      }
      assert.deepEqual(
        (await runs()).map(([network]) => network),
        ['bsc', 'polygon'],
      );
    });

    it('reconciles the address of every session on every network: money on polygon at the address of a bsc session is seen there', async () => {
      const onBsc = await newSession('1', 'bsc');
      const onPolygon = await newSession('1', 'polygon');
      await payAndCredit(onBsc, 'bsc');
      await payAndCredit(onPolygon, 'polygon');
      await makeFinal('bsc');
      await makeFinal('polygon');
      const sessions = (await t.db.query('SELECT 1 FROM checkout_sessions')).rows.length;
      const clean = await reconcile();
      assert.deepEqual([clean.bsc!.addresses, clean.polygon!.addresses], [sessions, sessions], 'each network holds every address');
      assert.deepEqual([clean.bsc!.mismatches, clean.polygon!.mismatches], [0, 0]);

      // Each address holds on the other network what no session there explains.
      await polygon.t.setTokenBalance(polygon.usdt, onBsc.payAddress, units('7'));
      await bsc.t.setTokenBalance(bsc.usdt, onPolygon.payAddress, units('8'));
      await makeFinal('bsc');
      await makeFinal('polygon');
      const before = (await mismatchEvents()).length;
      const raised = await reconcile();
      assert.deepEqual([raised.bsc!.mismatches, raised.polygon!.mismatches], [1, 1]);
      const events = (await mismatchEvents()).slice(before).map((e) => [e.blockchainId, e.sessionId, e.actual]);
      assert.deepEqual(events.sort(), [
        ['bsc', onPolygon.id, '8'],
        ['polygon', onBsc.id, '7'],
      ]);
      assert.deepEqual(await alertsOf('polygon'), ['reconciliation_mismatch']);

      await polygon.t.setTokenBalance(polygon.usdt, onBsc.payAddress, 0n);
      await bsc.t.setTokenBalance(bsc.usdt, onPolygon.payAddress, 0n);
      await makeFinal('bsc');
      await makeFinal('polygon');
      const cleared = await reconcile();
      assert.deepEqual([cleared.bsc!.mismatches, cleared.polygon!.mismatches], [0, 0]);
      assert.deepEqual([await alertsOf('bsc'), await alertsOf('polygon')], [[], []]);
    });
  });
}
