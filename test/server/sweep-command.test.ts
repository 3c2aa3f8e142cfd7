/**
 * `paylink sweep` against the service's database and a real chain: it empties the
 * deposit addresses the service saw paid (and any `--indexes` given) into the hot wallet, topping up
 * their gas from the hot wallet with nonces from the payouts' own sequence (stored, so a payout
 * after it takes the next nonce); a second run moves nothing; a PGlite data dir that `serve` holds
 * is refused.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseUnits, type Address } from 'viem';
import { depositAddresses } from '../../src/server/chain/evm/addresses.js';
import { TEST_TOKEN_ABI } from '../../src/server/chain/evm/test-token.js';
import type { ChainAdapter } from '../../src/server/chain/types.js';
import { DataDirInUseError } from '../../src/server/db/index.js';
import { createApiKey } from '../../src/server/service/keys/index.js';
import { startService, type RunningService } from '../../src/server/service/serve.js';
import { parseIndexRanges, runSweepCommand } from '../../src/server/sweep-command.js';
import { DEPOSIT_MNEMONIC, DEPOSIT_XPUB } from '../support/anvil.js';
import { createUsdLink, startSession } from '../support/money.js';
import { createPgliteDataDir } from '../support/pglite-template.js';
import { BIN, ROOT, exited } from '../support/processes.js';
import { startRpcProxy } from '../support/rpc-proxy.js';
import { backends, call, createPostgresDatabase } from '../support/service.js';
import { until } from '../support/wait.js';
import { manualScanner, outgoingOf, randomAddress, readSession, startEvmFixture, waitForPayouts, type EvmFixture } from '../support/evm-service.js';

describe('sweep --indexes', () => {
  it('reads single indexes and ranges, and refuses anything else', () => {
    assert.deepEqual(parseIndexRanges('0-3,7, 2'), [0, 1, 2, 3, 7]);
    for (const bad of ['', '3-1', 'a', '-1', '0-200000', '1,,x']) assert.throws(() => parseIndexRanges(bad), /--indexes/);
  });
});

for (const backend of backends()) {
  describe(`paylink sweep (${backend})`, () => {
    let f: EvmFixture;
    let chain: ChainAdapter;
    let service: RunningService | undefined;
    let dir: string;
    let storage: { dataDir: string; databaseUrl: string | undefined };
    let dropDatabase: (() => Promise<void>) | undefined;
    let key: string;
    const deposits = depositAddresses(DEPOSIT_XPUB);

    const env = () => ({
      PAYLINK_EVM_RPC_URL: f.t.url,
      PAYLINK_EVM_CHAIN_ID: String(f.t.chainId),
      PAYLINK_EVM_TOKENS: `USDT=${f.usdt},CNGN=${f.cngn}`,
      PAYLINK_EVM_XPUB: DEPOSIT_XPUB,
      PAYLINK_EVM_PAYOUT_KEY: f.t.devKey(1),
      PAYLINK_EVM_POLL_MS: '20',
    });
    const sweep = async (indexes?: string, rpcUrl = f.t.url) => {
      const lines: string[] = [];
      const code = await runSweepCommand({
        mnemonicFile: path.join(dir, 'mnemonic'),
        to: undefined,
        indexes,
        ...storage,
        env: { ...env(), PAYLINK_EVM_RPC_URL: rpcUrl },
        out: (line) => lines.push(line),
      });
      return { code, lines };
    };
    const units = (token: Address, address: string) =>
      f.t.client.readContract({ address: token, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [address as Address] });
    const startOn = async () => (service = await startService({ ...storage, chain, scanner: false, payouts: { pollIntervalMs: 20, checkMs: 30 } }));

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-sweep-'));
      writeFileSync(path.join(dir, 'mnemonic'), `${DEPOSIT_MNEMONIC}\n`, { mode: 0o600 });
      if (backend === 'postgres') {
        const created = await createPostgresDatabase();
        storage = { dataDir: path.join(dir, 'unused'), databaseUrl: created.url };
        dropDatabase = created.drop;
      } else {
        storage = { dataDir: path.join(dir, 'data'), databaseUrl: undefined };
        await createPgliteDataDir(storage.dataDir);
      }
      f = await startEvmFixture();
      chain = await f.adapter({ confirmations: 1 });
      await startOn();
      ({ key } = await service!.db.transaction((tx) => createApiKey(tx)));
    });
    after(async () => {
      await service?.close();
      await chain?.close?.();
      await f?.stop();
      await dropDatabase?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it("moves what the paid deposit addresses hold to the hot wallet, and its gas top-ups share the payouts' nonces", async () => {
      const hot = outgoingOf(chain).hotWallet as Address;
      const scanner = manualScanner({ db: service!.db, chain, now: () => new Date() });
      const paid = [];
      for (const [amount, asset] of [
        ['5', 'USDT'],
        ['2', 'USDT'],
        ['1', 'CNGN'],
      ] as const) {
        const slug = await createUsdLink(service!.url, key, amount);
        const session = await startSession(service!.url, slug, { assetId: asset });
        await f.pay(session.payAddress, asset, session.cryptoAmount);
        paid.push(session);
      }
      await f.t.mine(1);
      await scanner.runOnce();
      await scanner.runOnce();
      for (const session of paid) assert.equal((await readSession(service!.url, session.id)).status, 'paid');
      // Tokens sent straight to an address the service never handed out: only an explicit index finds them.
      await f.pay(deposits.address(40), 'USDT', '3');

      const usdtBefore = await units(f.usdt, hot);
      const cngnBefore = await units(f.cngn, hot);
      if (backend === 'pglite') {
        await assert.rejects(sweep(), (error: unknown) => error instanceof DataDirInUseError, 'a PGlite data dir that serve holds is refused');
        await service!.close();
        service = undefined;
      }
      const first = await sweep('40');
      assert.equal(first.code, 0, first.lines.join('\n'));
      for (const session of paid) {
        assert.equal(await units(f.usdt, session.payAddress), 0n);
        assert.equal(await units(f.cngn, session.payAddress), 0n);
      }
      assert.equal(await units(f.usdt, deposits.address(40)), 0n);
      assert.equal((await units(f.usdt, hot)) - usdtBefore, parseUnits('10', 18));
      assert.equal((await units(f.cngn, hot)) - cngnBefore, parseUnits('1550', 6));
      assert.match(first.lines.at(-1)!, /moved 10 USDT, 1550 CNGN/);

      const second = await sweep('40');
      assert.equal(second.code, 0);
      assert.match(second.lines.at(-1)!, /moved nothing/, 'a second run finds nothing to move');

      if (!service) await startOn();
      // What left each address is on record, once (the second run moved nothing): reconciliation subtracts it.
      const swept = await service!.db.query<{ address: string; asset_id: string; amount: string; status: string; block_number: string | null }>(
        'SELECT address, asset_id, amount::text AS amount, status, block_number::text AS block_number FROM deposit_sweeps',
      );
      assert.deepEqual(
        swept.rows.map((r) => [r.address, r.asset_id, Number(r.amount), r.status, r.block_number !== null]).sort(),
        [
          [paid[0]!.payAddress.toLowerCase(), 'USDT', 5, 'success', true],
          [paid[1]!.payAddress.toLowerCase(), 'USDT', 2, 'success', true],
          [paid[2]!.payAddress.toLowerCase(), 'CNGN', 1550, 'success', true],
          [deposits.address(40).toLowerCase(), 'USDT', 3, 'success', true],
        ].sort(),
      );
      const topUps = await service!.db.query<{ nonce: number }>(
        "SELECT nonce::int AS nonce FROM payout_transactions WHERE purpose = 'gas_top_up' ORDER BY nonce",
      );
      assert.equal(topUps.rows.length, 4, 'one gas top-up per address that held tokens, none in the second run');
      // A payout now takes the next nonce of the same sequence.
      const { creditDirectly } = await import('../support/evm-service.js');
      await creditDirectly({ url: service!.url, db: service!.db }, chain, key, '1');
      const created = await call(service!.url, 'POST', '/v1/withdrawal', {
        key,
        body: { amount: '1', address: randomAddress(), blockchainId: 'bsc', assetId: 'USDT' },
      });
      assert.equal(created.status, 200);
      const payoutOf = async () =>
        (await service!.db.query<{ nonce: number }>('SELECT nonce::int AS nonce FROM payout_transactions WHERE withdrawal_id = $1', [created.body.id])).rows[0];
      await waitForPayouts({ db: service!.db, f, hot }, async () => (await payoutOf()) !== undefined, 'the payout signed', { ids: [created.body.id] });
      assert.equal((await payoutOf())!.nonce, topUps.rows.at(-1)!.nonce + 1);
    });

    it('killed with its gas top-up signed and stored but not yet sent, a re-run resumes: that top-up is sent, never a second, and the tokens move', async () => {
      const hot = outgoingOf(chain).hotWallet as Address;
      // What the service had under way is finished first, so the only transaction in flight is the sweep's.
      await waitForPayouts(
        { db: service!.db, f, hot },
        async () => (await service!.db.query("SELECT 1 FROM payout_transactions WHERE status IN ('signed', 'sent', 'mined')")).rows.length === 0,
        'the earlier payout finished',
        { mineEveryMs: 30 },
      );
      await service!.close();
      service = undefined;
      const index = 41;
      await f.pay(deposits.address(index), 'USDT', '8');
      const usdtBefore = await units(f.usdt, hot);
      const nonceBefore = await f.t.client.getTransactionCount({ address: hot });
      const proxy = await startRpcProxy(f.t.url);
      try {
        proxy.hold('eth_sendRawTransaction');
        const storageArgs = storage.databaseUrl ? ['--database-url', storage.databaseUrl] : ['--data-dir', storage.dataDir];
        const child = spawn(process.execPath, [BIN, 'sweep', '--mnemonic-file', path.join(dir, 'mnemonic'), '--indexes', String(index), ...storageArgs], {
          cwd: ROOT,
          env: { ...process.env, ...env(), PAYLINK_EVM_RPC_URL: proxy.url },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (chunk) => (stderr += chunk));
        await until(
          () => {
            assert.equal(child.exitCode, null, `the sweep exited before sending its top-up (${stderr})`);
            return proxy.held('eth_sendRawTransaction') > 0;
          },
          'the sweep to store its top-up and send it',
          60_000,
          { everyMs: 25, explain: () => stderr },
        );
        child.kill('SIGKILL');
        await exited(child);
        proxy.release('eth_sendRawTransaction'); // lost with the process
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), nonceBefore, 'nothing reached the chain');
        assert.equal(await units(f.usdt, deposits.address(index)), parseUnits('8', 18));

        const again = await sweep(String(index), proxy.url);
        assert.equal(again.code, 0, again.lines.join('\n'));
        assert.match(again.lines.at(-1)!, /moved 8 USDT/);
        assert.equal(await units(f.usdt, deposits.address(index)), 0n);
        assert.equal((await units(f.usdt, hot)) - usdtBefore, parseUnits('8', 18));
        await startOn();
        const topUpsOf = () =>
          service!.db.query<{ tx_hash: string; status: string; nonce: number }>(
            "SELECT tx_hash, status, nonce::int AS nonce FROM payout_transactions WHERE purpose = 'gas_top_up' AND lower(to_address) = lower($1)",
            [deposits.address(index)],
          );
        // The sweep leaves following its top-up to its confirmations to the service's payout worker.
        await waitForPayouts(
          { db: service!.db, f, hot },
          async () => (await topUpsOf()).rows.every((row) => row.status === 'success'),
          'the service to follow the top-up to its confirmation',
          { mineEveryMs: 30 },
        );
        const topUps = await topUpsOf();
        assert.equal(topUps.rows.length, 1, 'the top-up stored before the kill, and no second one');
        assert.deepEqual([topUps.rows[0]!.status, topUps.rows[0]!.nonce], ['success', nonceBefore]);
        assert.deepEqual([...new Set(proxy.forwardedTransactions)].slice(0, 1), [topUps.rows[0]!.tx_hash], 'the re-run first sent the stored top-up');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), nonceBefore + 1, 'one hot-wallet transaction in all');
      } finally {
        await proxy.close();
      }
    });
  });
}
