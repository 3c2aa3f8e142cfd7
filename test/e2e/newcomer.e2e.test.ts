/**
 * A newcomer's first run, as the README tells it: `npm start` (npm runs sh, which runs node, which
 * runs anvil). Every URL it prints answers; on a phone (375×812) and a laptop (1280×800) the demo
 * wallet's panel covers no checkout (each pay button passes Playwright's actionability checks, the
 * panel's box meets no checkout's), its prose never breaks inside a word, the hosted checkout page is
 * paid from the demo wallet, the panel's balances follow the payment, the faucet and a withdrawal to
 * the demo wallet, and the admin's payment detail runs nothing past its edges. A second `npm start`
 * says at once that the port is taken; SIGTERM to npm's own process stops node and anvil and frees the
 * port. Screenshots of each step go to `test-results/e2e-newcomer/` (compiled CLI: `npm run build` first).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';
import { freePort } from '../support/postgres.js';
import { alive, exited, ROOT } from '../support/processes.js';
import { until as waitUntil } from '../support/wait.js';
import { jsonRpc as rpc } from '../support/json-rpc.js';

const ARTIFACTS = path.resolve('test-results', 'e2e-newcomer');
const VIEWPORTS = [
  { name: 'phone', width: 375, height: 812 },
  { name: 'laptop', width: 1280, height: 800 },
] as const;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Runs `npm start -- <args>` in the repository, as a newcomer does, collecting what it prints. */
function npmStart(args: string[]): Started {
  // A newcomer's terminal: the demo's banner as a person reads it.
  const child = spawn(NPM, ['start', '--', ...args], { cwd: ROOT, env: { ...process.env, PAYLINK_LOG_FORMAT: 'pretty' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk) => (text += chunk));
  child.stderr!.on('data', (chunk) => (text += chunk));
  return { child, output: () => text };
}

function until(condition: () => boolean, what: string, timeoutMs: number, started?: Started): Promise<void> {
  const exited = () => {
    if (started && started.child.exitCode !== null) throw new Error(`npm start exited with ${started.child.exitCode} before ${what}:\n${started.output()}`);
  };
  return waitUntil(() => (exited(), condition()), what, timeoutMs, { everyMs: 50, explain: started && (() => started.output()) });
}

/** True while something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Boxes of `a` and `b` overlap (by more than a pixel). */
function overlap(a: DOMRect | { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width - 1 && b.x < a.x + a.width - 1 && a.y < b.y + b.height - 1 && b.y < a.y + a.height - 1;
}

/** The demo wallet's USDT balance as its panel shows it, as a number of whole units. */
async function shownUsdt(page: Page): Promise<number> {
  const text = await page.locator('.demo-wallet .dw-balance-usdt').textContent();
  return Number(String(text).replaceAll(',', ''));
}

/**
 * Waits until the panel shows `expected` USDT (it shows two decimals, cut, not rounded): its balances
 * follow the chain, so a payment, a faucet press or a withdrawal shows there without a reload.
 */
async function untilUsdtShown(page: Page, expected: number): Promise<void> {
  await page.waitForFunction(
    (wanted) => Math.abs(Number(document.querySelector('.demo-wallet .dw-balance-usdt')?.textContent?.replaceAll(',', '')) - wanted) < 0.011,
    expected,
    { timeout: 30_000 },
  );
}

/** What in the panel's prose may break a word: its computed wrapping. */
async function panelWrapping(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const panel = document.querySelector('.demo-wallet') as HTMLElement;
    if (panel.scrollWidth > panel.clientWidth) problems.push(`the panel scrolls sideways: ${panel.scrollWidth} > ${panel.clientWidth}`);
    for (const node of panel.querySelectorAll<HTMLElement>('h2, p, dt, dd, button')) {
      const style = getComputedStyle(node);
      if (style.wordBreak === 'break-all' || style.overflowWrap === 'anywhere' || style.hyphens === 'auto') {
        problems.push(`${node.className || node.localName} may break inside a word (${style.wordBreak}, ${style.overflowWrap}, ${style.hyphens})`);
      }
    }
    return problems;
  });
}

/** Everything in the admin (its shadow root) whose box runs past the admin's edges or scrolls sideways, and the page's own sideways scroll. */
async function adminOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const admin = document.querySelector('paylink-admin')!;
    const box = admin.getBoundingClientRect();
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > document.documentElement.clientWidth)
      problems.push(`page scrolls: ${document.documentElement.scrollWidth} > ${document.documentElement.clientWidth}`);
    // (No named functions in here: the test's TypeScript loader would wrap them in a helper the page lacks.)
    for (const node of admin.shadowRoot!.querySelectorAll<HTMLElement>('*')) {
      // Text kept for screen readers sits in a box clipped to a pixel: it scrolls inside it, unseen.
      let forScreenReaders = false;
      for (let at: Element | null = node; at && !forScreenReaders; at = at.parentElement) {
        const clip = at.getBoundingClientRect();
        forScreenReaders = clip.width <= 1 && clip.height <= 1 && getComputedStyle(at).overflow === 'hidden';
      }
      const rect = node.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue;
      const name = `${node.localName}${node.getAttribute('part') ? `[part="${node.getAttribute('part')}"]` : ''}`;
      // Clipped or not, no box past the edges: it would still widen the page.
      if (rect.right > box.right + 0.5 || rect.left < box.left - 0.5)
        problems.push(`${name} spans ${Math.round(rect.left)}–${Math.round(rect.right)} of ${Math.round(box.left)}–${Math.round(box.right)}`);
      if (/^(input|textarea|select)$/.test(node.localName) || forScreenReaders) continue;
      if (node.clientWidth > 0 && node.scrollWidth > node.clientWidth) problems.push(`${name} scrolls: ${node.scrollWidth} > ${node.clientWidth}`);
    }
    return problems;
  });
}

describe('a newcomer runs `npm start`', { timeout: 600_000 }, () => {
  let demo: Started;
  let port = 0;
  let dataDir = '';
  let browser: Browser;
  let url = '';
  let anvilPid = 0;
  let rpcUrl = '';
  let demoWallet = '';
  const printed = new Map<string, string>();
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    port = await freePort();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-e2e-newcomer-'));
    demo = npmStart(['--port', String(port), '--data-dir', dataDir]);
    await until(() => /Mnemonic/.test(demo.output()), 'demo with its local chain', 240_000, demo);
    const out = demo.output();
    url = /Paylink demo running at (\S+)/.exec(out)![1]!;
    for (const match of out.matchAll(/^ {2}([A-Z][A-Za-z ,()]+?) {2,}(http:\/\/\S+)/gm)) printed.set(match[1]!.trim(), match[2]!);
    anvilPid = Number(/anvil, pid (\d+)/.exec(out)![1]);
    rpcUrl = printed.get('RPC URL')!;
    demoWallet = /Demo wallet\s+(0x[0-9a-fA-F]{40})/.exec(out)![1]!;
    browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    if (demo && demo.child.exitCode === null) {
      demo.child.kill('SIGTERM');
      await exited(demo.child);
    }
    if (anvilPid && alive(anvilPid)) process.kill(anvilPid, 'SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function newPage(viewport: { width: number; height: number }): Promise<Page> {
    const page = await (await browser.newContext({ viewport })).newPage();
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    page.on('console', (message) => {
      if (/Content.Security.Policy|Trusted.?(Type|Script|HTML)/i.test(message.text())) cspViolations.push(message.text());
    });
    return page;
  }

  it('every URL it prints answers 200 with something useful', async () => {
    const labels = ['Embed gallery', 'Store (cart)', 'Shop (orders)', 'Donation', 'Dark, French', 'Merchant admin', 'Hosted checkout', 'Proxy', 'Service API'];
    assert.deepEqual(
      labels.filter((label) => !printed.has(label)),
      [],
      demo.output(),
    );
    for (const [label, address] of printed) {
      if (label === 'RPC URL' || label.startsWith('Local ')) {
        // A JSON-RPC endpoint of one of the demo's chains (31337, 31338): it answers POSTs.
        const chain = await rpc(address, 'eth_chainId');
        assert.equal(chain.status, 200, label);
        assert.match(String(chain.result), /^0x7a6[9a]$/, label);
        continue;
      }
      const response = await fetch(address);
      assert.equal(response.status, 200, `${label} ${address}`);
      const body = await response.text();
      if (label === 'Proxy') assert.match(JSON.parse(body).routes[0].path, /^\/paylink\/checkout\//, 'the proxy answers its route index');
      else if (label === 'Service API') assert.match(JSON.parse(body).openapi, /^3\./, 'the service answers its OpenAPI document');
      // The shop's page places its checkout once its server has created the order (demo/assets/shop.js).
      else if (label === 'Shop (orders)') assert.match(body, /<script type="module" src="\/dist\/paylink-checkout\.js">/, label);
      else assert.match(body, /<paylink-(checkout|admin)/, label);
    }
  });

  it('a second `npm start` on the same port says at once that the port is taken', async () => {
    const second = npmStart(['--port', String(port), '--data-dir', dataDir]);
    const code = await exited(second.child);
    assert.notEqual(code, 0);
    assert.match(second.output(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use .*--port ${port + 1}`));
    // At once: before starting a chain or a database of its own.
    assert.doesNotMatch(second.output(), /Paylink demo running|Local (BNB Smart )?[Cc]hain|anvil, pid/);
    assert.equal((await fetch(`${url}/healthz`)).status, 200, 'the first demo runs on');
  });

  it('the gallery’s snippets and the README’s, pasted on a shop at another origin, load and show their link', async () => {
    const page = await newPage({ width: 1280, height: 800 });
    await page.goto(printed.get('Embed gallery')!);
    const snippets = await page.locator('pre[id^="snippet-"]').allTextContents();
    assert.equal(snippets.length, 4);
    const manifest = (await (await fetch(`${url}/dist/manifest.json`)).json()) as Record<string, { versioned: string; integrity: string }>;
    for (const snippet of snippets) {
      // An SRI hash goes only with the versioned file, whose bytes never change.
      const src = /src="([^"]+)"/.exec(snippet)![1]!;
      if (/integrity=/.test(snippet)) assert.equal(src, `${url}/dist/${manifest['paylink-checkout.js']!.versioned}`, snippet);
    }
    const slug = /slug="([^"]+)"/.exec(snippets[0]!)![1]!;
    const title = ((await (await fetch(`${url}/v1/checkout/${slug}`)).json()) as { title: string }).title;
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const fromReadme = /```html\n(<script type="module" src="https:\/\/<your-paylink-host>\/dist\/paylink-checkout\.[^`]+?)```/
      .exec(readme)![1]!
      .replaceAll('https://<your-paylink-host>', url)
      .replace(/paylink-checkout\.\d+\.\d+\.\d+\.js/, manifest['paylink-checkout.js']!.versioned)
      .replace('<integrity of paylink-checkout.js in dist/manifest.json>', manifest['paylink-checkout.js']!.integrity)
      .replace('<your-link-slug>', slug);
    const pages = [snippets[0]!, fromReadme];
    const shop = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>${pages[Number(req.url?.slice(1))]}</body></html>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', () => resolve()));
    try {
      // Another origin: localhost, where the demo is 127.0.0.1.
      const shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`;
      for (const index of [0, 1]) {
        await page.goto(`${shopUrl}/${index}`);
        await page.locator('paylink-checkout').getByRole('heading', { name: title }).waitFor({ timeout: 15_000 });
      }
    } finally {
      shop.close();
      await page.close();
    }
  });

  for (const viewport of VIEWPORTS) {
    describe(`on a ${viewport.name} (${viewport.width}×${viewport.height})`, () => {
      let page: Page;
      const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${viewport.name}-${name}.png`), fullPage: true });

      before(async () => {
        page = await newPage(viewport);
      });

      it('the demo wallet covers no checkout and breaks no word', async () => {
        for (const pagePath of ['/', '/store.html', '/donate.html']) {
          await page.goto(`${url}${pagePath}`);
          const panel = page.getByRole('complementary', { name: /Demo wallet/ });
          await panel.waitFor();
          await page.locator('.demo-wallet .dw-balance-usdt').waitFor();
          // Every step's main button: Playwright clicks only what is visible, stable, enabled and not covered.
          const primaries = page.locator('paylink-checkout').locator('[part~="primary"]');
          await primaries.first().waitFor();
          for (const button of await primaries.all()) await button.click({ trial: true, timeout: 5_000 });
          const panelBox = (await panel.boundingBox())!;
          for (const checkout of await page.locator('paylink-checkout').all()) {
            await checkout.scrollIntoViewIfNeeded();
            const checkoutBox = (await checkout.boundingBox())!;
            const panelNow = (await panel.boundingBox())!;
            assert.ok(!overlap(checkoutBox, panelNow), `${pagePath}: the panel ${JSON.stringify(panelNow)} covers a checkout ${JSON.stringify(checkoutBox)}`);
          }
          assert.ok(panelBox.width > 0);
          assert.deepEqual(await panelWrapping(page), [], pagePath);
        }
        await page.goto(`${url}/`);
        await page.locator('.demo-wallet .dw-balance-usdt').waitFor();
        await shot('1-gallery');
      });

      it('the printed hosted checkout is paid from the demo wallet; the panel says paid and its balance follows', async (t) => {
        await page.goto(printed.get('Hosted checkout')!);
        const panel = page.getByRole('complementary', { name: /Demo wallet/ });
        await page.locator('.demo-wallet .dw-balance-usdt').waitFor();
        const before = await shownUsdt(page);
        const checkout = page.locator('paylink-checkout');
        await checkout.getByRole('button', { name: 'Continue' }).click();
        await checkout.getByLabel('Delivery address').fill('12 Admiralty Way, Lekki Phase 1, Lagos');
        await checkout.getByLabel('Phone number').fill('+2348012345678');
        await checkout.getByRole('button', { name: /^Pay .*USDT/ }).click();
        // The checkout's own wallet button finds the demo wallet on the hosted page too.
        await checkout.getByRole('button', { name: /Pay with Paylink demo wallet/ }).waitFor();
        const send = panel.getByRole('button', { name: 'Send from demo wallet' });
        await page.waitForFunction(() => !(document.querySelector('.demo-wallet .dw-send') as HTMLButtonElement).disabled);
        const due = Number(/Open payment: ([\d.]+) USDT/.exec((await panel.locator('.dw-session').textContent())!)![1]);
        await shot('2-hosted-checkout-open-payment');
        const started = performance.now();
        await send.click({ timeout: 5_000 });
        await checkout.getByRole('heading', { name: 'Payment received' }).waitFor({ timeout: 60_000 });
        t.diagnostic(`hosted page: Send from demo wallet → Payment received in ${Math.round(performance.now() - started)} ms`);
        await panel
          .locator('.dw-status')
          .filter({ hasText: /payment received/ })
          .waitFor({ timeout: 15_000 });
        const line = (await panel.locator('.dw-session').textContent())!;
        assert.match(line, /Payment received/);
        assert.doesNotMatch(`${line} ${await panel.locator('.dw-status').textContent()}`, /confirming/i, 'once paid it no longer says confirming');
        await untilUsdtShown(page, before - due);
        await shot('3-hosted-checkout-paid');
      });

      it('the panel’s balances follow the faucet', async () => {
        const panel = page.getByRole('complementary', { name: /Demo wallet/ });
        const before = await shownUsdt(page);
        await panel.getByRole('button', { name: 'Get test tokens' }).click();
        await panel
          .locator('.dw-status')
          .filter({ hasText: /Minted 100 USDT/ })
          .waitFor({ timeout: 20_000 });
        await untilUsdtShown(page, before + 100);
      });

      it('the admin’s payment detail runs nothing past its edges and names the local chain', async () => {
        const admin = await newPage(viewport);
        await admin.goto(printed.get('Merchant admin')!);
        await admin.getByRole('tab', { name: 'Payments' }).click();
        await admin.locator('[part~="open-payment"]').first().click();
        const note = admin.locator('[part~="no-explorer"]');
        await note.waitFor();
        assert.match((await note.textContent())!, /Local test chain \(Local BNB Smart Chain, chain id 31337\)/);
        assert.doesNotMatch((await note.textContent())!, /sandbox/);
        await admin.locator('[part~="transaction-row"]').first().waitFor();
        assert.deepEqual(await adminOverflow(admin), []);
        await admin.screenshot({ path: path.join(ARTIFACTS, `${viewport.name}-4-admin-payment-detail.png`), fullPage: true });
        await admin.close();
      });

      it('a withdrawal to the demo wallet shows in the panel; one to the merchant’s own deposit address is refused', async () => {
        const admin = await newPage(viewport);
        await admin.goto(printed.get('Merchant admin')!);
        await admin.getByRole('tab', { name: 'Balances and withdrawals' }).click();
        const hint = admin.locator('#wd-address-hint');
        await hint.filter({ hasText: 'Local BNB Smart Chain' }).waitFor();
        assert.doesNotMatch((await hint.textContent())!, /(^|[^l] )BNB Smart Chain/, 'the local chain, not the real one');
        const withdraw = async (address: string, amount: string) => {
          await admin.getByLabel('Destination address').fill(address);
          await admin.getByLabel(/^Amount/).fill(amount);
          await admin.getByRole('button', { name: 'Review withdrawal' }).click();
          await admin.getByRole('button', { name: 'Confirm withdrawal' }).click();
        };
        // The address the hosted checkout was paid at: one of the merchant's own.
        const key = readFileSync(path.join(dataDir, 'demo-api-key'), 'utf8').trim();
        const payments = (await (await fetch(`${url}/v1/checkout-session?status=paid&limit=1`, { headers: { 'x-api-key': key } })).json()) as {
          items: Array<{ payAddress: string }>;
        };
        await withdraw(payments.items[0]!.payAddress, '1');
        await admin.locator('[part~="address-error"]').filter({ hasText: 'own deposit addresses' }).waitFor();
        await admin.screenshot({ path: path.join(ARTIFACTS, `${viewport.name}-5-admin-own-deposit-address-refused.png`), fullPage: true });

        const before = await shownUsdt(page);
        await withdraw(demoWallet, '2');
        await admin.getByText('Withdrawal requested').waitFor();
        // The visitor's tab, untouched: its panel follows the chain.
        await untilUsdtShown(page, before + 2);
        assert.deepEqual(await adminOverflow(admin), []);
        await admin.close();
      });
    });
  }

  it('raised no page error and no CSP or Trusted Types violation', () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(cspViolations, []);
  });

  it('SIGTERM to npm’s own process stops node and anvil and frees the port', async () => {
    assert.ok(alive(anvilPid), 'anvil runs before');
    assert.equal(await listening(port), true);
    demo.child.kill('SIGTERM');
    await exited(demo.child);
    await until(() => !alive(anvilPid), `anvil (pid ${anvilPid}) gone`, 20_000);
    await waitUntil(async () => !(await listening(port)), `port ${port} free`, 20_000, { everyMs: 100 });
    assert.equal((await rpc(rpcUrl, 'eth_chainId').catch(() => ({ status: 0 }))).status, 0, 'the RPC URL answers no more');
  });
});
