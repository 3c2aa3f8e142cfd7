/**
 * The sweep moves what customers paid into deposit addresses on to the hot wallet, paying the gas
 * from the hot wallet. A merchant relies on it to be idempotent: run twice, or run again after a
 * crash at any point, it moves each token once and tops up gas only where it has to.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import { accountXpubFromMnemonic, depositKeys } from '../../../../src/server/chain/evm/addresses.js';
import { ANVIL_MNEMONIC } from '../../../../src/server/chain/evm/anvil.js';
import type { EvmChain } from '../../../../src/server/chain/evm/chain.js';
import { connectEvmChain } from '../../../../src/server/chain/evm/connect.js';
import { sendGasFromHotWallet, sweepDeposits, type SweepEvent } from '../../../../src/server/chain/evm/sweep.js';
import { DEPOSIT_MNEMONIC, startTestChain, type TestChain } from '../../../support/anvil.js';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

describe('sweep', () => {
  let t: TestChain;
  let usdt: Address;
  let cngn: Address;
  let chain: EvmChain;
  let hot: Address;
  let nextIndex = 0;
  /** Fresh deposit indexes for each test, so tests do not see each other's deposits. */
  let indexes: number[];

  before(async () => {
    t = await startTestChain();
    usdt = await t.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
    cngn = await t.deployToken({ name: 'Compliant Naira', symbol: 'cNGN', decimals: 6 });
    chain = await connectEvmChain(t.config({ tokens: { USDT: usdt, CNGN: cngn } }));
    hot = chain.hotWallet!;
  });
  after(async () => {
    await chain?.close();
    await t?.stop();
  });
  beforeEach(() => {
    indexes = [nextIndex, nextIndex + 1, nextIndex + 2, nextIndex + 3];
    nextIndex += 4;
  });

  const sweep = (options: Partial<Parameters<typeof sweepDeposits>[0]> = {}) =>
    sweepDeposits({ chain, mnemonic: DEPOSIT_MNEMONIC, indexes, pollMs: 10, waitTimeoutMs: 20_000, ...options });

  /** A sweep, and the moment it says it waits for `reason` (what an earlier run left in flight). */
  const sweepWaiting = (options: Partial<Parameters<typeof sweepDeposits>[0]>, reason: string) => {
    let saw!: () => void;
    const waits = new Promise<boolean>((resolve) => (saw = () => resolve(true)));
    const report = sweep({ ...options, onProgress: (event) => event.type === 'waiting' && event.reason === reason && saw() });
    // False when the sweep ends (or fails) without having waited.
    const ended = report.then(
      () => false,
      () => false,
    );
    return { waiting: Promise.race([waits, ended]).then((waited) => assert.ok(waited, `the sweep waits: ${reason}`)), report };
  };

  it('empties every deposit address that holds tokens into the hot wallet, topping up gas; a second run does nothing', async () => {
    const [a, b, c, empty] = indexes.map((i) => chain.depositAddress(i)) as [Address, Address, Address, Address];
    await t.mint(usdt, a, 25n * E18 + 1n);
    await t.mint(cngn, b, 40n * E6);
    await t.mint(usdt, c, 3n * E18);
    await t.mint(cngn, c, 7_500_001n);
    const hotUsdt = await chain.tokenUnits('USDT', hot);
    const hotCngn = await chain.tokenUnits('CNGN', hot);
    const events: SweepEvent[] = [];

    const report = await sweep({ onProgress: (event) => events.push(event) });

    assert.equal(report.destination, hot);
    assert.equal(report.checked, 4);
    assert.deepEqual(report.moved, { USDT: '28.000000000000000001', CNGN: '47.500001' });
    assert.deepEqual(
      report.addresses.map((x) => [x.index, x.address, x.tokens.map((token) => [token.assetId, token.amount, token.status])]),
      [
        [indexes[0], a, [['USDT', '25.000000000000000001', 'success']]],
        [indexes[1], b, [['CNGN', '40', 'success']]],
        [
          indexes[2],
          c,
          [
            ['USDT', '3', 'success'],
            ['CNGN', '7.500001', 'success'],
          ],
        ],
      ],
    );
    for (const entry of report.addresses) assert.ok(entry.gasTopUp && entry.gasTopUp.value > 0n, 'a fresh deposit address has no gas');
    for (const address of [a, b, c, empty]) {
      assert.equal(await chain.tokenUnits('USDT', address), 0n);
      assert.equal(await chain.tokenUnits('CNGN', address), 0n);
    }
    assert.equal(await chain.tokenUnits('USDT', hot), hotUsdt + 28n * E18 + 1n);
    assert.equal(await chain.tokenUnits('CNGN', hot), hotCngn + 47_500_001n);
    assert.equal(events.filter((e) => e.type === 'transfer').length, 4);
    assert.equal(events.filter((e) => e.type === 'top-up').length, 3);

    const hotNonce = await chain.latestNonce();
    const again = await sweep();
    assert.deepEqual(again.addresses, []);
    assert.deepEqual(again.moved, {});
    assert.equal(await chain.latestNonce(), hotNonce, 'the second run sent nothing');
  });

  it('sends to another destination when asked, and skips a token whose transfer would revert', async () => {
    const [a] = indexes.map((i) => chain.depositAddress(i)) as [Address];
    const destination = t.accounts[6]!;
    await t.mint(usdt, a, 2n * E18);
    await t.mint(cngn, a, 2n * E6);
    await t.setTokenPaused(cngn, true);
    try {
      const report = await sweep({ destination });
      assert.deepEqual(
        report.addresses[0]!.tokens.map((x) => [x.assetId, x.status]),
        [
          ['USDT', 'success'],
          ['CNGN', 'skipped'],
        ],
      );
      assert.match(report.addresses[0]!.tokens[1]!.reason!, /would revert.*transfers are paused/);
    } finally {
      await t.setTokenPaused(cngn, false);
    }
    assert.equal(await chain.tokenBalance('USDT', destination), '2');
    assert.equal(await chain.tokenBalance('CNGN', a), '2', 'left for the next run');
    const next = await sweep({ destination });
    assert.deepEqual(next.moved, { CNGN: '2' });
    assert.equal(await chain.tokenBalance('CNGN', destination), '2');
  });

  it('after a crash with its token transfer in flight, waits for it and sends nothing twice', async () => {
    const index = indexes[0]!;
    const address = chain.depositAddress(index);
    await t.mint(usdt, address, 9n * E18);
    await t.setBalance(address, E18); // gas, as an earlier run would have topped up
    const account = depositKeys(DEPOSIT_MNEMONIC).account(index);
    const hotBefore = await chain.tokenUnits('USDT', hot);

    // The crashed run had signed and broadcast this transfer, which is still in the mempool.
    await t.setAutomine(false);
    let report;
    try {
      const inFlight = await chain.signCall({
        account,
        to: usdt,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [hot, 9n * E18] }),
        nonce: 0,
      });
      assert.equal((await chain.broadcast(inFlight.rawTransaction)).outcome, 'sent');
      const running = sweepWaiting({ indexes: [index] }, 'a transfer of an earlier run is still pending');
      await running.waiting;
      await t.mine(1);
      await t.setAutomine(true);
      report = await running.report;
      assert.equal((await chain.receipt(inFlight.txHash)).status, 'success');
    } finally {
      await t.setAutomine(true);
    }
    assert.deepEqual(report.addresses, [], 'nothing was left to move');
    assert.equal(await chain.latestNonce(address), 1, 'the deposit address sent one transaction');
    assert.equal(await chain.tokenUnits('USDT', hot), hotBefore + 9n * E18);
  });

  it('after a crash with its gas top-up in flight, waits for it instead of topping up again', async () => {
    const index = indexes[0]!;
    const address = chain.depositAddress(index);
    await t.mint(cngn, address, 3n * E6);
    await t.setAutomine(false);
    let report;
    let hotNonceAfterTopUp: number;
    try {
      await sendGasFromHotWallet(chain, address, E18 / 10n);
      hotNonceAfterTopUp = await chain.pendingNonce();
      const running = sweepWaiting({ indexes: [index] }, 'a gas top-up is still pending');
      await running.waiting;
      await t.mine(1);
      await t.setAutomine(true);
      report = await running.report;
    } finally {
      await t.setAutomine(true);
    }
    assert.equal(report.addresses[0]!.gasTopUp, undefined, 'no second top-up');
    assert.deepEqual(report.moved, { CNGN: '3' });
    assert.equal(await chain.latestNonce(), hotNonceAfterTopUp, 'the hot wallet sent only the first top-up');
  });

  it('refuses a mnemonic that is not the configured xpub’s (its addresses are not the deposits)', async () => {
    assert.notEqual(accountXpubFromMnemonic(ANVIL_MNEMONIC), chain.config.xpub);
    await assert.rejects(sweep({ mnemonic: ANVIL_MNEMONIC }), /mnemonic does not belong to PAYLINK_EVM_XPUB/);
  });
});
