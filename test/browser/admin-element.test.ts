/**
 * `<paylink-admin>` as an element on a page: what its attributes and properties do to each other,
 * properties a framework sets before the script defines the element, one load for several changes
 * made at once, and what happens when it leaves the page and comes back. (The element's own base,
 * `internal/paylink-element.ts`, gives it these; the other admin tests use them without saying so.)
 */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import '../../src/admin.js';
import { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { $, mount, seededApi, settle, text } from './admin-helpers.js';

describe('<paylink-admin> as an element', () => {
  it('shows the tab named by its view attribute, and writes the view back when it changes', async () => {
    const api = seededApi();
    const el = await mount(api, { view: 'money' });
    expect(el.view).to.equal('money');
    expect($(el, '#tab-money')!.getAttribute('aria-selected')).to.equal('true');
    el.view = 'webhooks';
    await el.updateComplete;
    expect(el.getAttribute('view')).to.equal('webhooks');
    expect($(el, '#tab-webhooks')!.getAttribute('aria-selected')).to.equal('true');
  });

  it('shows the links for a view it does not know, in the property and the attribute', async () => {
    const el = await mount(seededApi(), { view: 'nowhere' });
    expect(el.view).to.equal('links');
    expect(el.getAttribute('view')).to.equal('links');
    expect($(el, '#tab-links')!.getAttribute('aria-selected')).to.equal('true');
  });

  it('writes theme back to its attribute, and removes it when unset', async () => {
    const el = await mount(seededApi());
    expect(el.hasAttribute('theme')).to.equal(false);
    el.theme = 'dark';
    await el.updateComplete;
    expect(el.getAttribute('theme')).to.equal('dark');
    expect(getComputedStyle(el).colorScheme).to.equal('dark');
    el.theme = undefined;
    await el.updateComplete;
    expect(el.hasAttribute('theme')).to.equal(false);
  });

  it('reads poll-interval as a number', async () => {
    const el = await mount(seededApi());
    expect(el.pollInterval).to.equal(300);
    el.setAttribute('poll-interval', '2500');
    expect(el.pollInterval).to.equal(2500);
  });

  it('uses the properties a framework set before the element was defined', async () => {
    // A tag of its own, defined only after its properties are set: as a page whose script loads last.
    const tag = 'paylink-admin-late';
    const api = seededApi();
    const early = document.createElement(tag) as PaylinkAdmin;
    early.fetch = api.fetch;
    early.token = 'set-before-definition';
    early.setAttribute('locale', 'fr');
    document.body.append(early);
    customElements.define(tag, class extends PaylinkAdmin {});
    try {
      await waitUntil(() => early.shadowRoot?.querySelector('[part~="link-row"]'), 'the links are listed');
      expect(api.calls('GET', '/payment-link')[0]!.headers.authorization).to.equal('Bearer set-before-definition');
      expect(early.token).to.equal('set-before-definition');
      expect(text(early.shadowRoot!.querySelector('#tab-links'))).to.equal('Liens de paiement');
    } finally {
      early.remove();
    }
  });

  it('loads once for several changes made at once', async () => {
    const api = seededApi();
    const el = await mount(api);
    const before = api.requests.length;
    el.apiBase = '/elsewhere';
    el.token = 'new-token';
    el.locale = 'fr';
    await settle(el);
    const lists = api.requests.slice(before).filter((request) => request.path.endsWith('/payment-link'));
    expect(lists.map((request) => [request.path, request.headers.authorization])).to.deep.equal([['/elsewhere/admin/payment-link', 'Bearer new-token']]);
    expect(text($(el, '#tab-links'))).to.equal('Liens de paiement');
  });

  it('shows fresh data when it comes back on the page', async () => {
    const api = seededApi();
    const el = await mount(api);
    const parent = el.parentElement!;
    el.remove();
    api.links[0]!.title = 'Renamed while away';
    parent.append(el);
    await waitUntil(() => text($(el, '[part~="link-row"]')).includes('Renamed while away'), 'the list loaded again');
  });

  it('resolves updateComplete once what was set is on screen', async () => {
    const el = await fixture<PaylinkAdmin>(html`<paylink-admin .fetch=${seededApi().fetch}></paylink-admin>`);
    el.locale = 'fr';
    expect(await el.updateComplete).to.equal(true);
    expect(text($(el, '#tab-links'))).to.equal('Liens de paiement');
  });
});
