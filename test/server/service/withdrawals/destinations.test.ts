/**
 * Addresses no withdrawal may go to, even well formed and covered by the balance: the service's own hot
 * wallet (the payout would leave and reach the same wallet, the merchant debited for nothing) and a
 * configured token's contract (tokens sent there are lost). Each is a clear 422 on `address` that
 * reserves nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BSC, createSandboxChain } from '../../../../src/server/chain/sandbox/index.js';
import { type ChainAdapter, type Network, type RealChainAdapter } from '../../../../src/server/chain/types.js';
import type { Database } from '../../../../src/server/db/index.js';
import { createApp } from '../../../../src/server/service/app.js';
import { createApiKey } from '../../../../src/server/service/keys/index.js';
import { countRows, GOOD_ADDRESS } from '../../../support/money.js';
import { openMigratedPglite } from '../../../support/pglite-template.js';

const USDT_CONTRACT = '0x55d398326f99059fF775485246999027B3197955';
const CNGN_CONTRACT = '0xa8AEA66B361a8d53e8865c62D142167Af28Af058';
const HOT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const NETWORK: Network = { ...BSC, tokens: { USDT: { address: USDT_CONTRACT, decimals: 18 }, CNGN: { address: CNGN_CONTRACT, decimals: 6 } } };

describe('withdrawal destinations', () => {
  let db: Database;
  let key: string;
  let sandboxApp: ReturnType<typeof createApp>;
  let realApp: ReturnType<typeof createApp>;

  before(async () => {
    db = await openMigratedPglite();
    key = (await createApiKey(db)).key;
    const sandbox = createSandboxChain({ networks: [NETWORK] });
    // The same configuration as a real chain with a hot wallet (what the payouts would send from); nothing here reaches a node.
    const real = {
      ...sandbox,
      kind: 'real',
      sandbox: false,
      chains: [{ blockchainId: 'bsc', incoming: undefined as never, outgoing: { hotWallet: HOT_WALLET } as never }],
      close: async () => {},
    } as unknown as RealChainAdapter;
    const app = (chain: ChainAdapter) => createApp({ db, chain, publicUrl: 'http://pay.test/pay', now: () => new Date() });
    sandboxApp = app(sandbox);
    realApp = app(real);
    // 10 USDT in the merchant's balance, paid on the sandbox.
    const json = { 'x-api-key': key, 'content-type': 'application/json' };
    const link = await (
      await sandboxApp.request('/v1/payment-link', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          title: 'T',
          description: '',
          linkType: 'Standard',
          fiatAmount: '10',
          fiatCurrency: 'USD',
          action: {},
          options: {},
          cart: { items: [] },
        }),
      })
    ).json();
    const session = await (
      await sandboxApp.request(`/v1/checkout/${link.slug}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ assetId: 'USDT' }),
      })
    ).json();
    const paid = await sandboxApp.request(`/v1/checkout/sessions/${session.id}/simulate-payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(paid.status, 200);
  });
  after(() => db.close());

  const withdraw = (app: ReturnType<typeof createApp>, address: string) =>
    app.request('/v1/withdrawal', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '1', address, blockchainId: 'bsc', assetId: 'USDT' }),
    });
  const balance = async () =>
    ((await (await realApp.request('/v1/balance', { headers: { 'x-api-key': key } })).json()) as { items: Array<{ assetId: string; available: string }> })
      .items;

  it('refuses the hot wallet, in any case, with a 422 on address that says why, reserving nothing', async () => {
    const before = await balance();
    for (const address of [HOT_WALLET, HOT_WALLET.toLowerCase()]) {
      const response = await withdraw(realApp, address);
      assert.equal(response.status, 422);
      const body = (await response.json()) as { code: string; message: string; errors: Array<{ path: string; message: string }> };
      assert.equal(body.code, 'hot_wallet_address');
      assert.match(body.message, /hot wallet.*debit your balance while the tokens never leave it/);
      assert.equal(body.errors[0]!.path, 'address');
    }
    assert.deepEqual(await balance(), before);
    assert.equal(await countRows(db, 'withdrawals'), 0);
  });

  it('refuses every configured token contract, on the sandbox too, and accepts a wallet', async () => {
    for (const [address, asset] of [
      [USDT_CONTRACT, 'USDT'],
      [CNGN_CONTRACT.toLowerCase(), 'CNGN'],
    ] as const) {
      for (const app of [sandboxApp, realApp]) {
        const response = await withdraw(app, address);
        assert.equal(response.status, 422);
        const body = (await response.json()) as { code: string; message: string };
        assert.equal(body.code, 'token_contract_address');
        assert.match(body.message, new RegExp(`the ${asset} token contract on BNB Smart Chain.*lost for good`));
      }
    }
    assert.equal(await countRows(db, 'withdrawals'), 0);
    const wallet = await withdraw(sandboxApp, GOOD_ADDRESS);
    assert.equal(wallet.status, 200, 'the same request to a wallet is taken');
  });
});
