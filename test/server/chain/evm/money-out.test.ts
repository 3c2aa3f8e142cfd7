/**
 * Money out on a real chain (anvil): a payout is signed once, without sending, and that one raw
 * transaction is what gets broadcast, as often as needed. A re-broadcast must be recognised as the
 * same payout (the recipient is paid once), and a transfer that reverts must read as reverted, so
 * that the withdrawal fails and its funds go back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseTransaction, type Address } from 'viem';
import { classifyRefusal } from '../../../../src/server/chain/evm/broadcast.js';
import type { EvmChain } from '../../../../src/server/chain/evm/chain.js';
import { connectEvmChain } from '../../../../src/server/chain/evm/connect.js';
import { SecretKey } from '../../../../src/server/chain/evm/config.js';
import { EvmChainError } from '../../../../src/server/chain/evm/errors.js';
import { freeze, startTestChain, type TestChain } from '../../../support/anvil.js';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

describe('EVM money out', () => {
  let t: TestChain;
  let usdt: Address;
  let cngn: Address;
  let chain: EvmChain;
  let hot: Address;
  /** A fresh address that holds nothing. */
  const recipient = (n: number) => `0x5a${n.toString(16).padStart(38, '0')}` as Address;

  before(async () => {
    t = await startTestChain();
    usdt = await t.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
    cngn = await t.deployToken({ name: 'Compliant Naira', symbol: 'cNGN', decimals: 6 });
    chain = await connectEvmChain(t.config({ tokens: { USDT: usdt, CNGN: cngn }, hotWalletIndex: 1 }));
    hot = chain.hotWallet!;
    assert.equal(hot, t.accounts[1]);
    await t.mint(usdt, hot, 1_000n * E18);
    await t.mint(cngn, hot, 1_000n * E6);
  });
  after(async () => {
    await chain?.close();
    await t?.stop();
  });

  it('signs a token transfer without sending it, then broadcasts it, and the recipient is paid', async () => {
    const to = recipient(1);
    const nonce = await chain.pendingNonce();
    const signed = await chain.signTokenTransfer({ nonce, assetId: 'USDT', to, amount: '12.345678' });
    assert.equal(await chain.pendingNonce(), nonce, 'nothing was sent');
    assert.equal(signed.from, hot);
    assert.equal(signed.nonce, nonce);
    assert.match(signed.txHash, /^0x[0-9a-f]{64}$/);
    const decoded = parseTransaction(signed.rawTransaction);
    assert.equal(decoded.nonce, nonce);
    assert.equal(decoded.chainId, 31337);
    assert.equal(decoded.to?.toLowerCase(), usdt.toLowerCase());
    assert.equal(decoded.type, 'eip1559', 'anvil has a base fee, so EIP-1559 fees');

    assert.deepEqual(await chain.broadcast(signed.rawTransaction), { outcome: 'sent', txHash: signed.txHash });
    await t.mined(signed.txHash);
    const receipt = await chain.receipt(signed.txHash);
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.status === 'success' && receipt.confirmations, 1);
    assert.equal(await chain.tokenBalance('USDT', to), '12.345678');
    assert.equal(await chain.latestNonce(), nonce + 1);
  });

  it('recognises a re-broadcast of a mined payout (nonce too low) and pays once', async () => {
    const to = recipient(2);
    const signed = await chain.signTokenTransfer({ nonce: await chain.pendingNonce(), assetId: 'CNGN', to, amount: '5' });
    assert.equal((await chain.broadcast(signed.rawTransaction)).outcome, 'sent');
    await t.mined(signed.txHash);
    assert.deepEqual(await chain.broadcast(signed.rawTransaction), { outcome: 'nonce_too_low', txHash: signed.txHash });
    assert.deepEqual(await chain.broadcast(signed.rawTransaction), { outcome: 'nonce_too_low', txHash: signed.txHash });
    assert.equal((await chain.receipt(signed.txHash)).status, 'success');
    assert.equal(await chain.tokenBalance('CNGN', to), '5');
  });

  it('recognises a re-broadcast of a payout still in the mempool (already known), and a rival with its nonce (underpriced)', async () => {
    const to = recipient(3);
    await t.setAutomine(false);
    try {
      const nonce = await chain.pendingNonce();
      const signed = await chain.signTokenTransfer({ nonce, assetId: 'CNGN', to, amount: '1' });
      assert.equal((await chain.broadcast(signed.rawTransaction)).outcome, 'sent');
      assert.equal((await chain.receipt(signed.txHash)).status, 'pending');
      assert.deepEqual(await chain.broadcast(signed.rawTransaction), { outcome: 'already_known', txHash: signed.txHash });
      assert.equal(await chain.pendingNonce(), nonce + 1);
      assert.equal(await chain.latestNonce(), nonce);
      // A second payout signed with the same nonce and the same fees cannot replace the first.
      const rival = await chain.signTokenTransfer({ nonce, assetId: 'CNGN', to, amount: '2', fees: signed.fees, gas: signed.gas });
      assert.deepEqual(await chain.broadcast(rival.rawTransaction), { outcome: 'replacement_underpriced', txHash: rival.txHash });
      await t.mine(1);
    } finally {
      await t.setAutomine(true);
    }
    assert.equal(await chain.tokenBalance('CNGN', to), '1');
  });

  it('reads a transaction the node never saw as pending (the caller re-broadcasts its stored copy)', async () => {
    const unsent = await chain.signTokenTransfer({
      nonce: 10_000,
      assetId: 'CNGN',
      to: recipient(3),
      amount: '2',
      gas: 60_000n,
      fees: { type: 'legacy', gasPrice: 1n },
    });
    assert.deepEqual(await chain.receipt(unsent.txHash), { status: 'pending' });
  });

  it('reports a transfer that reverts on chain as reverted, and refuses to estimate one that would', async () => {
    const to = recipient(4);
    await t.setTokenPaused(usdt, true);
    try {
      await assert.rejects(chain.signTokenTransfer({ nonce: await chain.pendingNonce(), assetId: 'USDT', to, amount: '1' }), (error: EvmChainError) => {
        assert.ok(error instanceof EvmChainError);
        assert.equal(error.code, 'reverted');
        assert.equal(error.retryable, false);
        assert.match(error.message, /transfers are paused/);
        return true;
      });
      // Signed with a gas limit of its own, it is mined, and fails.
      const signed = await chain.signTokenTransfer({ nonce: await chain.pendingNonce(), assetId: 'USDT', to, amount: '1', gas: 100_000n });
      assert.equal((await chain.broadcast(signed.rawTransaction)).outcome, 'sent');
      assert.equal(await t.mined(signed.txHash), 'reverted');
      const receipt = await chain.receipt(signed.txHash);
      assert.equal(receipt.status, 'reverted');
      assert.ok(receipt.status === 'reverted' && receipt.blockNumber > 0 && receipt.gasUsed > 0n);
    } finally {
      await t.setTokenPaused(usdt, false);
    }
    assert.equal(await chain.tokenBalance('USDT', to), '0');
  });

  it('signs with fees and gas given without asking the node (a payout can be stored while the node is down)', async () => {
    const down = await connectEvmChain(chain.config);
    const fees = { type: 'eip1559' as const, maxFeePerGas: 5_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
    const thaw = await freeze(t.node);
    try {
      const signed = await down.signTokenTransfer({ nonce: 999, assetId: 'USDT', to: recipient(5), amount: '1', fees, gas: 80_000n });
      assert.equal(parseTransaction(signed.rawTransaction).nonce, 999);
    } finally {
      thaw();
      await down.close();
    }
  });

  it('refuses amounts the token cannot carry and assets that are not configured, before signing', async () => {
    const base = { nonce: 0, to: recipient(6), gas: 1n, fees: { type: 'legacy' as const, gasPrice: 1n } };
    await assert.rejects(chain.signTokenTransfer({ ...base, assetId: 'CNGN', amount: '0.0000001' }), /CNGN has 6 decimals; 0.0000001 has more/);
    await assert.rejects(chain.signTokenTransfer({ ...base, assetId: 'CNGN', amount: '0' }), /more than 0/);
    await assert.rejects(chain.signTokenTransfer({ ...base, assetId: 'CNGN', amount: '-1' }), /decimal string/);
    await assert.rejects(chain.signTokenTransfer({ ...base, assetId: 'CNGN', amount: '1', to: '0x1234' }), /40 hexadecimal/);
    await assert.rejects(chain.signTokenTransfer({ ...base, nonce: -1, assetId: 'CNGN', amount: '1' }), /nonce/);
    // 18-decimal USDT carries every digit.
    const signed = await chain.signTokenTransfer({ ...base, assetId: 'USDT', amount: '0.000000000000000001' });
    assert.ok(signed.rawTransaction);
  });

  it('reads native and token balances', async () => {
    assert.ok((await chain.nativeBalance(hot)) > 9_000n * E18);
    const fresh = recipient(7);
    assert.equal(await chain.nativeBalance(fresh), 0n);
    assert.equal(await chain.tokenBalance('USDT', fresh), '0');
    assert.equal((await chain.tokenUnits('CNGN', hot)) > 0n, true);
  });

  it('maps a sender without gas money to insufficient_funds (retryable: top up the hot wallet)', async () => {
    const poor = await connectEvmChain({ ...chain.config, payoutKey: new SecretKey(t.devKey(9)) });
    await t.setBalance(t.accounts[9]!, 0n);
    try {
      const signed = await poor.signTokenTransfer({ nonce: 0, assetId: 'USDT', to: recipient(8), amount: '1', gas: 60_000n });
      await assert.rejects(poor.broadcast(signed.rawTransaction), (error: EvmChainError) => error.code === 'insufficient_funds' && error.retryable);
    } finally {
      await poor.close();
    }
  });
});

describe('EVM fees on a chain without EIP-1559 (as BNB Smart Chain prices)', () => {
  it('quotes and signs a legacy gas price, and the transfer goes through', async () => {
    const t = await startTestChain({ hardfork: 'berlin' });
    try {
      const usdt = await t.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
      const chain = await connectEvmChain(t.config({ tokens: { USDT: usdt } }));
      await t.mint(usdt, chain.hotWallet!, 10n * E18);
      const fees = await chain.feeQuote();
      assert.equal(fees.type, 'legacy');
      const signed = await chain.signTokenTransfer({ nonce: await chain.pendingNonce(), assetId: 'USDT', to: t.accounts[4]!, amount: '2' });
      assert.equal(parseTransaction(signed.rawTransaction).type, 'legacy');
      assert.equal((await chain.broadcast(signed.rawTransaction)).outcome, 'sent');
      await t.mined(signed.txHash);
      assert.equal((await chain.receipt(signed.txHash)).status, 'success');
      assert.equal(await chain.tokenBalance('USDT', t.accounts[4]!), '2');
      await chain.close();
    } finally {
      await t.stop();
    }
  });
});

describe('classifyRefusal', () => {
  it("reads each node's words for a refused raw transaction", () => {
    const cases: Array<[string, ReturnType<typeof classifyRefusal>]> = [
      ['already known', 'already_known'],
      ['transaction already imported', 'already_known'],
      ['known transaction: 0xabc', 'already_known'],
      ['AlreadyKnown', 'already_known'],
      ['nonce too low', 'nonce_too_low'],
      ['nonce too low: next nonce 5, tx nonce 4', 'nonce_too_low'],
      ['OldNonce', 'nonce_too_low'],
      ['replacement transaction underpriced', 'replacement_underpriced'],
      ['ReplacementNotAllowed', 'replacement_underpriced'],
      ['insufficient funds for gas * price + value', 'insufficient_funds'],
      ['Insufficient funds for gas * price + value', 'insufficient_funds'],
      ['transaction underpriced', 'fee_too_low'],
      ['max fee per gas less than block base fee', 'fee_too_low'],
      ['nonce too high', 'nonce_too_high'],
      ['invalid chain id for signer', 'rejected'],
      ['intrinsic gas too low', 'rejected'],
      ['exceeds block gas limit', 'rejected'],
      ['header not found', null],
    ];
    assert.deepEqual(
      cases.map(([message]) => [message, classifyRefusal(message)]),
      cases,
    );
  });
});
