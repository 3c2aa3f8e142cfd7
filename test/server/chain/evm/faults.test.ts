/**
 * RPC faults: the service must keep serving while its node is down, hung, rate-limiting or
 * answering errors, and catch up when it is back. So every call must end within its time bound,
 * fail with an `EvmChainError` whose `retryable` says "try again later", and work again once the
 * node does, without a new connection object. Messages must not leak the node URL (it may hold a
 * provider's API key). A batch of payouts' calls goes as one JSON-RPC batch, each call answered on its
 * own; a node that refuses batches, however it words it, is asked call by call from then on, and one
 * that rate-limits a batch is an outage, not a refusal.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Address } from 'viem';
import { startAnvil } from '../../../../src/server/chain/evm/anvil.js';
import type { EvmChain } from '../../../../src/server/chain/evm/chain.js';
import { connectEvmChain } from '../../../../src/server/chain/evm/connect.js';
import { EvmChainError, isRetryableChainError } from '../../../../src/server/chain/evm/errors.js';
import { createEvmRpc } from '../../../../src/server/chain/evm/rpc.js';
import { freeze, startTestChain, type TestChain } from '../../../support/anvil.js';
import { closeServer, listen } from '../../../support/http-server.js';
import { until } from '../../../support/wait.js';

const FAST = { timeoutMs: 400, retries: 1, retryDelayMs: 20 };
/**
 * For a node that answers (anvil behind a fake front): what is tested is how its answers are read, not
 * how long it takes, so a busy machine's slow answer is no timeout.
 */
const PATIENT = { ...FAST, timeoutMs: 10_000 };

/** Asserts that `promise` fails with a retryable EvmChainError of `code`, and returns it. */
async function failsWith(promise: Promise<unknown>, code: EvmChainError['code']): Promise<EvmChainError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof EvmChainError, `not an EvmChainError: ${error}`);
    assert.equal(error.code, code, error.message);
    assert.equal(isRetryableChainError(error), true);
    return error;
  }
  assert.fail('the call succeeded');
}

/** A fake node on a loopback port whose answers the test chooses; counts requests. */
async function fakeNode(handler: (body: { method: string; params: unknown[]; id: number }, res: ServerResponse, req: IncomingMessage) => void) {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      requests++;
      handler(JSON.parse(raw), res, req);
    });
  });
  const url = await listen(server);
  return {
    url: `${url}/v1/secret-provider-key`,
    get requests() {
      return requests;
    },
    close: () => closeServer(server),
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** A local chain with USDT deployed, and a chain object connected to it (with short bounds unless told). */
async function tokenChain(bounds = FAST): Promise<{ t: TestChain; usdt: Address; chain: EvmChain }> {
  const t = await startTestChain();
  const usdt = await t.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
  return { t, usdt, chain: await connectEvmChain(t.config({ tokens: { USDT: usdt } }), bounds) };
}

describe('EVM node faults', () => {
  let t: TestChain;
  let chain: EvmChain;

  before(async () => {
    ({ t, chain } = await tokenChain());
  });
  after(async () => {
    await chain?.close();
    await t?.stop();
  });

  it('a killed node gives typed retryable errors fast, and the same object works once a node is back on its port', async () => {
    assert.equal(await chain.latestBlock(), 1);
    t.node.process.kill('SIGKILL');
    await new Promise((resolve) => t.node.process.once('exit', resolve));

    const started = Date.now();
    const error = await failsWith(chain.latestBlock(), 'unreachable');
    assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
    assert.equal(error.method, 'eth_blockNumber');
    await failsWith(chain.transfers({ fromBlock: 0, toBlock: 1, addresses: [chain.depositAddress(0)] }), 'unreachable');
    await failsWith(chain.receipt(`0x${'ab'.repeat(32)}`), 'unreachable');
    await failsWith(chain.pendingNonce(), 'unreachable');
    await failsWith(chain.broadcast('0x02f8'), 'unreachable');
    await failsWith(chain.tokenBalance('USDT', chain.hotWallet!), 'unreachable');
    await failsWith(connectEvmChain(chain.config, FAST), 'unreachable');

    // Same port, same chain id (a restarted node): the chain object recovers on its own.
    const restarted = await startAnvil({ port: t.node.port, chainId: t.chainId });
    try {
      assert.equal(await chain.latestBlock(), 0);
      assert.equal(await chain.pendingNonce(), 0);
    } finally {
      await restarted.stop();
    }
  });

  it('a hung node times out within the bound, and answers again once it resumes', async () => {
    const node = await startAnvil();
    const hung = await connectEvmChain({ ...chain.config, rpcUrl: node.url, rpcUrls: [node.url], tokens: {} }, FAST);
    let thaw = () => {};
    try {
      thaw = await freeze(node);
      const started = Date.now();
      await failsWith(hung.latestBlock(), 'timeout');
      const took = Date.now() - started;
      // Two attempts of 400 ms and one short backoff.
      assert.ok(took >= 780 && took < 3_000, `took ${took} ms`);
      thaw();
      assert.equal(await hung.latestBlock(), 0);
    } finally {
      thaw();
      await hung.close();
      await node.stop();
    }
  });

  for (const [label, respond, code] of [
    ['HTTP 500', (res: ServerResponse) => json(res, 500, { error: 'boom' }), 'node_error'],
    ['HTTP 503 with an HTML page', (res: ServerResponse) => res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>down</h1>'), 'node_error'],
    ['HTTP 429', (res: ServerResponse) => json(res, 429, { error: 'slow down' }), 'rate_limited'],
    [
      'a JSON-RPC limit error',
      (res: ServerResponse) => json(res, 200, { jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'limit exceeded' } }),
      'rate_limited',
    ],
    [
      'a JSON-RPC internal error',
      (res: ServerResponse) => json(res, 200, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal' } }),
      'node_error',
    ],
    ['HTML with status 200', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>captive portal</html>'), 'bad_response'],
  ] as const) {
    it(`a node answering ${label} gives ${code}, retried once, without the URL in the message`, async () => {
      const fake = await fakeNode((_body, res) => respond(res));
      const rpc = createEvmRpc(fake.url, FAST);
      try {
        const error = await failsWith(
          rpc.call('eth_blockNumber', (client) => client.getBlockNumber()),
          code,
        );
        assert.equal(fake.requests, 2, 'one attempt and one retry');
        assert.doesNotMatch(error.message, /secret-provider-key|127\.0\.0\.1/);
      } finally {
        await fake.close();
      }
    });
  }

  it('a node refusing a method gives a non-retryable unsupported, tried once', async () => {
    const fake = await fakeNode((body, res) => json(res, 200, { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'the method does not exist' } }));
    const rpc = createEvmRpc(fake.url, FAST);
    try {
      await assert.rejects(
        rpc.call('eth_maxPriorityFeePerGas', (client) => client.request({ method: 'eth_maxPriorityFeePerGas' })),
        (error: EvmChainError) => {
          assert.equal(error.code, 'unsupported');
          assert.equal(error.retryable, false);
          return true;
        },
      );
      assert.equal(fake.requests, 1);
    } finally {
      await fake.close();
    }
  });

  it('a bug of ours (not a chain fault) is not disguised as a retryable chain error', async () => {
    const rpc = createEvmRpc(t.url, FAST);
    await assert.rejects(
      rpc.call('eth_blockNumber', async () => {
        throw new TypeError('a bug');
      }),
      TypeError,
    );
  });

  it('splits a log query the node finds too large, and still finds every transfer', async () => {
    const node = await startTestChain();
    try {
      const token = await node.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
      const direct = await connectEvmChain(node.config({ tokens: { USDT: token } }));
      const payer = node.accounts[2]!;
      await node.mint(token, payer, 100n);
      const deposits = [0, 1, 2].map((i) => direct.depositAddress(i));
      for (const [i, deposit] of deposits.entries()) {
        await node.sendToken(payer, token, deposit, BigInt(i + 1));
        await node.mine(3);
      }
      // A proxy in front of anvil that refuses eth_getLogs over more than 2 blocks, as providers do.
      let refused = 0;
      const proxy = await fakeNode(async (body, res) => {
        if (body.method === 'eth_getLogs') {
          const [filter] = body.params as [{ fromBlock: string; toBlock: string }];
          if (Number(filter.toBlock) - Number(filter.fromBlock) + 1 > 2) {
            refused++;
            return json(res, 200, { jsonrpc: '2.0', id: body.id, error: { code: -32005, message: 'query returned more than 10000 results' } });
          }
        }
        const upstream = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        json(res, 200, await upstream.json());
      });
      const limited = await connectEvmChain({ ...direct.config, rpcUrl: proxy.url, rpcUrls: [proxy.url] }, { ...FAST, retries: 0 });
      try {
        const latest = await limited.latestBlock();
        const expected = await direct.transfers({ fromBlock: 0, toBlock: latest, addresses: deposits });
        assert.equal(expected.length, 3);
        assert.deepEqual(await limited.transfers({ fromBlock: 0, toBlock: latest, addresses: deposits }), expected);
        assert.ok(refused > 0, 'the proxy did refuse large ranges');
      } finally {
        await limited.close();
        await proxy.close();
        await direct.close();
      }
    } finally {
      await node.stop();
    }
  });

  it('works over WebSocket, and recovers after the node restarts', async () => {
    const node = await startAnvil();
    const ws = await connectEvmChain({ ...chain.config, rpcUrl: node.wsUrl, rpcUrls: [node.wsUrl], tokens: {} }, FAST);
    try {
      assert.equal(await ws.latestBlock(), 0);
      node.process.kill('SIGKILL');
      await new Promise((resolve) => node.process.once('exit', resolve));
      const error = await ws.latestBlock().catch((e: unknown) => e);
      assert.ok(isRetryableChainError(error), String(error));
      const restarted = await startAnvil({ port: node.port });
      try {
        // The socket reconnects in the background; the first calls after a restart may still fail.
        let latest: number | undefined;
        await until(async () => (latest = await ws.latestBlock().catch(() => undefined)) !== undefined, 'the socket to answer again', 10_000, { everyMs: 100 });
        assert.equal(latest, 0);
      } finally {
        await restarted.stop();
      }
    } finally {
      await ws.close();
      await node.stop();
    }
  });
});

describe('JSON-RPC batches (a batch of payouts asked of the node at once)', () => {
  let t: TestChain;
  let usdt: Address;
  let chain: EvmChain;

  before(async () => {
    ({ t, usdt, chain } = await tokenChain(PATIENT));
    await t.mint(usdt, chain.hotWallet!, 10n ** 24n);
  });
  after(async () => {
    await chain?.close();
    await t?.stop();
  });

  /** A node in front of anvil that answers a batch with `batch` (or forwards it), counting batches and single calls. */
  const frontOf = (batch?: (res: ServerResponse) => void) => {
    const seen = { batches: 0, singles: 0 };
    const node = fakeNode(async (body, res) => {
      if (Array.isArray(body)) seen.batches++;
      else seen.singles++;
      if (Array.isArray(body) && batch) return batch(res);
      const upstream = await fetch(t.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      json(res, 200, await upstream.json());
    });
    return { node, seen };
  };
  const transfersToSign = async (count: number) => {
    const nonce = await chain.pendingNonce();
    const fees = await chain.feeQuote();
    return Promise.all(
      Array.from({ length: count }, (_, i) =>
        chain.signTokenTransfer({ nonce: nonce + i, assetId: 'USDT', to: t.accounts[4]!, amount: '1', fees, gas: 80_000n }),
      ),
    );
  };

  it('sends a batch of transactions and reads their receipts in one request each, every call answered on its own', async () => {
    const { node, seen } = frontOf();
    const fake = await node;
    const batched = await connectEvmChain({ ...chain.config, rpcUrl: fake.url, rpcUrls: [fake.url] }, PATIENT);
    try {
      const [first, second] = await transfersToSign(2);
      const before = { ...seen };
      // The same transaction twice (the node has it already the second time) and bytes that are no transaction.
      const sent = await batched.broadcastMany([first!.rawTransaction, second!.rawTransaction, first!.rawTransaction, '0x02f8']);
      assert.deepEqual({ batches: seen.batches - before.batches, singles: seen.singles - before.singles }, { batches: 1, singles: 0 }, 'one request');
      assert.deepEqual(
        sent.slice(0, 2).map((r) => r.status === 'fulfilled' && r.value.outcome),
        ['sent', 'sent'],
      );
      assert.ok(sent[2]!.status === 'fulfilled' && ['already_known', 'nonce_too_low'].includes(sent[2]!.value.outcome), JSON.stringify(sent[2]));
      assert.ok(
        sent[3]!.status === 'rejected' && sent[3]!.reason instanceof EvmChainError && !sent[3]!.reason.retryable,
        'bytes that are no transaction are refused for good',
      );
      await t.mine(2);
      const latest = await batched.latestBlock();
      const states = await batched.receipts([first!.txHash, second!.txHash, `0x${'ab'.repeat(32)}`], latest);
      const expected = await Promise.all(
        [first!, second!].map(async (s) => latest - Number((await t.client.getTransactionReceipt({ hash: s.txHash })).blockNumber) + 1),
      );
      assert.deepEqual(
        states.map((s) => (s.status === 'fulfilled' ? [s.value.status, s.value.status === 'pending' ? 0 : s.value.confirmations] : 'failed')),
        [
          ['success', expected[0]],
          ['success', expected[1]],
          ['pending', 0],
        ],
      );
    } finally {
      await batched.close();
      await fake.close();
    }
  });

  for (const [label, refuse] of [
    ['HTTP 400', (res: ServerResponse) => json(res, 400, { error: 'batch requests are not supported' })],
    [
      'a JSON-RPC error',
      (res: ServerResponse) => json(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported on this plan' } }),
    ],
    [
      'HTTP 400 with a JSON-RPC error',
      (res: ServerResponse) => json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } }),
    ],
    ['fewer answers than calls', (res: ServerResponse) => json(res, 200, [{ jsonrpc: '2.0', id: 0, result: null }])],
  ] as const) {
    it(`asks a node that refuses batches (${label}) one call at a time, and remembers it`, async () => {
      const { node, seen } = frontOf(refuse);
      const fake = await node;
      const single = await connectEvmChain({ ...chain.config, rpcUrl: fake.url, rpcUrls: [fake.url] }, PATIENT);
      try {
        const hashes = (await transfersToSign(3)).map((s) => s.txHash);
        const latest = await single.latestBlock();
        for (let round = 0; round < 2; round++) {
          const states = await single.receipts(hashes, latest);
          assert.deepEqual(
            states.map((s) => s.status === 'fulfilled' && s.value.status),
            ['pending', 'pending', 'pending'],
          );
        }
        assert.equal(seen.batches, 1, 'refused once, then never asked again');
        assert.ok(seen.singles >= 6);
      } finally {
        await single.close();
        await fake.close();
      }
    });
  }

  it('a batch the node answers with a rate limit is an outage (retryable), not a refusal of batches', async () => {
    const { node, seen } = frontOf((res) => json(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32005, message: 'limit exceeded' } }));
    const fake = await node;
    const limited = await connectEvmChain({ ...chain.config, rpcUrl: fake.url, rpcUrls: [fake.url] }, PATIENT);
    try {
      const singles = seen.singles;
      await failsWith(limited.receipts([`0x${'ab'.repeat(32)}`, `0x${'cd'.repeat(32)}`], 1), 'rate_limited');
      assert.equal(seen.singles, singles, 'not asked call by call');
      assert.equal(seen.batches, 2, 'one attempt and one retry');
    } finally {
      await limited.close();
      await fake.close();
    }
  });
});
