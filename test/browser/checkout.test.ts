import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/checkout.js';
import type { PaylinkCheckout } from '../../src/components/checkout/paylink-checkout.js';
import type { CheckoutSession, PublicLink } from '../../src/core/schemas.js';
import { ADDRESS, FakeCheckoutApi, PAID_ACTION, errorResponse, makeDonation, makeLink, makeSession } from './checkout-fake-api.js';
import { audit, has, part, parts, text, until } from './checkout-helpers.js';

// ---------------------------------------------------------------------------------------------
// Helpers: everything is found by `part` or role inside the element's shadow root.

const heading = (el: PaylinkCheckout) => text(part(el, 'heading'));
const status = (el: PaylinkCheckout) => text(part(el, 'status'));

/** The button whose text matches. */
function button(el: PaylinkCheckout, label: RegExp): HTMLButtonElement {
  const buttons = [...el.shadowRoot!.querySelectorAll('button')];
  const found = buttons.find((b) => label.test(text(b)));
  if (!found) throw new Error(`No button ${label}; buttons: ${buttons.map(text).join(' | ')}`);
  return found;
}
/** The control labelled `label` (its `<label for>`). */
function field(el: PaylinkCheckout, label: RegExp): HTMLInputElement {
  const match = [...el.shadowRoot!.querySelectorAll('label')].find((l) => label.test(text(l)));
  if (!match) throw new Error(`No field labelled ${label}`);
  return el.shadowRoot!.getElementById(match.htmlFor) as HTMLInputElement;
}
async function type(el: PaylinkCheckout, control: HTMLInputElement, value: string) {
  control.focus();
  control.value = value;
  control.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  await el.updateComplete;
}
/** Chooses the asset `assetId` (on BNB Smart Chain) in the asset selector, as a customer would. */
async function chooseAsset(el: PaylinkCheckout, assetId: string) {
  const select = part(el, 'assets') as HTMLSelectElement;
  select.value = `${assetId} bsc`;
  select.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
  await el.updateComplete;
}
async function click(el: PaylinkCheckout, target: HTMLElement) {
  target.click();
  await el.updateComplete;
}
async function view(el: PaylinkCheckout, wanted: PaylinkCheckout['machine']['view']) {
  await until(el, () => el.machine.view === wanted, `view ${wanted}, still ${el.machine.view}: ${text(el.shadowRoot!.querySelector('[part~=card]'))}`);
}

async function mount(api: FakeCheckoutApi, slug = [...api.links.keys()][0] ?? 'missing', locale = 'en') {
  const el = await fixture<PaylinkCheckout>(html`<paylink-checkout slug=${slug} locale=${locale} .fetch=${api.fetch}></paylink-checkout>`);
  await until(el, () => el.machine.view !== 'loading', 'the link to load');
  return el;
}

/** Mounts `link` and goes to the payment screen in USDT. */
async function toPay(api: FakeCheckoutApi, link: PublicLink = [...api.links.values()][0]!) {
  const el = await mount(api, link.slug);
  await click(el, button(el, /USDT/));
  await view(el, 'pay');
  return el;
}

let copied: string[] = [];
before(() => {
  // Headless Chromium refuses the real clipboard without a user gesture; a stand-in records.
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (value: string) => void copied.push(value) } });
});
beforeEach(() => {
  copied = [];
  localStorage.clear();
  sessionStorage.clear();
});

describe('<paylink-checkout>', () => {
  it('passes an accessibility audit in every state', async () => {
    const api = new FakeCheckoutApi(
      makeLink({ title: 'Standard', prepayOptions: { collectAddress: true, collectPhone: true } }),
      makeDonation(),
      makeLink({ slug: 'off', state: 'inactive', isActive: false }),
      makeDonation({ slug: 'over', state: 'closed', closesAt: '2024-05-01T12:00:00.000Z' }),
    );
    const pending = new FakeCheckoutApi(makeLink());
    pending.override = () => new Promise(() => {});
    const loading = await fixture<PaylinkCheckout>(html`<paylink-checkout slug="shop1" .fetch=${pending.fetch}></paylink-checkout>`);
    await audit(loading, 'loading');

    const standard = await mount(api, 'shop1');
    await audit(standard, 'amount (cart)');
    await click(standard, button(standard, /Continue/));
    await audit(standard, 'details (empty)');
    await click(standard, button(standard, /USDT/));
    await audit(standard, 'details (errors)');
    await type(standard, field(standard, /address/i), '12 Marina Road, Lagos');
    await type(standard, field(standard, /phone/i), '+234 801 234 5678');
    await click(standard, button(standard, /USDT/));
    await view(standard, 'pay');
    await audit(standard, 'pay');
    await click(standard, button(standard, /Simulate/));
    await view(standard, 'done');
    await audit(standard, 'done (receipt)');

    const donation = await mount(api, 'give1');
    await audit(donation, 'amount (donation)');
    await type(donation, field(donation, /Amount/), '10');
    await click(donation, button(donation, /USDT/));
    await audit(donation, 'amount (donation, too little)');

    await audit(await mount(api, 'nope'), 'not found');
    await audit(await mount(api, 'off'), 'inactive');
    await audit(await mount(api, 'over'), 'closed');

    const offline = new FakeCheckoutApi(makeLink());
    offline.override = () => Promise.reject(new TypeError('Failed to fetch'));
    await audit(await mount(offline, 'shop1'), 'network error');

    const unpriced = new FakeCheckoutApi(makeLink());
    unpriced.override = (call) => (call.path.endsWith('/sessions') ? errorResponse(503, 'rate_unavailable', 'No current exchange rate') : undefined);
    const stale = await mount(unpriced, 'shop1');
    await click(stale, button(stale, /USDT/));
    await view(stale, 'rates');
    await audit(stale, 'no current exchange rate');

    const expiring = new FakeCheckoutApi(makeLink());
    expiring.nextSession = { status: 'expired' };
    const expired = await mount(expiring, 'shop1');
    await click(expired, button(expired, /USDT/));
    await view(expired, 'expired');
    await audit(expired, 'expired');

    const partial = new FakeCheckoutApi(makeLink());
    partial.onSimulate = () => ({ status: 'underpaid', paidAmount: '5', remainingAmount: '7.187813' });
    const underpaid = await toPay(partial);
    await click(underpaid, button(underpaid, /Simulate/));
    await until(underpaid, () => underpaid.machine.session?.status === 'underpaid', 'underpaid');
    await audit(underpaid, 'underpaid');
  });

  it('has sensible defaults: the /paylink proxy, the page locale, the reader’s colour scheme', async () => {
    const api = new FakeCheckoutApi(makeLink());
    const el = document.createElement('paylink-checkout');
    expect(el.apiBase).to.equal('/paylink');
    expect(el.slug).to.equal('');
    expect(el.locale).to.equal('');
    expect(el.theme).to.equal(undefined);
    expect(el.hasAttribute('theme')).to.equal(false);
    el.fetch = api.fetch;
    el.slug = 'shop1';
    const ready = oneEvent(el, 'paylink-ready');
    document.body.append(el);
    const { detail } = await ready;
    expect(detail.link.title).to.equal('Coffee order');
    expect(api.calls[0]).to.deep.include({ method: 'GET', path: '/paylink/checkout/shop1' });
    await view(el, 'amount');
    // The first screen never steals focus from the merchant's page.
    expect(el.shadowRoot!.activeElement).to.equal(null);
    // No attribute exposes the injected fetch.
    expect([...el.attributes].map((a) => a.name).sort()).to.deep.equal([]);
    el.remove();
  });

  describe('when the link is a Standard link with a cart', () => {
    it('shows each item, its line total and the exact total, with nothing to edit', async () => {
      const el = await mount(new FakeCheckoutApi(makeLink()));
      expect(heading(el)).to.equal('Coffee order');
      const items = parts(el, 'cart-item').map(text);
      expect(items[0]).to.contain('Yirgacheffe 250 g').and.contain('2 × NGN 8,500.00').and.contain('NGN 17,000.00');
      expect(items[1]).to.contain('1 × NGN 2,500.50');
      expect(text(part(el, 'total'))).to.equal('Total NGN 19,500.50');
      expect(el.shadowRoot!.querySelector('input:not([type=radio]), textarea'), 'nothing to edit: only the asset to choose').to.equal(null);
    });

    it('prices a link without cart in big type and pays it with no amount in the request', async () => {
      const api = new FakeCheckoutApi(makeLink({ cart: { items: [] }, fiatAmount: '45', fiatCurrency: ['USD'] }));
      const el = await mount(api);
      expect(text(part(el, 'price'))).to.equal('$45.00');
      await click(el, button(el, /USDT/));
      await view(el, 'pay');
      expect(api.callsTo('/sessions', 'POST')[0]!.body).to.deep.equal({ assetId: 'USDT', blockchainId: 'bsc', fiatCurrency: 'USD' });
    });

    it('renders server strings as text, never as HTML', async () => {
      const el = await mount(new FakeCheckoutApi(makeLink({ title: '<img src=x onerror=alert(1)>', description: '<b>bold</b>' })));
      expect(heading(el)).to.equal('<img src=x onerror=alert(1)>');
      expect(el.shadowRoot!.querySelector('img, b')).to.equal(null);
    });

    it('offers each (asset, network) pair of the link, and starts the session on the pair chosen', async () => {
      const link = makeLink();
      const polygon = { ...link.assets[0]!, blockchainId: 'polygon', networkName: 'Polygon' };
      const api = new FakeCheckoutApi(makeLink({ assets: [...link.assets, polygon] }));
      const el = await mount(api);
      expect(parts(el, 'asset').map(text)).to.deep.equal(['USDT · BNB Smart Chain', 'cNGN · BNB Smart Chain', 'USDT · Polygon']);
      const select = part(el, 'assets') as HTMLSelectElement;
      // A narrow select may clip its text: the network chosen is also said in full under it.
      const hint = () => text(el.shadowRoot!.getElementById(select.getAttribute('aria-describedby')!));
      expect(hint()).to.equal('Network: BNB Smart Chain');
      select.value = 'USDT polygon';
      select.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
      await el.updateComplete;
      expect(text(part(el, 'pay-button'))).to.equal('Pay NGN 19,500.50 · USDT');
      expect(hint()).to.equal('Network: Polygon');
      await click(el, part(el, 'pay-button'));
      await view(el, 'pay');
      const body = api.callsTo('/sessions', 'POST')[0]!.body!;
      expect([body.assetId, body.blockchainId]).to.deep.equal(['USDT', 'polygon']);
    });

    it('offers one choice of asset, each naming its network, and one pay button that fits a phone', async () => {
      const api = new FakeCheckoutApi(makeLink());
      const el = await mount(api);
      expect(parts(el, 'asset').map(text)).to.deep.equal(['USDT · BNB Smart Chain', 'cNGN · BNB Smart Chain']);
      expect((part(el, 'assets') as HTMLSelectElement).value).to.equal('USDT bsc');
      expect(parts(el, 'pay-button').map(text)).to.deep.equal(['Pay NGN 19,500.50 · USDT']);
      await chooseAsset(el, 'CNGN');
      expect(text(part(el, 'pay-button'))).to.equal('Pay NGN 19,500.50 · cNGN');
      await click(el, part(el, 'pay-button'));
      await view(el, 'pay');
      expect(api.callsTo('/sessions', 'POST')[0]!.body!.assetId).to.equal('CNGN');
      expect(api.callsTo('/sessions', 'POST')[0]!.body!.blockchainId).to.equal('bsc');
    });
  });

  describe('when the link is a donation', () => {
    it('fills the amount from a suggestion chip and pays that amount', async () => {
      const api = new FakeCheckoutApi(makeDonation());
      const el = await mount(api);
      expect(parts(el, 'chip').map(text)).to.deep.equal(['NGN 1,000.00', 'NGN 5,000.00']);
      expect(text(button(el, /USDT/)), 'no amount chosen yet: no "Pay NGN 0.00"').to.equal('Pay with USDT');
      await click(el, parts(el, 'chip')[1]!);
      expect(text(button(el, /USDT/))).to.equal('Pay NGN 5,000.00 · USDT');
      expect(field(el, /Amount in NGN/).value).to.equal('5000');
      expect(parts(el, 'chip')[1]!.getAttribute('aria-pressed')).to.equal('true');
      await click(el, button(el, /USDT/));
      await view(el, 'pay');
      expect(api.callsTo('/sessions', 'POST')[0]!.body).to.deep.equal({ assetId: 'USDT', blockchainId: 'bsc', fiatCurrency: 'NGN', fiatAmount: '5000' });
    });

    it('enforces the minimum and maximum with a message beside the field', async () => {
      const api = new FakeCheckoutApi(makeDonation());
      const el = await mount(api);
      expect(text(part(el, 'hint'))).to.equal('Minimum NGN 500.00 · Maximum NGN 2,000,000.00');
      const input = field(el, /Amount/);
      for (const [typed, message] of [
        ['100', 'Minimum NGN 500.00'],
        ['3000000', 'Maximum NGN 2,000,000.00'],
        ['12.345', 'Enter an amount like NGN 1,000.00.'],
        ['abc', 'Enter an amount like NGN 1,000.00.'],
      ]) {
        await type(el, input, typed!);
        await click(el, button(el, /USDT/));
        expect(text(part(el, 'error')), typed).to.equal(message);
        expect(input.getAttribute('aria-invalid')).to.equal('true');
        expect(input.getAttribute('aria-describedby')).to.contain('fiatAmount-error');
      }
      expect(api.callsTo('/sessions')).to.have.length(0);
      await until(el, () => el.shadowRoot!.activeElement === input, 'focus on the amount');
    });

    it('reads amounts the way the reader writes them (French: 1 000,50)', async () => {
      const api = new FakeCheckoutApi(makeDonation());
      const el = await mount(api, 'give1', 'fr');
      await type(el, field(el, /Montant/), '1 000,50');
      await click(el, button(el, /USDT/));
      await view(el, 'pay');
      expect(api.callsTo('/sessions', 'POST')[0]!.body!.fiatAmount).to.equal('1000.50');
    });

    it('shows the server’s amount error beside the amount', async () => {
      const api = new FakeCheckoutApi(makeDonation());
      api.override = (call) =>
        call.path.endsWith('/sessions')
          ? errorResponse(400, 'validation_failed', 'Invalid', [{ path: 'fiatAmount', message: 'Too many digits for NGN' }])
          : undefined;
      const el = await mount(api);
      await type(el, field(el, /Amount/), '1000');
      const error = oneEvent(el, 'paylink-error');
      await click(el, button(el, /USDT/));
      expect((await error).detail.code).to.equal('validation_failed');
      await until(el, () => has(el, 'error'), 'the error');
      expect(text(part(el, 'error'))).to.equal('Too many digits for NGN');
    });
  });

  describe('when the link asks for the customer’s details', () => {
    const link = () => makeLink({ prepayOptions: { collectAddress: true, collectPhone: true } });

    it('asks for the address and phone with autofill hints, and checks them', async () => {
      const api = new FakeCheckoutApi(link());
      const el = await mount(api);
      await click(el, button(el, /Continue/));
      await view(el, 'details');
      expect(heading(el)).to.equal('Your details');
      expect(el.shadowRoot!.activeElement).to.equal(part(el, 'heading'));
      const address = field(el, /Delivery address/);
      const phone = field(el, /Phone number/);
      expect(address.getAttribute('autocomplete')).to.equal('street-address');
      expect(phone.getAttribute('autocomplete')).to.equal('tel');
      expect(phone.type).to.equal('tel');
      await type(el, address, '12 Marina');
      await type(el, phone, '12ab');
      await click(el, button(el, /USDT/));
      expect(parts(el, 'error').map(text).filter(Boolean)).to.deep.equal(['Use the international form: +234 801 234 5678.']);
      expect(api.callsTo('/sessions')).to.have.length(0);
      await type(el, phone, '+234 801 234 5678');
      await click(el, button(el, /USDT/));
      await view(el, 'pay');
      expect(api.callsTo('/sessions', 'POST')[0]!.body!.customer).to.deep.equal({ address: '12 Marina', phone: '+234 801 234 5678' });
    });

    it('shows the server’s field error beside the field it names', async () => {
      const api = new FakeCheckoutApi(link());
      api.override = (call) =>
        call.path.endsWith('/sessions')
          ? errorResponse(400, 'validation_failed', 'Invalid', [{ path: 'customer.phone', message: 'This number cannot receive calls' }])
          : undefined;
      const el = await mount(api);
      await click(el, button(el, /Continue/));
      await type(el, field(el, /address/i), '12 Marina Road');
      await type(el, field(el, /phone/i), '+234 801 234 5678');
      await click(el, button(el, /USDT/));
      await until(el, () => !!text(el.shadowRoot!.getElementById('customer.phone-error')), 'the server error');
      const phone = field(el, /phone/i);
      expect(phone.getAttribute('aria-invalid')).to.equal('true');
      expect(text(el.shadowRoot!.getElementById('customer.phone-error'))).to.equal('This number cannot receive calls');
    });
  });

  describe('when paying', () => {
    it('shows the QR code, exact amount, address, network warning and the time the price is held', async () => {
      const el = await toPay(new FakeCheckoutApi(makeLink()));
      expect(heading(el)).to.equal('Send 12.187813 USDT');
      expect(part(el, 'qr').getAttribute('role')).to.equal('img');
      expect(part(el, 'qr').getAttribute('aria-label')).to.equal('QR code of the address');
      expect(part(el, 'qr').querySelector('path')!.getAttribute('d')).to.match(/^M4 4h7/);
      expect(text(part(el, 'amount'))).to.equal('12.187813 USDT');
      expect(text(part(el, 'address'))).to.equal(ADDRESS);
      expect(text(part(el, 'warning'))).to.equal('Only USDT on BNB Smart Chain: a network not offered here is not seen.');
      expect(text(part(el, 'countdown'))).to.match(/^Price held for 1[45]:\d\d$/);
      expect(part(el, 'countdown').getAttribute('role')).to.equal('timer');
    });

    it('shows the exchange rate behind the fiat equivalent, in the reader’s language', async () => {
      const el = await toPay(new FakeCheckoutApi(makeLink()));
      expect(text(part(el, 'fiat'))).to.equal('NGN 19,500.50');
      expect(text(part(el, 'rate'))).to.equal('1 USDT = NGN 1,600.00');
      const fr = await mount(new FakeCheckoutApi(makeLink()), 'shop1', 'fr');
      await click(fr, button(fr, /USDT/));
      await view(fr, 'pay');
      expect(text(part(fr, 'rate'))).to.match(/^1 USDT = 1\s600,00\sNGN$/);
      // A real market rate: the price of one USDT, rounded to the currency's digits.
      const market = new FakeCheckoutApi(makeLink());
      market.nextSession = { rate: '0.000620193500372116100223' };
      expect(text(part(await toPay(market), 'rate'))).to.equal('1 USDT = NGN 1,612.40');
      // Under a cent (cNGN in dollars) the currency's digits cannot show it: nothing rather than "$0.00".
      const cents = new FakeCheckoutApi(makeLink({ fiatCurrency: ['USD'], fiatAmount: '10.00' }));
      cents.nextSession = { assetId: 'CNGN', fiatCurrency: 'USD', rate: '1612.4' };
      expect(text(part(await toPay(cents), 'rate'))).to.equal('');
      // A session quoted before rates were recorded has none to show.
      const old = new FakeCheckoutApi(makeLink());
      old.nextSession = { rate: null, rateSource: null, rateAt: null };
      expect(text(part(await toPay(old), 'rate'))).to.equal('');
    });

    it('copies the address and the amount, and says so on the button and to screen readers', async () => {
      const el = await toPay(new FakeCheckoutApi(makeLink()));
      const [copyAmount, copyAddress] = parts(el, 'copy-button');
      expect(copyAddress!.getAttribute('aria-label')).to.equal('Copy: To this address');
      await click(el, copyAddress!);
      await until(el, () => copied.length === 1, 'the copy');
      expect(copied).to.deep.equal([ADDRESS]);
      expect(text(copyAddress)).to.equal('✓ Copied');
      expect(copyAddress!.getAttribute('aria-label')).to.equal('Copied: To this address');
      expect(status(el)).to.equal('Copied: To this address');
      await click(el, copyAmount!);
      await until(el, () => copied.length === 2, 'the second copy');
      expect(copied[1]).to.equal('12.187813');
      expect(text(copyAmount)).to.equal('✓ Copied');
      expect(text(copyAddress)).to.equal('Copy');
    });

    it('fires paylink-success only once the server reports the session paid', async () => {
      const api = new FakeCheckoutApi(makeLink());
      let successes = 0;
      const el = await mount(api);
      el.addEventListener('paylink-success', () => successes++);
      const started = oneEvent(el, 'paylink-session');
      await click(el, button(el, /USDT/));
      expect((await started).detail.session.status).to.equal('awaiting_payment');
      await view(el, 'pay');
      expect(successes).to.equal(0);
      const success = oneEvent(el, 'paylink-success');
      await click(el, button(el, /Simulate payment/));
      const { detail } = await success;
      expect(detail.session.status).to.equal('paid');
      expect(api.callsTo('/simulate-payment', 'POST')).to.have.length(1);
      await view(el, 'done');
      expect(successes).to.equal(1);
      expect(status(el)).to.equal('Payment received');
    });

    it('follows the status by polling when there is no stream, and tells screen readers', async () => {
      const api = new FakeCheckoutApi(makeLink({ sandbox: false }));
      const el = await toPay(api);
      expect(has(el, 'simulate')).to.equal(false);
      const id = el.machine.session!.id;
      api.sessions.set(id, { ...api.sessions.get(id)!, status: 'paid', paidAmount: '12.187813', txHash: '0xfeed', postpayAction: PAID_ACTION });
      await view(el, 'done');
      expect(api.callsTo(`/sessions/${id}`, 'GET').length).to.be.greaterThan(0);
      expect(status(el)).to.equal('Payment received');
      expect(el.shadowRoot!.activeElement).to.equal(part(el, 'heading'));
    });
  });

  describe('when the payment is done', () => {
    async function paidWith(action: CheckoutSession['postpayAction'], onSuccess?: (event: Event) => void) {
      const api = new FakeCheckoutApi(makeLink());
      api.onSimulate = (session) => ({ status: 'paid', paidAmount: session.cryptoAmount, remainingAmount: '0', txHash: '0xabc123', postpayAction: action });
      const el = await toPay(api);
      if (onSuccess) el.addEventListener('paylink-success', onSuccess);
      await click(el, button(el, /Simulate/));
      await view(el, 'done');
      return el;
    }

    it('shows the merchant’s message and the payment’s details on the confirmation page', async () => {
      const el = await paidWith(PAID_ACTION);
      expect(heading(el)).to.equal('Payment received');
      expect(text(part(el, 'message'))).to.equal('Your beans are on their way.');
      const receipt = text(part(el, 'receipt'));
      expect(receipt).to.contain('NGN 19,500.50 · 12.187813 USDT').and.contain('BNB Smart Chain').and.contain('0xabc123');
    });

    it('offers the way back to an https redirect (the page may cancel the navigation)', async () => {
      const el = await paidWith({ redirect: true, showConfirmationPage: false, successMessage: 'Done', redirectUrl: 'https://shop.example/thanks' }, (event) =>
        event.preventDefault(),
      );
      expect(has(el, 'primary')).to.equal(false);
      expect(text(part(el, 'message'))).to.equal('Done');
    });

    it('refuses a javascript: redirect and shows the success message instead', async () => {
      let navigated = false;
      const el = await paidWith(
        { redirect: true, showConfirmationPage: false, successMessage: 'Paid, thanks', redirectUrl: 'javascript:alert(1)' },
        () => (navigated = true),
      );
      expect(navigated).to.equal(true); // the event still fires…
      expect(el.machine.redirectTo).to.equal(''); // …but nothing navigates
      expect(text(part(el, 'message'))).to.equal('Paid, thanks');
      expect(el.shadowRoot!.querySelector('a')).to.equal(null);
    });
  });

  describe('when the link is not found', () => {
    it('says so and tells the page', async () => {
      const api = new FakeCheckoutApi();
      const el = document.createElement('paylink-checkout');
      el.fetch = api.fetch;
      el.slug = 'nope';
      const error = oneEvent(el, 'paylink-error');
      document.body.append(el);
      expect((await error).detail.code).to.equal('not_found');
      await view(el, 'notFound');
      expect(heading(el)).to.equal('Payment link not found');
      expect(status(el)).to.equal('Payment link not found');
      el.remove();
    });
  });

  describe('when the link is inactive', () => {
    it('says payments are paused, with no way to pay', async () => {
      const el = await mount(new FakeCheckoutApi(makeLink({ state: 'inactive', isActive: false })));
      expect(heading(el)).to.equal('Payments are paused');
      expect(el.shadowRoot!.querySelector('button')).to.equal(null);
    });
  });

  describe('when the donation has closed', () => {
    it('says when it closed, in the reader’s language', async () => {
      const link = makeDonation({ state: 'closed', closesAt: '2024-05-01T12:00:00.000Z' });
      const el = await mount(new FakeCheckoutApi(link));
      expect(heading(el)).to.equal('Payments are closed');
      expect(text(part(el, 'state'))).to.match(/Closed since May 1, 2024/);
      const fr = await mount(new FakeCheckoutApi(link), 'give1', 'fr');
      expect(heading(fr)).to.equal('Les paiements sont clos');
      expect(text(part(fr, 'state'))).to.match(/Clos depuis le 1 mai 2024/);
    });

    it('shows the closed screen when the server refuses a session with 410', async () => {
      const api = new FakeCheckoutApi(makeDonation());
      api.override = (call) => (call.path.endsWith('/sessions') ? errorResponse(410, 'link_closed', 'Closed') : undefined);
      const el = await mount(api);
      await type(el, field(el, /Amount/), '1000');
      await click(el, button(el, /USDT/));
      await view(el, 'closed');
    });
  });

  describe('when the quote expires', () => {
    it('says so and starts again with a fresh quote', async () => {
      const api = new FakeCheckoutApi(makeLink());
      const el = await toPay(api);
      const id = el.machine.session!.id;
      api.sessions.set(id, { ...api.sessions.get(id)!, status: 'expired' });
      await view(el, 'expired');
      expect(heading(el)).to.equal('This quote has expired');
      expect(status(el)).to.equal('This quote has expired');
      await click(el, button(el, /Start again/));
      await view(el, 'amount');
      await click(el, button(el, /USDT/));
      await view(el, 'pay');
      expect(api.callsTo('/sessions', 'POST')).to.have.length(2);
    });
  });

  describe('when the customer sends too little', () => {
    it('says what is left to send and keeps waiting', async () => {
      const api = new FakeCheckoutApi(makeLink());
      api.onSimulate = () => ({ status: 'underpaid', paidAmount: '5', remainingAmount: '7.187813' });
      let successes = 0;
      const el = await toPay(api);
      el.addEventListener('paylink-success', () => successes++);
      await click(el, button(el, /Simulate/));
      await until(el, () => el.machine.session?.status === 'underpaid', 'underpaid');
      expect(heading(el)).to.equal('Payment incomplete');
      expect(text(part(el, 'notice'))).to.equal('We received 5 USDT. Send the remaining 7.187813 USDT.');
      expect(text(part(el, 'amount'))).to.equal('7.187813 USDT');
      expect(status(el)).to.equal('Payment incomplete');
      expect(successes).to.equal(0);
    });
  });

  describe('when the network fails', () => {
    it('offers to try again, and recovers', async () => {
      const api = new FakeCheckoutApi(makeLink());
      let offline = true;
      api.override = () => (offline ? Promise.reject(new TypeError('Failed to fetch')) : undefined);
      const el = await mount(api);
      expect(heading(el)).to.equal('Connection failed');
      offline = false;
      await click(el, button(el, /Try again/));
      await view(el, 'amount');
      expect(heading(el)).to.equal('Coffee order');
      expect(el.shadowRoot!.activeElement).to.equal(part(el, 'heading'));
    });
  });

  describe('when no current exchange rate prices the payment', () => {
    it('says so in the reader’s language, took nothing, and tries again from the asset choice', async () => {
      for (const [locale, words, nothingTaken, retry] of [
        ['en', 'Prices unavailable', 'No money was taken.', /Try again/],
        ['fr', 'Prix indisponibles', 'Rien n’a été prélevé.', /Réessayer/],
      ] as const) {
        const api = new FakeCheckoutApi(makeLink());
        let stale = true;
        api.override = (call) =>
          stale && call.path.endsWith('/sessions') ? errorResponse(503, 'rate_unavailable', 'No current exchange rate for USDT in NGN') : undefined;
        const el = await mount(api, 'shop1', locale);
        const failed = oneEvent(el, 'paylink-error');
        await click(el, button(el, /USDT/));
        expect((await failed).detail.code).to.equal('rate_unavailable');
        await view(el, 'rates');
        expect(heading(el)).to.equal(words);
        expect(text(part(el, 'state'))).to.contain(nothingTaken);
        expect(status(el)).to.equal(words);
        expect(part(el, 'state').getAttribute('part')).to.equal('state rates');
        stale = false;
        await click(el, button(el, retry));
        await view(el, 'amount');
        await click(el, button(el, /USDT/));
        await view(el, 'pay');
        expect(api.callsTo('/sessions', 'POST')).to.have.length(2);
      }
    });
  });

  describe('when the page reloads during a payment', () => {
    it('resumes the pending session and counts the visit once', async () => {
      const api = new FakeCheckoutApi(makeLink());
      const first = await toPay(api);
      const id = first.machine.session!.id;
      first.remove();
      const again = await mount(api);
      expect(again.machine.view).to.equal('pay');
      expect(again.machine.session!.id).to.equal(id);
      const visits = api.callsTo('/visits', 'POST');
      expect(visits).to.have.length(2);
      expect(visits[0]!.body).to.deep.equal({});
      expect(visits[1]!.body).to.deep.equal({ visitId: 'visit-0001' });
    });
  });

  describe('when used from the keyboard', () => {
    it('takes a donation with Tab, Space, typing, the arrow keys and Enter', async () => {
      const api = new FakeCheckoutApi(makeDonation());
      const el = await mount(api);
      const before = document.createElement('button');
      before.textContent = 'Merchant page';
      el.before(before);
      before.focus();
      await sendKeys({ press: 'Tab' });
      expect(el.shadowRoot!.activeElement).to.equal(parts(el, 'chip')[0]);
      await sendKeys({ press: 'Tab' });
      await sendKeys({ press: 'Space' });
      await el.updateComplete;
      expect(parts(el, 'chip')[1]!.getAttribute('aria-pressed')).to.equal('true');
      await sendKeys({ press: 'Tab' });
      expect(el.shadowRoot!.activeElement).to.equal(field(el, /Amount/));
      await sendKeys({ down: 'Control' });
      await sendKeys({ press: 'a' });
      await sendKeys({ up: 'Control' });
      await sendKeys({ type: '2500' });
      await el.updateComplete;
      expect(field(el, /Amount/).value).to.equal('2500');
      expect(parts(el, 'chip').map((chip) => chip.getAttribute('aria-pressed'))).to.deep.equal(['false', 'false']);
      // The donor's name, message and choice to be shown: typed, typed, Space.
      await sendKeys({ press: 'Tab' });
      expect(el.shadowRoot!.activeElement).to.equal(field(el, /name/));
      await sendKeys({ type: 'Ada' });
      await sendKeys({ press: 'Tab' });
      expect(el.shadowRoot!.activeElement).to.equal(field(el, /Message/));
      await sendKeys({ type: 'For the books' });
      await sendKeys({ press: 'Tab' });
      expect(el.shadowRoot!.activeElement).to.equal(part(el, 'checkbox'));
      await sendKeys({ press: 'Space' });
      await sendKeys({ press: 'Tab' });
      expect(el.shadowRoot!.activeElement).to.equal(part(el, 'assets'));
      await sendKeys({ press: 'ArrowDown' });
      await el.updateComplete;
      expect(text(part(el, 'pay-button'))).to.contain('cNGN');
      await sendKeys({ press: 'Tab' });
      expect(el.shadowRoot!.activeElement).to.equal(part(el, 'pay-button'));
      await sendKeys({ press: 'Enter' });
      await view(el, 'pay');
      expect(api.callsTo('/sessions', 'POST')[0]!.body).to.include({
        assetId: 'CNGN',
        fiatAmount: '2500',
        donorName: 'Ada',
        message: 'For the books',
        showPublicly: true,
      });
      expect(el.shadowRoot!.activeElement, 'focus moves to the new step').to.equal(part(el, 'heading'));
      before.remove();
    });

    it('submits the amount with Enter in the field, and shows the refusal in place of the hint', async () => {
      const api = new FakeCheckoutApi(makeDonation());
      const el = await mount(api);
      field(el, /Amount/).focus();
      await sendKeys({ type: '100' });
      await sendKeys({ press: 'Enter' });
      await el.updateComplete;
      expect(text(part(el, 'error'))).to.equal('Minimum NGN 500.00');
      const hints = [...el.shadowRoot!.querySelectorAll<HTMLElement>('[part~="hint"]')].map(text);
      expect(hints.join(' '), 'the minimum is said once, as the error').not.to.contain('500');
      expect(api.callsTo('/sessions')).to.have.length(0);
    });
  });

  describe('when themed and localized', () => {
    it('follows theme="dark", reflects the theme property, and speaks French', async () => {
      const api = new FakeCheckoutApi(makeLink());
      const el = await mount(api, 'shop1', 'fr');
      el.theme = 'dark';
      await el.updateComplete;
      expect(el.getAttribute('theme')).to.equal('dark');
      expect(getComputedStyle(part(el, 'card')).backgroundColor).to.equal('rgb(23, 25, 30)');
      expect(text(part(el, 'total'))).to.equal('Total 19 500,50 NGN'); // grouping and currency spaced by (narrow) no-break spaces
      expect(text(part(el, 'pay-button'))).to.match(/^Payer 19\s500,50\sNGN · USDT$/);
      expect(parts(el, 'asset').map(text)[0]).to.equal('USDT · BNB Smart Chain');
      el.style.setProperty('--paylink-bg', 'rgb(1, 2, 3)');
      expect(getComputedStyle(part(el, 'card')).backgroundColor).to.equal('rgb(1, 2, 3)');
    });
  });

  describe('against the real service', () => {
    // The config starts the service (PGlite, migrations, seed) on first use: that start is not what
    // these tests time, and on a loaded machine it outlasts a test's 10 s.
    before(async function (this: { timeout(ms: number): void }) {
      this.timeout(120_000);
      await fetch('/__test/seed');
    });

    it('loads a real link, starts a session, takes a sandbox payment and confirms it', async function () {
      const { slugs } = await (await fetch('/__test/seed')).json();
      const el = await fixture<PaylinkCheckout>(html`<paylink-checkout slug=${slugs.store} locale="en"></paylink-checkout>`);
      await until(el, () => el.machine.view === 'amount', 'the real link');
      expect(heading(el)).to.equal('Browser test store');
      expect(text(part(el, 'total'))).to.equal('Total $9.00');
      await click(el, button(el, /USDT/));
      await view(el, 'pay');
      expect(text(part(el, 'address'))).to.match(/^0x[0-9a-fA-F]{40}$/);
      const success = oneEvent(el, 'paylink-success');
      await click(el, button(el, /Simulate payment/));
      expect((await success).detail.session.status).to.equal('paid');
      await view(el, 'done');
      expect(text(part(el, 'message'))).to.equal('Thanks from the real service!');
      expect(part(el, 'hash').title).to.match(/^0x[0-9a-f]{64}$/);
    });

    it('sends the page’s client-reference and metadata with the session; the service keeps the reference as clientReference only', async function () {
      const { slugs } = await (await fetch('/__test/seed')).json();
      const el = await fixture<PaylinkCheckout>(html`<paylink-checkout slug=${slugs.store} client-reference="cart-1042"></paylink-checkout>`);
      el.metadata = { cart: 'c_9', channel: 'web' };
      await until(el, () => el.machine.view === 'amount', 'the real link');
      const started = oneEvent(el, 'paylink-session');
      await click(el, button(el, /USDT/));
      const { session } = (await started).detail;
      // The keyed read is the merchant's server's (the key never reaches the page; the test runner holds it).
      const stored = await (await fetch(`/__test/session/${session.id}`)).json();
      expect(stored.id).to.equal(session.id);
      expect(stored.clientReference).to.equal('cart-1042');
      expect(stored.reference, 'only the merchant’s server names its order').to.equal(null);
      expect(stored.metadata).to.deep.equal({ cart: 'c_9', channel: 'web' });
    });

    it('follows a payment made elsewhere over the live status stream', async function () {
      // The element's event streams, and the statuses each has heard.
      const heard: string[][] = [];
      const RealEventSource = window.EventSource;
      window.EventSource = class extends RealEventSource {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init);
          const statuses: string[] = [];
          heard.push(statuses);
          this.addEventListener('status', (event) => statuses.push(JSON.parse((event as MessageEvent<string>).data).status));
        }
      };
      try {
        const { slugs } = await (await fetch('/__test/seed')).json();
        const el = await fixture<PaylinkCheckout>(html`<paylink-checkout slug=${slugs.simple}></paylink-checkout>`);
        await until(el, () => el.machine.view === 'amount', 'the real link');
        await chooseAsset(el, 'CNGN');
        await click(el, button(el, /cNGN/));
        await view(el, 'pay');
        // The stream's first status comes once the service follows the session: a payment from now on is news to it.
        await until(el, () => heard.length === 1 && heard[0]!.length > 0, 'the live status stream open');
        expect(heard[0]![0]).to.equal('awaiting_payment');
        // Another tab (or the chain) pays: the element hears it over SSE without polling.
        await fetch(`/paylink/checkout/sessions/${el.machine.session!.id}/simulate-payment`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        await until(el, () => el.machine.view === 'done', 'the stream to report the payment');
        expect(text(part(el, 'message'))).to.equal('Booked.');
        expect(heard.length, 'one stream').to.equal(1);
        expect(heard[0]!.at(-1), 'the payment heard on it').to.equal('paid');
      } finally {
        window.EventSource = RealEventSource;
      }
    });
  });
});
