/**
 * A payout held up says why, and goes by itself once what held it is mended (anvil, the service's own
 * payout worker, a JSON-RPC proxy in front of the node). The hot wallet holds too few tokens
 * (`hot_wallet_token`) or no gas money (`hot_wallet_gas`): the withdrawal waits, nothing signed for
 * it, the network's `hot_wallet_low` alert is raised and one `hot_wallet_low` line logged; topped up,
 * it is paid once and the reason and the alert are gone. A node that refuses a signed payout for want
 * of gas, a node that does not answer (`node_unavailable`), payouts halted on the network
 * (`chain_halted`: nothing signed nor sent there), and gas money under `*_MIN_GAS` with nothing yet
 * waiting (the alert alone, from the periodic check) say so too.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { parseEther, parseUnits, type Address } from 'viem';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { createLogger } from '../../../../src/server/log.js';
import { runtimeMetrics } from '../../../../src/server/metrics/runtime.js';
import { clearAlert, raiseAlert } from '../../../../src/server/service/alerts/index.js';
import { assertLedgerMatches } from '../../../support/money.js';
import { startRpcProxy, type RpcProxy } from '../../../support/rpc-proxy.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import {
  creditDirectly,
  outgoingOf,
  randomAddress,
  readWithdrawal,
  startEvmFixture,
  waitForPayouts,
  withdrawOnBsc,
  type EvmFixture,
} from '../../../support/evm-service.js';

/** The hot wallet's least gas money in these tests (`*_MIN_GAS`): far above a few transfers' cost on anvil. */
const MIN_GAS = parseEther('1');

for (const backend of backends()) {
  describe(`EVM payouts held up, and why (${backend})`, () => {
    let f: EvmFixture;
    let proxy: RpcProxy;
    let chain: RealChainAdapter;
    let hot: Address;
    let t: TestService;
    let key: string;
    let integratorId: string;
    const lines: Array<{ code: string; level: string; [field: string]: unknown }> = [];

    before(async () => {
      f = await startEvmFixture();
      proxy = await startRpcProxy(f.t.url);
      chain = await f.adapter({ confirmations: 1, rpcUrl: proxy.url, minGas: MIN_GAS, reconcileMs: 200 });
      hot = outgoingOf(chain).hotWallet as Address;
      // Few tokens: the first test pays out more than that.
      await f.t.mint(f.usdt, hot, parseUnits('20', 18));
      t = await startTestService(backend, {
        chain,
        scanner: false,
        webhookWorker: false,
        sseHeartbeatMs: 60_000,
        logger: createLogger((line) => lines.push(JSON.parse(line))),
        payouts: { pollIntervalMs: 20, checkMs: 30, rebroadcastMs: 200, holdingsRecheckMs: 50 },
      });
      ({ key, integratorId } = await t.newKey());
      await creditDirectly(t, chain, key, '1000');
    });
    afterEach(async () => {
      await proxy.setMode('pass');
      proxy.override(null);
    });
    after(async () => {
      await t?.close();
      await chain?.close();
      await proxy?.close();
      await f?.stop();
    });

    const withdraw = (amount: string, to: string) => withdrawOnBsc(t.url, key, amount, to);
    const record = (id: string) => readWithdrawal(t.url, key, id);
    const alertOf = async (code: string) => {
      const res = await call(t.url, 'GET', '/v1/withdrawal/networks', { key });
      assert.equal(res.status, 200);
      return (res.body.items[0].alerts as Array<{ code: string; message: string; since: string }>).find((alert) => alert.code === code);
    };
    const until = (check: () => Promise<boolean>, what: string, ids: readonly string[] = []) => waitForPayouts({ db: t.db, f, hot }, check, what, { ids });
    const storedOf = async (id: string) =>
      (await t.db.query<{ status: string; tx_hash: string }>('SELECT status, tx_hash FROM payout_transactions WHERE withdrawal_id = $1', [id])).rows;
    const tokenUnits = (address: string) =>
      f.t.client.readContract({ address: f.usdt, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [address as Address] });
    /**
     * The lines about payouts and the hot wallet logged since `from`; not those of a node that did not
     * answer in time (a busy machine), which say nothing of the hot wallet.
     */
    const saidSince = (from: number) =>
      lines
        .slice(from)
        .filter((line) => /^(payout|hot_wallet|dev_node)/.test(line.code) && !['payout_node_unavailable', 'hot_wallet_check_failed'].includes(line.code));
    /** Waits until every withdrawal of `ids` succeeded, saying nothing any more. */
    const paid = (ids: readonly string[]) =>
      until(async () => (await Promise.all(ids.map(record))).every((r) => r.status === 'success' && r.stalledReason === null), `${ids.length} paid`, ids);

    it('too few tokens: the payout the hot wallet cannot cover waits, nothing signed for it (hot_wallet_token, the alert); topped up, it is paid once', async () => {
      const from = lines.length;
      const to = [randomAddress(), randomAddress()];
      const first = await withdraw('12', to[0]!);
      await paid([first]);
      // 8 USDT left: 12 more is held, not sent to revert (a failed withdrawal would be the merchant's loss of time).
      const second = await withdraw('12', to[1]!);
      await until(async () => (await record(second)).stalledReason === 'hot_wallet_token', 'held for tokens', [second]);
      await until(async () => /1 withdrawal waits/.test((await alertOf('hot_wallet_low'))?.message ?? ''), 'the alert counting it', [second]);
      const held = await record(second);
      assert.equal(held.status, 'pending', 'it waits in the queue');
      assert.equal(held.failureReason, null);
      assert.deepEqual(await storedOf(second), [], 'nothing signed for it');
      const alert = await alertOf('hot_wallet_low');
      assert.match(alert?.message ?? '', /holds 8 USDT, under the 12 USDT that payouts owe: 1 withdrawal waits until it is topped up/);
      assert.deepEqual(
        saidSince(from).map((line) => line.code),
        ['hot_wallet_low'],
        'one line: the hot wallet is low',
      );
      assert.equal(saidSince(from)[0]!.level, 'error');
      assert.equal(saidSince(from)[0]!.address, hot);
      assert.equal(saidSince(from)[0]!.holds, '8 USDT');
      assert.equal(saidSince(from)[0]!.needs, '12 USDT');

      await f.t.mint(f.usdt, hot, parseUnits('1000', 18));
      await paid([second]);
      assert.equal(await tokenUnits(to[1]!), parseUnits('12', 18), 'paid once');
      assert.equal(await alertOf('hot_wallet_low'), undefined, 'the alert is cleared');
      assert.ok(saidSince(from).some((line) => line.code === 'hot_wallet_low_cleared'));
      await assertLedgerMatches(t.db, integratorId);
    });

    it('no gas money: the payouts wait, nothing signed (hot_wallet_gas), one alert and one line however many wait; gas back, each is paid once and nothing is said any more', async () => {
      const nonce = await f.t.client.getTransactionCount({ address: hot });
      await f.t.setBalance(hot, 0n);
      const from = lines.length;
      const to = [randomAddress(), randomAddress()];
      const first = await withdraw('5', to[0]!);
      await until(async () => (await record(first)).stalledReason === 'hot_wallet_gas', 'held for gas', [first]);
      const second = await withdraw('7', to[1]!);
      await until(async () => /2 withdrawals wait/.test((await alertOf('hot_wallet_low'))?.message ?? ''), 'the alert counting both', [first, second]);
      for (const id of [first, second]) {
        const held = await record(id);
        assert.deepEqual([held.status, held.stalledReason, held.failureReason, held.txHash], ['pending', 'hot_wallet_gas', null, null]);
        assert.deepEqual(await storedOf(id), [], 'nothing signed for it');
      }
      assert.equal(await f.t.client.getTransactionCount({ address: hot, blockTag: 'pending' }), nonce, 'the hot wallet sent nothing');
      assert.match((await alertOf('hot_wallet_low'))!.message, /holds 0 BNB of gas money, under the 1 BNB it should keep/);
      const said = saidSince(from);
      assert.deepEqual(
        said.map((line) => line.code),
        ['hot_wallet_low'],
        'one line, not one per payout or per look',
      );
      assert.deepEqual([said[0]!.holds, said[0]!.needs, said[0]!.blockchainId], ['0 BNB', '1 BNB', 'bsc']);

      await f.t.setBalance(hot, parseEther('10'));
      await paid([first, second]);
      assert.equal(await tokenUnits(to[0]!), parseUnits('5', 18));
      assert.equal(await tokenUnits(to[1]!), parseUnits('7', 18));
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), nonce + 2, 'two transactions: one each');
      await until(async () => (await alertOf('hot_wallet_low')) === undefined, 'the alert cleared');
      assert.deepEqual(
        saidSince(from).map((line) => line.code),
        ['hot_wallet_low', 'hot_wallet_low_cleared'],
      );
      await assertLedgerMatches(t.db, integratorId);
    });

    it('a signed payout the node refuses for want of gas waits processing (hot_wallet_gas), its same transaction sent again once the node takes it', async () => {
      proxy.override(({ method }) =>
        method === 'eth_sendRawTransaction'
          ? { error: { code: -32000, message: 'insufficient funds for gas * price + value: balance 0, tx cost 93000000000' } }
          : undefined,
      );
      const to = randomAddress();
      const id = await withdraw('3', to);
      await until(async () => (await record(id)).stalledReason === 'hot_wallet_gas', 'waiting for gas', [id]);
      const waiting = await record(id);
      assert.equal(waiting.status, 'processing');
      const [row] = await storedOf(id);
      assert.equal(row?.status, 'signed', 'signed and stored, never taken');
      assert.equal(waiting.txHash, row!.tx_hash);

      proxy.override(null);
      await paid([id]);
      assert.deepEqual(
        (await storedOf(id)).map((r) => [r.status, r.tx_hash]),
        [['success', row!.tx_hash]],
        'the very transaction signed first',
      );
      assert.equal(await tokenUnits(to), parseUnits('3', 18));
    });

    it('no node answers: the payout waits (node_unavailable), the operator is told once; the node back, it is paid once', async () => {
      const from = lines.length;
      await proxy.setMode('down');
      const to = randomAddress();
      const id = await withdraw('4', to);
      await until(async () => (await record(id)).stalledReason === 'node_unavailable', 'waiting for a node', [id]);
      assert.deepEqual(await storedOf(id), [], 'nothing could be prepared, so nothing was signed');
      const told = lines.slice(from).filter((line) => line.code === 'payout_node_unavailable');
      assert.equal(told.length, 1, 'one line, not one a round');
      assert.equal(told[0]!.level, 'warn');

      await proxy.setMode('pass');
      await paid([id]);
      assert.equal(await tokenUnits(to), parseUnits('4', 18));
    });

    it('payouts halted on the network: withdrawals wait (chain_halted), nothing is signed nor sent there; resumed, each is paid once', async () => {
      // A payout signed and stored while the node does not take it, then the network halts.
      proxy.override(({ method }) => (method === 'eth_sendRawTransaction' ? { http: 503 } : undefined));
      const storedFirst = await withdraw('2', randomAddress());
      await until(async () => (await storedOf(storedFirst)).length === 1, 'the first payout stored', [storedFirst]);
      const nonce = await f.t.client.getTransactionCount({ address: hot, blockTag: 'pending' });
      await raiseAlert(t.db, { blockchainId: 'bsc', code: 'chain_finality_violated', message: 'a final block changed (test)' }, new Date());
      const to = randomAddress();
      const id = await withdraw('6', to);
      await until(async () => (await Promise.all([id, storedFirst].map(record))).every((r) => r.stalledReason === 'chain_halted'), 'both halted', [
        id,
        storedFirst,
      ]);
      // The node would take it now: nothing is sent to it while the network is halted.
      proxy.override(null);
      const worker = t.service.payoutWorker!;
      for (let i = 0; i < 3; i++) await worker.runOnce();
      assert.equal((await record(id)).status, 'pending');
      assert.deepEqual(await storedOf(id), [], 'nothing signed on a halted network');
      assert.equal((await storedOf(storedFirst))[0]!.status, 'signed', 'nor sent');
      assert.equal(await f.t.client.getTransactionCount({ address: hot, blockTag: 'pending' }), nonce, 'the hot wallet sent nothing');

      await clearAlert(t.db, 'bsc', 'chain_finality_violated');
      await paid([id, storedFirst]);
      assert.equal(await tokenUnits(to), parseUnits('6', 18), 'paid once');
      await assertLedgerMatches(t.db, integratorId);
    });

    it('gas money under *_MIN_GAS with nothing waiting: the periodic check raises the alert (a warning) and payouts still go; topped up, it is cleared', async () => {
      const from = lines.length;
      await f.t.setBalance(hot, MIN_GAS / 2n);
      await until(async () => (await alertOf('hot_wallet_low')) !== undefined, 'the alert');
      assert.match(
        (await alertOf('hot_wallet_low'))!.message,
        /holds 0\.5 BNB of gas money, under the 1 BNB it should keep: top it up before withdrawals have to wait/,
      );
      const low = saidSince(from).filter((line) => line.code === 'hot_wallet_low');
      assert.deepEqual(
        low.map((line) => line.level),
        ['warn'],
        'nothing waits yet: a warning',
      );
      assert.equal(runtimeMetrics.networks.get('bsc')?.hotWalletNative, 0.5, '/metrics shows what the check read');
      const id = await withdraw('1', randomAddress());
      await paid([id]);

      await f.t.setBalance(hot, parseEther('10'));
      await until(async () => (await alertOf('hot_wallet_low')) === undefined, 'the alert cleared');
      assert.equal(runtimeMetrics.networks.get('bsc')?.hotWalletNative, 10);
      assert.ok((runtimeMetrics.networks.get('bsc')?.hotWalletTokens.get('USDT') ?? 0) > 0, 'and its tokens');
    });

    it('without *_MIN_GAS, the hot wallet should keep enough gas money for 20 transfers at the current fee', async () => {
      const plain = await f.adapter({ confirmations: 1 });
      try {
        const { floor, perTransfer } = await outgoingOf(plain).gasFloor();
        assert.ok(perTransfer > 0n);
        assert.equal(floor, perTransfer * 20n);
      } finally {
        await plain.close();
      }
    });
  });
}
