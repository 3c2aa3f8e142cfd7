/**
 * The plugin author's path from outside, against a real service (`paylink serve --chain sandbox`, a
 * process of its own, with a key from `paylink keys create`): the Express shop (examples/order-express.ts)
 * and the Next.js route handler (examples/order-next-route.ts) create orders with the key at the shop's
 * own prices; in Chromium the shop's page (`<paylink-checkout order>`, through the shop's proxy) pays its
 * order; the shop's webhook (the order recipe, examples/order-webhook.ts) ships it once; a 1.00 USD link
 * whose page names a 1,500 USD order ships nothing. Screenshots at 375 and 1280 px go to
 * test-results/e2e-orders/ (compiled CLI: `npm run build` first).
 */
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { paylinkClient, type ShopOrder } from '../../examples/node-client.js';
import { createOrderShop } from '../../examples/order-express.js';
import { createOrderCheckoutRoute } from '../../examples/order-next-route.js';
import { memoryShopOrders } from '../../examples/order-webhook.js';
import type { PaylinkClient } from '../../src/client/index.js';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';
import { eventually } from '../support/money.js';
import { freePort } from '../support/postgres.js';
import { BIN, exited, ROOT, startHealthyProcess } from '../support/processes.js';

const ARTIFACTS = path.resolve('test-results', 'e2e-orders');

const shopOrder = (id: string, total: string, title: string): ShopOrder => ({
  id,
  title,
  total,
  currency: 'USD',
  items: [{ name: title, quantity: 1, unitAmount: total }],
  paylinkOrderId: null,
});

/** Pays the order on `page` as a customer does on the sandbox (pay, then "Simulate payment"), and screenshots the receipt. */
async function payOnPage(page: Page, screenshot: string) {
  await page.locator('paylink-checkout [part~=pay-button]').click();
  await page.locator('paylink-checkout [part~=simulate]').click();
  await page.getByRole('heading', { name: 'Payment received' }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, screenshot), fullPage: true });
}

describe('a shop’s orders, from its server to the shipped order', { timeout: 240_000 }, () => {
  let dataDir: string;
  let service: { url: string; child: ChildProcess };
  let apiKey: string;
  let paylink: PaylinkClient;
  let shop: Server;
  let shopUrl: string;
  let browser: Browser;
  const orders = memoryShopOrders([
    shopOrder('1042', '1500.00', 'Walnut desk'),
    shopOrder('1043', '1500.00', 'Oak bookcase'),
    shopOrder('1044', '89.90', 'Desk lamp'),
  ]);
  const shipped: string[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-e2e-orders-'));
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'keys', 'create', '--data-dir', dataDir, '--name', 'Lagos Furniture'], { cwd: ROOT });
    apiKey = stdout.trim().split('\n').at(-1)!.trim();
    // The shop's webhook receiver listens on loopback, as while developing: the service allows it only when told.
    service = await startHealthyProcess([BIN, 'serve', '--chain', 'sandbox', '--data-dir', dataDir], { env: { PAYLINK_WEBHOOK_ALLOW_PRIVATE: '1' } });
    paylink = paylinkClient({ baseUrl: service.url, apiKey });

    const port = await freePort();
    shopUrl = `http://127.0.0.1:${port}`;
    const endpoint = await paylink.webhookEndpoints.create({ url: `${shopUrl}/paylink/webhooks`, events: ['checkout.session.paid'] });
    const app = createOrderShop({
      paylinkUrl: service.url,
      apiKey,
      webhookSecret: () => endpoint.secret,
      orders,
      ship: async (order) => void shipped.push(order.id),
    });
    shop = await new Promise((resolve) => {
      const server = app.listen(port, '127.0.0.1', () => resolve(server));
    });
    browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    if (shop) await new Promise((resolve) => shop.close(resolve));
    if (service) {
      service.child.kill('SIGTERM');
      await exited(service.child);
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('Express: the page pays the order the shop’s server made, at 1,500.00 USD; the webhook ships it once', async () => {
    // At 1280 px: the order as the customer first sees it.
    const wide = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await wide.goto(`${shopUrl}/orders/1042/pay`);
      await wide.getByRole('heading', { name: 'Walnut desk' }).waitFor();
      assert.match((await wide.locator('paylink-checkout [part~=total]').textContent())!, /\$1,500\.00/);
      await wide.screenshot({ path: path.join(ARTIFACTS, 'order-1280.png'), fullPage: true });
    } finally {
      await wide.close();
    }

    // At 375 px, the same order (the shop's server finds the order it made), paid.
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    try {
      await page.goto(`${shopUrl}/orders/1042/pay`);
      await page.getByRole('heading', { name: 'Walnut desk' }).waitFor();
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'nothing runs off a phone');
      await page.screenshot({ path: path.join(ARTIFACTS, 'order-375.png'), fullPage: true });
      await payOnPage(page, 'order-paid-375.png');
    } finally {
      await page.close();
    }

    await eventually(async () => shipped.includes('1042'), 15_000, 'the shop ships order 1042');
    const made = (await orders.find('1042'))!;
    const order = await paylink.orders.get(made.paylinkOrderId!);
    assert.deepEqual([order.status, order.reference, order.fiatAmount, order.fiatCurrency], ['paid', '1042', '1500.00', 'USD']);
    // A script of the shop asking again gets the same order, now paid.
    const again = await fetch(`${shopUrl}/orders/1042/checkout`, { method: 'POST' });
    assert.deepEqual(await again.json(), { order: order.id, url: order.url });
    assert.deepEqual(shipped, ['1042']);
  });

  it('the spoof: a 1.00 USD link paid through the shop’s proxy with reference "1043" ships nothing', async () => {
    const link = await paylink.links.create({
      title: 'Sticker',
      description: '',
      linkType: 'Standard',
      fiatAmount: '1.00',
      fiatCurrency: 'USD',
      action: { successMessage: '', redirect: false, showConfirmationPage: true },
      options: { collectAddress: false, collectPhone: false },
      cart: { items: [] },
    });
    const started = await fetch(`${shopUrl}/paylink/checkout/${link.slug}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assetId: 'USDT', reference: '1043' }),
    });
    assert.equal(started.status, 201);
    const session = (await started.json()) as { id: string };
    const paid = await fetch(`${service.url}/v1/checkout/sessions/${session.id}/simulate-payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(((await paid.json()) as { status: string }).status, 'paid');
    const record = await paylink.sessions.get(session.id);
    assert.deepEqual([record.reference, record.clientReference, record.orderId], [null, '1043', null]);
    // The shop heard the payment (its endpoint answered 204) and shipped nothing for it.
    await eventually(async () => (await deliveredCount()) === 2, 15_000, 'the link’s paid event delivered');
    assert.deepEqual(shipped, ['1042']);
    assert.equal(orders.paid.has('1043'), false);
  });

  it('Next.js: the route handler makes the order at the shop’s price; its hosted page pays it; the webhook ships it', async () => {
    const POST = createOrderCheckoutRoute(() => paylink, orders);
    const ask = (id: string) => POST(new Request(`${shopUrl}/orders/${id}/checkout`, { method: 'POST' }), { params: Promise.resolve({ id }) });
    const missing = await ask('9999');
    assert.equal(missing.status, 404);
    const first = (await (await ask('1044')).json()) as { order: string; url: string };
    const second = (await (await ask('1044')).json()) as { order: string; url: string };
    assert.equal(second.order, first.order, 'asked twice, one order');
    assert.equal(first.url, `${service.url}/pay/order/${first.order}`);

    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    try {
      await page.goto(first.url);
      await page.getByRole('heading', { name: 'Desk lamp' }).waitFor();
      assert.match((await page.locator('paylink-checkout [part~=total]').textContent())!, /\$89\.90/);
      await payOnPage(page, 'hosted-order-paid-375.png');
    } finally {
      await page.close();
    }
    await eventually(async () => shipped.includes('1044'), 15_000, 'the shop ships order 1044');
    assert.deepEqual(shipped, ['1042', '1044']);
  });

  /** Deliveries of the shop's endpoint answered 2xx. */
  async function deliveredCount(): Promise<number> {
    const [endpoint] = (await paylink.webhookEndpoints.list()).items;
    const deliveries = await paylink.webhookEndpoints.deliveries(endpoint!.id);
    return deliveries.items.filter((delivery) => delivery.status === 'delivered').length;
  }
});
