/**
 * The hot wallet signs on a thread of its own: the same bytes as on the main thread (signatures are
 * deterministic), many at once, and the main thread takes over, with the same bytes, when the thread
 * cannot start or does not answer in time; an idle thread does not keep a process alive, a busy one does.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { encodeFunctionData, erc20Abi, parseTransaction, recoverTransactionAddress, type TransactionSerializable } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createThreadSigner } from '../../../../src/server/chain/evm/signer-thread.js';
import { ROOT } from '../../../support/processes.js';

const key = generatePrivateKey();
const account = privateKeyToAccount(key);
const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000dEaD', 10n ** 18n] });
const token = '0x55d398326f99059fF775485246999027B3197955';
const legacy = (nonce: number): TransactionSerializable => ({ type: 'legacy', chainId: 56, nonce, to: token, data, gas: 80_000n, gasPrice: 3_000_000_000n });
const eip1559 = (nonce: number): TransactionSerializable => ({
  type: 'eip1559',
  chainId: 137,
  nonce,
  to: token,
  data,
  gas: 90_000n,
  maxFeePerGas: 60_000_000_000n,
  maxPriorityFeePerGas: 30_000_000_000n,
});

describe('the hot wallet signing thread', () => {
  it('signs the very bytes the main thread signs, legacy and EIP-1559, 50 at once', async () => {
    const fallbacks: unknown[] = [];
    const signer = createThreadSigner(account, key, (error) => fallbacks.push(error));
    try {
      const transactions = Array.from({ length: 50 }, (_, i) => (i % 2 ? legacy(i) : eip1559(i)));
      const onThread = await Promise.all(transactions.map((transaction) => signer.signTransaction(transaction)));
      const onMain = await Promise.all(transactions.map((transaction) => account.signTransaction(transaction)));
      assert.deepEqual(onThread, onMain);
      for (const [i, raw] of onThread.entries()) {
        assert.equal(parseTransaction(raw).nonce, i);
        assert.equal(
          await recoverTransactionAddress({ serializedTransaction: raw as Parameters<typeof recoverTransactionAddress>[0]['serializedTransaction'] }),
          account.address,
        );
      }
      assert.deepEqual(fallbacks, [], 'the thread did the signing');
    } finally {
      await signer.close();
    }
  });

  it('a thread that cannot start: the main thread signs instead, the same bytes, and says so once', async () => {
    const fallbacks: unknown[] = [];
    const signer = createThreadSigner(account, key, (error) => fallbacks.push(error), { accountsModule: 'file:///nowhere/viem-accounts.js' });
    try {
      const signed = await Promise.all([legacy(1), legacy(2), eip1559(3)].map((transaction) => signer.signTransaction(transaction)));
      assert.deepEqual(signed, await Promise.all([legacy(1), legacy(2), eip1559(3)].map((transaction) => account.signTransaction(transaction))));
      assert.equal(await signer.signTransaction(legacy(4)), await account.signTransaction(legacy(4)), 'and after');
      assert.equal(fallbacks.length, 1, 'told once');
    } finally {
      await signer.close();
    }
  });

  it('a thread that does not answer: the main thread signs within the bound, the same bytes, and says so once', async () => {
    // A thread that starts but never answers a signature (as a thread that hangs would).
    const silent = `data:text/javascript,${encodeURIComponent('export function privateKeyToAccount() { return { signTransaction: () => new Promise(() => {}) }; }')}`;
    const fallbacks: unknown[] = [];
    const signer = createThreadSigner(account, key, (error) => fallbacks.push(error), { accountsModule: silent, answerMs: 300 });
    try {
      const started = performance.now();
      const signed = await Promise.all([legacy(1), eip1559(2)].map((transaction) => signer.signTransaction(transaction)));
      const waited = performance.now() - started;
      assert.deepEqual(signed, await Promise.all([legacy(1), eip1559(2)].map((transaction) => account.signTransaction(transaction))));
      assert.ok(waited >= 290, `the thread had its time (${Math.round(waited)} ms)`);
      assert.equal(await signer.signTransaction(legacy(3)), await account.signTransaction(legacy(3)), 'and the main thread signs after');
      assert.equal(fallbacks.length, 1, 'told once');
      assert.match(String((fallbacks[0] as Error).message), /did not answer within 300 ms/);
    } finally {
      await signer.close();
    }
  });

  it('after close, signatures are still made (on the main thread)', async () => {
    const signer = createThreadSigner(account, key, () => {});
    await signer.signTransaction(legacy(0));
    await signer.close();
    assert.equal(await signer.signTransaction(legacy(7)), await account.signTransaction(legacy(7)));
  });

  it('an idle thread lets the process end; one with a signature to make keeps it alive until it is made', () => {
    const script = `
      import { createThreadSigner } from './src/server/chain/evm/signer-thread.ts';
      import { privateKeyToAccount } from 'viem/accounts';
      const key = '${key}';
      const signer = createThreadSigner(privateKeyToAccount(key), key, () => console.log('fallback'));
      // Nothing else holds the process: the signature's answer must arrive before it ends.
      signer.signTransaction({ type: 'legacy', chainId: 56, nonce: 9, to: '${token}', gas: 21000n, gasPrice: 1n, value: 1n }).then((raw) => console.log('signed', raw.slice(0, 4)));
    `;
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'signed 0xf8', 'signed on the thread, then the process ended by itself');
    assert.ok(Date.now() - started < 20_000);
  });
});
