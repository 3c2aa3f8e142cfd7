/**
 * Withdrawal networks are configuration, not code: `GET /v1/withdrawal/networks` lists
 * what the chain adapter is configured with, and the withdrawal rules accept exactly those networks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSandboxChain } from '../../src/server/chain/sandbox.js';
import { BSC, type Network } from '../../src/server/chain/types.js';
import { openDatabase, type Database } from '../../src/server/db/index.js';
import { createApp } from '../../src/server/service/app.js';
import { createApiKey } from '../../src/server/service/keys/index.js';

const POLYGON: Network = { id: 'polygon', name: 'Polygon PoS', aliases: ['matic'], assets: ['USDT'], chainId: 137, explorerUrl: 'https://polygonscan.com' };

describe('withdrawal networks from configuration', () => {
  let db: Database;
  let app: ReturnType<typeof createApp>;
  let key: string;

  before(async () => {
    db = await openDatabase();
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
