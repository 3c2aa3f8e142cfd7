/**
 * The local node the tests and the demo run on: it must come up fast on a free port with the chain
 * id and block time asked for, go away when stopped, and say plainly when it is not installed
 * (the demo then falls back to the sandbox chain).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { anvilBinary, AnvilNotInstalledError, AnvilStartError, startAnvil } from '../../../../src/server/chain/evm/anvil.js';
import { TEST_TOKEN_ABI, TEST_TOKEN_ARTIFACT } from '../../../../src/server/chain/evm/test-token.js';
import { startTestChain } from '../../../support/anvil.js';
import { rpc } from '../../../support/json-rpc.js';
import { until } from '../../../support/wait.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('anvil', () => {
  it('starts on a free port with the chain id asked for, mines instantly, and is gone once stopped', async () => {
    const node = await startAnvil({ chainId: 4242 });
    try {
      assert.equal(await rpc(node.url, 'eth_chainId'), '0x1092');
      assert.equal(await rpc(node.url, 'eth_blockNumber'), '0x0');
      const [from, to] = (await rpc(node.url, 'eth_accounts')) as string[];
      const hash = await rpc(node.url, 'eth_sendTransaction', [{ from, to, value: '0x1' }]);
      let receipt: { blockNumber: string } | null = null;
      await until(async () => (receipt = await rpc(node.url, 'eth_getTransactionReceipt', [hash])) !== null, 'the receipt');
      assert.equal(receipt!.blockNumber, '0x1', 'mined at once, in a block of its own');
      assert.equal(await rpc(node.url, 'eth_blockNumber'), '0x1');
    } finally {
      await node.stop();
    }
    assert.equal(alive(node.pid), false);
    await assert.rejects(fetch(node.url, { method: 'POST' }));
    await node.stop(); // idempotent
  });

  it('keeps the states of old blocks in a directory of its own, removed when the node stops or is killed', async () => {
    // What anvil writes to disk would otherwise stay under ~/.foundry/anvil/tmp for good.
    const statesOf = (pid: number) => {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args[args.indexOf('--cache-path') + 1]!;
    };
    const stopped = await startAnvil({ chainId: 4243 });
    const killed = await startAnvil({ chainId: 4244 });
    const [stoppedStates, killedStates] = [statesOf(stopped.pid), statesOf(killed.pid)];
    assert.match(stoppedStates, /paylink-anvil-states-/);
    assert.notEqual(stoppedStates, killedStates);
    // Past the blocks anvil keeps in memory, so that it writes old states to its directory.
    await rpc(stopped.url, 'anvil_mine', ['0x400']);
    assert.ok(existsSync(stoppedStates) && existsSync(killedStates));
    await stopped.stop();
    assert.equal(existsSync(stoppedStates), false, 'removed once stopped');
    const exited = new Promise((resolve) => killed.process.once('exit', resolve));
    process.kill(killed.pid, 'SIGKILL');
    await exited;
    assert.equal(existsSync(killedStates), false, 'removed once killed');
  });

  it('mines on a fractional block time', async () => {
    const node = await startAnvil({ blockTime: 0.2 });
    try {
      // Five blocks take 0.8 to 1 s at 0.2 s a block; a block time rounded to 1 s would take 4 s or more.
      const blocks = 5;
      const start = Number(await rpc(node.url, 'eth_blockNumber'));
      const startedAt = performance.now();
      await until(async () => Number(await rpc(node.url, 'eth_blockNumber')) >= start + blocks, `${blocks} blocks`, 10_000, { everyMs: 20 });
      const took = performance.now() - startedAt;
      assert.ok(took >= (blocks - 1) * 200 - 50 && took < (blocks - 1) * 1000, `${blocks} blocks in ${took.toFixed(0)} ms at 0.2 s a block`);
    } finally {
      await node.stop();
    }
  });

  it('two nodes run side by side on their own ports', async () => {
    const [a, b] = await Promise.all([startAnvil({ chainId: 1001 }), startAnvil({ chainId: 1002 })]);
    try {
      assert.notEqual(a.port, b.port);
      assert.deepEqual([await rpc(a.url, 'eth_chainId'), await rpc(b.url, 'eth_chainId')], ['0x3e9', '0x3ea']);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('refuses a block time of 0 (anvil would never mine) and reports a port that is taken', async () => {
    await assert.rejects(startAnvil({ blockTime: 0 }), RangeError);
    const node = await startAnvil();
    try {
      await assert.rejects(startAnvil({ port: node.port, chainId: 5 }), AnvilStartError);
    } finally {
      await node.stop();
    }
  });

  it('says "anvil is not installed" when the platform package is absent or the platform has none', () => {
    assert.match(anvilBinary(), /anvil(\.exe)?$/);
    assert.throws(
      () => anvilBinary({ platform: 'darwin', arch: 'arm64' }),
      (error: Error) => error instanceof AnvilNotInstalledError && /anvil is not installed: @foundry-rs\/anvil-darwin-arm64 is missing/.test(error.message),
    );
    assert.throws(() => anvilBinary({ platform: 'aix', arch: 'ppc64' }), /anvil is not installed: no anvil package exists for aix\/ppc64/);
  });
});

describe('test chain helpers', () => {
  it("the test token's typed ABI says what the compiled artifact says", () => {
    const signature = (item: { type: string; name?: string; inputs?: readonly { type: string }[] }) =>
      `${item.type} ${item.name ?? ''}(${(item.inputs ?? []).map((i) => i.type).join(',')})`;
    const typed = TEST_TOKEN_ABI.map(signature).sort();
    const compiled = (TEST_TOKEN_ARTIFACT.abi as Array<Parameters<typeof signature>[0]>).map(signature).sort();
    assert.deepEqual(typed, compiled);
    assert.equal(TEST_TOKEN_ARTIFACT.evmVersion, 'paris');
    assert.match(TEST_TOKEN_ARTIFACT.bytecode, /^0x[0-9a-f]+$/);
  });

  it('deploy and mint a token, snapshot and revert, set a balance, reorg', async () => {
    const chain = await startTestChain();
    try {
      const token = await chain.deployToken({ name: 'Test cNGN', symbol: 'cNGN', decimals: 6 });
      const read = <F extends 'decimals' | 'symbol' | 'name'>(functionName: F) =>
        chain.client.readContract({ address: token, abi: TEST_TOKEN_ABI, functionName });
      assert.deepEqual([await read('name'), await read('symbol'), await read('decimals')], ['Test cNGN', 'cNGN', 6]);
      const holder = chain.accounts[5]!;
      const balance = () => chain.client.readContract({ address: token, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [holder] });
      const snapshot = await chain.snapshot();
      await chain.mint(token, holder, 1_500_000n);
      assert.equal(await balance(), 1_500_000n);
      await chain.revert(snapshot);
      assert.equal(await balance(), 0n);

      await chain.setBalance(holder, 7n);
      assert.equal(await chain.client.getBalance({ address: holder }), 7n);

      const before = await chain.client.getBlockNumber();
      await chain.mint(token, holder, 5n);
      await chain.mine(2);
      await chain.reorg(3);
      assert.equal(await chain.client.getBlockNumber(), before + 3n, 'same height');
      assert.equal(await balance(), 0n, 'the mint was dropped with its block');
    } finally {
      await chain.stop();
    }
  });
});
