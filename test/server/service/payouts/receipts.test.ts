/**
 * What a payout's recipient really received, from the receipt's ERC-20 Transfer logs: the amount
 * sent for a plain token, and less for a token that charges a fee on transfers (the fee-charging
 * test token, 1%): the withdrawal shows `receivedAmount` beside its `amount`, and the operator's log
 * says so (code `payout_shortfall`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseUnits, type Address } from 'viem';
import { connectEvmAdapter } from '../../../../src/server/chain/evm/adapter.js';
import { FEE_TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { createLogger } from '../../../../src/server/log.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { creditDirectly, outgoingOf, randomAddress, startEvmFixture, waitForPayouts, type EvmFixture } from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`EVM payout receipts (${backend})`, () => {
    let f: EvmFixture;
    let feeToken: Address;
    let chain: RealChainAdapter;
    let t: TestService;
    let key: string;
    let hot: Address;
    const logged: Array<{ code: string; [field: string]: unknown }> = [];

    before(async () => {
      f = await startEvmFixture();
      feeToken = await f.t.deployFeeToken({ name: 'Fee Tether', symbol: 'USDT', decimals: 18, feeBps: 100 });
      // USDT is the fee-charging token here; cNGN the plain one.
      chain = await connectEvmAdapter(f.t.config({ tokens: { USDT: feeToken, CNGN: f.cngn }, confirmations: 1 }), {
        timeoutMs: 2_000,
        retries: 1,
        log: () => {},
      });
      hot = outgoingOf(chain).hotWallet as Address;
      await f.t.mint(feeToken, hot, parseUnits('1000', 18));
      await f.t.mint(f.cngn, hot, parseUnits('1000', 6));
      t = await startTestService(backend, { chain, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
      ({ key } = await t.newKey());
      await creditDirectly(t, chain, key, '100', 'USDT');
      await creditDirectly(t, chain, key, '100', 'CNGN');
    });
    after(async () => {
      await t?.close();
      await chain?.close();
      await f?.stop();
    });

    /** Withdraws `amount` of `assetId` and runs the payout worker by hand until it succeeded. */
    const payOut = async (assetId: 'USDT' | 'CNGN', amount: string) => {
      const to = randomAddress();
      const posted = await call(t.url, 'POST', '/v1/withdrawal', { key, body: { amount, address: to, blockchainId: 'bsc', assetId } });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const logger = createLogger((line) => logged.push(JSON.parse(line)));
      await waitForPayouts(
        { db: t.db, f, hot },
        async () => {
          await processPayouts({ db: t.db, chain, now: () => new Date(), log: logger }, { checkMs: 0 });
          return (await call(t.url, 'GET', `/v1/withdrawal/${posted.body.id}`, { key })).body.status === 'success';
        },
        `the ${assetId} payout to succeed`,
        { ids: [posted.body.id], timeoutMs: 10_000 },
      );
      return { to, withdrawal: (await call(t.url, 'GET', `/v1/withdrawal/${posted.body.id}`, { key })).body };
    };

    it('records the amount sent as received for a plain token', async () => {
      const { withdrawal } = await payOut('CNGN', '12.5');
      assert.equal(withdrawal.amount, '12.500000');
      assert.equal(withdrawal.receivedAmount, '12.500000');
      assert.equal(logged.filter((l) => l.code === 'payout_shortfall').length, 0);
    });

    it('records what the recipient of a fee-charging token received (1% less), shows it on the withdrawal and logs the shortfall', async () => {
      const { to, withdrawal } = await payOut('USDT', '2.5');
      assert.equal(withdrawal.amount, '2.500000');
      assert.equal(withdrawal.receivedAmount, '2.475000');
      const onChain = await f.t.client.readContract({ address: feeToken, abi: FEE_TEST_TOKEN_ABI, functionName: 'balanceOf', args: [to] });
      assert.equal(onChain, parseUnits('2.475', 18), 'the receipt told the truth');
      const line = logged.find((l) => l.code === 'payout_shortfall');
      assert.ok(line, 'the operator is told');
      assert.equal(line.withdrawalId, withdrawal.id);
      assert.equal(line.amount, '2.500000');
      assert.equal(line.receivedAmount, '2.475');
    });
  });
}
