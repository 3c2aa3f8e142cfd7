/**
 * Networks are configuration, not code: `GET /v1/withdrawal/networks` lists what the chain adapter
 * is configured with, and the withdrawal rules accept exactly those networks. With an asset on two
 * networks, sessions are started on a chosen (asset, network) pair, and balances and withdrawals are
 * per network.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BSC, createSandboxChain } from '../../../src/server/chain/sandbox/index.js';
import { type Network } from '../../../src/server/chain/types.js';
import type { Database } from '../../../src/server/db/index.js';
import { createApp } from '../../../src/server/service/app.js';
import { createApiKey } from '../../../src/server/service/keys/index.js';
import { assertLedgerMatches, createUsdLink, startSession } from '../../support/money.js';
import { openMigratedPglite } from '../../support/pglite-template.js';
import { backends, call, startTestService, type TestService } from '../../support/service.js';

const POLYGON: Network = { id: 'polygon', name: 'Polygon PoS', aliases: ['matic'], assets: ['USDT'], chainId: 137, explorerUrl: 'https://polygonscan.com' };

describe('withdrawal networks from configuration', () => {
  let db: Database;
  let app: ReturnType<typeof createApp>;
  let key: string;

  before(async () => {
    db = await openMigratedPglite();
    app = createApp({ db, chain: createSandboxChain({ networks: [BSC, POLYGON] }), publicUrl: 'http://pay.test/pay', now: () => new Date() });
    key = (await createApiKey(db)).key;
  });
  after(() => db.close());

  const get = (path: string, headers: Record<string, string> = { 'x-api-key': key }) => app.request(path, { headers });
  const withdraw = (body: Record<string, unknown>) =>
    app.request('/v1/withdrawal', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('lists every configured network with its assets, behind the API key', async () => {
    const res = await get('/v1/withdrawal/networks');
    assert.equal(res.status, 200);
    const { items } = (await res.json()) as { items: Array<Record<string, unknown>> };
    assert.deepEqual(
      items.map(({ id, name, assets, chainId }) => ({ id, name, assets, chainId })),
      [
        { id: 'bsc', name: 'BNB Smart Chain', assets: ['USDT', 'CNGN'], chainId: null },
        { id: 'polygon', name: 'Polygon PoS', assets: ['USDT'], chainId: 137 },
      ],
    );
    assert.equal((await get('/v1/withdrawal/networks', {})).status, 401);
  });

  it('accepts a configured network by alias, and refuses an asset the network does not carry', async () => {
    const address = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const alias = await withdraw({ amount: 1, address, blockchainId: 'MATIC', assetId: 'usdt' });
    assert.equal(alias.status, 422, 'valid: refused only for the (empty) balance');
    const wrongAsset = await withdraw({ amount: 1, address, blockchainId: 'polygon', assetId: 'CNGN' });
    assert.equal(wrongAsset.status, 400);
    const body = (await wrongAsset.json()) as { errors: Array<{ path: string; message: string }> };
    assert.deepEqual(body.errors, [{ path: 'assetId', message: 'Polygon PoS does not carry CNGN' }]);
  });
});

for (const backend of backends()) {
  describe(`payments and balances per (asset, network) (${backend})`, () => {
    let t: TestService;
    let key: string;
    let integratorId: string;
    const address = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

    before(async () => {
      t = await startTestService(backend, { chain: createSandboxChain({ networks: [BSC, POLYGON] }), payoutWorker: false });
      ({ key, integratorId } = await t.newKey());
    });
    after(() => t?.close());

    const pay = async (slug: string, body: Record<string, unknown>) => {
      const session = await startSession(t.url, slug, body);
      const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      return session;
    };

    it('lists every payable pair in the public view', async () => {
      const slug = await createUsdLink(t.url, key, '5');
      const view = await call(t.url, 'GET', `/v1/checkout/${slug}`);
      assert.deepEqual(
        view.body.assets.map((a: { assetId: string; blockchainId: string; networkName: string; chainId: number | null }) => [
          a.assetId,
          a.blockchainId,
          a.networkName,
          a.chainId,
        ]),
        [
          ['USDT', 'bsc', 'BNB Smart Chain', null],
          ['CNGN', 'bsc', 'BNB Smart Chain', null],
          ['USDT', 'polygon', 'Polygon PoS', 137],
        ],
      );
    });

    it('needs blockchainId for an asset on several networks (400 naming the choices), not for one on a single network', async () => {
      const slug = await createUsdLink(t.url, key, '5');
      const ambiguous = await call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId: 'USDT' } });
      assert.equal(ambiguous.status, 400);
      assert.deepEqual(ambiguous.body.errors, [
        { path: 'blockchainId', message: 'USDT is on several networks: choose one with blockchainId: bsc (BNB Smart Chain), polygon (Polygon PoS)' },
      ]);
      const notCarried = await call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId: 'CNGN', blockchainId: 'polygon' } });
      assert.equal(notCarried.status, 400);
      assert.deepEqual(notCarried.body.errors, [{ path: 'blockchainId', message: 'CNGN can be paid on bsc (BNB Smart Chain)' }]);
      const single = await startSession(t.url, slug, { assetId: 'cngn' });
      assert.equal(single.blockchainId, 'bsc');
      const byAlias = await startSession(t.url, slug, { assetId: 'USDT', blockchainId: 'MATIC' });
      assert.deepEqual([byAlias.blockchainId, byAlias.networkName], ['polygon', 'Polygon PoS']);
    });

    it('keeps a balance per asset and network, and withdraws only what the chosen network holds', async () => {
      await pay(await createUsdLink(t.url, key, '7'), { assetId: 'USDT', blockchainId: 'polygon' });
      await pay(await createUsdLink(t.url, key, '2'), { assetId: 'USDT', blockchainId: 'bsc' });
      const balance = await call(t.url, 'GET', '/v1/balance', { key });
      assert.deepEqual(balance.body.items, [
        { assetId: 'USDT', blockchainId: 'bsc', available: '2.000000', pending: '0.000000' },
        { assetId: 'CNGN', blockchainId: 'bsc', available: '0.000000', pending: '0.000000' },
        { assetId: 'USDT', blockchainId: 'polygon', available: '7.000000', pending: '0.000000' },
      ]);
      const tooMuchOnBsc = await withdrawFrom(t.url, key, { amount: '5', address, blockchainId: 'bsc', assetId: 'USDT' });
      assert.equal(tooMuchOnBsc.status, 422);
      assert.match(tooMuchOnBsc.body.message, /on bsc/);
      const onPolygon = await withdrawFrom(t.url, key, { amount: '5', address, blockchainId: 'polygon', assetId: 'USDT' });
      assert.equal(onPolygon.status, 200, JSON.stringify(onPolygon.body));
      const record = await call(t.url, 'GET', `/v1/withdrawal/${onPolygon.body.id}`, { key });
      assert.equal(record.body.blockchainId, 'polygon');
      const after = await call(t.url, 'GET', '/v1/balance', { key });
      assert.deepEqual(after.body.items[2], { assetId: 'USDT', blockchainId: 'polygon', available: '2.000000', pending: '5.000000' });
      assert.deepEqual(after.body.items[0], { assetId: 'USDT', blockchainId: 'bsc', available: '2.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, integratorId);
    });
  });
}

const withdrawFrom = (url: string, key: string, body: Record<string, unknown>) => call(url, 'POST', '/v1/withdrawal', { key, body });
