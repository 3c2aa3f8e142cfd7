/**
 * The scanner on nodes that behave as real ones do: a provider that caps `eth_getLogs` (each of the
 * real refusal wordings of test/fixtures/getlogs-refusals.json, an HTTP 413 and a timeout, answered
 * by a proxy in front of anvil) while the scanner catches up from 2,000 blocks behind; a node that
 * lags behind the chain, alone or beside a current one; and two node URLs of which one is down.
 * The database plays no part in how nodes are read, so these run on PGlite alone; the money
 * outcomes (paid, credited once, paid out) are asserted each time.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Address } from 'viem';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { readCursor } from '../../../../src/server/service/money-in/repository.js';
import { countRows, createUsdLink, eventually, startSession } from '../../../support/money.js';
import { call, startTestService, type TestService } from '../../../support/service.js';
import { manualScanner, outgoingOf, randomAddress, readSession, startEvmFixture, waitForPayouts, type EvmFixture } from '../../../support/evm-service.js';
import { startRpcProxy, type LogRefusal, type RpcProxy } from '../../../support/rpc-proxy.js';

const { refusals } = JSON.parse(readFileSync(new URL('../../../fixtures/getlogs-refusals.json', import.meta.url), 'utf8')) as {
  refusals: Array<{ name: string } & LogRefusal>;
};

/** The cap every wording is applied with: small enough that a 2,000-block catch-up meets it many times over. */
const CAP = 25;

describe('EVM scanner on real nodes', () => {
  let f: EvmFixture;
  let t: TestService;
  let direct: RealChainAdapter;
  let key: string;
  const adapters: RealChainAdapter[] = [];
  const proxies: RpcProxy[] = [];

  const adapterAt = async (urls: string[], options: { timeoutMs?: number } = {}) => {
    const adapter = await f.adapter({ confirmations: 3, rpcUrl: urls.join(','), timeoutMs: options.timeoutMs ?? 2_000, retries: 0 });
    adapters.push(adapter);
    return adapter;
  };
  const proxy = async () => {
    const started = await startRpcProxy(f.t.url);
    proxies.push(started);
    return started;
  };
  const newSession = async () => startSession(t.url, await createUsdLink(t.url, key, '2')) as Promise<{ id: string; payAddress: string; cryptoAmount: string }>;
  /** Scanner rounds until `done`, at most `rounds` of them. */
  const scanUntil = async (scanner: ReturnType<typeof manualScanner>, done: () => Promise<boolean>, rounds = 20) => {
    for (let i = 0; i < rounds && !(await done()); i++) await scanner.runOnce();
    return done();
  };
  const paid = (id: string) => async () => (await readSession(t.url, id)).status === 'paid';

  before(async () => {
    f = await startEvmFixture();
    direct = await f.adapter({ confirmations: 3 });
    t = await startTestService('pglite', { chain: direct, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
    ({ key } = await t.newKey());
    // 2,000 blocks to catch up on (mined once, in parts: anvil takes a while per block), then the cursor.
    for (let i = 0; i < 4; i++) await f.t.mine(500);
    await manualScanner({ db: t.db, chain: direct, now: () => new Date() }).runOnce();
  });
  after(async () => {
    await t?.close();
    for (const adapter of [...adapters, direct]) await adapter?.close?.();
    for (const p of proxies) await p.close();
    await f?.stop();
  });

  for (const refusal of refusals) {
    it(`catches up 2,000 blocks through a node that refuses wide eth_getLogs with ${refusal.name}, and then stops asking for what it refuses`, async () => {
      const node = await proxy();
      const { name: _name, ...rule } = refusal;
      node.refuseLogs(rule as LogRefusal, CAP);
      // A timeout costs a whole timeout per try: a short one keeps the halving quick.
      const adapter = await adapterAt([node.url], { timeoutMs: 'timeout' in rule ? 300 : 2_000 });
      const scanner = manualScanner({ db: t.db, chain: adapter, now: () => new Date() });
      const session = await newSession();
      await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
      await f.t.mine(2);
      // The scanner is 2,000 blocks behind the payment.
      await t.db.query('UPDATE chain_cursors SET next_block = $1', [Number(await f.t.client.getBlockNumber()) - 2_000]);

      assert.equal(await scanUntil(scanner, paid(session.id)), true, 'paid once the scanner caught up');
      assert.ok(node.logs.refused > 0, 'the node did refuse wide queries');
      // Halving finds a width the node takes in a handful of refusals, not one per chunk of the 2,000 blocks.
      assert.ok(node.logs.refused <= 12, `refused ${node.logs.refused} times`);
      assert.equal(await countRows(t.db, 'chain_transfers', 'session_id = $1', [session.id]), 1, 'credited once');

      // At the head the remembered width is used: new blocks are read without a single refusal.
      const refusedBefore = node.logs.refused;
      const next = await newSession();
      await f.pay(next.payAddress, 'USDT', next.cryptoAmount);
      await f.t.mine(2);
      assert.equal(await scanUntil(scanner, paid(next.id)), true);
      assert.equal(node.logs.refused, refusedBefore, 'no refusal once the width is known');
    });
  }

  it('reads from a current node when the first URL lags, and pays', async () => {
    const stale = await proxy();
    stale.lag(Number(await f.t.client.getBlockNumber()));
    const adapter = await adapterAt([stale.url, f.t.url]);
    const scanner = manualScanner({ db: t.db, chain: adapter, now: () => new Date() });
    const session = await newSession();
    await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
    await f.t.mine(2);
    assert.equal(await scanUntil(scanner, paid(session.id)), true, 'paid through the current node');
  });

  it('never judges a transfer by a node that fell behind: the cursor stays, the transfer waits, and is paid when the node is back', async () => {
    const node = await proxy();
    const adapter = await adapterAt([node.url]);
    const scanner = manualScanner({ db: t.db, chain: adapter, now: () => new Date() });
    const session = await newSession();
    await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
    await scanner.runOnce();
    assert.equal((await readSession(t.url, session.id)).status, 'confirming');
    const cursor = (await readCursor(t.db, 'bsc'))!.nextBlock;

    // The node falls 10 blocks behind what the scanner has read, while the chain moves on.
    node.lag(cursor - 10);
    await f.t.mine(3);
    for (let i = 0; i < 3; i++) await scanner.runOnce();
    assert.equal((await readCursor(t.db, 'bsc'))!.nextBlock, cursor, 'the cursor did not move back');
    assert.equal((await readSession(t.url, session.id)).status, 'confirming', 'the transfer is neither dropped nor credited');

    node.lag(null);
    assert.equal(await scanUntil(scanner, paid(session.id)), true, 'paid once the node caught up');
  });

  it('fails over between two node URLs for payments and payouts, whichever of them is down', async () => {
    const first = await proxy();
    const second = await proxy();
    const adapter = await adapterAt([first.url, second.url], { timeoutMs: 1_000 });
    const service = await startTestService('pglite', {
      chain: adapter,
      scanner: { pollMs: 20 },
      payouts: { pollIntervalMs: 20, checkMs: 30, rebroadcastMs: 200 },
      webhookWorker: false,
      sseHeartbeatMs: 60_000,
    });
    try {
      const { key: merchant } = await service.newKey();
      const hot = outgoingOf(adapter).hotWallet as Address;
      await f.t.mint(f.usdt, hot, f.units('USDT', '100'));
      for (const [down, up] of [
        [first, second],
        [second, first],
      ] as const) {
        await up.setMode('pass');
        await down.setMode('down');
        const session = (await startSession(service.url, await createUsdLink(service.url, merchant, '3'))) as {
          id: string;
          payAddress: string;
          cryptoAmount: string;
        };
        await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
        await f.t.mine(2);
        await eventually(async () => (await readSession(service.url, session.id)).status === 'paid', 10_000, 'paid while one node is down');
        // The payment's credit is withdrawable once its block is final (anvil: 64 blocks below the head).
        await f.t.mine(70);
        await eventually(
          async () =>
            Number(
              (await call(service.url, 'GET', '/v1/balance', { key: merchant })).body.items.find(
                (i: { assetId: string; available: string }) => i.assetId === 'USDT' && Number(i.available) >= 1,
              )?.available ?? 0,
            ) >= 1,
          10_000,
          'the payment is final',
        );
        const to = randomAddress();
        const posted = await call(service.url, 'POST', '/v1/withdrawal', {
          key: merchant,
          body: { amount: '1', address: to, blockchainId: 'bsc', assetId: 'USDT' },
        });
        assert.equal(posted.status, 200, JSON.stringify(posted.body));
        // Blocks keep coming (instant mining makes none of its own), so the payout gets its confirmations.
        await waitForPayouts(
          { db: service.db, f, hot },
          async () => {
            await f.t.mine(1);
            return (await call(service.url, 'GET', `/v1/withdrawal/${posted.body.id}`, { key: merchant })).body.status === 'success';
          },
          'the payout while one node is down',
          { ids: [posted.body.id], timeoutMs: 10_000 },
        );
        assert.equal(await f.t.client.readContract({ address: f.usdt, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [to] }), f.units('USDT', '1'));
      }
    } finally {
      await service.close();
    }
  });
});
