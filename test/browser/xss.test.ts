/**
 * Hardening: markup in every server string both elements render stays text, and the
 * checkout follows no redirect but an absolute http(s) one.
 *
 * Each payload goes into every string field an element shows. For each, the payload must be there
 * as text (textContent or a control's value); no `img`, `script`, `iframe`, `svg[onload]`, element
 * with an `on*` attribute or `javascript:` link may appear anywhere in the shadow tree; and
 * `window.__xss`, which every payload would set, stays undefined. Navigations are caught with the
 * Navigation API (and cancelled), so a redirect that got through is seen without leaving the page.
 */
import { aTimeout, expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import '../../src/admin.js';
import '../../src/checkout.js';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import type { PaylinkCheckout } from '../../src/components/checkout/paylink-checkout.js';
import type { CheckoutSession } from '../../src/core/schemas.js';
import { FakeAdminApi, errorResponse as adminError, makeLink as makeAdminLink, makeWithdrawal } from './admin-fake-api.js';
import { $, $$, CHECKSUMMED, click as aClick, errorFor, field as aField, mount, part as aPart, settle, type as aType } from './admin-helpers.js';
import { FakeCheckoutApi, errorResponse as checkoutError, makeDonation, makeLink, makeSession, SANDBOX_CHAIN_FACTS } from './checkout-fake-api.js';

declare global {
  interface Window {
    __xss?: unknown;
  }
}

/** Each would set `window.__xss` if it ever became markup, a handler or a followed link. */
const PAYLOADS = [
  '<img src=x onerror="window.__xss=1">',
  '<script>window.__xss=1</script>',
  '"><svg onload="window.__xss=1">',
  `'><iframe srcdoc="<script>parent.__xss=1</script>"></iframe>`,
  'javascript:window.__xss=1',
];

// ---------------------------------------------------------------------------------------------
// Helpers

const text = (node: Element | null | undefined) => (node?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** Every element under `root`, through nested shadow roots. */
function* walk(root: ParentNode): Generator<Element> {
  for (const element of root.querySelectorAll('*')) {
    yield element;
    if (element.shadowRoot) yield* walk(element.shadowRoot);
  }
}

/** What in `host`'s shadow tree could run script: it must all be empty. */
function dangerous(host: Element): string[] {
  const found: string[] = [];
  for (const element of walk(host.shadowRoot!)) {
    const tag = element.localName;
    const handlers = [...element.attributes].filter((attribute) => /^on/i.test(attribute.name));
    const href = element.getAttribute('href') ?? element.getAttribute('xlink:href') ?? '';
    if (
      ['img', 'script', 'iframe', 'object', 'embed'].includes(tag) ||
      (tag == 'svg' && element.hasAttribute('onload')) ||
      handlers.length ||
      /^\s*(javascript|data|vbscript):/i.test(href)
    )
      found.push(element.outerHTML.slice(0, 160));
  }
  return found;
}

/** Everything `host` shows as text: its shadow tree's text and the values of its controls. */
function shown(host: Element): string {
  const values = [...walk(host.shadowRoot!)]
    .filter((element): element is HTMLInputElement | HTMLTextAreaElement => element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)
    .map((control) => control.value);
  return [host.shadowRoot!.textContent ?? '', ...values].join('\n');
}

/** How many times `needle` occurs in `haystack`. */
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

/**
 * Checks that nothing in `host` could run script, then, after a pause, that nothing ran. `dangerous`
 * is the check that decides; the pause is a backstop with time that must pass: an `<img src=x>` made
 * and dropped by a render fires its `onerror` once its request fails, and nothing on the page can be
 * waited on for that (an image started after it may fail first).
 */
async function expectInert(host: Element, where: string): Promise<void> {
  await aTimeout(50);
  expect(dangerous(host), `${where}: elements made from server text`).to.deep.equal([]);
  expect(window.__xss, `${where}: a payload ran`).to.equal(undefined);
}

/** Navigations attempted (and cancelled) since the last `beforeEach`. */
let navigations: string[] = [];
interface NavigateEventLike extends Event {
  destination: { url: string };
}
const navigation = (window as unknown as { navigation?: EventTarget }).navigation;
const onNavigate = (event: Event) => {
  navigations.push((event as NavigateEventLike).destination.url);
  event.preventDefault();
};

before(() => {
  expect(navigation, 'the Navigation API (to catch redirects without leaving the test page)').to.exist;
  navigation!.addEventListener('navigate', onNavigate);
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async () => {} } });
});
after(() => navigation?.removeEventListener('navigate', onNavigate));
beforeEach(() => {
  delete window.__xss;
  navigations = [];
  localStorage.clear();
  sessionStorage.clear();
});

// ---------------------------------------------------------------------------------------------
// <paylink-checkout>

function cPart(el: PaylinkCheckout, name: string): HTMLElement {
  const found = el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`);
  if (!found) throw new Error(`No [part~="${name}"] in: ${text(el.shadowRoot!.querySelector('[part~=card]'))}`);
  return found;
}
function cButton(el: PaylinkCheckout, label: RegExp): HTMLButtonElement {
  const buttons = [...el.shadowRoot!.querySelectorAll('button')];
  const found = buttons.find((b) => label.test(text(b)));
  if (!found) throw new Error(`No button ${label}; buttons: ${buttons.map(text).join(' | ')}`);
  return found;
}
function cField(el: PaylinkCheckout, label: RegExp): HTMLInputElement {
  const match = [...el.shadowRoot!.querySelectorAll('label')].find((l) => label.test(text(l)));
  if (!match) throw new Error(`No field labelled ${label}`);
  return el.shadowRoot!.getElementById(match.htmlFor) as HTMLInputElement;
}
async function cType(el: PaylinkCheckout, control: HTMLInputElement, value: string) {
  control.value = value;
  control.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  await el.updateComplete;
}
async function cClick(el: PaylinkCheckout, target: HTMLElement) {
  target.click();
  await el.updateComplete;
}
async function view(el: PaylinkCheckout, wanted: PaylinkCheckout['machine']['view']) {
  await waitUntil(() => el.machine.view === wanted, `view ${wanted}, still ${el.machine.view}`, { timeout: 4000 });
  await el.updateComplete;
}
async function mountCheckout(api: FakeCheckoutApi, slug = [...api.links.keys()][0] ?? 'missing') {
  const el = await fixture<PaylinkCheckout>(html`<paylink-checkout slug=${slug} locale="en" .fetch=${api.fetch}></paylink-checkout>`);
  await waitUntil(() => el.machine.view !== 'loading', 'the link to load', { timeout: 4000 });
  await el.updateComplete;
  return el;
}
/**
 * Mounts the link, pays in USDT and waits for the confirmation. The redirect is decided with it
 * (`redirectTo` is set as the navigation starts): a test then reads the decision at once.
 */
async function paidWith(action: CheckoutSession['postpayAction'], session: Partial<CheckoutSession> = {}, onSuccess?: (event: Event) => void) {
  const api = new FakeCheckoutApi(makeLink());
  api.onSimulate = (current) => ({
    status: 'paid',
    paidAmount: current.cryptoAmount,
    remainingAmount: '0',
    txHash: '0xabc123',
    postpayAction: action,
    ...session,
  });
  const el = await mountCheckout(api);
  if (onSuccess) el.addEventListener('paylink-success', onSuccess);
  await cClick(el, cButton(el, /USDT/));
  await view(el, 'pay');
  await cClick(el, cButton(el, /Simulate/));
  await view(el, 'done');
  return el;
}

describe('<paylink-checkout> renders server strings as text', () => {
  for (const payload of PAYLOADS) {
    describe(payload, () => {
      it('in the link title, description, cart item name and description, and network name', async () => {
        const api = new FakeCheckoutApi(
          makeLink({
            title: payload,
            description: payload,
            cart: { items: [{ name: payload, description: payload, quantity: 1, unitAmount: '10' }] },
            assets: [{ assetId: 'USDT', blockchainId: 'bsc', networkName: payload, ...SANDBOX_CHAIN_FACTS }],
          }),
        );
        const el = await mountCheckout(api);
        expect(el.machine.view).to.equal('amount');
        expect(text(cPart(el, 'heading'))).to.equal(payload);
        expect(text(cPart(el, 'description'))).to.equal(payload);
        expect(occurrences(text(cPart(el, 'item-name')), payload)).to.equal(2);
        expect(text(cPart(el, 'item-name').querySelector('small')).startsWith(payload)).to.equal(true);
        expect(text(cPart(el, 'asset'))).to.contain(payload);
        await expectInert(el, 'amount step');
      });

      it('in a donation’s title and description', async () => {
        const el = await mountCheckout(new FakeCheckoutApi(makeDonation({ title: payload, description: payload })));
        expect(text(cPart(el, 'heading'))).to.equal(payload);
        expect(text(cPart(el, 'description'))).to.equal(payload);
        await expectInert(el, 'donation');
      });

      it('in the pay address and network name while paying', async () => {
        const api = new FakeCheckoutApi(makeLink());
        api.nextSession = { payAddress: payload, networkName: payload };
        const el = await mountCheckout(api);
        await cClick(el, cButton(el, /USDT/));
        await view(el, 'pay');
        expect(text(cPart(el, 'address'))).to.equal(payload);
        expect(text(cPart(el, 'warning'))).to.contain(payload);
        await expectInert(el, 'pay step');
      });

      it('in the success message, network name and transaction hash of the receipt', async () => {
        const el = await paidWith(
          { redirect: false, showConfirmationPage: true, successMessage: payload, redirectUrl: payload },
          { networkName: payload, txHash: payload },
        );
        expect(text(cPart(el, 'message'))).to.equal(payload);
        const receipt = [...cPart(el, 'receipt').querySelectorAll('dd')].map(text);
        expect(receipt.filter((value) => value === payload)).to.have.length(1);
        // The hash is shown shortened to its ends; the whole of it is the title.
        expect(cPart(el, 'hash').title).to.equal(payload);
        expect(el.machine.redirectTo).to.equal('');
        expect(navigations).to.deep.equal([]);
        await expectInert(el, 'receipt');
      });

      it('in the server’s field errors beside the address and phone', async () => {
        const api = new FakeCheckoutApi(makeLink({ prepayOptions: { collectAddress: true, collectPhone: true } }));
        api.override = (call) =>
          call.path.endsWith('/sessions')
            ? checkoutError(400, 'validation_failed', payload, [
                { path: 'customer.address', message: payload },
                { path: 'customer.phone', message: payload },
              ])
            : undefined;
        const el = await mountCheckout(api);
        await cClick(el, cButton(el, /Continue/));
        await cType(el, cField(el, /address/i), '12 Marina Road, Lagos');
        await cType(el, cField(el, /phone/i), '+234 801 234 5678');
        await cClick(el, cButton(el, /USDT/));
        await waitUntil(() => !!text(el.shadowRoot!.getElementById('customer.phone-error')), 'the server errors', { timeout: 4000 });
        expect(text(el.shadowRoot!.getElementById('customer.address-error'))).to.equal(payload);
        expect(text(el.shadowRoot!.getElementById('customer.phone-error'))).to.equal(payload);
        await expectInert(el, 'details errors');
      });

      it('in the server’s field error beside a donation’s amount', async () => {
        const api = new FakeCheckoutApi(makeDonation());
        api.override = (call) =>
          call.path.endsWith('/sessions') ? checkoutError(400, 'validation_failed', payload, [{ path: 'fiatAmount', message: payload }]) : undefined;
        const el = await mountCheckout(api);
        await cType(el, cField(el, /Amount/), '1000');
        await cClick(el, cButton(el, /USDT/));
        await waitUntil(() => !!text(el.shadowRoot!.getElementById('fiatAmount-error')), 'the server error', { timeout: 4000 });
        expect(text(el.shadowRoot!.getElementById('fiatAmount-error'))).to.equal(payload);
        await expectInert(el, 'amount error');
      });

      it('in the server’s error message (passed on in paylink-error, never rendered as markup)', async () => {
        const api = new FakeCheckoutApi(makeLink());
        api.override = (call) =>
          call.path.endsWith('/sessions') ? checkoutError(400, 'bad_request', payload, [{ path: 'assetId', message: payload }]) : undefined;
        const el = await mountCheckout(api);
        const failed = oneEvent(el, 'paylink-error');
        await cClick(el, cButton(el, /USDT/));
        expect((await failed).detail.message).to.equal(payload);
        await view(el, 'error');
        await expectInert(el, 'error screen');

        const missing = new FakeCheckoutApi();
        missing.override = () => checkoutError(404, 'not_found', payload);
        const notFound = await mountCheckout(missing, 'nope');
        expect(notFound.machine.view).to.equal('notFound');
        await expectInert(notFound, 'not found screen');
      });
    });
  }
});

describe('<paylink-checkout> follows only http(s) redirects', () => {
  const UNSAFE = [
    'javascript:window.__xss=1',
    'JaVaScRiPt:window.__xss=1',
    ' javascript:window.__xss=1',
    '\tjava\nscript:window.__xss=1',
    'data:text/html,<script>parent.__xss=1</script>',
    'data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3M9MTwvc2NyaXB0Pg==',
    'vbscript:msgbox(1)',
    'blob:https://evil.example/0c1d',
    'file:///etc/passwd',
    '//evil.example/phish',
    '/\\evil.example',
    'evil.example/thanks',
    '',
  ];
  for (const redirectUrl of UNSAFE) {
    it(`refuses ${JSON.stringify(redirectUrl)} and shows the success message instead`, async () => {
      let successes = 0;
      const el = await paidWith({ redirect: true, showConfirmationPage: false, successMessage: 'Paid, thanks', redirectUrl }, {}, () => successes++);
      expect(successes).to.equal(1);
      expect(el.machine.redirectTo).to.equal('');
      expect(navigations).to.deep.equal([]);
      expect(text(cPart(el, 'message'))).to.equal('Paid, thanks');
      expect(el.shadowRoot!.querySelector('a')).to.equal(null);
      await expectInert(el, 'refused redirect');
    });
  }

  it('follows an https redirect, and offers it as a link', async () => {
    const el = await paidWith({ redirect: true, showConfirmationPage: false, successMessage: 'Done', redirectUrl: 'https://shop.example/thanks?order=1' });
    await waitUntil(() => navigations.length > 0, 'the navigation');
    expect(navigations).to.deep.equal(['https://shop.example/thanks?order=1']);
    expect(el.machine.redirectTo).to.equal('https://shop.example/thanks?order=1');
    expect(cPart(el, 'primary').getAttribute('href')).to.equal('https://shop.example/thanks?order=1');
    await expectInert(el, 'https redirect');
  });

  it('does not navigate when the page cancels paylink-success', async () => {
    const el = await paidWith(
      { redirect: true, showConfirmationPage: false, successMessage: 'Done', redirectUrl: 'https://shop.example/thanks' },
      {},
      (event) => event.preventDefault(),
    );
    expect(el.machine.redirectTo).to.equal('');
    expect(navigations).to.deep.equal([]);
    expect(text(cPart(el, 'message'))).to.equal('Done');
    await expectInert(el, 'cancelled redirect');
  });

  it('ignores redirectUrl when redirect is off', async () => {
    const el = await paidWith({ redirect: false, showConfirmationPage: false, successMessage: 'Done', redirectUrl: 'https://shop.example/thanks' });
    expect(el.machine.redirectTo).to.equal('');
    expect(navigations).to.deep.equal([]);
  });

  it('never follows a redirect from a resumed session that is not paid', async () => {
    const api = new FakeCheckoutApi(makeLink());
    api.sessions.set(
      'ses_9',
      makeSession({ id: 'ses_9', postpayAction: { redirect: true, showConfirmationPage: false, successMessage: 'x', redirectUrl: 'https://shop.example/' } }),
    );
    localStorage.setItem('paylink:session:shop1', 'ses_9');
    const el = await mountCheckout(api);
    expect(el.machine.view).to.equal('pay');
    expect(el.machine.redirectTo).to.equal('');
    expect(navigations).to.deep.equal([]);
  });
});

// ---------------------------------------------------------------------------------------------
// <paylink-admin>

const mountAdmin = (api: FakeAdminApi, view: 'links' | 'money' = 'links') => mount(api, { view });

describe('<paylink-admin> renders server strings as text', () => {
  for (const payload of PAYLOADS) {
    describe(payload, () => {
      it('in the list and the detail: title, description, slug and URL', async () => {
        const api = new FakeAdminApi();
        api.links.push(makeAdminLink({ title: payload, description: payload, slug: payload, url: payload }));
        const el = await mountAdmin(api);
        await waitUntil(() => $(el, '[part~="link-row"]'), 'the list');
        expect(text(aPart(el, 'link-title'))).to.equal(payload);
        expect(text(aPart(el, 'link-row').querySelector('.sub'))).to.equal(payload);
        await expectInert(el, 'list');

        await aClick(el, aPart(el, 'link-title'));
        await waitUntil(() => $(el, '[part~="link-detail"]'), 'the detail');
        await settle(el);
        expect(text($(el, '#link-detail-heading'))).to.equal(payload);
        expect(text($(el, '[part~="link-detail"] .description'))).to.equal(payload);
        expect((aPart(el, 'public-url') as HTMLInputElement).value).to.equal(payload);
        // Not an http(s) URL: no "open the page" link at all.
        expect($(el, '[part~="open-page"]')).to.equal(null);
        // The snippet keeps only slug characters that cannot break out of its attribute.
        const snippet = (aPart(el, 'embed-snippet') as HTMLTextAreaElement).value;
        expect(snippet).to.match(/<paylink-checkout slug="[A-Za-z0-9_-]*"><\/paylink-checkout>$/);
        await expectInert(el, 'detail');
      });

      it('in an http URL whose path carries the payload (an attribute, never markup)', async () => {
        const api = new FakeAdminApi();
        const url = `https://pay.example.com/pay/${payload}`;
        api.links.push(makeAdminLink({ title: 'Tickets', url }));
        const el = await mountAdmin(api);
        await waitUntil(() => $(el, '[part~="link-row"]'), 'the list');
        await aClick(el, aPart(el, 'link-title'));
        await waitUntil(() => $(el, '[part~="open-page"]'), 'the detail');
        expect(aPart(el, 'open-page').getAttribute('href')).to.equal(url);
        expect((aPart(el, 'public-url') as HTMLInputElement).value).to.equal(url);
        await expectInert(el, 'detail with an http URL');
      });

      it('in the edit form: title, description, cart item names, success message', async () => {
        const api = new FakeAdminApi();
        api.links.push(
          makeAdminLink({
            title: payload,
            description: payload,
            cart: {
              items: [
                { name: payload, quantity: 1, unitAmount: '10.00', description: payload },
                { name: payload, quantity: 2, unitAmount: '5.00' },
              ],
            },
            postpayAction: { redirect: false, showConfirmationPage: false, successMessage: payload, redirectUrl: payload },
          }),
        );
        const el = await mountAdmin(api);
        await waitUntil(() => $(el, '[part~="edit-link"]'), 'the list');
        expect(aPart(el, 'edit-link').getAttribute('aria-label')).to.contain(payload);
        await aClick(el, aPart(el, 'edit-link'));
        await settle(el);
        expect(text($(el, '#link-form-heading'))).to.contain(payload);
        expect(aField(el, 'Title').value).to.equal(payload);
        expect(aField(el, 'Description').value).to.equal(payload);
        const names = $$(el, '[part~="item-name"]') as HTMLInputElement[];
        expect(names.map((input) => input.value)).to.deep.equal([payload, payload]);
        expect(($(el, '#lf-success-message') as HTMLTextAreaElement).value).to.equal(payload);
        expect($$(el, '[part~="remove-item"]').map((b) => b.getAttribute('aria-label'))).to.deep.equal([
          `Remove ${payload.trim()}`,
          `Remove ${payload.trim()}`,
        ]);
        await expectInert(el, 'edit form');
      });

      it('in the withdrawal history: address, transaction hash and failure reason', async () => {
        const api = new FakeAdminApi();
        api.withdrawals.push(
          makeWithdrawal({ status: 'failed', address: payload, txHash: payload, failureReason: payload }),
          makeWithdrawal({ status: 'success', address: payload, txHash: payload }),
        );
        const el = await mountAdmin(api, 'money');
        await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 2, 'the history');
        const [failed, done] = $$(el, '[part~="withdrawal-row"]');
        expect(occurrences(text(failed), payload), 'address, hash and reason').to.equal(3);
        expect(occurrences(text(done), payload), 'address and hash').to.equal(2);
        for (const row of [failed!, done!]) {
          expect(row.querySelector('.address-short')!.getAttribute('title')).to.equal(payload);
          expect(row.querySelector('[part~="tx-hash"]')!.getAttribute('title')).to.equal(payload);
        }
        await expectInert(el, 'history');
      });

      it('in the server’s errors beside the link form’s fields and above them', async () => {
        const api = new FakeAdminApi();
        api.intercept((r) =>
          r.method === 'POST'
            ? adminError(400, 'validation_failed', payload, [
                { path: 'title', message: payload },
                { path: 'action.successMessage', message: payload },
                { path: 'somethingElse', message: payload },
              ])
            : undefined,
        );
        const el = await mountAdmin(api);
        await aClick(el, aPart(el, 'new-link'));
        await aType(el, aField(el, 'Title'), 'Workshop');
        await aType(el, aField(el, 'Amount (NGN)'), '100');
        await aClick(el, aPart(el, 'submit'));
        await waitUntil(() => $$(el, '[part~="field-error"]').length === 2, 'the server errors');
        expect(errorFor(el, aField(el, 'Title'))).to.equal(payload);
        expect(errorFor(el, $(el, '#lf-success-message')!)).to.equal(payload);
        expect(text(aPart(el, 'form-error'))).to.equal(payload);
        await expectInert(el, 'link form errors');
      });

      it('in the server’s refusals beside the withdrawal’s amount and address', async () => {
        const api = new FakeAdminApi();
        let answer = () => adminError(422, 'insufficient_balance', payload);
        api.intercept((r) => (r.method === 'POST' ? answer() : undefined));
        const el = await mountAdmin(api, 'money');
        await waitUntil(() => text(aPart(el, 'balance-usdt')).includes('125.5'), 'the balance');
        const review = async () => {
          await aType(el, aField(el, 'Destination address'), CHECKSUMMED);
          await aType(el, aField(el, /^Amount/), '20');
          await aClick(el, aPart(el, 'review'));
          await waitUntil(() => $(el, '[part~="withdraw-confirm"]'), 'the confirm step');
          await aClick(el, aPart(el, 'confirm'));
          await waitUntil(() => $(el, '[part~="withdraw-form"] [part~="field-error"]'), 'the refusal');
        };
        await review();
        expect(errorFor(el, aField(el, /^Amount/))).to.equal(payload);
        await expectInert(el, 'amount refusal');

        answer = () =>
          adminError(400, 'validation_failed', payload, [
            { path: 'address', message: payload },
            { path: 'memo', message: payload },
          ]);
        await review();
        expect(errorFor(el, aField(el, 'Destination address'))).to.equal(payload);
        expect(text(aPart(el, 'form-error'))).to.equal(payload);
        await expectInert(el, 'address refusal');
      });

      it('in the server’s message when a list fails to load', async () => {
        const api = new FakeAdminApi();
        api.intercept(() => adminError(500, 'internal', payload));
        const el = await mountAdmin(api);
        await waitUntil(() => $(el, '[part~="error"]'), 'the error');
        expect(text($(el, '[part~="error"] p'))).to.equal(payload);
        await expectInert(el, 'list error');
      });
    });
  }
});

describe('<paylink-admin> refuses unsafe redirect URLs', () => {
  for (const url of [
    'javascript:window.__xss=1',
    ' javascript:window.__xss=1',
    'JAVASCRIPT:window.__xss=1',
    'data:text/html,<script>parent.__xss=1</script>',
    '//evil.example/thanks',
    'vbscript:msgbox(1)',
    'https://',
  ]) {
    it(`refuses ${JSON.stringify(url)} beside the field, without calling the server`, async () => {
      const api = new FakeAdminApi();
      const el = await mountAdmin(api);
      await aClick(el, aPart(el, 'new-link'));
      await aType(el, aField(el, 'Title'), 'Tickets');
      await aType(el, aField(el, 'Amount (NGN)'), '100');
      const redirect = $(el, '#lf-after-redirect') as HTMLInputElement;
      redirect.checked = true;
      redirect.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
      await el.updateComplete;
      const field = aField(el, 'Redirect URL');
      await aType(el, field, url);
      await aClick(el, aPart(el, 'submit'));
      await settle(el);
      expect(api.calls('POST', '/payment-link')).to.have.length(0);
      expect(field.getAttribute('aria-invalid')).to.equal('true');
      expect(errorFor(el, field)).to.contain('https://');
      await expectInert(el, 'redirect field');
    });
  }
});
