/**
 * `paylink serve --chain evm` and `paylink sweep` as an operator runs them (the compiled CLI, a real
 * anvil node): a node of another chain is refused for good; a node that is not up yet is waited for,
 * saying so, and the service then serves real-chain sessions; `sweep` without its mnemonic or with
 * bad indexes says what is wrong.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { depositAddresses } from '../../../../src/server/chain/evm/addresses.js';
import { freeLoopbackPort, startAnvil } from '../../../../src/server/chain/evm/anvil.js';
import { DEPOSIT_XPUB, startTestChain, type TestChain } from '../../../support/anvil.js';
import { createUsdLink, startSession } from '../../../support/money.js';
import { createPgliteDataDir } from '../../../support/pglite-template.js';
import { BIN, ROOT, exited, readable, waitForHealth } from '../../../support/processes.js';
import { call } from '../../../support/service.js';
import { freePort } from '../../../support/postgres.js';
import { until } from '../../../support/wait.js';

describe('paylink serve --chain evm, paylink sweep', () => {
  let t: TestChain;
  let usdt: string;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-evm-cli-'));
    t = await startTestChain();
    usdt = await t.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
    writeFileSync(path.join(dir, 'payout.key'), `${t.devKey(1)}\n`, { mode: 0o600 });
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const evmEnv = (rpcUrl: string, chainId = t.chainId) => ({
    PAYLINK_EVM_RPC_URL: rpcUrl,
    PAYLINK_EVM_CHAIN_ID: String(chainId),
    PAYLINK_EVM_TOKENS: `USDT=${usdt}`,
    PAYLINK_EVM_XPUB: DEPOSIT_XPUB,
    PAYLINK_EVM_PAYOUT_KEY_FILE: path.join(dir, 'payout.key'),
    PAYLINK_EVM_POLL_MS: '50',
    // Named on purpose: a real chain never quotes from the table by default.
    PAYLINK_RATES_SOURCES: 'static',
  });

  it('refuses for good a node that serves another chain', () => {
    const res = spawnSync(process.execPath, [BIN, 'serve', '--chain', 'evm', '--data-dir', path.join(dir, 'mismatch')], {
      encoding: 'utf8',
      env: { ...process.env, ...evmEnv(t.url, 56) },
      timeout: 60_000,
    });
    assert.equal(res.status, 1, res.stderr);
    assert.match(res.stderr, /serves chain 31337, but PAYLINK_EVM_CHAIN_ID is 56/);
  });

  it('waits for a node that is not up yet, saying so, then serves sessions on the real chain', async () => {
    const nodePort = await freeLoopbackPort();
    const port = await freePort();
    await createPgliteDataDir(path.join(dir, 'waits'));
    const keys = spawnSync(process.execPath, [BIN, 'keys', 'create', '--data-dir', path.join(dir, 'waits')], { encoding: 'utf8' });
    assert.equal(keys.status, 0, keys.stderr);
    const key = keys.stdout.trim().split('\n').at(-1)!;
    const child = spawn(process.execPath, [BIN, 'serve', '--chain', 'evm', '--data-dir', path.join(dir, 'waits'), '--port', String(port)], {
      cwd: ROOT,
      env: { ...process.env, ...evmEnv(`http://127.0.0.1:${nodePort}`) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    let node: Awaited<ReturnType<typeof startAnvil>> | undefined;
    try {
      await until(
        () => {
          assert.equal(child.exitCode, null, `serve exited instead of waiting for the node (${stderr})`);
          return /waiting for the EVM node/.test(stderr);
        },
        'serve to say it waits for the node',
        30_000,
        { everyMs: 50, explain: () => stderr },
      );
      // The node comes up (a fresh chain: the token is deployed again, at the same address).
      node = await startAnvil({ port: nodePort });
      const { deployTestToken } = await import('../../../../src/server/chain/evm/test-token.js');
      const { createPublicClient, http } = await import('viem');
      const client = createPublicClient({ transport: http(node.url) });
      const second = await deployTestToken({ rpcUrl: node.url, from: t.accounts[0]!, client }, { name: 'Tether USD', symbol: 'USDT', decimals: 18 });
      assert.equal(second, usdt, 'the same deployer and nonce give the same token address');
      const url = `http://127.0.0.1:${port}`;
      await waitForHealth(url, child, 60_000);
      assert.match(stderr, /the EVM node answers now/);
      assert.match(readable(stdout), /EVM chain: Local chain \(chain id 31337, network id "bsc"\), 3 confirmations/);
      assert.match(stdout, /USDT 0x[0-9a-fA-F]{40} \(18 decimals\)/);
      assert.match(stdout, /Prices: the static table \(fixed figures, not market data\)\./, 'serve says where prices come from');
      assert.doesNotMatch(stdout + stderr, /0x[0-9a-f]{64}/i, 'no private key in the output');

      const session = await startSession(url, await createUsdLink(url, key, '5'));
      assert.equal(session.payAddress, depositAddresses(DEPOSIT_XPUB).address(0), 'deposit index 0 of the xpub');
      const view = (await call(url, 'GET', `/v1/checkout/sessions/${session.id}`)).body;
      assert.deepEqual([view.sandbox, view.chainId, view.tokenAddress, view.tokenDecimals], [false, 31337, usdt, 18]);
      assert.equal((await call(url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} })).status, 404);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited(child), 0, 'SIGTERM drains and exits 0');
      await node?.stop();
    }
  });

  it('sweep says what is missing or wrong on its command line', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, [BIN, 'sweep', ...args, '--data-dir', path.join(dir, 'sweep')], {
        encoding: 'utf8',
        env: { ...process.env, ...evmEnv(t.url) },
      });
    const missing = run([]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /sweep needs --mnemonic-file FILE/);
    writeFileSync(path.join(dir, 'words'), 'abandon '.repeat(11) + 'about\n', { mode: 0o600 });
    const badRange = run(['--mnemonic-file', path.join(dir, 'words'), '--indexes', '9-2']);
    assert.equal(badRange.status, 2);
    assert.match(readable(badRange.stderr), /--indexes: "9-2" is not an index or a range/);
  });
});
