/**
 * Two EVM networks at once (two anvil chains with different chain ids, configured the way an
 * operator would: PAYLINK_EVM_NETWORKS=bsc,polygon with PAYLINK_EVM_<ID>_* settings): one scanner,
 * cursor and confirmation count per network, one nonce sequence per network for the shared hot
 * wallet. Customers pay on both at the same time; each payment is credited on its own network,
 * pending until that chain's finalized block passes it; withdrawals on both networks, sent
 * concurrently, each reach their recipient on their own chain. A deposit address is the same on both
 * networks: a session quoted on one and paid on the other is paid all the same (`paidBlockchainId`),
 * in the other's balance; an underpaid session topped up on the other network adds up; a transfer on
 * a chain the service does not run is never credited.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parseUnits, type Address } from 'viem';
import { connectEvmAdapter } from '../../../../src/server/chain/evm/adapter.js';
import { parseEvmNetworks } from '../../../../src/server/chain/evm/config.js';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { assertLedgerMatches, countRows, createUsdLink, eventually, startSession } from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { networksEnv, randomAddress, readSession, startEvmFixture, waitForPayouts, type EvmFixture } from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`two EVM networks at once (${backend})`, () => {
    let bsc: EvmFixture;
    let polygon: EvmFixture;
    let chain: RealChainAdapter;
    let t: TestService;
    let key: string;
    let integratorId: string;
    const fixtureOf = (network: string) => (network === 'bsc' ? bsc : polygon);

    before(async () => {
      [bsc, polygon] = await Promise.all([startEvmFixture({ chainId: 31337 }), startEvmFixture({ chainId: 31338 })]);
      const env = networksEnv([
        { id: 'bsc', name: 'Local BNB Smart Chain', f: bsc, confirmations: 2 },
        { id: 'polygon', name: 'Local Polygon', f: polygon, confirmations: 3 },
      ]);
      chain = await connectEvmAdapter(parseEvmNetworks(env), { timeoutMs: 2_000, retries: 1, retryDelayMs: 20, log: () => {} });
      for (const f of [bsc, polygon]) await f.t.mint(f.usdt, chain.chains[0]!.outgoing!.hotWallet as Address, parseUnits('1000', 18));
      t = await startTestService(backend, { chain, webhookWorker: false, sseHeartbeatMs: 60_000, payouts: { pollIntervalMs: 20, checkMs: 20 } });
      ({ key, integratorId } = await t.newKey());
    });
    after(async () => {
      await t?.close();
      await chain?.close();
      await Promise.all([bsc?.stop(), polygon?.stop()]);
    });

    const balances = async () => {
      const { body } = await call(t.url, 'GET', '/v1/balance', { key });
      return Object.fromEntries(
        body.items
          .filter((i: { assetId: string }) => i.assetId === 'USDT')
          .map((i: { blockchainId: string; available: string; pending: string }) => [i.blockchainId, [i.available, i.pending]]),
      );
    };

    it('lists both networks, with their names, chain ids and confirmations', async () => {
      const networks = await call(t.url, 'GET', '/v1/withdrawal/networks', { key });
      assert.deepEqual(
        networks.body.items.map((n: { id: string; name: string; chainId: number }) => [n.id, n.name, n.chainId]),
        [
          ['bsc', 'Local BNB Smart Chain', 31337],
          ['polygon', 'Local Polygon', 31338],
        ],
      );
      assert.deepEqual(
        chain.chains.map((c) => c.incoming.confirmations),
        [2, 3],
      );
    });

    it('credits payments made on both chains at the same time, each on its network, available once final there', async () => {
      const slug = await createUsdLink(t.url, key, '10');
      const [onBsc, onPolygon] = await Promise.all(['bsc', 'polygon'].map((blockchainId) => startSession(t.url, slug, { assetId: 'USDT', blockchainId })));
      assert.notEqual(onBsc.payAddress, onPolygon.payAddress, 'no deposit address serves two sessions');
      await Promise.all([bsc.pay(onBsc.payAddress, 'USDT', onBsc.cryptoAmount), polygon.pay(onPolygon.payAddress, 'USDT', onPolygon.cryptoAmount)]);
      await Promise.all([bsc.t.mine(3), polygon.t.mine(3)]);
      for (const session of [onBsc, onPolygon]) {
        await eventually(async () => (await readSession(t.url, session.id)).status === 'paid', 15_000, `${session.blockchainId} paid`);
      }
      assert.deepEqual(await balances(), { bsc: ['0.000000', '10.000000'], polygon: ['0.000000', '10.000000'] });
      // Final on Polygon only: its funds become available, BSC's stay pending.
      await polygon.t.mine(70);
      await eventually(async () => (await balances()).polygon[0] === '10.000000', 15_000, 'polygon final');
      assert.deepEqual((await balances()).bsc, ['0.000000', '10.000000']);
      await bsc.t.mine(70);
      await eventually(async () => (await balances()).bsc[0] === '10.000000', 15_000, 'bsc final');
      await assertLedgerMatches(t.db, integratorId);
    });

    it('pays out withdrawals on both networks concurrently, each on its own chain with its own nonces', async () => {
      const requests = ['bsc', 'polygon', 'bsc', 'polygon'].map((blockchainId, i) => ({ blockchainId, to: randomAddress(), amount: String(i + 1) }));
      const posted = await Promise.all(
        requests.map((r) =>
          call(t.url, 'POST', '/v1/withdrawal', { key, body: { amount: r.amount, address: r.to, blockchainId: r.blockchainId, assetId: 'USDT' } }),
        ),
      );
      for (const p of posted) assert.equal(p.status, 200, JSON.stringify(p.body));
      // Mined blocks give the payouts their confirmations (on BSC by the wait itself, on Polygon here).
      const ids = posted.map((p) => p.body.id as string);
      await waitForPayouts(
        { db: t.db, f: bsc, hot: chain.chains[0]!.outgoing!.hotWallet },
        async () => {
          await polygon.t.mine(1);
          return (await Promise.all(ids.map(async (id) => (await call(t.url, 'GET', `/v1/withdrawal/${id}`, { key })).body.status))).every(
            (s) => s === 'success',
          );
        },
        'the payouts on both networks',
        { ids, mineEveryMs: 30 },
      );
      for (const [i, p] of posted.entries()) {
        const record = (await call(t.url, 'GET', `/v1/withdrawal/${p.body.id}`, { key })).body;
        assert.equal(record.status, 'success', JSON.stringify(record));
        assert.equal(record.blockchainId, requests[i]!.blockchainId);
        const f = fixtureOf(requests[i]!.blockchainId);
        const received = await f.t.client.readContract({ address: f.usdt, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [requests[i]!.to as Address] });
        assert.equal(received, parseUnits(requests[i]!.amount, 18), `withdrawal ${i} arrived on ${requests[i]!.blockchainId}`);
      }
      const nonces = await t.db.query<{ blockchain_id: string; nonce: number }>(
        'SELECT blockchain_id, nonce::int AS nonce FROM payout_transactions ORDER BY blockchain_id, nonce',
      );
      for (const network of ['bsc', 'polygon']) {
        assert.deepEqual(
          nonces.rows.filter((r) => r.blockchain_id === network).map((r) => r.nonce),
          [0, 1],
          `one nonce sequence on ${network}`,
        );
      }
      assert.deepEqual(await balances(), { bsc: ['6.000000', '0.000000'], polygon: ['4.000000', '0.000000'] });
      await assertLedgerMatches(t.db, integratorId);
    });

    it('credits a bsc-quoted session paid on polygon to polygon: paid, paidBlockchainId polygon, in every view of it', async () => {
      await t.db.query(
        `INSERT INTO webhook_endpoints (id, integrator_id, url, events, secret, created_at, updated_at) VALUES ($1, $2, 'https://merchant.example/hook', $3, 'whsec_test', now(), now())`,
        [randomUUID(), integratorId, ['checkout.session.paid', 'checkout.session.underpaid']],
      );
      const before = await balances();
      const session = await startSession(t.url, await createUsdLink(t.url, key, '4'), { assetId: 'USDT', blockchainId: 'bsc' });
      const hash = await polygon.pay(session.payAddress, 'USDT', session.cryptoAmount);
      await polygon.t.mine(3);
      await eventually(async () => (await readSession(t.url, session.id)).status === 'paid', 15_000, 'paid on polygon');
      const view = await readSession(t.url, session.id);
      assert.deepEqual([view.blockchainId, view.paidBlockchainId, view.txHash], ['bsc', 'polygon', hash], 'the public view says where it was paid');
      const record = (await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key })).body;
      assert.deepEqual([record.status, record.paidBlockchainId], ['paid', 'polygon']);
      assert.deepEqual(
        record.transfers.map((transfer: { blockchainId: string; txHash: string }) => [transfer.blockchainId, transfer.txHash]),
        [['polygon', hash]],
      );
      const { rows } = await t.db.query<{ body: string }>(
        "SELECT body FROM webhook_events WHERE type = 'checkout.session.paid' AND body::jsonb -> 'data' -> 'object' ->> 'id' = $1",
        [session.id],
      );
      assert.equal(JSON.parse(rows[0]!.body).data.object.paidBlockchainId, 'polygon', 'and so does the webhook');
      const after = await balances();
      assert.equal(Number(after.polygon[1]), Number(before.polygon[1]) + 4, 'the polygon balance is credited');
      assert.deepEqual(after.bsc, before.bsc, 'the bsc balance is not');
      await assertLedgerMatches(t.db, integratorId);
    });

    it('adds up an underpaid session topped up on the other network, each part in its own network’s balance', async () => {
      const before = await balances();
      const session = await startSession(t.url, await createUsdLink(t.url, key, '10'), { assetId: 'USDT', blockchainId: 'polygon' });
      await polygon.pay(session.payAddress, 'USDT', '6');
      await polygon.t.mine(3);
      await eventually(async () => (await readSession(t.url, session.id)).status === 'underpaid', 15_000, 'underpaid on polygon');
      assert.equal((await readSession(t.url, session.id)).remainingAmount, '4.000000');
      const topUp = await bsc.pay(session.payAddress, 'USDT', '4');
      await bsc.t.mine(2);
      await eventually(async () => (await readSession(t.url, session.id)).status === 'paid', 15_000, 'topped up on bsc');
      const view = await readSession(t.url, session.id);
      assert.deepEqual([view.paidAmount, view.paidBlockchainId, view.txHash], ['10.000000', 'bsc', topUp], 'the transfer that paid it is on bsc');
      const record = (await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key })).body;
      assert.deepEqual(
        record.transfers.map((transfer: { blockchainId: string; amount: string }) => [transfer.blockchainId, transfer.amount]),
        [
          ['polygon', '6.000000'],
          ['bsc', '4.000000'],
        ],
      );
      const after = await balances();
      assert.equal(Number(after.polygon[1]), Number(before.polygon[1]) + 6);
      assert.equal(Number(after.bsc[1]), Number(before.bsc[1]) + 4);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('never credits a transfer on a network the service does not run', async () => {
      const elsewhere = await startEvmFixture({ chainId: 31339 });
      try {
        assert.equal(elsewhere.usdt, bsc.usdt, 'the same token address, on a chain the service does not run');
        const session = await startSession(t.url, await createUsdLink(t.url, key, '2'), { assetId: 'USDT', blockchainId: 'bsc' });
        await elsewhere.pay(session.payAddress, 'USDT', session.cryptoAmount);
        await elsewhere.t.mine(3);
        // A payment on each configured network after it, credited: both scanners have read past it.
        const witness = await startSession(t.url, await createUsdLink(t.url, key, '1'), { assetId: 'USDT', blockchainId: 'bsc' });
        await bsc.pay(witness.payAddress, 'USDT', '0.5');
        await polygon.pay(witness.payAddress, 'USDT', '0.5');
        await Promise.all([bsc.t.mine(3), polygon.t.mine(3)]);
        await eventually(async () => (await readSession(t.url, witness.id)).status === 'paid', 15_000, 'the witness paid on both networks');
        const view = await readSession(t.url, session.id);
        assert.deepEqual([view.status, view.paidAmount], ['awaiting_payment', '0.000000']);
        assert.equal(await countRows(t.db, 'incoming_transfers', 'session_id = $1', [session.id]), 0, 'not even seen');
      } finally {
        await elsewhere.stop();
      }
    });
  });
}
