/**
 * `<paylink-checkout>` paying from a browser wallet backed by a real local chain, in
 * Debian's Chromium, on the hosted page of the real service on the EVM adapter. The wallet is an
 * EIP-1193 provider in the page (injected as `window.ethereum`, or announced by EIP-6963) whose
 * every request is relayed by this test (a Playwright binding, as a wallet extension answers
 * outside the page: anvil does answer CORS with `*`, but the hosted page's CSP allows no connection
 * but its own origin) to anvil, where the payer's unlocked dev account signs
 * `eth_sendTransaction`. The relay plays the wallet's own part: which network it is on, which it
 * knows, switching and adding networks, and the customer declining.
 *
 * Anvil runs as chain 56 (BNB Smart Chain, the production chain) so that the checkout's real
 * `wallet_addEthereumChain` parameters for it are the ones exercised. Blocks are mined by the test
 * (instant mining, 3 confirmations), so each "confirming n/3" is seen before the next block.
 * Every wallet state passes axe. Timings are reported as test diagnostics; screenshots go to
 * test-results/checkout-wallet-anvil/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { erc20Abi, parseUnits, type Address, type Hash } from 'viem';
import type { ChainAdapter } from '../../src/server/chain/types.js';
import { encodeQr } from '../../src/internal/qr-encode.js';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';
import { startEvmFixture, type EvmFixture } from '../support/evm-service.js';
import { createUsdLink } from '../support/money.js';
import { call, startTestService, type TestService } from '../support/service.js';

const ARTIFACTS = path.resolve('test-results', 'checkout-wallet-anvil');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CHAIN_ID = 56;
const OTHER_CHAIN = 1;

/** The wallet's side of the relay: where it is, what it knows, what the customer will do. */
interface WalletState {
  /** The network the wallet is on (what `eth_chainId` answers). */
  chainId: number;
  /** Networks the wallet knows (it switches to these; others answer 4902 until added). */
  knows: Set<number>;
  /** How many `eth_sendTransaction` the customer declines (4001) before accepting. */
  declines: number;
  /** Every request the page made, in order. */
  calls: Array<{ method: string; params: unknown[] }>;
  /** Hashes of the transactions the wallet sent. */
  sent: Hash[];
}

interface Checkout {
  context: BrowserContext;
  page: Page;
  /** The sessions the element announced (`paylink-session`), latest last. */
  session(): Promise<{ id: string; payAddress: Address; cryptoAmount: string; assetId: string; status: string }>;
  /** Resolves with the session of `paylink-success` (once it fires). */
  success(): Promise<{ status: string; txHash: string }>;
}

describe('checkout: pay from a browser wallet on a real chain (anvil)', { timeout: 180_000 }, () => {
  let f: EvmFixture;
  let chain: ChainAdapter;
  let t: TestService;
  let key = '';
  let slug = '';
  let browser: Browser;
  const pageErrors: string[] = [];
  let payer: Address;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    f = await startEvmFixture({ chainId: CHAIN_ID });
    payer = f.payers[0]!;
    chain = await f.adapter({ confirmations: 3 });
    t = await startTestService('pglite', { chain, payoutWorker: false, webhookWorker: false });
    ({ key } = await t.newKey());
    slug = await createUsdLink(t.url, key, '12.5');
    browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await chain?.close?.();
    // Stops anvil by its pid.
    await f?.stop();
  });

  /** A JSON-RPC request to anvil, answered as the node answers (result or error). */
  const node = async (method: string, params: unknown[]) => {
    const response = await fetch(f.t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  };

  /** The wallet's answer to one request of the page. */
  const relay = async (wallet: WalletState, method: string, params: unknown[]) => {
    wallet.calls.push({ method, params });
    const target = (params[0] as { chainId?: string } | undefined)?.chainId;
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [payer] };
      case 'eth_chainId':
        return { result: `0x${wallet.chainId.toString(16)}` };
      case 'wallet_switchEthereumChain':
        if (!wallet.knows.has(Number(target))) return { error: { code: 4902, message: `Unrecognized chain ID "${target}".` } };
        wallet.chainId = Number(target);
        return { result: null };
      case 'wallet_addEthereumChain':
        // As MetaMask does: the added network becomes the current one.
        wallet.knows.add(Number(target));
        wallet.chainId = Number(target);
        return { result: null };
      case 'eth_sendTransaction': {
        if (wallet.declines > 0) {
          wallet.declines--;
          return { error: { code: 4001, message: 'User rejected the request.' } };
        }
        // A wallet on another network would send there: never to this chain.
        if (wallet.chainId !== CHAIN_ID) return { error: { code: -32603, message: 'wrong network' } };
        const answer = await node(method, params);
        if (typeof answer.result === 'string') wallet.sent.push(answer.result as Hash);
        return answer;
      }
      default:
        // Reads (eth_call for the balance, …) go to the node, on the wallet's network only.
        if (wallet.chainId !== CHAIN_ID) return { error: { code: -32603, message: 'not this network' } };
        return node(method, params);
    }
  };

  /**
   * Opens the hosted page of the link in a fresh browser context (no stored session) with `wallet`
   * in the page (`announce`: EIP-6963, else `window.ethereum`; no wallet: nothing injected), and
   * starts a session in `asset`.
   */
  const openCheckout = async (asset: 'USDT' | 'CNGN', wallet?: WalletState, announce = false): Promise<Checkout> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    // Scripts as strings: functions would carry the test compiler's helpers (e.g. `__name`) into the page.
    await page.addInitScript(`
      window.__sessions = [];
      document.addEventListener('paylink-session', (event) => window.__sessions.push(event.detail.session));
      window.__success = new Promise((resolve) => document.addEventListener('paylink-success', (event) => resolve(event.detail.session), { once: true }));
    `);
    if (wallet) {
      await page.exposeFunction('__walletRelay', (method: string, params: unknown[]) => relay(wallet, method, params));
      await page.addInitScript(`{
        const provider = {
          async request({ method, params }) {
            const answer = await window.__walletRelay(method, params ?? []);
            if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
            return answer.result;
          },
        };
        if (${!announce}) window.ethereum = provider;
        else {
          const detail = Object.freeze({
            info: { uuid: '7b1c6e52-6a1f-4f7e-9d1f-3c1f3a0c9d11', name: 'Anvil Wallet', icon: 'data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%2F%3E', rdns: 'test.anvil' },
            provider,
          });
          const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
          window.addEventListener('eip6963:requestProvider', announce);
          announce();
        }
      }`);
    }
    await page.goto(`${t.url}/pay/${slug}`);
    await page.locator('[part~="assets"]').selectOption(`${asset} bsc`);
    await page.getByRole('button', { name: new RegExp(`^Pay .*${asset === 'CNGN' ? 'cNGN' : 'USDT'}`) }).click();
    await page.locator('[part~="pay"]').waitFor();
    return {
      context,
      page,
      session: () => page.evaluate('window.__sessions.at(-1)'),
      success: () => page.evaluate('window.__success'),
    };
  };

  /** axe on the page as it is now (the checkout's shadow DOM included): no violation. */
  const accessible = async (page: Page, state: string) => {
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
    // The element, as the browser tests check it (the hosted page around it is not the checkout's).
    const violations = await page.evaluate(`axe.run(document.querySelector('paylink-checkout')).then((result) =>
      result.violations.map((v) => v.id + ': ' + JSON.stringify(v.nodes.map((n) => n.target))))`);
    assert.deepEqual(violations, [], `axe on "${state}"`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${state}.png`), fullPage: true });
  };

  const waiting = (page: Page) => page.locator('[part~="waiting"]');
  const tokenOf = (asset: 'USDT' | 'CNGN') => (asset === 'USDT' ? f.usdt : f.cngn);
  const balance = (asset: 'USDT' | 'CNGN', owner: Address) =>
    f.t.client.readContract({ address: tokenOf(asset), abi: erc20Abi, functionName: 'balanceOf', args: [owner] });

  /**
   * From a transfer mined on chain to `paid`: the checkout shows 1/3, 2/3 as the test mines each
   * block, then the success screen, and `paylink-success` fires with the server's paid session.
   * The keyed merchant read has exactly this one transfer.
   */
  const confirmToPaid = async (checkout: Checkout, hash: Hash, name: string) => {
    const { page } = checkout;
    await waiting(page).filter({ hasText: 'Confirming 1/3' }).waitFor({ timeout: 15_000 });
    await accessible(page, `${name}-confirming`);
    await f.t.mine(1);
    await waiting(page).filter({ hasText: 'Confirming 2/3' }).waitFor({ timeout: 15_000 });
    await f.t.mine(1);
    const paid = await checkout.success();
    assert.equal(paid.status, 'paid');
    assert.equal(paid.txHash, hash);
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();
    await accessible(page, `${name}-paid`);
    const { id } = await checkout.session();
    const record = await call(t.url, 'GET', `/v1/checkout-session/${id}`, { key });
    assert.equal(record.status, 200, JSON.stringify(record.body));
    assert.equal(record.body.status, 'paid');
    assert.equal(record.body.transfers.length, 1, JSON.stringify(record.body.transfers));
    assert.equal(record.body.transfers[0].txHash, hash);
  };

  /** The transfer `hash` is exactly `units` of `asset` to `to`, mined, from the payer. */
  const assertTransfer = async (hash: Hash, asset: 'USDT' | 'CNGN', to: Address, units: bigint) => {
    const tx = await f.t.client.getTransaction({ hash });
    assert.equal(tx.from.toLowerCase(), payer.toLowerCase());
    assert.equal(tx.to?.toLowerCase(), tokenOf(asset).toLowerCase(), 'a call to the token contract');
    assert.equal(tx.value, 0n);
    const word = (hex: string) => hex.padStart(64, '0');
    assert.equal(tx.input, `0xa9059cbb${word(to.slice(2).toLowerCase())}${word(units.toString(16))}`, 'ERC-20 transfer(payAddress, exact units)');
    assert.equal(await f.t.mined(hash), 'success');
    assert.equal(await balance(asset, to), units, 'the deposit address holds exactly the amount due');
  };

  it('pays from the wallet end to end: "Pay with wallet" sends the exact USDT transfer, confirming n/3, paid', async (ctx) => {
    const wallet: WalletState = { chainId: CHAIN_ID, knows: new Set([CHAIN_ID]), declines: 0, calls: [], sent: [] };
    const checkout = await openCheckout('USDT', wallet);
    const { page } = checkout;
    const pay = page.getByRole('button', { name: 'Pay with wallet' });
    await pay.waitFor();
    await accessible(page, '1-wallet-ready');
    const session = await checkout.session();
    assert.equal(session.status, 'awaiting_payment');
    const units = parseUnits(session.cryptoAmount, 18);
    assert.equal(await balance('USDT', session.payAddress), 0n);

    const clicked = performance.now();
    await pay.click();
    await waiting(page).filter({ hasText: 'Confirming 1/3' }).waitFor({ timeout: 15_000 });
    const seen = performance.now() - clicked;
    assert.equal(wallet.sent.length, 1);
    const hash = wallet.sent[0]!;
    await assertTransfer(hash, 'USDT', session.payAddress, units);
    // The transaction's hash is shown while it confirms.
    assert.equal(await page.locator(`[title="${hash}"]`).count(), 1);
    await confirmToPaid(checkout, hash, '1');
    ctx.diagnostic(
      `click "Pay with wallet" to confirming 1/3 on screen: ${Math.round(seen)} ms; click to paylink-success (paid, two blocks mined by the test): ${Math.round(performance.now() - clicked)} ms`,
    );
    assert.deepEqual(
      wallet.calls.map((c) => c.method),
      ['eth_requestAccounts', 'eth_chainId', 'eth_call', 'eth_sendTransaction'],
      'on the right network already: no switch',
    );
    await checkout.context.close();
  });

  it('wrong network: the wallet on another chain is switched to BNB Smart Chain, then pays (EIP-6963 wallet)', async () => {
    const wallet: WalletState = { chainId: OTHER_CHAIN, knows: new Set([OTHER_CHAIN, CHAIN_ID]), declines: 0, calls: [], sent: [] };
    const checkout = await openCheckout('USDT', wallet, true);
    const { page } = checkout;
    const pay = page.getByRole('button', { name: 'Pay with Anvil Wallet' });
    await pay.waitFor();
    await accessible(page, '2-wallet-on-other-network');
    const session = await checkout.session();
    await pay.click();
    await waiting(page).filter({ hasText: 'Confirming 1/3' }).waitFor({ timeout: 15_000 });
    const switches = wallet.calls.filter((c) => c.method === 'wallet_switchEthereumChain');
    assert.deepEqual(
      switches.map((c) => c.params),
      [[{ chainId: '0x38' }]],
    );
    assert.equal(
      wallet.calls.some((c) => c.method === 'wallet_addEthereumChain'),
      false,
    );
    assert.equal(wallet.sent.length, 1);
    await assertTransfer(wallet.sent[0]!, 'USDT', session.payAddress, parseUnits(session.cryptoAmount, 18));
    await confirmToPaid(checkout, wallet.sent[0]!, '2');
    await checkout.context.close();
  });

  it('wrong network the wallet does not know: 4902, then the checkout adds BNB Smart Chain and pays', async () => {
    const wallet: WalletState = { chainId: OTHER_CHAIN, knows: new Set([OTHER_CHAIN]), declines: 0, calls: [], sent: [] };
    const checkout = await openCheckout('USDT', wallet, true);
    const { page } = checkout;
    const session = await checkout.session();
    await page.getByRole('button', { name: 'Pay with Anvil Wallet' }).click();
    await waiting(page).filter({ hasText: 'Confirming 1/3' }).waitFor({ timeout: 15_000 });
    const methods = wallet.calls.map((c) => c.method);
    assert.deepEqual(methods.slice(0, 5), ['eth_requestAccounts', 'eth_chainId', 'wallet_switchEthereumChain', 'wallet_addEthereumChain', 'eth_chainId']);
    const added = wallet.calls.find((c) => c.method === 'wallet_addEthereumChain')!.params[0] as Record<string, any>;
    assert.equal(added.chainId, '0x38');
    assert.equal(added.chainName, 'BNB Smart Chain');
    assert.deepEqual(added.nativeCurrency, { name: 'BNB', symbol: 'BNB', decimals: 18 });
    assert.match(added.rpcUrls[0], /^https:\/\//);
    await assertTransfer(wallet.sent[0]!, 'USDT', session.payAddress, parseUnits(session.cryptoAmount, 18));
    await confirmToPaid(checkout, wallet.sent[0]!, '2b');
    await checkout.context.close();
  });

  it('rejected: the customer declines once, the checkout says so and nothing moves; the retry pays', async () => {
    const wallet: WalletState = { chainId: CHAIN_ID, knows: new Set([CHAIN_ID]), declines: 1, calls: [], sent: [] };
    const checkout = await openCheckout('USDT', wallet);
    const { page } = checkout;
    const session = await checkout.session();
    const pay = page.getByRole('button', { name: 'Pay with wallet' });
    const blockBefore = await f.t.client.getBlockNumber();
    await pay.click();
    const notice = page.locator('[part~="wallet-error"]');
    await notice.waitFor();
    assert.equal((await notice.textContent())?.trim(), 'Declined. Try again when ready.');
    await accessible(page, '3-declined');
    assert.equal(await f.t.client.getBlockNumber(), blockBefore, 'no transaction reached the chain');
    assert.equal(await balance('USDT', session.payAddress), 0n);
    assert.equal((await checkout.session()).status, 'awaiting_payment');
    assert.equal(await pay.isEnabled(), true, 'the button is there to try again');

    await pay.click();
    await waiting(page).filter({ hasText: 'Confirming 1/3' }).waitFor({ timeout: 15_000 });
    assert.equal(await notice.count(), 0, 'the refusal is gone once paid');
    assert.equal(wallet.calls.filter((c) => c.method === 'eth_sendTransaction').length, 2);
    assert.equal(wallet.sent.length, 1);
    await assertTransfer(wallet.sent[0]!, 'USDT', session.payAddress, parseUnits(session.cryptoAmount, 18));
    await confirmToPaid(checkout, wallet.sent[0]!, '3');
    await checkout.context.close();
  });

  it('no wallet: the EIP-681 QR names the cNGN contract, chain, address and exact amount; a transfer from outside is seen and paid', async () => {
    const checkout = await openCheckout('CNGN');
    const { page } = checkout;
    await page.locator('[part~="no-wallet"]').waitFor();
    assert.equal((await page.locator('[part~="no-wallet"]').textContent())?.trim(), 'No wallet here: scan the code.');
    assert.equal(await page.locator('[part~="wallet"]').count(), 0, 'no wallet button');
    await accessible(page, '4-no-wallet');
    const session = await checkout.session();
    const units = parseUnits(session.cryptoAmount, 6);
    // The QR code's modules are those of this URI (the encoder is deterministic: fixed mask and version choice).
    const uri = `ethereum:${f.cngn}@${CHAIN_ID}/transfer?address=${session.payAddress}&uint256=${units}`;
    const qr = page.getByRole('img', { name: 'QR code of the payment' });
    const d = (await qr.locator('path').getAttribute('d'))!;
    const shown = new Set<string>();
    for (const [, x, y, run] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g))
      for (let i = 0; i < Number(run); i++) shown.add(`${Number(x) + i - 4},${Number(y) - 4}`);
    const expected = new Set<string>();
    encodeQr(uri)!.forEach((row, y) => row.forEach((dark, x) => dark && expected.add(`${x},${y}`)));
    assert.ok(expected.size > 100);
    assert.deepEqual(shown, expected, `the QR code encodes ${uri}`);

    const hash = await f.pay(session.payAddress, 'CNGN', session.cryptoAmount);
    await assertTransfer(hash, 'CNGN', session.payAddress, units);
    await confirmToPaid(checkout, hash, '4');
    await checkout.context.close();
  });

  it('raised no page error (CSP, Trusted Types or script)', () => {
    assert.deepEqual(pageErrors, []);
  });
});
