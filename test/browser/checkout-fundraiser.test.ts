/**
 * `<paylink-checkout>` on a fundraiser: a donation link with a goal shows what it raised of the goal
 * and from how many donors over an accessible progress bar, which moves while the page is open; with
 * the `donors` attribute, the latest donors who chose to be shown, their words as text. The donation
 * form takes the donor's name, message and choice to be shown.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import '../../src/checkout.js';
import type { PaylinkCheckout } from '../../src/components/checkout/paylink-checkout.js';
import { audit, has, part, parts, text, until } from './checkout-helpers.js';
import type { PublicDonor, PublicLink } from '../../src/core/schemas.js';
import { FakeCheckoutApi, makeDonation, makeLink } from './checkout-fake-api.js';

const fund = (overrides: Partial<PublicLink> = {}) => makeDonation({ goalAmount: '500000.00', raised: '125000.50', donorCount: 12, ...overrides });
const DONORS: PublicDonor[] = [
  { name: 'Ada', message: 'For the books', amount: '5000.00', currency: 'NGN', paidAt: '2025-05-01T12:00:00.000Z' },
  { name: null, message: '<img src=x onerror="document.title=1"><b>bold</b>', amount: '20.00', currency: 'USD', paidAt: '2025-05-01T11:00:00.000Z' },
  { name: 'Chidi', message: null, amount: '1000.00', currency: 'NGN', paidAt: '2025-05-01T10:00:00.000Z' },
];

async function mount(api: FakeCheckoutApi, attributes: { donors?: string; locale?: string } = {}) {
  const locale = attributes.locale ?? 'en';
  const el = await fixture<PaylinkCheckout>(
    attributes.donors === undefined
      ? html`<paylink-checkout slug="give1" locale=${locale} .fetch=${api.fetch}></paylink-checkout>`
      : html`<paylink-checkout slug="give1" locale=${locale} donors=${attributes.donors} .fetch=${api.fetch}></paylink-checkout>`,
  );
  await until(el, () => el.machine.view === 'amount', 'the link');
  return el;
}

afterEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});

describe('<paylink-checkout> on a fundraiser', () => {
  it('passes an accessibility audit with its progress, donors and donor fields, in English and French, and once paid', async () => {
    const api = new FakeCheckoutApi(fund());
    api.donors = DONORS;
    const el = await mount(api, { donors: '' });
    await until(el, () => has(el, 'donor'), 'the donors');
    await audit(el, 'amount with progress and donors');
    await audit(await mount(api, { donors: '', locale: 'fr' }), 'in French');
    const give = await mount(api);
    part(give, 'chip').click();
    await give.updateComplete;
    part(give, 'pay-button').click();
    await until(give, () => give.machine.view === 'pay', 'pay');
    part(give, 'simulate').click();
    await until(give, () => give.machine.view === 'done', 'done');
    expect(has(give, 'progress'), 'the progress after giving').to.equal(true);
    await audit(give, 'done with progress');
  });

  it('shows what it raised of its goal, from how many donors, over a progress bar at the percent reached', async () => {
    const el = await mount(new FakeCheckoutApi(fund()));
    const bar = part(el, 'progress') as HTMLProgressElement;
    expect(bar.getAttribute('role')).to.equal('progressbar');
    expect(bar.getAttribute('aria-valuenow')).to.equal('25');
    expect(bar.value).to.equal(25);
    expect(bar.max).to.equal(100);
    expect(text(part(el, 'raised'))).to.equal('NGN 125,000.50 raised of NGN 500,000.00 · 12 donors');
    // Its accessible name is what it says.
    expect(el.shadowRoot!.getElementById(bar.getAttribute('aria-labelledby')!)).to.equal(part(el, 'raised'));
  });

  it('says one donor, stays full past the goal, and uses the locale’s formats', async () => {
    const one = await mount(new FakeCheckoutApi(fund({ raised: '750000', donorCount: 1 })));
    expect(part(one, 'progress').getAttribute('aria-valuenow')).to.equal('100');
    expect(text(part(one, 'raised'))).to.equal('NGN 750,000.00 raised of NGN 500,000.00 · 1 donor');
    const french = await mount(new FakeCheckoutApi(fund()), { locale: 'fr' });
    expect(text(part(french, 'raised'))).to.equal('125 000,50 NGN collectés sur 500 000,00 NGN · 12 donateurs');
  });

  it('takes its colour from --paylink-progress (the accent by default)', async () => {
    const el = await mount(new FakeCheckoutApi(fund()));
    const accent = getComputedStyle(part(el, 'progress')).accentColor;
    expect(accent).to.equal('rgb(79, 70, 229)');
    el.style.setProperty('--paylink-progress', 'rgb(1, 2, 3)');
    expect(getComputedStyle(part(el, 'progress')).accentColor).to.equal('rgb(1, 2, 3)');
  });

  it('shows no bar without a goal, and asks for nothing more (no poll) without a goal or donors', async () => {
    const api = new FakeCheckoutApi(makeDonation({ goalAmount: null, raised: '10.00', donorCount: 1 }), makeLink());
    const el = await mount(api);
    expect(has(el, 'progress')).to.equal(false);
    expect(api.callsTo('/give1').length, 'the link, read once').to.equal(1);
  });

  it('lists the latest public donors with the donors attribute: names and messages as text, never markup', async () => {
    const api = new FakeCheckoutApi(fund());
    api.donors = DONORS;
    const el = await mount(api, { donors: '2' });
    await until(el, () => parts(el, 'donor').length === 2, 'two donors');
    expect(api.callsTo('/give1/donors')[0]!.query.get('limit')).to.equal('2');
    // A donor's name, message and amount, each as it reads.
    const donor = (item: HTMLElement) => {
      const named = text(item.querySelector('[part~=donor-name]'));
      const message = text(item.querySelector('small'));
      return [named.slice(0, named.length - message.length), message, text(item).slice(named.length)];
    };
    expect(parts(el, 'donor').map(donor)).to.deep.equal([
      ['Ada', 'For the books', 'NGN 5,000.00'],
      ['', '<img src=x onerror="document.title=1"><b>bold</b>', '$20.00'],
    ]);
    const [, markup] = parts(el, 'donor');
    expect(markup!.querySelector('img, b'), 'no element made of a message').to.equal(null);
    expect(document.title).not.to.equal('1');
    // Without the attribute, no donor is asked for or shown.
    const quiet = new FakeCheckoutApi(fund());
    quiet.donors = DONORS;
    const none = await mount(quiet);
    expect(has(none, 'donors')).to.equal(false);
    expect(quiet.callsTo('/donors')).to.have.length(0);
  });

  it('moves while the page is open, at 375 px: a donation paid elsewhere shows within seconds, with its donor', async () => {
    await setViewport({ width: 375, height: 800 });
    try {
      const api = new FakeCheckoutApi(fund());
      api.donors = DONORS.slice(1);
      const el = await mount(api, { donors: '' });
      await until(el, () => parts(el, 'donor').length === 2, 'the donors');
      expect(part(el, 'card').getBoundingClientRect().right).to.be.at.most(375);
      // Someone else gives 300,000 NGN and chose to be shown.
      api.links.set('give1', fund({ raised: '425000.50', donorCount: 13 }));
      api.donors = DONORS;
      const before = api.callsTo('/give1').length;
      await until(el, () => part(el, 'progress').getAttribute('aria-valuenow') === '85', 'the bar to move', 8000);
      expect(text(part(el, 'raised'))).to.equal('NGN 425,000.50 raised of NGN 500,000.00 · 13 donors');
      await until(el, () => parts(el, 'donor').length === 3, 'the new donor', 8000);
      expect(text(parts(el, 'donor')[0])).to.equal('AdaFor the booksNGN 5,000.00');
      // One read of the link per poll, however many donors.
      expect(api.callsTo('/give1').length - before).to.be.at.most(2);
      const bar = part(el, 'progress').getBoundingClientRect();
      expect(bar.width).to.be.above(200);
      expect(bar.right).to.be.at.most(375);
    } finally {
      await setViewport({ width: 800, height: 600 });
    }
  });

  it('reads the donors again only when their count moved', async () => {
    const api = new FakeCheckoutApi(fund());
    api.donors = DONORS;
    const el = await mount(api, { donors: '' });
    await until(el, () => has(el, 'donor'), 'the donors');
    const reads = () => api.callsTo('/give1').length;
    const start = reads();
    await until(el, () => reads() >= start + 1, 'a poll', 8000);
    expect(api.callsTo('/donors')).to.have.length(1);
  });

  it('takes the donor’s name, message and choice to be shown, capped as the service caps them', async () => {
    const api = new FakeCheckoutApi(fund());
    const el = await mount(api);
    const name = el.shadowRoot!.getElementById('donorName') as HTMLInputElement;
    const message = el.shadowRoot!.getElementById('message') as HTMLInputElement;
    expect([name.maxLength, message.maxLength, name.autocomplete]).to.deep.equal([60, 280, 'name']);
    expect(text(name.labels![0])).to.equal('Your name');
    expect(text(part(el, 'check'))).to.equal('Show my gift publicly');
    expect((part(el, 'checkbox') as HTMLInputElement).checked, 'not shown unless chosen').to.equal(false);
    part(el, 'chip').click();
    name.value = 'Ada';
    name.dispatchEvent(new Event('input'));
    message.value = 'Keep reading';
    message.dispatchEvent(new Event('input'));
    part(el, 'checkbox').click();
    await el.updateComplete;
    part(el, 'pay-button').click();
    await until(el, () => el.machine.view === 'pay', 'pay');
    expect(api.callsTo('/sessions', 'POST')[0]!.body).to.include({ donorName: 'Ada', message: 'Keep reading', showPublicly: true });
  });

  it('has no donor fields on a Standard link', async () => {
    const api = new FakeCheckoutApi(makeLink());
    const el = await fixture<PaylinkCheckout>(html`<paylink-checkout slug="shop1" .fetch=${api.fetch}></paylink-checkout>`);
    await until(el, () => el.machine.view === 'amount', 'the link');
    expect(el.shadowRoot!.getElementById('donorName')).to.equal(null);
    expect(has(el, 'checkbox')).to.equal(false);
  });
});
