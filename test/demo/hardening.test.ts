/**
 * The demo against what an outside attack tried: its wallet relay passes only the reads a payment
 * needs, never a call that asks for more gas than a block holds or carries a state or block override
 * (checked against a fake node that records what reaches it); admin sessions are bounded per client,
 * so a flood of anonymous page loads evicts only the flooder's own; no page can be framed; a short
 * `PAYLINK_ADMIN_TOKEN` stops the demo from starting; `X-Forwarded-For` from the loopback does not make
 * one visitor many; and webhook endpoints on the developer's own machine are allowed while the demo
 * listens on the loopback. (The real chain under a flood of heavy calls is `test/hard/demo.test.ts`.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DemoChain } from '../../demo/chain.js';
import { demoAllowsPrivateWebhooks, DemoConfigError, startDemo, type RunningDemo } from '../../demo/server.js';
import { createAdminSessions, readCookie, SESSION_COOKIE } from '../../demo/visitors.js';
import { createDemoShop } from '../../demo/shop.js';
import { createDemoWallet, ESTIMATE_GAS_CAP } from '../../demo/wallet.js';
import type { PaylinkClient } from '../../src/client/index.js';
import { callFrom } from '../support/service.js';
import { startReceiver } from '../support/webhook-receiver.js';

const BLOCK_GAS_LIMIT = 30_000_000n;
const LOOP_INITCODE = '0x5b600056'; // JUMPDEST PUSH1 0 JUMP: runs until its gas is gone

describe('demo admin sessions', () => {
  it('10,050 anonymous page loads from one address evict only that address’s sessions, never a signed-in visitor’s', () => {
    const sessions = createAdminSessions();
    const visitor = readCookie(sessions.issue(false, '127.0.0.1'), SESSION_COOKIE);
    for (let i = 0; i < 10_050; i++) sessions.issue(false, '127.0.0.2');
    assert.equal(sessions.has(visitor), true, 'the visitor is still signed in');
    assert.equal(sessions.size, 21, 'the flooder holds 20 at most');
  });

  it('when every place is taken by many addresses, the busiest address gives one up', () => {
    const sessions = createAdminSessions({ maxSessions: 100 });
    const visitor = readCookie(sessions.issue(false, '198.51.100.1'), SESSION_COOKIE);
    for (let i = 0; i < 1_000; i++) sessions.issue(false, `10.0.${i % 50}.1`);
    assert.equal(sessions.has(visitor), true);
    assert.equal(sessions.size, 100);
  });
});

describe('demo wallet relay', () => {
  let node: Server;
  let nodeUrl: string;
  /** What reached the node, by method. */
  const reached: string[] = [];
  /** The gas each `eth_estimateGas` reached the node with. */
  const estimatedWith: unknown[] = [];
  let inFlight = 0;
  let mostInFlight = 0;

  before(async () => {
    node = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', async () => {
        const { id, method, params } = JSON.parse(text) as { id: number; method: string; params: Array<{ gas?: string }> };
        reached.push(method);
        if (method === 'eth_estimateGas') estimatedWith.push(params[0]?.gas);
        let result: unknown = '0x1';
        if (method === 'eth_getBlockByNumber') result = { number: '0x10', gasLimit: `0x${BLOCK_GAS_LIMIT.toString(16)}` };
        if (method === 'eth_call') {
          inFlight++;
          mostInFlight = Math.max(mostInFlight, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 20)); // a node's latency, so that calls can overlap (what is counted)
          inFlight--;
          result = '0x';
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', () => resolve()));
    nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => node.close(() => resolve())));

  const token = (assetId: 'USDT' | 'CNGN', address: `0x${string}`) => ({ assetId, symbol: assetId, name: assetId, address, decimals: 6 });
  const wallet = () =>
    createDemoWallet(
      [
        {
          rpcUrl: nodeUrl,
          chainId: 31337,
          client: createPublicClient({ transport: http(nodeUrl, { retryCount: 0 }) }),
          demoWallet: privateKeyToAccount(`0x${'11'.repeat(32)}`),
          tokens: { USDT: token('USDT', `0x${'a1'.repeat(20)}`), CNGN: token('CNGN', `0x${'b2'.repeat(20)}`) },
        } as unknown as DemoChain,
      ],
      'http://demo.test',
    );
  let nextClient = 0;
  const rpc = async (relay: ReturnType<typeof wallet>, method: string, params: unknown[]) => {
    const response = await relay.handle(
      new Request('http://demo.test/demo/wallet/rpc', {
        method: 'POST',
        headers: { origin: 'http://demo.test', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }),
      `192.0.2.${++nextClient % 250}`,
    );
    return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  };

  it('refuses, without asking the node, a call for more gas than a block holds, a state or block override, or a method off the list', async () => {
    const relay = wallet();
    const call = { data: LOOP_INITCODE };
    const refused: Array<[string, unknown[], RegExp]> = [
      ['eth_call', [{ ...call, gas: `0x${(2n ** 40n).toString(16)}` }, 'latest'], /more than a block/],
      ['eth_call', [{ ...call, gas: `0x${(BLOCK_GAS_LIMIT + 1n).toString(16)}` }, 'latest'], /more than a block/],
      ['eth_estimateGas', [{ ...call, gas: `0x${(2n ** 40n).toString(16)}` }], /more than a block/],
      ['eth_call', [call, 'latest', { [`0x${'c3'.repeat(20)}`]: { code: LOOP_INITCODE, balance: '0xffffffffffffffff' } }], /state override/],
      ['eth_call', [call, 'latest', null, { number: '0x1', gasLimit: '0xffffffffffff' }], /block override/],
      ['eth_estimateGas', [call, 'latest', { [`0x${'c3'.repeat(20)}`]: { balance: '0x1' } }], /state override/],
      ['eth_call', [{ ...call, authorizationList: [] }, 'latest'], /param 1/],
      ['eth_call', [{ ...call, gas: 'lots' }, 'latest'], /hex quantity/],
      ['eth_call', ['not a call'], /param 1/],
      ['eth_getBalance', [`0x${'c3'.repeat(20)}`, 'latest', 'extra'], /takes 1 to 2 params/],
      ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }], /does not support/],
      ['debug_traceCall', [call, 'latest'], /does not support/],
      ['anvil_mine', ['0xffffffff'], /does not support/],
      ['anvil_setBalance', [`0x${'c3'.repeat(20)}`, '0xffff'], /does not support/],
      ['eth_sign', [`0x${'c3'.repeat(20)}`, '0x00'], /does not support/],
      ['evm_setIntervalMining', [0], /does not support/],
    ];
    for (const [method, params, message] of refused) {
      const answer = await rpc(relay, method, params);
      assert.ok(answer.error, `${method} ${JSON.stringify(params).slice(0, 80)} is refused`);
      assert.match(answer.error.message, message, method);
    }
    assert.deepEqual(
      reached.filter((method) => method !== 'eth_getBlockByNumber'),
      [],
      'none of them reached the node',
    );
  });

  it('bounds what an estimate may search: no gas or more than a transfer needs many times over is searched within ESTIMATE_GAS_CAP', async () => {
    const relay = wallet();
    const cap = `0x${ESTIMATE_GAS_CAP.toString(16)}`;
    estimatedWith.length = 0;
    const call = { data: LOOP_INITCODE };
    for (const params of [[call], [{ ...call, gas: `0x${BLOCK_GAS_LIMIT.toString(16)}` }, 'latest'], [{ ...call, gas: '0xea60' }]]) {
      assert.equal((await rpc(relay, 'eth_estimateGas', params)).result, '0x1');
    }
    assert.deepEqual(estimatedWith, [cap, cap, '0xea60'], 'the node searched within the cap, or within less when asked');
  });

  it('relays what a payment needs, and runs calls on the node one at a time', async () => {
    const relay = wallet();
    reached.length = 0;
    assert.equal((await rpc(relay, 'eth_blockNumber', [])).result, '0x1');
    assert.equal((await rpc(relay, 'eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`])).result, '0x1');
    assert.equal((await rpc(relay, 'eth_call', [{ to: `0x${'a1'.repeat(20)}`, data: '0x70a08231' }, 'latest'])).result, '0x');
    assert.equal(
      (await rpc(relay, 'eth_call', [{ data: LOOP_INITCODE, gas: `0x${BLOCK_GAS_LIMIT.toString(16)}` }, 'latest', null])).result,
      '0x',
      'a block’s worth of gas, and a null override, are fine',
    );
    assert.deepEqual(
      reached.filter((method) => method !== 'eth_getBlockByNumber'),
      ['eth_blockNumber', 'eth_getTransactionReceipt', 'eth_call', 'eth_call'],
    );
    mostInFlight = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, () => rpc(relay, 'eth_call', [{ data: LOOP_INITCODE }, 'latest'])));
    assert.equal(mostInFlight, 1, 'one call on the node at a time');
    assert.ok(answers.filter((answer) => answer.result === '0x').length >= 8, 'the queue served its share');
    const busy = answers.filter((answer) => answer.error);
    for (const answer of busy) assert.match(answer.error!.message, /busy/);
  });
});

describe('demo webhooks to private addresses', () => {
  it('are allowed while the demo listens on the loopback, refused on any other address, unless PAYLINK_WEBHOOK_ALLOW_PRIVATE says otherwise', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) assert.equal(demoAllowsPrivateWebhooks(host, {}), true, host);
    // Reached from other machines: every visitor's admin session could make it post into the network.
    for (const host of ['0.0.0.0', '::', '192.168.1.20', '10.0.0.5', 'demo.shop.example']) assert.equal(demoAllowsPrivateWebhooks(host, {}), false, host);
    assert.equal(demoAllowsPrivateWebhooks('0.0.0.0', { PAYLINK_WEBHOOK_ALLOW_PRIVATE: '1' }), true, 'the developer may say so');
    assert.equal(demoAllowsPrivateWebhooks('127.0.0.1', { PAYLINK_WEBHOOK_ALLOW_PRIVATE: '0' }), false, 'and may refuse them on the loopback too');
    assert.throws(
      () => demoAllowsPrivateWebhooks('127.0.0.1', { PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'yes' }),
      (error: Error) => error instanceof DemoConfigError && /must be 1 or 0/.test(error.message),
    );
  });
});

describe('the demo (sandbox)', { timeout: 120_000 }, () => {
  let demo: RunningDemo;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-demo-hardening-'));
    demo = await startDemo({ port: 0, dataDir, chain: 'sandbox' });
  });
  after(async () => {
    await demo?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses to start with a PAYLINK_ADMIN_TOKEN shorter than 32 characters, saying how to make one', async () => {
    const previous = process.env.PAYLINK_ADMIN_TOKEN;
    process.env.PAYLINK_ADMIN_TOKEN = 'a';
    try {
      await assert.rejects(
        startDemo({ port: 0, dataDir, chain: 'sandbox' }),
        (error: Error) => error instanceof DemoConfigError && /at least 32 characters/.test(error.message) && /randomBytes\(32\)/.test(error.message),
      );
    } finally {
      if (previous === undefined) delete process.env.PAYLINK_ADMIN_TOKEN;
      else process.env.PAYLINK_ADMIN_TOKEN = previous;
    }
    assert.ok(demo.adminToken.length >= 32, 'its own token is long enough');
  });

  it('no page can be framed: frame-ancestors none and X-Frame-Options DENY on every page', async () => {
    for (const page of ['/', '/index.html', '/store.html', '/donate.html', '/dark.html', '/admin.html', `/pay/${demo.slugs.store}`]) {
      const response = await fetch(demo.url + page);
      assert.equal(response.status, 200, page);
      assert.equal(response.headers.get('x-frame-options'), 'DENY', page);
      assert.match(response.headers.get('content-security-policy') ?? '', /(^|;)\s*frame-ancestors 'none'/, page);
    }
  });

  it('a visitor who rotates X-Forwarded-For is still one visitor: the session limit holds, in the service and through the proxy', async () => {
    const rotate = async (base: string, from: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) {
        const answer = await callFrom(from, demo.url, 'POST', `${base}/${demo.slugs.simple}/sessions`, {
          body: { assetId: 'USDT' },
          headers: { 'x-forwarded-for': `203.0.${i}.7` },
        });
        statuses.push(answer.status);
      }
      return statuses;
    };
    const direct = await rotate('/v1/checkout', '127.0.0.21');
    assert.equal(direct.filter((status) => status === 201).length, 20, `a burst of 20, then 429: ${direct}`);
    const proxied = await rotate('/paylink/checkout', '127.0.0.22');
    assert.equal(proxied.filter((status) => status === 201).length, 20, `the same through the proxy: ${proxied}`);
  });

  it('allows a webhook endpoint on the developer’s own machine while it listens on the loopback', async () => {
    const receiver = await startReceiver();
    try {
      const page = await fetch(`${demo.url}/admin.html`);
      const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
      const created = await fetch(`${demo.url}/paylink/admin/webhook-endpoint`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', origin: demo.url, 'sec-fetch-site': 'same-origin' },
        body: JSON.stringify({ url: `${receiver.url}/hooks` }),
      });
      assert.equal(created.status, 201, await created.clone().text());
    } finally {
      await receiver.close();
    }
  });
});

describe('demo shop', () => {
  /** What the shop's server asked the service for, through a client whose `orders.create` is recorded. */
  const created: Array<{ params: Record<string, any>; idempotencyKey?: string }> = [];
  const client = {
    orders: {
      create: async (params: Record<string, any>, options: { idempotencyKey?: string } = {}) => {
        created.push({ params, idempotencyKey: options.idempotencyKey });
        return {
          id: `order-${created.length}`,
          url: `http://demo.test/pay/order/order-${created.length}`,
          fiatAmount: params.fiatAmount,
          fiatCurrency: params.fiatCurrency,
        };
      },
    },
  } as unknown as PaylinkClient;
  const post = (shop: ReturnType<typeof createDemoShop>, body: unknown, headers: Record<string, string> = {}, visitor = '192.0.2.1') =>
    shop.handle(
      new Request('http://demo.test/shop/orders', {
        method: 'POST',
        headers: { origin: 'http://demo.test', 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
      visitor,
    );

  it('prices the cart itself and creates the order with the key, whatever the page says of prices', async () => {
    const shop = createDemoShop(client, 'http://demo.test');
    const response = await post(shop, {
      items: [
        { sku: 'yirgacheffe-250', quantity: 2, price: '1' },
        { sku: 'filters-100', quantity: 1 },
      ],
      fiatAmount: '1',
    });
    assert.equal(response.status, 201);
    assert.deepEqual(await response.json(), { id: 'order-1', url: 'http://demo.test/pay/order/order-1', fiatAmount: '19500.50', fiatCurrency: 'NGN' });
    const { params, idempotencyKey } = created.at(-1)!;
    assert.equal(params.fiatAmount, '19500.50');
    assert.deepEqual(params.cart.items, [
      { name: 'Ethiopian Yirgacheffe, 250 g', quantity: 2, unitAmount: '8500' },
      { name: 'Pour-over filter papers (100)', quantity: 1, unitAmount: '2500.50' },
    ]);
    assert.match(params.reference, /^demo-shop-/);
    assert.ok(idempotencyKey, 'sent with an Idempotency-Key');
  });

  it('refuses another site, not JSON, a bad cart and a flood, creating nothing', async () => {
    const shop = createDemoShop(client, 'http://demo.test');
    const before = created.length;
    const cart = { items: [{ sku: 'filters-100', quantity: 1 }] };
    assert.equal((await post(shop, cart, { origin: 'http://evil.example' })).status, 403);
    assert.equal((await post(shop, cart, { 'content-type': 'text/plain' })).status, 415);
    for (const bad of [
      {},
      { items: [] },
      { items: [{ sku: 'gold-bar', quantity: 1 }] },
      { items: [{ sku: 'filters-100', quantity: 11 }] },
      { items: [{ sku: 'filters-100', quantity: 1.5 }] },
      { items: [cart.items[0], cart.items[0]] },
    ]) {
      const response = await post(shop, bad);
      assert.equal(response.status, 400, JSON.stringify(bad));
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'invalid_cart');
    }
    assert.equal(created.length, before, 'nothing refused reached the service');
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(shop, cart, {}, '198.51.100.7')));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 201, 201, 201, 201, 429, 429, 429], 'five at once per visitor, then wait');
  });
});
