/**
 * The hosted checkout page (`/pay/<slug>`) as a customer opens a shared link, in Debian's Chromium:
 * on a phone (375 px) and a laptop (1280 px), light and dark, the page has side margins (the
 * card's border is inside the screen, nothing overflows) and a merchant header: the integrator's
 * display name, else the link's title. Screenshots go to test-results/hosted-page/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { createApiKey } from '../../src/server/service/keys/repository.js';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';
import { call, standardLinkBody, startTestService, type TestService } from '../support/service.js';

const ARTIFACTS = path.resolve('test-results', 'hosted-page');

describe('hosted checkout page', { timeout: 180_000 }, () => {
  let t: TestService;
  let browser: Browser;
  let named = '';
  let unnamed = '';

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestService('pglite');
    const link = async (name: string | undefined, title: string) => {
      const { key } = await t.db.transaction((tx) => createApiKey(tx, name ? { name } : {}));
      const created = await call(t.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ title, fiatAmount: 19500.5, fiatCurrency: ['NGN'] }) });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.slug as string;
    };
    named = await link('Ada Stores', 'Two bags of Yirgacheffe');
    unnamed = await link(undefined, 'Ceramic mug');
    browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [width, scheme] of [
    [375, 'light'],
    [375, 'dark'],
    [1280, 'light'],
  ] as const) {
    it(`at ${width} px (${scheme}): the merchant's name above the card, side margins, nothing overflowing`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 800 }, colorScheme: scheme });
      try {
        await page.goto(`${t.url}/pay/${named}`);
        await page.getByRole('heading', { name: 'Two bags of Yirgacheffe' }).waitFor();
        assert.equal((await page.locator('header.merchant').textContent())?.trim(), 'AAda Stores');
        const layout = await page.evaluate(() => {
          const card = document.querySelector('paylink-checkout')!.shadowRoot!.querySelector('[part~=card]')!.getBoundingClientRect();
          const { scrollWidth, clientWidth } = document.documentElement;
          return { scrollWidth, clientWidth, left: card.left, right: card.right };
        });
        assert.ok(layout.scrollWidth <= layout.clientWidth, `the page overflows: ${layout.scrollWidth} > ${layout.clientWidth}`);
        assert.ok(layout.left >= 12 && layout.clientWidth - layout.right >= 12, `the card keeps side margins: ${JSON.stringify(layout)}`);
        await page.screenshot({ path: path.join(ARTIFACTS, `named-${width}-${scheme}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    });
  }

  it('shows the link’s title where the integrator gave no name, and no header on a missing link', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
    try {
      await page.goto(`${t.url}/pay/${unnamed}`);
      await page.getByRole('heading', { name: 'Ceramic mug' }).waitFor();
      assert.equal((await page.locator('header.merchant').textContent())?.trim(), 'CCeramic mug');
      await page.screenshot({ path: path.join(ARTIFACTS, 'unnamed-375.png'), fullPage: true });
      const missing = await page.goto(`${t.url}/pay/NoSuchLink1`);
      assert.equal(missing!.status(), 404);
      assert.equal(await page.locator('header.merchant').count(), 0);
    } finally {
      await page.close();
    }
  });
});
