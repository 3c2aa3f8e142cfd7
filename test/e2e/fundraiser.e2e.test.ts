/**
 * End to end against the real `paylink demo` (sandbox chain), in Debian's Chromium through Playwright:
 * the demo's fundraiser opens with its goal, what it raised and its public donors (never the one who
 * chose not to be shown); a visitor on a phone-sized page watches while another gives with a name and
 * a message; the first page's bar and donors move without a reload, and the message stays text.
 * Screenshots go to `test-results/e2e-fundraiser/`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDemo, type RunningDemo } from '../../demo/server.js';
import { DEMO_GOAL, SEED_DONATIONS } from '../../demo/seed.js';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';

const ARTIFACTS = path.resolve('test-results', 'e2e-fundraiser');

describe('the demo’s fundraiser, end to end', { timeout: 180_000 }, () => {
  let demo: RunningDemo;
  let browser: Browser;
  let watcher: Page;
  let dataDir: string;
  const pageErrors: string[] = [];

  /** The checkout's shadow root's text of `part`, and its progress bar's percent. */
  const read = async (page: Page) => {
    // (No function is declared inside: the page runs it as written, without the test's helpers.)
    const seen = await page.evaluate(() => {
      const root = document.querySelector('paylink-checkout')!.shadowRoot!;
      return {
        percent: root.querySelector('[part~=progress]')?.getAttribute('aria-valuenow') ?? null,
        raised: root.querySelector('[part~=raised]')?.textContent ?? '',
        donors: [...root.querySelectorAll('[part~=donor]')].map((node) => node.textContent ?? ''),
        markup: root.querySelectorAll('[part~=donor] b').length,
        all: root.textContent ?? '',
      };
    });
    const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();
    return { ...seen, raised: squeeze(seen.raised), donors: seen.donors.map(squeeze) };
  };

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-e2e-fund-'));
    demo = await startDemo({ port: 0, dataDir, chain: 'sandbox' });
    browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
    watcher = await (await browser.newContext({ viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true })).newPage();
    watcher.on('pageerror', (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens with its goal, what it raised, and the donors who chose to be shown', async () => {
    await watcher.goto(`${demo.url}/donate.html`);
    await watcher.waitForFunction(() => document.querySelector('paylink-checkout')?.shadowRoot?.querySelectorAll('[part~=donor]').length === 2);
    const seen = await read(watcher);
    const raised = SEED_DONATIONS.reduce((sum, gift) => sum + gift.fiatAmount, 0);
    assert.equal(seen.percent, String(Math.floor((raised * 100) / DEMO_GOAL)));
    assert.equal(seen.raised, `NGN ${raised.toLocaleString('en')}.00 raised of NGN ${DEMO_GOAL.toLocaleString('en')}.00 · ${SEED_DONATIONS.length} donors`);
    // Newest first; the private donor counts, but is nowhere on the page.
    assert.match(seen.donors[0]!, /^TundeBooks changed my life\.NGN 5,000\.00$/);
    assert.ok(!seen.all.includes('A private donor') && !seen.all.includes('Not for the page'));
    await watcher.screenshot({ path: path.join(ARTIFACTS, '1-watcher-before.png'), fullPage: true });
  });

  it('moves on the open page, without a reload, when another visitor gives', async () => {
    const giver = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    giver.on('pageerror', (error) => pageErrors.push(error.message));
    await giver.goto(`${demo.url}/donate.html`);
    const checkout = giver.locator('paylink-checkout');
    await checkout.getByRole('button', { name: /^NGN\s20,000\.00$/ }).click();
    await checkout.getByLabel('Your name').fill('Ngozi');
    await checkout.getByLabel('Message').fill('<b>Read on!</b>');
    await checkout.getByLabel('Show my gift publicly').check();
    await checkout.getByRole('button', { name: /^Pay NGN\s20,000\.00/ }).click();
    await checkout.getByRole('button', { name: 'Simulate payment' }).click();
    await checkout.getByRole('heading', { name: 'Payment received' }).waitFor();
    // The giver sees their own gift counted at once.
    // (Intl writes a no-break space between the currency and the amount.)
    await checkout.getByText(/NGN\s57,000\.00 raised of NGN\s250,000\.00 · 4 donors/).waitFor();
    await giver.screenshot({ path: path.join(ARTIFACTS, '2-giver-done.png'), fullPage: true });

    // The watcher's page, never reloaded, polls while visible: the bar and the donors move.
    await watcher.waitForFunction(
      () => document.querySelector('paylink-checkout')?.shadowRoot?.querySelector('[part~=progress]')?.getAttribute('aria-valuenow') === '22',
      null,
      {
        timeout: 15_000,
      },
    );
    await watcher.waitForFunction(() => document.querySelector('paylink-checkout')?.shadowRoot?.querySelectorAll('[part~=donor]').length === 3);
    const seen = await read(watcher);
    assert.equal(seen.donors[0], 'Ngozi<b>Read on!</b>NGN 20,000.00');
    assert.equal(seen.markup, 0, 'the message is text, not markup');
    await watcher.screenshot({ path: path.join(ARTIFACTS, '3-watcher-after.png'), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });
});
