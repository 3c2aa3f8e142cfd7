/**
 * The registry of the admin's translation tables (`admin-locales.ts`) from the sources: a table
 * registered while an admin is on screen re-renders it, in every tab bar and view; a language without a
 * table shows English and says so in its `lang`. (The script-tag files register packed tables: the
 * same behaviour from `dist/` is in `test/browser/dist/admin-locale-file.test.ts`.)
 */
import { expect, waitUntil } from '@open-wc/testing';
import '../../src/admin.js';
import { registerAdminTable } from '../../src/components/admin/admin-locales.js';
import en from '../../src/components/admin/translations/en.js';
import { makeWithdrawal } from './admin-fake-api.js';
import { $, mount, seededApi, text } from './admin-helpers.js';

describe('<paylink-admin> translation tables', () => {
  it('shows English for a language without a table, then that language once its table is registered', async () => {
    const el = await mount(seededApi(), { locale: 'de-DE' });
    expect(text($(el, '#tab-links'))).to.equal('Payment links');
    expect($(el, '[part="base"]')!.getAttribute('lang')).to.equal('en');

    registerAdminTable('de', { ...en, tabLinks: 'Zahlungslinks', linksTitle: 'Zahlungslinks' });
    await waitUntil(() => text($(el, '#tab-links')) === 'Zahlungslinks', 'the admin renders with the new table');
    expect($(el, '[part="base"]')!.getAttribute('lang')).to.equal('de-DE');
    // A key the table leaves as English reads as English.
    expect(text($(el, '#tab-webhooks'))).to.equal(en.tabWebhooks);
  });

  it('has French built in from the npm modules', async () => {
    const el = await mount(seededApi(), { locale: 'fr' });
    expect(text($(el, '#tab-links'))).to.equal('Liens de paiement');
    expect($(el, '[part="base"]')!.getAttribute('lang')).to.equal('fr');
  });

  it("says in French why a withdrawal waits and what a network's alert is about", async () => {
    const api = seededApi();
    api.withdrawals.push(makeWithdrawal({ status: 'pending', txHash: null, stalledReason: 'hot_wallet_token' }));
    api.networks[0]!.alerts = [
      { code: 'hot_wallet_low', message: 'The hot wallet holds 2 USDT, under the 12 USDT that payouts owe.', since: new Date(0).toISOString() },
    ];
    const el = await mount(api, { locale: 'fr', view: 'money' });
    await waitUntil(() => $(el, '[part~="stalled-reason"]') && $(el, '[part~="network-alert"]'));
    expect(text($(el, '[part~="stalled-reason"]'))).to.equal('En attente : le portefeuille de paiement manque de fonds');
    expect(text($(el, '[part~="network-alert"]'))).to.contain('Portefeuille de paiement presque vide');
  });
});
