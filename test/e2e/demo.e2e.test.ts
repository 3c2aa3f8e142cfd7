/**
 * End to end against the real `paylink demo`, driven by Playwright in Debian's Chromium: a merchant
 * creates a link in the admin; a customer on another origin pays it through the script-tag build
 * (under a strict CSP with Trusted Types); the success message shows; the admin's counts and balance
 * move; the merchant withdraws and sees it succeed. A screenshot of each step is written to
 * `test-results/e2e/`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describeDemo, startDemo, type RunningDemo } from '../../demo/server.js';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';

const ARTIFACTS = path.resolve('test-results', 'e2e');
// A withdrawal address with a valid EIP-55 checksum.
const PAYOUT_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('paylink demo, end to end', { timeout: 240_000 }, () => {
  let demo: RunningDemo;
  let browser: Browser;
  let shop: Server;
  let shopOrigin: string;
  let dataDir: string;
  let merchant: Page;
  let customer: Page;
  let slug = '';
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  /** Everything a browser saw (every response's headers and body) and every line the demo logged. */
  const browserVisible: string[] = [];
  const logLines: string[] = [];
  const realWrite = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-e2e-'));
    // The demo runs in this process: keep a copy of every line it writes.
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
      logLines.push(String(chunk)),
      realWrite.out(chunk, ...rest)
    )) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
      logLines.push(String(chunk)),
      realWrite.err(chunk, ...rest)
    )) as typeof process.stderr.write;
    // This test pays with the sandbox's "Simulate payment"; the local chain has its own (demo-evm.e2e.test.ts).
    demo = await startDemo({ port: 0, dataDir, chain: 'sandbox' });
    const manifest = JSON.parse(readFileSync('dist/manifest.json', 'utf8'));
    // The versioned file with its SRI hash, as the README's snippet: the alias changes with every release.
    const { integrity, versioned } = manifest['paylink-checkout.js'] as { integrity: string; versioned: string };

    // The merchant's own shop: another origin (localhost vs 127.0.0.1), pasting the README snippet,
    // with a CSP that allows only the Paylink origin's script and no inline code, and Trusted Types on.
    shop = createServer((req, res) => {
      const currentSlug = new URL(req.url ?? '/', 'http://x').searchParams.get('slug') ?? '';
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'none'; script-src ${demo.url}; connect-src ${demo.url}; img-src data:; style-src 'self'; require-trusted-types-for 'script'; trusted-types lit-html; report-uri /csp`,
      });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ada's shop</title>
<script type="module" src="${demo.url}/dist/${versioned}" integrity="${integrity}" crossorigin="anonymous"></script>
</head><body><h1>Ada's shop</h1>
<paylink-checkout slug="${currentSlug}" api-base="${demo.url}/paylink"></paylink-checkout>
</body></html>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', () => resolve()));
    shopOrigin = `http://localhost:${(shop.address() as AddressInfo).port}`;

    browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
    merchant = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    customer = await (await browser.newContext({ viewport: { width: 480, height: 900 } })).newPage();
    for (const page of [merchant, customer]) {
      // Both ways a violation shows: the console message ("… violates the following Content Security
      // Policy directive", "This document requires 'TrustedScript' assignment") and the DOM event, which
      // also reports what a page's own code caught (zod's `new Function` probe is caught, yet reported).
      page.on('console', (message) => {
        if (/Content.Security.Policy|Trusted.?(Type|Script|HTML)|unsafe-eval/i.test(message.text())) cspViolations.push(message.text());
      });
      await page.exposeFunction('__reportCspViolation', (text: string) => cspViolations.push(text));
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          (window as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation(
            `${location.pathname}: ${event.violatedDirective} (${event.blockedURI || 'inline'}) ${event.sample}`,
          );
        });
      });
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('response', async (response) => {
        browserVisible.push(JSON.stringify(await response.allHeaders()));
        // Event streams never end; their events reach the page, which is scanned below.
        if (!(response.headers()['content-type'] ?? '').includes('event-stream')) {
          browserVisible.push(await response.text().catch(() => ''));
        }
      });
    }
  });

  after(async () => {
    process.stdout.write = realWrite.out as typeof process.stdout.write;
    process.stderr.write = realWrite.err as typeof process.stderr.write;
    await browser?.close();
    await new Promise<void>((resolve) => (shop ? shop.close(() => resolve()) : resolve()));
    await demo?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('says where its prices come from, in its start lines and on its pages', async () => {
    assert.deepEqual(demo.rates.sources, ['static']);
    assert.match(describeDemo(demo, { dataDir }), /Prices: the static table \(fixed figures, not market data\)\./);
    for (const page of ['/', '/store.html', '/donate.html']) {
      const html = await (await fetch(`${demo.url}${page}`)).text();
      assert.match(html, /<p class="note" id="prices-note">Prices come from the static table built into Paylink \(demo figures, not market data\)/, page);
    }
  });

  it('the merchant creates a link in the admin', async () => {
    await merchant.goto(`${demo.url}/admin.html`);
    await merchant.getByRole('button', { name: 'New link' }).click();
    await merchant.getByLabel('Title').fill('Handmade ceramic mug');
    await merchant.getByLabel('Description').fill('Stoneware, 350 ml, glazed by hand in Abeokuta.');
    await merchant.getByLabel(/^Amount/).fill('15');
    await shot(merchant, '1-merchant-fills-link-form');
    await merchant.getByRole('button', { name: 'Create link' }).click();
    const publicUrl = merchant.locator('[part~="public-url"]');
    await publicUrl.waitFor();
    const url = (await publicUrl.inputValue()).trim();
    slug = url.split('/').at(-1)!;
    assert.match(slug, /^[A-Za-z0-9]{10}$/, `the detail view shows the public URL (${url})`);
    await shot(merchant, '2-merchant-sees-link-detail');
  });

  it('a customer on another origin pays it through the script-tag build', async () => {
    await customer.goto(`${shopOrigin}/?slug=${slug}`);
    await customer.getByRole('heading', { name: 'Handmade ceramic mug' }).waitFor();
    await shot(customer, '3-customer-sees-checkout');
    await customer.getByRole('button', { name: /Pay NGN 15\.00 · USDT/ }).click();
    await customer.getByRole('button', { name: 'Simulate payment' }).waitFor();
    await shot(customer, '4-customer-sees-address-and-qr');
    const success = customer.evaluate(
      () =>
        new Promise<string>((resolve) =>
          document.addEventListener('paylink-success', (event) => resolve((event as CustomEvent).detail.session.status), { once: true }),
        ),
    );
    await customer.getByRole('button', { name: 'Simulate payment' }).click();
    await customer.getByRole('heading', { name: 'Payment received' }).waitFor();
    assert.equal(await success, 'paid', 'paylink-success fired with the server-confirmed status');
    await shot(customer, '5-customer-sees-success');
  });

  it('the admin shows the visit, the payment and the balance', async () => {
    await merchant.reload();
    const row = merchant.locator('[part~="link-row"]', { hasText: 'Handmade ceramic mug' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Handmade ceramic mug', exact: true }).click();
    await merchant.locator('[part~="stat-payments"]').waitFor();
    assert.match((await merchant.locator('[part~="stat-visits"]').textContent())!, /1/);
    assert.match((await merchant.locator('[part~="stat-payments"]').textContent())!, /1/);
    await shot(merchant, '6-merchant-sees-counts');
    await merchant.getByRole('tab', { name: 'Balances and withdrawals' }).click();
    const available = merchant.locator('[part~="balance-available"]').first();
    await available.waitFor();
    await merchant.waitForFunction(
      () => {
        const admin = document.querySelector('paylink-admin');
        const text = admin?.shadowRoot?.textContent ?? '';
        return /[1-9]/.test(text);
      },
      null,
      { timeout: 10_000 },
    );
    await shot(merchant, '7-merchant-sees-balance');
  });

  it('the merchant withdraws and sees it succeed', async () => {
    await merchant
      .getByLabel(/address/i)
      .first()
      .fill(PAYOUT_ADDRESS);
    await merchant.getByRole('button', { name: /^Max/ }).click();
    await merchant.getByRole('button', { name: 'Review withdrawal' }).click();
    await merchant.getByRole('button', { name: 'Confirm withdrawal' }).click();
    await merchant.getByText('Withdrawal requested').waitFor();
    const row = merchant.locator('[part~="withdrawal-row"]').first();
    await row.waitFor();
    await merchant.waitForFunction(
      () => {
        const admin = document.querySelector('paylink-admin');
        const rows = [...(admin?.shadowRoot?.querySelectorAll('*') ?? [])].filter((el) => el.getAttribute('part')?.split(' ').includes('withdrawal-row'));
        return rows.some((el) => /Completed/.test(el.textContent ?? ''));
      },
      null,
      { timeout: 20_000 },
    );
    await shot(merchant, '8-merchant-sees-withdrawal-succeed');
  });

  it('never showed the API key to a browser, a built file or a log line', async () => {
    assert.match(demo.apiKey, /^pl_sk_/);
    for (const page of [merchant, customer]) {
      browserVisible.push(await page.content());
      browserVisible.push(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie));
    }
    assert.ok(browserVisible.length > 20, `the scan saw the traffic (${browserVisible.length} items)`);
    assert.ok(logLines.length > 0, 'the scan saw the demo log');
    const builtFiles = ['dist', '.'].flatMap((dir) =>
      readdirSync(dir)
        .filter((name) => /\.(js|json|html|css|md)$/.test(name))
        .map((name) => path.join(dir, name)),
    );
    const leaks = [
      ...browserVisible.filter((text) => text.includes(demo.apiKey)).map((text) => `browser: ${text.slice(0, 120)}`),
      ...logLines.filter((line) => line.includes(demo.apiKey)).map((line) => `log: ${line.slice(0, 120)}`),
      ...builtFiles.filter((file) => readFileSync(file, 'utf8').includes(demo.apiKey)).map((file) => `file: ${file}`),
    ];
    assert.deepEqual(leaks, []);
  });

  it('raised no CSP or Trusted Types violation and no page error, on the admin page and the shop', () => {
    assert.ok(merchant.url().endsWith('/admin.html'), 'the admin page, under the demo CSP with Trusted Types, was watched');
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});
