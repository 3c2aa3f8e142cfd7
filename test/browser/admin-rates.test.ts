/**
 * `<paylink-admin>`'s rates: each code against the US dollar with the value quoted now, the spread of
 * its sources, each source's latest value, age and whether it agrees, and whether it is quoted or why
 * not (a held move names `paylink rates accept`); a payment's detail shows what its quote was made of
 * and leads to the rates. English and French. Screenshots at 375 and 1280 px, light and dark, go to
 * test-results/admin-rates-*.png for a person to look at.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { executeServerCommand, setViewport } from '@web/test-runner-commands';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { FakeAdminApi, makeSession } from './admin-fake-api.js';
import { $, $$, click, focused, mount, openTab, part, settle, text } from './admin-helpers.js';

const rows = (el: PaylinkAdmin) => $$(el, '[part~="rate-row"]');

async function mountRates(api = new FakeAdminApi(), locale = 'en', theme?: 'light' | 'dark') {
  const el = await mount(api, { view: 'rates', locale, theme });
  await waitUntil(() => $(el, '[part~="rates-table"]'), 'rates shown');
  await settle(el);
  return el;
}

describe('<paylink-admin> rates', () => {
  it('is accessible', async () => {
    const el = await mountRates();
    await expect(el).to.be.accessible();
  });

  it('shows per pair the rate, the spread, each source’s value, age and word, and whether it is quoted', async () => {
    const api = new FakeAdminApi();
    const el = await mountRates(api);
    expect(api.calls('GET', '/rates')).to.have.length(1);
    expect(rows(el)).to.have.length(2);
    const [usdt, naira] = rows(el);
    expect(text(usdt!.querySelector('th'))).to.match(/USDT\/USD$/);
    expect(text(usdt)).to.contain('Quoted').and.contain('0.99985').and.contain('0.02%');
    const sources = [...usdt!.querySelectorAll('[part~="rate-source"]')].map(text);
    expect(sources[0]).to.match(/^coingecko 0\.9998 1\d s · agrees$/);
    expect(sources[2]).to.match(/^kraken 0\.111111 1\d s · outlier$/);
    expect(text(naira!.querySelector('[part~="rate-status"]'))).to.equal('Held');
    expect(text(naira)).to.contain('paylink rates accept USD/NGN').and.contain('0.12%');
    expect(text(naira!.querySelectorAll('[part~="rate-source"]')[2])).to.equal('exchangerate — failed');
  });

  it('reads the rates again when the tab is shown again', async () => {
    const api = new FakeAdminApi();
    const el = await mountRates(api);
    await openTab(el, 'orders');
    api.rates = { ...api.rates, markets: [{ ...api.rates.markets[1]!, pair: 'USD/NGN', perUsd: '2401', reason: null, message: null }] };
    await click(el, $(el, '#tab-rates')!);
    await waitUntil(() => rows(el).length === 1 && text(rows(el)[0]).includes('Quoted'), 'the accepted move is quoted');
  });

  it('speaks French', async () => {
    const el = await mountRates(new FakeAdminApi(), 'fr');
    expect(text($(el, '#tab-rates'))).to.equal('Taux');
    expect(text(part(el, 'rates-table').querySelector('thead')))
      .to.contain('Paire')
      .and.contain('Écart');
    expect(text(rows(el)[0]))
      .to.contain('Coté')
      .and.contain('concorde')
      .and.contain('écarté');
    expect(text(rows(el)[1]))
      .to.contain('Retenu')
      .and.contain('en échec');
  });

  it('a payment’s detail shows what its quote was made of, and leads to the rates', async () => {
    const api = new FakeAdminApi();
    api.sessions.push(makeSession());
    const el = await mount(api, { view: 'payments' });
    await waitUntil(() => $(el, '[part~="open-payment"]'), 'payments');
    await click(el, $(el, '[part~="open-payment"]')!);
    await waitUntil(() => $(el, '[part~="rate-basis"]'), 'the basis');
    expect(text(part(el, 'rate-basis'))).to.equal('USD/NGN 1,538.5: coingecko 1,537.5, coinbase 1,539.5, exchangerate 1,490 ✗');
    await click(el, part(el, 'show-rates'));
    await waitUntil(() => $(el, '[part~="rates-table"]'), 'the rates tab');
    await settle(el);
    expect(el.view).to.equal('rates');
    expect(focused(el)?.id).to.equal('rates-heading');
  });

  it('screenshots at 375 and 1280 px, light and dark', async () => {
    for (const theme of ['light', 'dark'] as const)
      for (const width of [375, 1280]) {
        await setViewport({ width, height: 900 });
        const el = await mountRates(new FakeAdminApi(), 'en', theme);
        const box = el.getBoundingClientRect();
        expect(el.scrollWidth, 'nothing runs off the side').to.be.at.most(el.clientWidth + 1);
        await executeServerCommand('admin-screenshot', {
          name: `admin-rates-${width}-${theme}`,
          clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 2400) },
        });
        el.remove();
      }
    await setViewport({ width: 800, height: 600 });
  });
});
