/**
 * The service on a real chain when things go wrong (anvil behind a JSON-RPC proxy):
 * - the service is killed (SIGKILL) after storing a batch of payouts' signed transactions and before
 *   any node has them: the restarted service sends those same transactions, and no second one;
 * - during a payment storm the node answers errors, then hangs, then is stopped and restarted: the
 *   service keeps answering, statuses stay honest (`confirming`, `processing`), it catches up when
 *   the node is back, and every transfer on the final chain is credited exactly once and every
 *   withdrawal paid exactly once.
 * The node is restarted with its chain kept (`--state`, stopped with SIGTERM), as a real node's
 * database survives a restart: anvil killed with SIGKILL loses its last second of blocks, a reorg
 * deeper than any confirmation count, which no payment system can survive.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { parseEventLogs, parseUnits, formatUnits, type Address, type Hex } from 'viem';
import { startAnvil, type AnvilNode } from '../../../../src/server/chain/evm/anvil.js';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import type { ChainAdapter } from '../../../../src/server/chain/types.js';
import { openDatabase } from '../../../../src/server/db/index.js';
import { createLogger } from '../../../../src/server/log.js';
import { createApiKey } from '../../../../src/server/service/keys/index.js';
import { startService, type RunningService } from '../../../../src/server/service/serve.js';
import { DEPOSIT_XPUB } from '../../../support/anvil.js';
import { assertLedgerMatches, createUsdLink, startSession } from '../../../support/money.js';
import { BIN, ROOT, exited, waitForHealth } from '../../../support/processes.js';
import { createPgliteDataDir } from '../../../support/pglite-template.js';
import { freePort } from '../../../support/postgres.js';
import { backends, call, createPostgresDatabase } from '../../../support/service.js';
import { creditDirectly, outgoingOf, randomAddress, readSession, startEvmFixture, type EvmFixture } from '../../../support/evm-service.js';
import { startRpcProxy, type RpcProxy } from '../../../support/rpc-proxy.js';
import { until } from '../../../support/wait.js';

const tokenUnits = (f: EvmFixture, address: string, token = f.usdt) =>
  f.t.client.readContract({ address: token, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [address as Address] });

for (const backend of backends()) {
  describe(`EVM faults (${backend})`, () => {
    let dir: string;
    let storage: { dataDir: string; databaseUrl: string | undefined };
    let storageArgs: string[];
    const drops: Array<() => Promise<void>> = [];

    before(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-evm-faults-'));
    });
    // Each test runs its own chain, so each gets its own database: a hot wallet's nonce sequence
    // belongs to one chain.
    beforeEach(async (context) => {
      const name = context.name.replace(/[^a-z]+/gi, '-').slice(0, 40);
      if (backend === 'postgres') {
        const created = await createPostgresDatabase();
        storage = { dataDir: path.join(dir, 'unused'), databaseUrl: created.url };
        storageArgs = ['--database-url', created.url];
        drops.push(created.drop);
      } else {
        storage = { dataDir: path.join(dir, `data-${name}`), databaseUrl: undefined };
        await createPgliteDataDir(storage.dataDir);
        storageArgs = ['--data-dir', storage.dataDir];
      }
    });
    after(async () => {
      for (const drop of drops) await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a service killed between signing a batch of payouts and broadcasting it sends the same transactions after the restart, never a second', async () => {
      const f = await startEvmFixture();
      const proxy = await startRpcProxy(f.t.url);
      const children: ChildProcess[] = [];
      try {
        const chain = await f.adapter({ confirmations: 2 });
        const hot = outgoingOf(chain).hotWallet as Address;
        await f.t.mint(f.usdt, hot, parseUnits('1000', 18));
        // Set up the merchant with money and three withdrawals waiting, then let the service process own the database.
        const setup = await startService({ ...storage, chain, scanner: false, payoutWorker: false });
        const { key } = await setup.db.transaction((tx) => createApiKey(tx));
        await creditDirectly({ url: setup.url, db: setup.db }, chain, key, '100');
        const payouts = [
          { to: randomAddress(), amount: '7.5' },
          { to: randomAddress(), amount: '2' },
          { to: randomAddress(), amount: '11.25' },
        ];
        const ids: string[] = [];
        for (const { to, amount } of payouts) {
          const created = await call(setup.url, 'POST', '/v1/withdrawal', { key, body: { amount, address: to, blockchainId: 'bsc', assetId: 'USDT' } });
          assert.equal(created.status, 200, JSON.stringify(created.body));
          ids.push(created.body.id);
        }
        await setup.close();
        await chain.close?.();

        writeFileSync(path.join(dir, 'payout.key'), `${f.t.devKey(1)}\n`, { mode: 0o600 });
        const env = {
          ...process.env,
          PAYLINK_EVM_RPC_URL: proxy.url,
          PAYLINK_EVM_CHAIN_ID: String(f.t.chainId),
          PAYLINK_EVM_TOKENS: `USDT=${f.usdt},CNGN=${f.cngn}`,
          PAYLINK_EVM_XPUB: DEPOSIT_XPUB,
          PAYLINK_EVM_PAYOUT_KEY_FILE: path.join(dir, 'payout.key'),
          PAYLINK_EVM_CONFIRMATIONS: '2',
          PAYLINK_EVM_POLL_MS: '50',
          PAYLINK_RATES_SOURCES: 'static',
        };
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        const serve = async () => {
          const child = spawn(process.execPath, [BIN, 'serve', '--chain', 'evm', ...storageArgs, '--port', String(port)], {
            cwd: ROOT,
            env,
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          children.push(child);
          child.stderr!.resume();
          await waitForHealth(url, child, 60_000);
          return child;
        };
        const hashes = async () => Promise.all(ids.map(async (id) => (await call(url, 'GET', `/v1/withdrawal/${id}`, { key })).body.txHash as string | null));

        const nonceBefore = await f.t.client.getTransactionCount({ address: hot });
        proxy.hold('eth_sendRawTransaction');
        const first = await serve();
        let signed: Array<string | null> = [];
        await until(
          async () => {
            signed = await hashes();
            return signed.every(Boolean) && signed.length === 3 && proxy.held('eth_sendRawTransaction') > 0;
          },
          'the payouts signed, stored and on their way to the node',
          30_000,
          { everyMs: 25, explain: () => `hashes ${JSON.stringify(signed)}, ${proxy.held('eth_sendRawTransaction')} held` },
        );
        first.kill('SIGKILL');
        await exited(first);
        proxy.release('eth_sendRawTransaction'); // what it was sending is lost with it
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), nonceBefore, 'nothing reached the chain');
        assert.deepEqual(proxy.forwardedTransactions, []);

        const second = await serve();
        const statuses = () => Promise.all(ids.map(async (id) => (await call(url, 'GET', `/v1/withdrawal/${id}`, { key })).body.status as string));
        await until(
          async () => {
            if ((await statuses()).every((status) => status === 'success')) return true;
            await f.t.mine(1); // a block for their confirmations
            return false;
          },
          'the withdrawals to succeed after the restart',
          30_000,
          { everyMs: 50, explain: async () => JSON.stringify(await statuses()) },
        );
        assert.deepEqual(await hashes(), signed, 'the transactions signed before the kill are the ones that paid');
        assert.deepEqual(new Set(proxy.forwardedTransactions), new Set(signed), 'only those transactions ever reached the node');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), nonceBefore + 3);
        for (const { to, amount } of payouts) assert.equal(await tokenUnits(f, to), parseUnits(amount, 18), 'paid once');
        second.kill('SIGTERM');
        assert.equal(await exited(second), 0);
        const db = await openDatabase(storage);
        try {
          const rows = await db.query<{ tx_hash: string }>('SELECT tx_hash FROM payout_transactions WHERE withdrawal_id = ANY($1) ORDER BY nonce', [ids]);
          assert.deepEqual(new Set(rows.rows.map((row) => row.tx_hash)), new Set(signed), 'one stored transaction each');
          assert.equal(rows.rows.length, 3);
        } finally {
          await db.close();
        }
      } finally {
        for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await proxy.close();
        await f.stop();
      }
    });

    it('keeps serving through node errors, a hung node and a node restart during a payment storm; credits and pays each once', async () => {
      const stateFile = path.join(dir, 'anvil-state.json');
      const f = await startEvmFixture({ extraArgs: ['--state', stateFile] });
      const proxy = await startRpcProxy(f.t.url);
      const lines: string[] = [];
      let node: AnvilNode = f.t.node;
      let service: RunningService | undefined;
      let chain: ChainAdapter | undefined;
      let miner: NodeJS.Timeout | undefined;
      try {
        chain = await f.adapter({ confirmations: 3, rpcUrl: proxy.url, timeoutMs: 500, retries: 0 });
        const hot = outgoingOf(chain).hotWallet as Address;
        await f.t.mint(f.usdt, hot, parseUnits('1000', 18));
        service = await startService({
          ...storage,
          chain,
          scanner: { maxBackoffMs: 200 },
          logger: createLogger((line) => lines.push(line)),
          payouts: { pollIntervalMs: 30, checkMs: 60, rebroadcastMs: 300 },
          sseHeartbeatMs: 60_000,
        });
        const { key, integratorId } = await service.db.transaction((tx) => createApiKey(tx));
        await creditDirectly({ url: service.url, db: service.db }, chain, key, '100');
        const sessions: Array<{ id: string; payAddress: string }> = [];
        for (let i = 0; i < 8; i++) sessions.push(await startSession(service.url, await createUsdLink(service.url, key, '5')));
        const hotNonce = await f.t.client.getTransactionCount({ address: hot });
        const payouts: Array<{ id: string; to: Address; amount: string }> = [];
        const withdraw = async (amount: string) => {
          const to = randomAddress();
          const res = await call(service!.url, 'POST', '/v1/withdrawal', { key, body: { amount, address: to, blockchainId: 'bsc', assetId: 'USDT' } });
          assert.equal(res.status, 200, 'withdrawals are taken whatever the node does');
          payouts.push({ id: res.body.id, to, amount });
        };
        /** The public reads answer, quickly, with honest statuses. */
        const stillServing = async (what: string) => {
          for (const session of sessions) {
            const started = Date.now();
            const view = await readSession(service!.url, session.id);
            assert.ok(Date.now() - started < 2_000, `${what}: a session read answers quickly`);
            assert.ok(['awaiting_payment', 'confirming', 'underpaid', 'paid'].includes(view.status), `${what}: ${view.status}`);
          }
        };
        const pay = (i: number, amount: string, payer = i % 3) => f.pay(sessions[i]!.payAddress, 'USDT', amount, f.payers[payer]!);
        /** Resolves once the service has run into the staged fault `count` times since `from` (its count before the fault). */
        const metFault = (fault: keyof RpcProxy['faults'], from: number, count: number) =>
          until(() => proxy.faults[fault] >= from + count, `the service to meet the node's ${fault} ${count} times`, 20_000, {
            explain: () => JSON.stringify(proxy.faults),
          });
        const logged = (code: string) => lines.some((line) => (JSON.parse(line) as { code: string }).code === code);

        // Calm: two payments (one in two parts), one withdrawal.
        await pay(0, '5');
        await pay(1, '2');
        await pay(1, '3', 2);
        await withdraw('3');
        await f.t.mine(3);

        // The node answers HTTP 500: payments keep arriving on chain (customers use other nodes).
        const errors = proxy.faults.error;
        await proxy.setMode('error');
        await pay(2, '5');
        await pay(3, '5');
        await withdraw('4');
        await metFault('error', errors, 5);
        await until(() => logged('scanner_node_unavailable'), 'the scanner to say the node stopped answering');
        await stillServing('node answering errors');

        // The node hangs (no answer at all).
        const hung = proxy.faults.hang;
        await proxy.setMode('hang');
        await pay(4, '5');
        await metFault('hang', hung, 3);
        await stillServing('node hung');
        assert.ok(['awaiting_payment', 'confirming'].includes((await readSession(service.url, sessions[4]!.id)).status));

        // The node is stopped and restarted with its chain; meanwhile the service has no node at all.
        await proxy.setMode('pass');
        await pay(5, '5');
        const unreachable = proxy.faults.unreachable;
        await node.stop();
        await withdraw('5');
        await metFault('unreachable', unreachable, 5);
        await stillServing('node down');
        for (const payout of payouts)
          assert.ok(['pending', 'processing', 'success'].includes((await call(service.url, 'GET', `/v1/withdrawal/${payout.id}`, { key })).body.status));
        node = await startAnvil({ port: f.t.node.port, extraArgs: ['--state', stateFile] });
        await pay(6, '5');
        await pay(7, '6'); // overpaid
        miner = setInterval(() => void f.t.mine(1).catch(() => {}), 100);

        const progress = async () => ({
          sessions: (await Promise.all(sessions.map((s) => readSession(service!.url, s.id)))).map((v) => v.status as string),
          payouts: (await Promise.all(payouts.map((p) => call(service!.url, 'GET', `/v1/withdrawal/${p.id}`, { key })))).map((r) => r.body.status as string),
        });
        await until(
          async () => {
            const now = await progress();
            return now.sessions.every((status) => status === 'paid' || status === 'overpaid') && now.payouts.every((status) => status === 'success');
          },
          'the service to catch up',
          60_000,
          { everyMs: 100, explain: async () => JSON.stringify(await progress()) },
        );
        clearInterval(miner);

        // Every transfer on the final chain to a session: credited once, with its exact amount.
        const latest = await f.t.client.getBlockNumber();
        for (const session of sessions) {
          const logs = await f.t.client.getLogs({
            address: f.usdt,
            event: TEST_TOKEN_ABI.find((x) => x.type === 'event' && x.name === 'Transfer')!,
            args: { to: session.payAddress as Address },
            fromBlock: 0n,
            toBlock: latest,
          });
          const credited: { rows: Array<{ tx_hash: string; log_index: number; amount: string }> } = await service.db.query<{
            tx_hash: string;
            log_index: number;
            amount: string;
          }>('SELECT tx_hash, log_index, amount::text AS amount FROM chain_transfers WHERE session_id = $1 ORDER BY tx_hash, log_index', [session.id]);
          const onChain = parseEventLogs({ abi: TEST_TOKEN_ABI, logs, eventName: 'Transfer' })
            .map((log) => ({ tx_hash: log.transactionHash as Hex, log_index: log.logIndex, amount: Number(formatUnits(log.args.value, 18)).toFixed(6) }))
            .sort((a, b) => (a.tx_hash < b.tx_hash ? -1 : a.tx_hash > b.tx_hash ? 1 : a.log_index - b.log_index));
          assert.deepEqual(credited.rows, onChain, `session ${session.id}: what the chain holds, once`);
        }
        // Every withdrawal: one successful transaction, the recipient paid once, no extra nonce used.
        for (const payout of payouts) {
          const rows: { rows: Array<{ status: string }> } = await service.db.query<{ status: string }>(
            "SELECT status FROM payout_transactions WHERE withdrawal_id = $1 AND status = 'success'",
            [payout.id],
          );
          assert.equal(rows.rows.length, 1);
          assert.equal(await tokenUnits(f, payout.to), parseUnits(payout.amount, 18));
        }
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), hotNonce + payouts.length);
        await assertLedgerMatches(service.db, integratorId);
        const codes = lines.map((line) => (JSON.parse(line) as { code: string }).code);
        assert.ok(codes.includes('scanner_node_unavailable'), 'the scanner said when the node stopped answering');
        assert.ok(codes.includes('scanner_node_recovered'), 'and when it answered again');
      } finally {
        clearInterval(miner);
        await service?.close();
        await chain?.close?.();
        await proxy.close();
        await node.stop();
        await f.stop();
      }
    });
  });
}
