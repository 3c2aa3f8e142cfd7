/**
 * Money in on a real chain (anvil): connecting checks the chain and reads the tokens' decimals;
 * the Transfer logs to deposit addresses come back exact, whatever the amount, however many share
 * a block, and nothing else comes back; a transfer a reorg removes is found gone, and one a reorg
 * moves is found in its new block. A customer would otherwise be credited for money that never
 * arrived, or not credited for money that did.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeFunctionData, type Address } from 'viem';
import type { EvmChain } from '../../../../src/server/chain/evm/chain.js';
import { connectEvmChain } from '../../../../src/server/chain/evm/connect.js';
import { EvmChainError } from '../../../../src/server/chain/evm/errors.js';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import { startTestChain, type TestChain } from '../../../support/anvil.js';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

describe('EVM money in', () => {
  let t: TestChain;
  let usdt: Address;
  let cngn: Address;
  let other: Address;
  let chain: EvmChain;
  let payer: Address;

  before(async () => {
    t = await startTestChain();
    usdt = await t.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
    cngn = await t.deployToken({ name: 'Compliant Naira', symbol: 'cNGN', decimals: 6 });
    other = await t.deployToken({ name: 'Not configured', symbol: 'XYZ', decimals: 18 });
    payer = t.accounts[2]!;
    for (const token of [usdt, other]) await t.mint(token, payer, 1_000_000n * E18);
    await t.mint(cngn, payer, 1_000_000n * E6);
    chain = await connectEvmChain(t.config({ tokens: { USDT: usdt, CNGN: cngn } }));
  });
  after(async () => {
    await chain?.close();
    await t?.stop();
  });

  describe('connecting', () => {
    it('describes the network with the chain id and the decimals each token contract reports', () => {
      assert.deepEqual(chain.network, {
        id: 'bsc',
        name: 'Local chain',
        aliases: chain.network.aliases,
        assets: ['USDT', 'CNGN'],
        chainId: 31337,
        explorerUrl: undefined,
        tokens: { USDT: { address: usdt, decimals: 18 }, CNGN: { address: cngn, decimals: 6 } },
        // A local chain: no public node a wallet could add.
        addNetwork: undefined,
      });
      assert.ok(chain.network.aliases.includes('bnb-smart-chain'), 'the bsc network keeps its aliases');
    });

    it('refuses a node of another chain, for good', async () => {
      const config = { ...t.config({ tokens: { USDT: usdt } }), chainId: 56 };
      await assert.rejects(connectEvmChain(config), (error: unknown) => {
        assert.ok(error instanceof EvmChainError);
        assert.equal(error.code, 'chain_mismatch');
        assert.equal(error.retryable, false);
        assert.match(error.message, /serves chain 31337, but PAYLINK_EVM_CHAIN_ID is 56/);
        return true;
      });
    });

    it('refuses a token address with no contract behind it, and one that is no ERC-20', async () => {
      await assert.rejects(connectEvmChain(t.config({ tokens: { USDT: t.accounts[7]! } })), (error: EvmChainError) => {
        assert.equal(error.code, 'misconfigured');
        assert.match(error.message, /USDT at 0x\w+ is not a contract on chain 31337/);
        return true;
      });
      // A contract without decimals(): the CREATE2 deployer every anvil chain has.
      const deployer = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
      await assert.rejects(connectEvmChain(t.config({ tokens: { USDT: deployer } })), (error: EvmChainError) => {
        assert.equal(error.code, 'misconfigured');
        assert.match(error.message, /does not answer decimals\(\) like an ERC-20 token/);
        return true;
      });
    });
  });

  describe('transfers', () => {
    it('reports exact, short and over payments with every digit, and each transfer once', async () => {
      const [exact, short, over] = [0, 1, 2].map((i) => chain.depositAddress(100 + i));
      const from = await chain.latestBlock();
      await t.sendToken(payer, usdt, exact!, 25n * E18);
      await t.sendToken(payer, usdt, short!, 24n * E18 + 999_999_999_999_999_999n);
      await t.sendToken(payer, cngn, over!, 25n * E6 + 1n);
      const to = await chain.latestBlock();
      const transfers = await chain.transfers({ fromBlock: from + 1, toBlock: to, addresses: [exact!, short!, over!] });
      assert.deepEqual(
        transfers.map((x) => [x.assetId, x.to, x.amount, x.from]),
        [
          ['USDT', exact, '25', payer],
          ['USDT', short, '24.999999999999999999', payer],
          ['CNGN', over, '25.000001', payer],
        ],
      );
      for (const transfer of transfers) {
        assert.match(transfer.txHash, /^0x[0-9a-f]{64}$/);
        assert.match(transfer.blockHash, /^0x[0-9a-f]{64}$/);
        assert.equal(transfer.blockHash, await chain.blockHash(transfer.blockNumber));
        assert.equal(transfer.ordinal, 0);
      }
      assert.deepEqual(
        transfers.map((x) => x.blockNumber),
        [from + 1, from + 2, from + 3],
      );
    });

    it('reports two transfers in one block, in log order, each with its own log index', async () => {
      const a = chain.depositAddress(110);
      const b = chain.depositAddress(111);
      await t.setAutomine(false);
      try {
        await t.sendToken(payer, usdt, a, 1n * E18, { mined: false });
        await t.sendToken(payer, usdt, b, 2n * E18, { mined: false });
        await t.mine(1);
      } finally {
        await t.setAutomine(true);
      }
      const latest = await chain.latestBlock();
      const transfers = await chain.transfers({ fromBlock: latest, toBlock: latest, addresses: [b, a] });
      assert.equal(transfers.length, 2);
      assert.deepEqual(
        transfers.map((x) => [x.to, x.amount, x.blockNumber]),
        [
          [a, '1', latest],
          [b, '2', latest],
        ],
      );
      assert.ok(transfers[0]!.logIndex < transfers[1]!.logIndex);
      assert.notEqual(transfers[0]!.txHash, transfers[1]!.txHash);
    });

    it('ignores a transfer of a token that is not configured and one to an address that is not watched', async () => {
      const watched = chain.depositAddress(120);
      const unwatched = chain.depositAddress(121);
      const from = (await chain.latestBlock()) + 1;
      await t.sendToken(payer, other, watched, 5n * E18);
      await t.sendToken(payer, usdt, unwatched, 5n * E18);
      await t.sendToken(payer, usdt, watched, 3n * E18);
      const transfers = await chain.transfers({ fromBlock: from, toBlock: await chain.latestBlock(), addresses: [watched] });
      assert.deepEqual(
        transfers.map((x) => [x.assetId, x.to, x.amount]),
        [['USDT', watched, '3']],
      );
    });

    it('finds the same transfers with ranges and address lists split to one block and one address per query', async () => {
      const addresses = [100, 101, 102, 110, 111, 120].map((i) => chain.depositAddress(i));
      const latest = await chain.latestBlock();
      const whole = await chain.transfers({ fromBlock: 0, toBlock: latest, addresses });
      const split = await connectEvmChain(chain.config, { maxBlockRange: 1, maxAddressesPerQuery: 1 });
      try {
        assert.deepEqual(await split.transfers({ fromBlock: 0, toBlock: latest, addresses }), whole);
      } finally {
        await split.close();
      }
      assert.equal(whole.length, 6);
    });

    it("numbers a transaction's several transfers to one address by ordinal, which a reorg does not change", async () => {
      const deposit = chain.depositAddress(130);
      const elsewhere = chain.depositAddress(131);
      const data = encodeFunctionData({
        abi: TEST_TOKEN_ABI,
        functionName: 'transferBatch',
        args: [
          [deposit, elsewhere, deposit],
          [5n, 6n, 7n],
        ],
      });
      const raw = await t.devAccount(2).signTransaction({
        chainId: t.chainId,
        type: 'eip1559',
        nonce: await t.client.getTransactionCount({ address: payer }),
        to: usdt,
        data,
        gas: 200_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      await t.mined((await chain.broadcast(raw)).txHash);
      const latest = await chain.latestBlock();
      const transfers = await chain.transfers({ fromBlock: latest, toBlock: latest, addresses: [deposit, elsewhere] });
      assert.deepEqual(
        transfers.map((x) => [x.to, x.amount, x.ordinal]),
        [
          [deposit, '0.000000000000000005', 0],
          [elsewhere, '0.000000000000000006', 0],
          [deposit, '0.000000000000000007', 1],
        ],
      );
      // Moved one block on, the second transfer to `deposit` is still found by its ordinal.
      await t.reorg(1, [{ raw, blockOffset: 0 }]);
      await t.mine(1);
      await t.reorg(2, [{ raw, blockOffset: 1 }]);
      const check = await chain.recheckTransfer(transfers[2]!);
      assert.equal(check.status, 'moved');
      assert.equal(check.status === 'moved' && check.transfer.amount, '0.000000000000000007');
      assert.equal(check.status === 'moved' && check.transfer.ordinal, 1);
    });

    it('answers nothing for no addresses or an empty range, and refuses a range no node has reached (retryable)', async () => {
      const latest = await chain.latestBlock();
      assert.deepEqual(await chain.transfers({ fromBlock: 0, toBlock: latest, addresses: [] }), []);
      assert.deepEqual(await chain.transfers({ fromBlock: latest + 1, toBlock: latest, addresses: [chain.depositAddress(0)] }), []);
      await assert.rejects(chain.transfers({ fromBlock: latest, toBlock: latest + 5, addresses: [chain.depositAddress(0)] }), (error: EvmChainError) => {
        assert.equal(error.retryable, true);
        assert.match(error.message, /no node has reached block/);
        return true;
      });
      assert.equal(await chain.blockHash(latest + 1_000), null);
    });
  });

  describe('re-checking a transfer before crediting it', () => {
    it('finds it canonical, with confirmations counted from the latest block', async () => {
      const deposit = chain.depositAddress(200);
      await t.sendToken(payer, usdt, deposit, 7n * E18);
      const latest = await chain.latestBlock();
      const [seen] = await chain.transfers({ fromBlock: latest, toBlock: latest, addresses: [deposit] });
      assert.deepEqual(await chain.recheckTransfer(seen!), { status: 'canonical', confirmations: 1, transfer: seen });
      await t.mine(2);
      const check = await chain.recheckTransfer(seen!);
      assert.equal(check.status, 'canonical');
      assert.equal(check.status === 'canonical' && check.confirmations, 3);
    });

    it('finds a transfer reorged out of the chain gone, and the scan no longer reports it', async () => {
      const deposit = chain.depositAddress(201);
      await t.sendToken(payer, usdt, deposit, 9n * E18);
      const latest = await chain.latestBlock();
      const [seen] = await chain.transfers({ fromBlock: latest, toBlock: latest, addresses: [deposit] });
      assert.ok(seen);
      await t.mine(1);
      await t.reorg(2); // replaces the transfer's block and the next with empty ones
      assert.deepEqual(await chain.recheckTransfer(seen), { status: 'gone' });
      assert.deepEqual(await chain.transfers({ fromBlock: latest, toBlock: await chain.latestBlock(), addresses: [deposit] }), []);
      assert.equal(await chain.tokenBalance('USDT', deposit), '0');
    });

    it('finds a transfer a reorg moved to another block in its new block, as the scan does', async () => {
      const deposit = chain.depositAddress(202);
      const nonce = await t.client.getTransactionCount({ address: payer });
      const raw = await t.signTokenTransfer(2, usdt, deposit, 11n * E18, nonce);
      const sent = await chain.broadcast(raw);
      assert.equal(sent.outcome, 'sent');
      await t.mined(sent.txHash);
      const latest = await chain.latestBlock();
      const [seen] = await chain.transfers({ fromBlock: latest, toBlock: latest, addresses: [deposit] });
      assert.ok(seen);
      await t.mine(2);
      // The last three blocks are replaced; the transfer comes back one block later.
      await t.reorg(3, [{ raw, blockOffset: 1 }]);
      const check = await chain.recheckTransfer(seen);
      assert.equal(check.status, 'moved');
      if (check.status !== 'moved') return;
      assert.equal(check.transfer.blockNumber, seen.blockNumber + 1);
      assert.notEqual(check.transfer.blockHash, seen.blockHash);
      assert.equal(check.transfer.blockHash, await chain.blockHash(check.transfer.blockNumber));
      assert.deepEqual([check.transfer.txHash, check.transfer.amount, check.transfer.to, check.transfer.ordinal], [seen.txHash, '11', deposit, 0]);
      assert.equal(check.confirmations, 2);
      const rescanned = await chain.transfers({ fromBlock: seen.blockNumber, toBlock: await chain.latestBlock(), addresses: [deposit] });
      assert.deepEqual(rescanned, [check.transfer]);
    });

    it('finds a transfer whose transaction re-mined but reverted gone', async () => {
      const deposit = chain.depositAddress(203);
      const nonce = await t.client.getTransactionCount({ address: payer });
      const raw = await t.signTokenTransfer(2, cngn, deposit, 4n * E6, nonce);
      await t.mined((await chain.broadcast(raw)).txHash);
      const latest = await chain.latestBlock();
      const [seen] = await chain.transfers({ fromBlock: latest, toBlock: latest, addresses: [deposit] });
      assert.ok(seen);
      // In the new history the token is paused first (same block), so the transfer reverts.
      const pause = await t.devAccount(0).signTransaction({
        chainId: t.chainId,
        type: 'eip1559',
        nonce: await t.client.getTransactionCount({ address: t.accounts[0]! }),
        to: cngn,
        data: encodeFunctionData({ abi: TEST_TOKEN_ABI, functionName: 'setTransfersPaused', args: [true] }),
        gas: 100_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 2_000_000_000n,
      });
      await t.reorg(1, [
        { raw: pause, blockOffset: 0 },
        { raw, blockOffset: 0 },
      ]);
      const receipt = await chain.receipt(seen.txHash);
      assert.equal(receipt.status, 'reverted', 'the scenario re-mined the transfer as a revert');
      assert.deepEqual(await chain.recheckTransfer(seen), { status: 'gone' });
    });
  });
});
