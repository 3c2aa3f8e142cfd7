/**
 * End to end against `paylink demo` on its local chains, run as the command a visitor runs (the
 * compiled CLI: `npm run build` first): it starts anvil with the demo's test tokens; a visitor pays a
 * link from the demo wallet in the gallery page, the confirmations count up and the session is paid;
 * the merchant withdraws in the admin and the payout is a real, successful transaction on anvil; a
 * visitor chooses USDT on Local Polygon instead, pays from the demo wallet on that chain, and the
 * merchant sees the balance on Local Polygon; on
 * SIGTERM the demo stops anvil (no orphan). Without anvil (PAYLINK_ANVIL_BIN naming a missing file,
 * as on a package installed without dev dependencies) the demo says so in one line and runs on the
 * sandbox. Timings are reported as test diagnostics. Screenshots go to `test-results/e2e-evm/`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';
import { alive, BIN, exited, ROOT } from '../support/processes.js';
import { rpc } from '../support/json-rpc.js';
import { until } from '../support/wait.js';

const ARTIFACTS = path.resolve('test-results', 'e2e-evm');
// A withdrawal address with a valid EIP-55 checksum.
const PAYOUT_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

interface DemoProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  startedMs: number;
}

/** Runs `paylink demo <args>` and resolves once it has printed its URL and, on the local chain, its chain. */
async function startDemoProcess(args: string[], env: Record<string, string> = {}): Promise<DemoProcess> {
  const started = performance.now();
  // As at a terminal: the banner read as a person reads it (off a terminal it is one JSON line).
  const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', ...args], {
    cwd: ROOT,
    env: { ...process.env, PAYLINK_LOG_FORMAT: 'pretty', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk) => (text += chunk));
  child.stderr!.on('data', (chunk) => (text += chunk));
  const up = () => /Paylink demo running at (\S+)/.test(text) && !(/\(local EVM chain/.test(text) && !/Mnemonic/.test(text));
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`the demo exited with ${child.exitCode}:\n${text}`);
      return up();
    },
    'the demo to start',
    90_000,
    { everyMs: 50, explain: () => text },
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return { child, url: /Paylink demo running at (\S+)/.exec(text)![1]!, output: () => text, startedMs: performance.now() - started };
}

async function stopDemo(demo: DemoProcess): Promise<number | null> {
  if (demo.child.exitCode !== null) return demo.child.exitCode;
  demo.child.kill('SIGTERM');
  return exited(demo.child);
}

/** A JSON-RPC request to the demo wallet's relay, as the pages send it (or not: `headers` overrides). */
async function walletCall(demo: DemoProcess, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${demo.url}/demo/wallet/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: demo.url, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('paylink demo on its local chain, end to end', { timeout: 300_000 }, () => {
  let demo: DemoProcess;
  let dataDir: string;
  let browser: Browser;
  let visitor: Page;
  let merchant: Page;
  let rpcUrl = '';
  let anvilPid = 0;
  let usdt = '';
  let demoWallet = '';
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-e2e-evm-'));
    demo = await startDemoProcess(['--data-dir', dataDir]);
    const out = demo.output();
    rpcUrl = /RPC URL\s+(\S+)/.exec(out)![1]!;
    anvilPid = Number(/anvil, pid (\d+)/.exec(out)![1]);
    usdt = /USDT \(test\)\s+(0x[0-9a-fA-F]{40})/.exec(out)![1]!;
    demoWallet = /Demo wallet\s+(0x[0-9a-fA-F]{40})/.exec(out)![1]!;
    browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
    visitor = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    merchant = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    for (const page of [visitor, merchant]) {
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (/Content.Security.Policy|Trusted.?(Type|Script|HTML)/i.test(message.text())) cspViolations.push(message.text());
      });
    }
  });

  after(async () => {
    await browser?.close();
    if (demo) await stopDemo(demo);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts anvil with the test tokens and prints what it started, the public mnemonic included', async (t) => {
    t.diagnostic(`demo start (spawn to printed, lib/ compiled): ${Math.round(demo.startedMs)} ms`);
    const out = demo.output();
    assert.match(out, /Paylink demo running at http:\/\/127\.0\.0\.1:\d+ {2}\(local EVM chain 31337/);
    assert.equal(Number(await rpc(rpcUrl, 'eth_chainId')), 31337, 'the printed RPC URL is the chain');
    assert.ok(alive(anvilPid), 'the printed pid is a running anvil');
    assert.notEqual(await rpc(rpcUrl, 'eth_getCode', [usdt, 'latest']), '0x', 'USDT is a deployed contract');
    assert.equal(BigInt(await rpc(rpcUrl, 'eth_call', [{ to: usdt, data: '0x313ce567' }, 'latest'])), 18n, 'USDT has 18 decimals, as on BSC');
    assert.match(out, /Mnemonic\s+"test test test test test test test test test test test junk"/);
    assert.match(out, /PUBLIC test mnemonic/);
    assert.match(out, /5 sessions paid by real transfers at start/);
    assert.doesNotMatch(out, /sandbox figures/, 'no sandbox words about a local EVM chain');
    assert.match(out, /Shop \(orders\)\s+http:\/\/\S+\/shop\.html/);
    // The node holds no unlocked account: every demo transaction is signed by the demo itself.
    assert.deepEqual(await rpc(rpcUrl, 'eth_accounts'), []);
  });

  it('the relay signs only demo-token transfers from the demo wallet, for its own pages', async () => {
    const transfer = (to: string, data: string, extra: Record<string, unknown> = {}) =>
      walletCall(demo, { jsonrpc: '2.0', id: 7, method: 'eth_sendTransaction', params: [{ from: demoWallet, to, data, ...extra }] });
    const amount = 1n.toString(16).padStart(64, '0');
    const recipient = PAYOUT_ADDRESS.slice(2).toLowerCase().padStart(64, '0');
    const crossSite = await walletCall(demo, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, { origin: 'http://evil.example' });
    assert.equal(crossSite.status, 403, 'another origin is refused');
    const notJson = await fetch(`${demo.url}/demo/wallet/rpc`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: demo.url }, body: '{}' });
    assert.equal(notJson.status, 415);
    assert.equal((await walletCall(demo, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })).body.result, '0x7a69');
    assert.equal((await walletCall(demo, { jsonrpc: '2.0', id: 1, method: 'personal_sign', params: ['0x00', demoWallet] })).body.error.code, 4200);
    assert.equal((await walletCall(demo, { jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [demoWallet, '0x1'] })).body.error.code, 4200);
    assert.equal((await walletCall(demo, [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }])).body.error.code, -32600, 'no batches');
    assert.equal((await transfer(PAYOUT_ADDRESS, '0x')).body.error.code, 4200, 'no call to anything but a demo token');
    assert.equal((await transfer(usdt, `0x095ea7b3${recipient}${amount}`)).body.error.code, 4200, 'no approve: transfers only');
    assert.equal((await transfer(usdt, `0xa9059cbb${recipient}${amount}`, { value: '0x1' })).body.error.code, 4200, 'no native value');
    const otherFrom = await walletCall(demo, {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendTransaction',
      params: [{ from: PAYOUT_ADDRESS, to: usdt, data: `0xa9059cbb${recipient}${amount}` }],
    });
    assert.equal(otherFrom.body.error.code, 4100, 'only from the demo wallet');
    const switched = await walletCall(demo, { jsonrpc: '2.0', id: 1, method: 'wallet_switchEthereumChain', params: [{ chainId: '0x38' }] });
    assert.equal(switched.body.error.code, 4902, 'it knows only the local chain');
  });

  it('a visitor pays a link from the demo wallet: confirmations count up, the session is paid', async (t) => {
    await visitor.goto(`${demo.url}/`);
    const wallet = visitor.getByRole('complementary', { name: /Demo wallet/ });
    await wallet.waitFor();
    assert.match((await wallet.textContent())!, /not real money/);
    const card = visitor.getByRole('region', { name: 'Fixed amount' });
    await card.getByRole('button', { name: /^Pay .*USDT/ }).click();
    const send = wallet.getByRole('button', { name: 'Send from demo wallet' });
    await visitor.waitForFunction(() => {
      const button = [...document.querySelectorAll('aside button')].find((b) => b.textContent === 'Send from demo wallet') as HTMLButtonElement | undefined;
      return button && !button.disabled;
    });
    await shot(visitor, '1-visitor-sees-open-payment-and-demo-wallet');
    const success = visitor.evaluate(
      () =>
        new Promise<{ status: string; txHash: string | null }>((resolve) =>
          document.addEventListener('paylink-success', (event) => resolve((event as CustomEvent).detail.session), { once: true }),
        ),
    );
    const sent = performance.now();
    await send.click();
    const status = wallet.getByRole('status');
    // The service's own count, as it climbs (the panel reads the session through the proxy).
    await status.filter({ hasText: /the service counts [12] of 3 confirmations/ }).waitFor({ timeout: 30_000 });
    await shot(visitor, '2-visitor-sees-confirmations');
    const session = await success;
    const paidAfter = performance.now() - sent;
    assert.equal(session.status, 'paid');
    await card.getByRole('heading', { name: 'Payment received' }).waitFor();
    await status.filter({ hasText: /payment received/ }).waitFor();
    assert.match((await wallet.locator('.dw-session').textContent())!, /Payment received/, 'the panel says paid, not confirming');
    await shot(visitor, '3-visitor-sees-paid');
    t.diagnostic(`demo wallet transfer (click) to paylink-success (paid): ${Math.round(paidAfter)} ms at 1 s blocks and 3 confirmations`);
    const receipt = await rpc(rpcUrl, 'eth_getTransactionReceipt', [session.txHash]);
    assert.equal(receipt.status, '0x1', 'the payment is a real transaction on anvil');
    assert.equal(receipt.from.toLowerCase(), demoWallet.toLowerCase(), 'sent from the demo wallet');
    assert.equal(receipt.to.toLowerCase(), usdt.toLowerCase(), 'a USDT transfer');
  });

  it('the merchant withdraws the balance in the admin: a real payout on anvil, Completed', async (t) => {
    await merchant.goto(`${demo.url}/admin.html`);
    await merchant.getByRole('tab', { name: 'Balances and withdrawals' }).click();
    // Seeded 90 USDT plus the visitor's 45, which is pending until its block is final (4 blocks behind
    // the head on the demo's chains): the balances refresh by themselves while an amount is pending.
    const available135 = () => /Available: 135 USDT/.test(document.querySelector('paylink-admin')?.shadowRoot?.textContent?.replace(/\s+/g, ' ') ?? '');
    const available = await merchant.waitForFunction(available135, null, { timeout: 30_000 }).then(
      () => true,
      () => false,
    );
    assert.ok(available, 'the visitor’s 45 USDT became available within 30 s, without a click on Refresh');
    await shot(merchant, '4-merchant-sees-balance');
    await merchant
      .getByLabel(/address/i)
      .first()
      .fill(PAYOUT_ADDRESS);
    await merchant.getByRole('button', { name: /^Max/ }).click();
    await merchant.getByRole('button', { name: 'Review withdrawal' }).click();
    const requested = performance.now();
    await merchant.getByRole('button', { name: 'Confirm withdrawal' }).click();
    await merchant.getByText('Withdrawal requested').waitFor();
    await merchant.waitForFunction(
      () => {
        const admin = document.querySelector('paylink-admin');
        const rows = [...(admin?.shadowRoot?.querySelectorAll('*') ?? [])].filter((el) => el.getAttribute('part')?.split(' ').includes('withdrawal-row'));
        return rows.some((el) => /Completed/.test(el.textContent ?? ''));
      },
      null,
      { timeout: 30_000 },
    );
    t.diagnostic(`withdrawal confirmed to Completed in the admin: ${Math.round(performance.now() - requested)} ms`);
    await shot(merchant, '5-merchant-sees-withdrawal-completed');

    const key = readFileSync(path.join(dataDir, 'demo-api-key'), 'utf8').trim();
    const list = (await (await fetch(`${demo.url}/v1/withdrawal`, { headers: { 'x-api-key': key } })).json()) as { items: Array<Record<string, any>> };
    const withdrawal = list.items.find((item) => item.status === 'success');
    assert.ok(withdrawal, JSON.stringify(list.items));
    assert.match(String(withdrawal.txHash), /^0x[0-9a-f]{64}$/);
    const receipt = await rpc(rpcUrl, 'eth_getTransactionReceipt', [withdrawal.txHash]);
    assert.equal(receipt.status, '0x1', 'the payout is a mined, successful transaction on anvil');
    const balance = BigInt(
      await rpc(rpcUrl, 'eth_call', [{ to: usdt, data: `0x70a08231${PAYOUT_ADDRESS.slice(2).toLowerCase().padStart(64, '0')}` }, 'latest']),
    );
    assert.equal(balance, 135n * 10n ** 18n, 'the recipient holds the 135 USDT withdrawn');
  });

  it('a visitor chooses USDT on Local Polygon and pays it from the demo wallet: paid on that chain; the merchant sees the balance on Local Polygon', async (t) => {
    const polygonRpc = /Local Polygon\s+(http\S+)/.exec(demo.output())![1]!;
    assert.equal(Number(await rpc(polygonRpc, 'eth_chainId')), 31338, 'the second chain is Local Polygon');
    // The network choice, as a phone and a desktop show it.
    for (const width of [375, 1280]) {
      const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${demo.url}/`);
      const card = page.getByRole('region', { name: 'Fixed amount' });
      const choice = card.getByLabel('Pay in');
      assert.deepEqual(
        (await choice.locator('option').allInnerTexts()).map((text) => text.trim()),
        ['USDT · Local BNB Smart Chain', 'cNGN · Local BNB Smart Chain', 'USDT · Local Polygon', 'cNGN · Local Polygon'],
      );
      await choice.selectOption({ label: 'USDT · Local Polygon' });
      await card.screenshot({ path: path.join(ARTIFACTS, `6-network-choice-${width}.png`) });
      // The dark French card, the narrowest: the chosen pair's text fits its select, and the network
      // is said in full under it whatever the width.
      await page.goto(`${demo.url}/dark.html`);
      const dark = page.locator('paylink-checkout');
      const darkChoice = dark.getByLabel('Payer en');
      await darkChoice.waitFor();
      assert.equal((await dark.locator('#asset-hint').innerText()).replace(/\s+/g, ' '), 'Réseau : Local BNB Smart Chain');
      const room = await darkChoice.evaluate((select: HTMLSelectElement) => {
        const style = getComputedStyle(select);
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const inner = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return { text: context.measureText(select.selectedOptions[0]!.text.trim()).width, inner };
      });
      assert.ok(room.text <= room.inner - 16, `at ${width} px the select shows its whole text (${JSON.stringify(room)})`);
      await dark.screenshot({ path: path.join(ARTIFACTS, `6-network-choice-dark-fr-${width}.png`) });
      await page.context().close();
    }

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${demo.url}/`);
    const wallet = page.getByRole('complementary', { name: /Demo wallet/ });
    await wallet.waitFor();
    const polygonUsdt = wallet.locator('.dw-balance-usdt-1');
    await polygonUsdt.filter({ hasText: /^1,000$/ }).waitFor();
    const card = page.getByRole('region', { name: 'Fixed amount' });
    await card.getByLabel('Pay in').selectOption({ label: 'USDT · Local Polygon' });
    await card.getByRole('button', { name: /^Pay .*USDT/ }).click();
    await page.waitForFunction(() => {
      const button = [...document.querySelectorAll('aside button')].find((b) => b.textContent === 'Send from demo wallet') as HTMLButtonElement | undefined;
      return button && !button.disabled;
    });
    const success = page.evaluate(
      () =>
        new Promise<{ status: string; txHash: string | null; blockchainId: string }>((resolve) =>
          document.addEventListener('paylink-success', (event) => resolve((event as CustomEvent).detail.session), { once: true }),
        ),
    );
    const sent = performance.now();
    await wallet.getByRole('button', { name: 'Send from demo wallet' }).click();
    const session = await success;
    t.diagnostic(`demo wallet transfer on Local Polygon (click) to paylink-success: ${Math.round(performance.now() - sent)} ms`);
    assert.equal(session.status, 'paid');
    assert.equal(session.blockchainId, 'local-polygon');
    await wallet
      .getByRole('status')
      .filter({ hasText: /payment received/ })
      .waitFor();
    await polygonUsdt.filter({ hasText: /^955$/ }).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, '7-visitor-paid-on-local-polygon.png'), fullPage: true });
    const receipt = await rpc(polygonRpc, 'eth_getTransactionReceipt', [session.txHash]);
    assert.equal(receipt.status, '0x1', 'a real transaction on Local Polygon');
    assert.equal(receipt.from.toLowerCase(), demoWallet.toLowerCase(), 'sent from the demo wallet');
    assert.equal(receipt.to.toLowerCase(), usdt.toLowerCase(), 'a USDT transfer (the same token address on both chains)');
    assert.equal(await rpc(rpcUrl, 'eth_getTransactionReceipt', [session.txHash]), null, 'and not on Local BNB Smart Chain');
    await page.context().close();

    // The merchant's Local Polygon balance: pending until its block is final there, then available.
    const key = readFileSync(path.join(dataDir, 'demo-api-key'), 'utf8').trim();
    const usdtBalances = async () =>
      ((await (await fetch(`${demo.url}/v1/balance`, { headers: { 'x-api-key': key } })).json()) as { items: Array<Record<string, string>> }).items
        .filter((item) => item.assetId === 'USDT')
        .map(({ blockchainId, available, pending }) => ({ blockchainId, available, pending }))
        .sort((a, b) => a.blockchainId!.localeCompare(b.blockchainId!));
    const finalOnPolygon = async () => (await usdtBalances()).some((item) => item.blockchainId === 'local-polygon' && item.pending === '0.000000');
    await until(finalOnPolygon, 'the 45 USDT to become available on Local Polygon', 30_000, {
      everyMs: 250,
      explain: async () => JSON.stringify(await usdtBalances()),
    });
    const polygonCard = () =>
      merchant.evaluate(() => {
        const admin = document.querySelector('paylink-admin');
        const cards = [...(admin?.shadowRoot?.querySelectorAll('*') ?? [])].filter((el) =>
          el.getAttribute('part')?.split(' ').includes('balance-usdt-local-polygon'),
        );
        return cards[0]?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
      });
    await merchant.getByRole('button', { name: 'Refresh' }).first().click();
    await until(async () => /Available: 45 USDT.*Pending: 0 USDT/.test(await polygonCard()), 'the merchant to see it after a refresh', 10_000, {
      everyMs: 100,
      explain: polygonCard,
    });
    assert.match(await polygonCard(), /USDT · Local Polygon/);
    await shot(merchant, '8-merchant-sees-balance-on-local-polygon');
    assert.deepEqual(
      await usdtBalances(),
      [
        { blockchainId: 'local', available: '0.000000', pending: '0.000000' },
        { blockchainId: 'local-polygon', available: '45.000000', pending: '0.000000' },
      ],
      'the withdrawn balance on Local BNB Smart Chain, the new one on Local Polygon',
    );
  });

  it('the shop: its server creates the order, the page pays it from the demo wallet; reloaded, the paid order shows its success', async (t) => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${demo.url}/shop.html`);
    const wallet = page.getByRole('complementary', { name: /Demo wallet/ });
    await wallet.waitFor();
    // 2 × 8,500 + 1 × 2,500.50: the page sends quantities, the shop's server the prices.
    await page.getByLabel(/Ethiopian Yirgacheffe/).fill('2');
    await page.getByLabel(/filter papers/).fill('1');
    await page.getByRole('button', { name: 'Check out' }).click();
    const checkout = page.locator('paylink-checkout[order]');
    await checkout.getByRole('button', { name: /^Pay .*19,500\.50 · USDT/ }).click();
    const orderId = (await checkout.getAttribute('order'))!;
    assert.equal(new URL(page.url()).searchParams.get('order'), orderId, 'the page keeps the order in its address');
    await page.waitForFunction(() => {
      const button = [...document.querySelectorAll('aside button')].find((b) => b.textContent === 'Send from demo wallet') as HTMLButtonElement | undefined;
      return button && !button.disabled;
    });
    // The panel's two lines must never disagree: "received" above, a confirmation count below.
    await page.evaluate(() => {
      const aside = document.querySelector('aside')!;
      const seen = window as unknown as { disagreed: string[] };
      seen.disagreed = [];
      new MutationObserver(() => {
        const line = aside.querySelector('.dw-session')?.textContent ?? '';
        const status = aside.querySelector('[role=status]')?.textContent ?? '';
        if (/Payment received/.test(line) && /of \d+ confirmations/.test(status)) seen.disagreed.push(`${line} | ${status}`);
      }).observe(aside, { subtree: true, childList: true, characterData: true });
    });
    const success = page.evaluate(
      () =>
        new Promise<{ status: string }>((resolve) =>
          document.addEventListener('paylink-success', (event) => resolve((event as CustomEvent).detail.session), { once: true }),
        ),
    );
    await wallet.getByRole('button', { name: 'Send from demo wallet' }).click();
    assert.equal((await success).status, 'paid');
    await wallet
      .getByRole('status')
      .filter({ hasText: /payment received/ })
      .waitFor();
    assert.deepEqual(
      await page.evaluate(() => (window as unknown as { disagreed: string[] }).disagreed),
      [],
      'the panel never said received beside a confirmation count',
    );

    // The order, as the merchant's server reads it with its key: paid, at the shop's price, its reference the shop's.
    const key = readFileSync(path.join(dataDir, 'demo-api-key'), 'utf8').trim();
    const order = (await (await fetch(`${demo.url}/v1/order/${orderId}`, { headers: { 'x-api-key': key } })).json()) as Record<string, unknown>;
    assert.deepEqual([order.status, order.fiatAmount, order.fiatCurrency], ['paid', '19500.50', 'NGN']);
    assert.match(String(order.reference), /^demo-shop-/);

    // The demo wallet's balance to the 6 decimals the service counts in (not cut to cents).
    const units = BigInt(await rpc(rpcUrl, 'eth_call', [{ to: usdt, data: `0x70a08231${demoWallet.slice(2).toLowerCase().padStart(64, '0')}` }, 'latest']));
    const whole = units / 10n ** 18n;
    const fraction = (units % 10n ** 18n).toString().padStart(18, '0').slice(0, 6).replace(/0+$/, '');
    assert.ok(fraction.length > 2, `the balance has more than 2 decimals to show (${whole}.${fraction})`);
    await wallet
      .locator('.dw-balance-usdt')
      .filter({ hasText: new RegExp(`^${whole.toLocaleString('en')}\\.${fraction}$`) })
      .waitFor();

    // Reloaded: the order is paid, and the card shows the paid screen with its content.
    await page.reload();
    await checkout.getByRole('heading', { name: 'Payment received' }).waitFor();
    assert.equal(await checkout.locator('[part~="success-icon"]').count(), 1, 'the check mark');
    assert.equal((await checkout.locator('[part~="message"]').innerText()).trim(), 'Thank you!');
    await page.screenshot({ path: path.join(ARTIFACTS, '9-shop-order-paid-reloaded.png'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 900 });
    await page.screenshot({ path: path.join(ARTIFACTS, '9-shop-order-paid-reloaded-375.png'), fullPage: true });
    await page.context().close();
    t.diagnostic(`shop order ${orderId} paid from the demo wallet`);
  });

  it('raised no page error and no CSP or Trusted Types violation', () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(cspViolations, []);
  });

  it('stops anvil when it stops (SIGTERM): no orphan node, no database left behind, the port free', async () => {
    assert.equal(await stopDemo(demo), 0);
    await until(() => !alive(anvilPid), `anvil (pid ${anvilPid}) gone`, 5_000, { everyMs: 50 });
    await assert.rejects(fetch(`${demo.url}/healthz`), 'nothing answers on the demo’s port');
    assert.deepEqual(
      readdirSync(dataDir).filter((name) => name.startsWith('run-')),
      [],
      'the run database is deleted',
    );
  });
});

describe('paylink demo without anvil', { timeout: 120_000 }, () => {
  const missing = { PAYLINK_ANVIL_BIN: path.join(os.tmpdir(), 'no-such-dir', 'anvil') };

  it('falls back to the sandbox, saying so in one line', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-e2e-fallback-'));
    const demo = await startDemoProcess(['--data-dir', dataDir], missing);
    try {
      const lines = demo
        .output()
        .split('\n')
        .filter((line) => /anvil/.test(line));
      assert.equal(lines.length, 1, demo.output());
      assert.match(lines[0]!, /^paylink: anvil is not installed: .*no-such-dir.* so the demo runs on the sandbox chain \(no real funds move\)/);
      assert.match(demo.output(), /\(sandbox chain: no real funds move\)/);
      assert.equal((await fetch(`${demo.url}/demo/wallet`)).status, 404, 'no demo wallet on the sandbox');
      const page = await (await fetch(`${demo.url}/`)).text();
      assert.match(page, /on the sandbox chain: no real funds move/);
    } finally {
      assert.equal(await stopDemo(demo), 0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('--chain evm without anvil refuses with the reason instead of falling back', async () => {
    const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--chain', 'evm'], {
      cwd: ROOT,
      env: { ...process.env, ...missing },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stderr!.on('data', (chunk) => (text += chunk));
    assert.equal(await exited(child), 1);
    assert.match(text, /anvil is not installed: .*no-such-dir.*--chain sandbox/);
    assert.equal(existsSync(path.join(ROOT, '.paylink-data', 'demo-evm', `run-${child.pid}`)), false);
  });
});
