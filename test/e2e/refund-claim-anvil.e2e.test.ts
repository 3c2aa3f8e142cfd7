/**
 * A refund claimed from the customer's own wallet, end to end on a real local chain (anvil): the
 * customer pays a link on chain; the merchant refunds it without knowing where to (a claim link);
 * the customer opens the link in Debian's Chromium, on the service's hosted claim page under its
 * strict CSP, picks a third-party wallet the page discovered (EIP-6963; its requests are relayed by
 * this test, as an extension answers outside the page) and sends its address; the payout goes out
 * through the stored-transaction payouts, and the tokens arrive at that address exactly once, however
 * many payout rounds run after. The claim token never leaves the page in a URL or a `Referer`. Every
 * state passes axe; the page is looked at 375 px wide, in English and in French. Screenshots go to
 * test-results/refund-claim-anvil/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { erc20Abi, parseEventLogs, parseUnits, type Address } from 'viem';
import { TEST_TOKEN_ABI } from '../../src/server/chain/evm/test-token.js';
import type { RealChainAdapter } from '../../src/server/chain/types.js';
import { processPayouts } from '../../src/server/service/payouts/index.js';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';
import { manualScanner, outgoingOf, randomAddress, startEvmFixture, type EvmFixture } from '../support/evm-service.js';
import { createUsdLink, eventually, startSession } from '../support/money.js';
import { call, startTestService, type TestService } from '../support/service.js';

const ARTIFACTS = path.resolve('test-results', 'refund-claim-anvil');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe('refund: claimed from a browser wallet, paid on a real chain (anvil)', { timeout: 180_000 }, () => {
  let f: EvmFixture;
  let chain: RealChainAdapter;
  let t: TestService;
  let key = '';
  let hot: Address;
  let browser: Browser;
  let scanner: ReturnType<typeof manualScanner>;
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    f = await startEvmFixture({ chainId: 56 });
    chain = await f.adapter({ confirmations: 1 });
    hot = outgoingOf(chain).hotWallet as Address;
    await f.t.mint(f.usdt, hot, parseUnits('1000', 18));
    t = await startTestService('pglite', { chain, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
    ({ key } = await t.newKey());
    scanner = manualScanner({ db: t.db, chain, now: () => new Date() });
    browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await chain?.close();
    await f?.stop();
  });

  const balance = (owner: Address) => f.t.client.readContract({ address: f.usdt, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  /** The hot wallet's USDT transfers to `to` on chain, from block 0. */
  const transfersTo = async (to: Address) => {
    const logs = await f.t.client.getLogs({
      address: f.usdt,
      event: TEST_TOKEN_ABI.find((x) => x.type === 'event' && x.name === 'Transfer')!,
      args: { from: hot, to },
      fromBlock: 0n,
    });
    return parseEventLogs({ abi: TEST_TOKEN_ABI, logs, eventName: 'Transfer' }).map((log) => log.args.value);
  };

  /** axe on the page as it is now (the element's shadow DOM included): no violation; then a screenshot. */
  const accessible = async (page: Page, state: string) => {
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
    const violations = await page.evaluate(`axe.run(document).then((result) =>
      result.violations.map((v) => v.id + ': ' + JSON.stringify(v.nodes.map((n) => n.target))))`);
    assert.deepEqual(violations, [], `axe on "${state}"`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${state}.png`), fullPage: true });
  };

  /** A page on the claim link, 375 px wide, with a third-party wallet announcing itself (EIP-6963) that holds `customer`. */
  const openClaim = async (claimUrl: string, customer: Address, locale = 'en-GB') => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, locale });
    const page = await context.newPage();
    const sent: string[] = [];
    page.on('request', (request) => sent.push(`${request.url()} ${request.headers().referer ?? ''}`));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
    const calls: string[] = [];
    await page.exposeFunction('__walletRelay', (method: string) => {
      calls.push(method);
      return method === 'eth_requestAccounts' ? { result: [customer.toLowerCase()] } : { error: { code: 4200, message: `Unsupported method ${method}` } };
    });
    // A string: a function would carry the test compiler's helpers into the page.
    await page.addInitScript(`{
      const provider = {
        async request({ method, params }) {
          const answer = await window.__walletRelay(method, params ?? []);
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
          return answer.result;
        },
      };
      const detail = Object.freeze({ info: { uuid: '0d6f3f1e-2a4b-4c5d-8e9f-a0b1c2d3e4f5', name: 'Trust Wallet', icon: 'data:image/svg+xml,%3Csvg%2F%3E', rdns: 'test.trust' }, provider });
      const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
      window.addEventListener('eip6963:requestProvider', announce);
      announce();
    }`);
    await page.goto(claimUrl);
    return { context, page, sent, calls };
  };

  it('pay on chain, refund to a claim link, claim from an injected wallet: the tokens arrive at that address exactly once', async () => {
    // The customer pays 12.5 USDT on chain; the payment is credited, then final (available).
    const session = await startSession(t.url, await createUsdLink(t.url, key, '12.5'));
    await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
    await scanner.runOnce();
    await f.t.mine(64);
    await scanner.runOnce();
    assert.equal((await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key })).body.status, 'paid');

    // The merchant refunds it all, without knowing where to: a claim link.
    const created = await call(t.url, 'POST', '/v1/refund', { key, body: { sessionId: session.id, reason: 'Returned' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { id, claimUrl } = created.body as { id: string; claimUrl: string };
    assert.equal(created.body.amount, '12.500000');
    const token = claimUrl.slice(claimUrl.indexOf('#') + 1);
    assert.ok(claimUrl.startsWith(`${t.url}/pay/refund/${id}#`) && token.length >= 22, claimUrl);

    const customer = randomAddress();
    const { context, page, sent, calls } = await openClaim(claimUrl, customer);
    await page.getByRole('heading', { name: 'You are getting money back' }).waitFor();
    assert.equal((await page.locator('[part~="amount"]').textContent())?.trim(), '12.5 USDT');
    assert.match((await page.locator('[part~="facts"]').textContent()) ?? '', /BNB Smart Chain/);
    await accessible(page, '1-claim');

    await page.getByRole('button', { name: 'Use Trust Wallet' }).click();
    const field = page.getByLabel('Your address on BNB Smart Chain');
    await page.waitForFunction(
      () => (document.querySelector('paylink-refund')?.shadowRoot?.querySelector('#address') as HTMLInputElement | null)?.value !== '',
    );
    assert.equal(await field.inputValue(), customer, 'the wallet’s address, checksummed');
    assert.deepEqual(calls, ['eth_requestAccounts'], 'the page asks the wallet for its address only');
    await page.getByRole('button', { name: 'Send my refund here' }).click();
    await page
      .locator('[part~="outcome"]')
      .filter({ hasText: `On its way to ${customer}` })
      .waitFor();
    await accessible(page, '2-on-its-way');
    const refund = await call(t.url, 'GET', `/v1/refund/${id}`, { key });
    assert.equal(refund.body.status, 'pending');
    assert.equal(refund.body.address, customer);

    // The payout workers pay it: one stored transaction, mined; rounds after that send nothing more.
    await eventually(
      async () => {
        await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 });
        return (await call(t.url, 'GET', `/v1/refund/${id}`, { key })).body.status === 'success';
      },
      30_000,
      'the refund paid out',
    );
    for (let round = 0; round < 3; round++) await processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 });
    assert.equal(await balance(customer), parseUnits('12.5', 18), 'exactly the refund');
    assert.deepEqual(await transfersTo(customer), [parseUnits('12.5', 18)], 'in one transfer');
    const stored = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM payout_transactions p JOIN withdrawals w ON w.id = p.withdrawal_id WHERE w.refund_id = $1',
      [id],
    );
    assert.equal(stored.rows[0]!.n, 1, 'one signed transaction stored');

    // The page follows it there on its own.
    await page
      .locator('[part~="outcome"]')
      .filter({ hasText: `Sent to ${customer}` })
      .waitFor({ timeout: 15_000 });
    await accessible(page, '3-sent');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= 375), true, 'nothing runs off the side at 375 px');
    assert.deepEqual(
      sent.filter((line) => line.includes(token)),
      [],
      'the token never left in a URL or a Referer',
    );
    await context.close();

    // A second claim of the same link changes nothing: the address was set once.
    const second = await call(t.url, 'POST', `/v1/checkout/refunds/${id}/address`, { headers: { 'paylink-claim': token }, body: { address: randomAddress() } });
    assert.equal(second.status, 409);
    assert.deepEqual(await transfersTo(customer), [parseUnits('12.5', 18)]);
  });

  it('speaks French to a browser that prefers it', async () => {
    const session = await startSession(t.url, await createUsdLink(t.url, key, '2'));
    await f.pay(session.payAddress, 'USDT', session.cryptoAmount);
    await scanner.runOnce();
    await f.t.mine(64);
    await scanner.runOnce();
    const { claimUrl } = (await call(t.url, 'POST', '/v1/refund', { key, body: { sessionId: session.id } })).body as { claimUrl: string };
    const { context, page } = await openClaim(claimUrl, randomAddress(), 'fr-FR');
    await page.getByRole('heading', { name: 'Votre remboursement' }).waitFor();
    await page.getByRole('button', { name: 'Utiliser Trust Wallet' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'fr');
    assert.equal((await page.locator('[part~="amount"]').textContent())?.trim(), '2 USDT');
    await accessible(page, '4-french');
    await context.close();
  });

  it('raised no page error (CSP, Trusted Types or script)', () => {
    assert.deepEqual(pageErrors, []);
  });
});
