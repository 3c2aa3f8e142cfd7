/**
 * The admin's layout on a phone (375 px) and a desktop (1280 px): nothing runs off the side, every
 * column of a table can be read, tabs fit, cart rows keep their labels, headings outrank labels.
 * It also saves screenshots of each view at both widths, light and dark, under `test-results/`
 * (gitignored) for a person to look at.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { executeServerCommand, setViewport } from '@web/test-runner-commands';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { FakeAdminApi, makeDelivery, makeLink, makeOrder, makeSession, makeWithdrawal } from './admin-fake-api.js';
import { $, $$, button, click, field, mount, openMoney, openTab, part, settle, text, type } from './admin-helpers.js';

const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 900 };

/** A merchant with varied data: long titles, both kinds, every status. */
function realisticApi(): FakeAdminApi {
  const api = new FakeAdminApi();
  api.links.push(
    makeLink({
      title: 'Handmade leather weekender bag with brass buckles',
      description: 'Free delivery within Lagos; ships in three days',
      fiatAmount: '185000.00',
      visitedCount: 12480,
      paymentCount: 311,
    }),
    makeLink({
      title: 'School roof appeal',
      linkType: 'Donation',
      fiatAmount: '0.00',
      minAmount: '500.00',
      maxAmount: '1000000.00',
      visitedCount: 940,
      paymentCount: 87,
    }),
    makeLink({ title: 'Consultation', fiatAmount: '45.00', fiatCurrency: ['USD'], isActive: false, visitedCount: 12, paymentCount: 0 }),
  );
  api.withdrawals.push(
    makeWithdrawal({ status: 'pending', txHash: null, amount: '1250.500000', stalledReason: 'hot_wallet_token' }),
    makeWithdrawal({ status: 'failed', failureReason: 'The network refused the transfer: gas price too low' }),
    makeWithdrawal({ status: 'success', assetId: 'CNGN', amount: '98000.000000' }),
  );
  api.networks[0]!.alerts = [
    {
      code: 'hot_wallet_low',
      message:
        'The hot wallet 0x7099…79C8 on BNB Smart Chain holds 312.25 USDT, under the 1250.5 USDT that payouts owe: 1 withdrawal waits until it is topped up.',
      since: '2025-03-04T09:00:00.000Z',
    },
  ];
  const bag = api.links[0]!;
  api.sessions.push(
    makeSession({
      createdAt: '2025-03-01T09:00:00.000Z',
      linkId: bag.id,
      linkTitle: bag.title,
      status: 'expired',
      paidAmount: '0.000000',
      paidAt: null,
      transfers: [],
      reference: null,
    }),
    makeSession({
      createdAt: '2025-03-02T09:00:00.000Z',
      linkId: bag.id,
      linkTitle: bag.title,
      status: 'confirming',
      paidAmount: '0.000000',
      paidAt: null,
      customer: { address: null, phone: '+2348012345678', email: 'ngozi.okonkwo-adebayo@example.com' },
      transfers: [{ txHash: `0x${'5e'.repeat(32)}`, blockchainId: 'bsc', amount: '120.500000', confirmedAt: null, late: false }],
    }),
    makeSession({
      createdAt: '2025-03-03T09:00:00.000Z',
      linkId: bag.id,
      linkTitle: bag.title,
      status: 'paid',
      fiatAmount: '185000.00',
      cryptoAmount: '120.500000',
      paidAmount: '120.500000',
      lateAmount: '1.000000',
      paidAt: '2025-03-03T09:04:00.000Z',
      reference: 'order-2025-03-1042-LAGOS-EXPRESS',
      metadata: { cart: '42', campaign: 'instagram-spring-sale-2025' },
      customer: { address: 'Flat 4B, 12 Admiralty Way\nLekki Phase 1\nLagos 106104', phone: '+2348012345678', email: 'ada.lovelace@example.com' },
      transfers: [
        { txHash: `0x${'ab'.repeat(32)}`, blockchainId: 'bsc', amount: '120.500000', confirmedAt: '2025-03-03T09:04:00.000Z', late: false },
        { txHash: `0x${'cd'.repeat(32)}`, blockchainId: 'bsc', amount: '1.000000', confirmedAt: '2025-03-03T11:00:00.000Z', late: true },
      ],
    }),
  );
  api.orders.push(
    makeOrder({
      reference: 'wc-order-2025-03-1042-LAGOS-EXPRESS',
      title: 'Handmade leather weekender bag, gift wrapped',
      fiatAmount: '185000.00',
      fiatCurrency: 'NGN',
    }),
    makeOrder({ status: 'paid', paidAt: '2025-06-01T12:00:00.000Z', paidSessionId: '00000001-0000-4000-8000-000000000001' }),
    makeOrder({ status: 'cancelled', cancelledAt: '2025-06-01T13:00:00.000Z', title: '' }),
  );
  const endpoint = api.addEndpoint({
    url: 'https://api.handmade-leather.example/integrations/paylink/webhooks/production',
    description: 'Order fulfilment',
    events: ['checkout.session.paid', 'checkout.session.underpaid', 'payment.late'],
  });
  api.addEndpoint({ url: 'https://erp.example/in', isActive: false });
  api.deliveries.push(
    makeDelivery(endpoint.id),
    makeDelivery(endpoint.id, {
      eventType: 'checkout.session.underpaid',
      status: 'pending',
      attemptCount: 3,
      attempts: [{ at: '2025-04-02T10:00:00.000Z', statusCode: null, error: 'connect ECONNREFUSED: the endpoint refused the connection', durationMs: 14 }],
      nextAttemptAt: '2025-04-02T10:04:00.000Z',
      deliveredAt: null,
    }),
    makeDelivery(endpoint.id, {
      eventType: 'payment.late',
      status: 'failed',
      attempts: [{ at: '2025-04-05T10:00:00.000Z', statusCode: 503, error: 'HTTP 503', durationMs: 2300 }],
      deliveredAt: null,
    }),
  );
  return api;
}

/** Gives the element the whole width of the page, as on a phone. */
async function atWidth(size: { width: number; height: number }) {
  await setViewport(size);
  document.body.style.margin = '0';
}

/** True inside a box clipped to a pixel (text kept for screen readers only). */
function clippedAway(node: Element): boolean {
  for (let parent = node.parentElement; parent; parent = parent.parentElement) {
    const rect = parent.getBoundingClientRect();
    if ((rect.width <= 1 || rect.height <= 1) && getComputedStyle(parent).overflow === 'hidden') return true;
  }
  return false;
}

/** Everything in the admin that runs past its right or left edge, or scrolls sideways. */
function overflows(el: PaylinkAdmin): string[] {
  const problems: string[] = [];
  if (el.scrollWidth > el.clientWidth) problems.push(`host scrolls: ${el.scrollWidth} > ${el.clientWidth}`);
  const box = el.getBoundingClientRect();
  for (const node of el.shadowRoot!.querySelectorAll<HTMLElement>('*')) {
    const rect = node.getBoundingClientRect();
    // Unrendered, hidden, or clipped to a pixel for screen readers only (with all it holds).
    if (rect.width <= 1 || rect.height <= 1 || clippedAway(node)) continue;
    const name = `${node.localName}${node.getAttribute('part') ? `[part="${node.getAttribute('part')}"]` : ''}${node.className ? `.${String(node.className).replace(/\s+/g, '.')}` : ''}`;
    if (rect.right > box.right + 0.5 || rect.left < box.left - 0.5)
      problems.push(`${name} spans ${Math.round(rect.left)}–${Math.round(rect.right)} of ${Math.round(box.left)}–${Math.round(box.right)}`);
    // Form controls scroll their own text; everything else must fit its box.
    if (!/^(input|textarea|select)$/.test(node.localName) && node.clientWidth > 0 && node.scrollWidth > node.clientWidth + 1)
      problems.push(`${name} scrolls sideways: ${node.scrollWidth} > ${node.clientWidth}`);
  }
  return problems;
}

/**
 * Every rendered box in the admin whose edge is past the screen's, clipped or not: a header cell kept
 * for screen readers still lays out where it is, and a box past the screen widens the page.
 */
function offScreen(el: PaylinkAdmin): string[] {
  const width = document.documentElement.clientWidth;
  const problems: string[] = [];
  for (const node of el.shadowRoot!.querySelectorAll<HTMLElement>('*')) {
    const rect = node.getBoundingClientRect();
    if (rect.width === 0 && rect.height === 0) continue;
    if (rect.right > width + 0.5 || rect.left < -0.5)
      problems.push(
        `${node.localName}${node.getAttribute('part') ? `[part="${node.getAttribute('part')}"]` : ''} spans ${Math.round(rect.left)}–${Math.round(rect.right)} of 0–${width}`,
      );
  }
  if (document.documentElement.scrollWidth > width) problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  return problems;
}

function visible(node: Element | null): boolean {
  if (!node) return false;
  const rect = node.getBoundingClientRect();
  return rect.width > 1 && rect.height > 1 && getComputedStyle(node).visibility !== 'hidden';
}

/**
 * Checks that each row of `table` is a stacked card: every cell spans the row's width, and shows
 * its column's header as a visible label (except a column whose header is for screen readers only),
 * beside a visible value, inside the element.
 */
function expectStackedRows(el: PaylinkAdmin, table: HTMLElement) {
  const host = el.getBoundingClientRect();
  const headers = [...table.querySelectorAll('thead th')].map((th) => ({ label: text(th), hidden: !!th.querySelector('.visually-hidden') }));
  const rows = [...table.querySelectorAll<HTMLElement>('tbody tr')];
  expect(rows.length, 'rows to check').to.be.greaterThan(0);
  for (const row of rows) {
    const rowBox = row.getBoundingClientRect();
    const cells = [...row.querySelectorAll<HTMLElement>(':scope > th, :scope > td')];
    expect(cells).to.have.length(headers.length);
    cells.forEach((cell, index) => {
      const header = headers[index]!;
      const where = `"${header.label}" of ${text(row).slice(0, 40)}`;
      const cellBox = cell.getBoundingClientRect();
      expect(cellBox.width, `${where} spans the card`).to.be.greaterThan(rowBox.width * 0.8);
      expect(cellBox.right, `${where} inside the element`).to.be.at.most(host.right + 0.5);
      const value = cell.querySelector('.cell-value');
      expect(visible(value), `${where} shows its value`).to.equal(true);
      const label = cell.querySelector<HTMLElement>('[part~="cell-label"]');
      if (header.hidden) {
        expect(visible(label), `${where} needs no label`).to.equal(false);
        return;
      }
      expect(visible(label), `${where} shows its label`).to.equal(true);
      expect(text(label)).to.equal(header.label);
      const labelBox = label!.getBoundingClientRect();
      expect(labelBox.right, `${where}: label before its value`).to.be.at.most(value!.getBoundingClientRect().left + 0.5);
    });
  }
}

/** The animations in `root` and the shadow roots inside it that come to an end (transitions; not loops). */
function endingAnimations(root: ShadowRoot): Animation[] {
  const own = root.getAnimations().filter((animation) => Number.isFinite(animation.effect?.getComputedTiming().endTime));
  return [...own, ...[...root.querySelectorAll('*')].flatMap((node) => (node.shadowRoot ? endingAnimations(node.shadowRoot) : []))];
}

async function screenshot(el: PaylinkAdmin, name: string) {
  await el.updateComplete;
  // The picture shows the resting state: wait for the transitions (bars, switches) to end. Reading the
  // layout first starts those the last render set off; the loops (busy spinners, pulses) never end, so
  // the picture takes them as they are.
  el.getBoundingClientRect();
  await Promise.all(endingAnimations(el.shadowRoot!).map((animation) => animation.finished.catch(() => undefined)));
  const rect = el.getBoundingClientRect();
  await executeServerCommand('admin-screenshot', {
    name,
    clip: { x: rect.left + scrollX, y: rect.top + scrollY, width: Math.ceil(rect.width), height: Math.ceil(rect.height) },
  });
}

const SCREENS = ['links', 'link-form', 'link-detail', 'money', 'orders', 'payments', 'payment-detail', 'webhooks', 'webhook-form', 'webhook-detail'] as const;
type Screen = (typeof SCREENS)[number];

/** Mounts the admin and brings it to `screen`, filled in the way a merchant would have it. */
async function show(screen: Screen, theme?: 'light' | 'dark', locale = 'en'): Promise<PaylinkAdmin> {
  const api = realisticApi();
  const el = await mount(api, { view: screen === 'money' ? 'money' : 'links', locale, ...(theme ? { theme } : {}) });
  if (screen === 'money') {
    await openMoney(el);
    return el;
  }
  if (screen === 'orders') {
    await openTab(el, 'orders');
    await waitUntil(() => $$(el, '[part~="order-row"]').length === 3, 'orders shown');
    await settle(el);
    return el;
  }
  if (screen.startsWith('payment')) {
    await openTab(el, 'payments');
    await waitUntil(() => $$(el, '[part~="payment-row"]').length === 3, 'payments shown');
    if (screen === 'payment-detail') {
      await click(el, part(el, 'open-payment'));
      await waitUntil(() => $(el, '[part~="explorer-link"]'), 'detail shown with its explorer links');
    }
    await settle(el);
    return el;
  }
  if (screen.startsWith('webhook')) {
    await openTab(el, 'webhooks');
    await waitUntil(() => $$(el, '[part~="endpoint-row"]').length === 2, 'endpoints shown');
    if (screen === 'webhook-form') {
      await click(el, part(el, 'new-endpoint'));
      await type(el, field(el, /Endpoint URL|URL du point/), 'https://shop.example/hooks');
    } else if (screen === 'webhook-detail') {
      // Just added: the secret on top, the log below (of the endpoint added before it).
      await click(el, part(el, 'new-endpoint'));
      await type(el, field(el, /Endpoint URL|URL du point/), 'https://api.handmade-leather.example/integrations/paylink/webhooks/staging');
      await click(el, part(el, 'submit-endpoint'));
      await waitUntil(() => $(el, '[part~="endpoint-secret"]'), 'secret shown');
      api.deliveries = api.deliveries.map((delivery) => ({ ...delivery, endpointId: api.endpoints[0]!.id }));
      await click(el, part(el, 'refresh-deliveries'));
      await waitUntil(() => $$(el, '[part~="delivery-row"]').length === 3, 'deliveries shown');
    }
    await settle(el);
    return el;
  }
  await waitUntil(() => $$(el, '[part~="link-row"]').length === 3, 'links shown');
  if (screen === 'link-form') {
    await click(el, part(el, 'new-link'));
    await type(el, $(el, '#lf-title') as HTMLInputElement, 'Coffee subscription');
    for (const [name, quantity, price] of [
      ['Ethiopian Yirgacheffe, 1 kg', '2', '18500'],
      ['Grinder', '1', '42000.50'],
    ] as const) {
      await click(el, button(el, /Add item/));
      const row = $$(el, '[part~="cart-item"]').at(-1)!;
      await type(el, row.querySelector('[part~="item-name"]')!, name);
      await type(el, row.querySelector('[part~="item-quantity"]')!, quantity);
      await type(el, row.querySelector('[part~="item-unit"]')!, price);
    }
  } else if (screen === 'link-detail') {
    await click(el, part(el, 'link-title'));
    await waitUntil(() => $$(el, '[part~="link-payment-row"]').length === 3, 'detail shown with its payments');
  }
  return el;
}

/** Checks that the tab bar holds its six tabs on one line each, none cut, nothing to scroll. */
function expectTabsFit(el: PaylinkAdmin, where: string) {
  const tablist = $(el, '[role="tablist"]')!;
  const tabs = $$(el, '[role="tab"]');
  expect(tabs, where).to.have.length(6);
  expect(tablist.scrollWidth, `${where}: the tab bar does not scroll`).to.be.at.most(tablist.clientWidth);
  const bar = tablist.getBoundingClientRect();
  for (const tab of tabs) {
    const lineHeight = parseFloat(getComputedStyle(tab).lineHeight);
    const box = tab.getBoundingClientRect();
    expect(box.height, `${where}: ${text(tab)} on one line`).to.be.below(Math.max(lineHeight * 2, 48) + 1);
    expect(tab.scrollWidth, `${where}: ${text(tab)} not cut`).to.be.at.most(tab.clientWidth);
    expect(box.right, `${where}: ${text(tab)} inside the bar`).to.be.at.most(bar.right + 0.5);
  }
}

/** Checks the tab bar of the links view in English, then in French (its labels run longest). */
async function expectTabsFitInEnglishAndFrench(where: string) {
  for (const locale of ['en', 'fr']) {
    const el = await show('links', undefined, locale);
    expectTabsFit(el, `${locale}${where ? ` in ${where}` : ''}`);
    el.parentElement!.style.display = 'none';
  }
}

describe('<paylink-admin> layout', () => {
  afterEach(async () => {
    document.body.style.margin = '';
    await setViewport(DESKTOP);
  });

  it('is accessible at 375 px', async () => {
    await atWidth(PHONE);
    await expect(await show('links')).to.be.accessible();
    await expect(await show('money', 'dark')).to.be.accessible();
    await expect(await show('payment-detail', 'dark')).to.be.accessible();
    await expect(await show('webhook-detail')).to.be.accessible();
  });

  describe('at 375 px', () => {
    beforeEach(() => atWidth(PHONE));

    for (const screen of SCREENS) {
      it(`runs nothing off the side on ${screen}`, async () => {
        const el = await show(screen);
        expect(el.getBoundingClientRect().width).to.equal(PHONE.width);
        expect(overflows(el)).to.deep.equal([]);
      });
    }

    it('runs nothing off the side in French either', async () => {
      for (const screen of ['payments', 'payment-detail', 'webhook-detail'] as const) {
        const el = await show(screen, undefined, 'fr');
        expect(overflows(el), screen).to.deep.equal([]);
        el.parentElement!.style.display = 'none';
      }
    });

    it('shows every column of the payments, a payment’s transactions and a link’s payments as labelled lines', async () => {
      const list = await show('payments');
      expectStackedRows(list, part(list, 'payments-table'));
      expect(visible(part(list, 'open-payment')), 'the way to a payment is on the card').to.equal(true);
      const detail = await show('payment-detail');
      expectStackedRows(detail, part(detail, 'transactions-table'));
      const link = await show('link-detail');
      expectStackedRows(link, part(link, 'link-payments-table'));
    });

    it('shows every column of the endpoints and the deliveries as labelled lines', async () => {
      const list = await show('webhooks');
      expectStackedRows(list, part(list, 'endpoints-table'));
      expect(visible(part(list, 'toggle-endpoint')), 'the switch is on the card').to.equal(true);
      const detail = await show('webhook-detail');
      expectStackedRows(detail, part(detail, 'deliveries-table'));
      expect(visible(part(detail, 'retry-delivery')), 'retry is on the card').to.equal(true);
    });

    it('shows every column of the links table as a labelled line of a stacked row', async () => {
      const el = await show('links');
      expectStackedRows(el, part(el, 'links-table'));
      expect(visible(part(el, 'edit-link')), 'the edit action is on the card').to.equal(true);
    });

    it('shows every column of the withdrawal history as a labelled line of a stacked row', async () => {
      const el = await show('money');
      await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 3);
      expectStackedRows(el, part(el, 'withdrawals-table'));
    });

    it('keeps the table’s rows and headers for screen readers', async () => {
      const el = await show('links');
      const table = part(el, 'links-table');
      expect(table.getAttribute('role')).to.equal('table');
      expect([...table.querySelectorAll('thead th')].map((th) => th.getAttribute('role'))).to.deep.equal(Array(7).fill('columnheader'));
      const header = table.querySelector('thead')!;
      expect(getComputedStyle(header).display, 'column headers are clipped, not removed').not.to.equal('none');
    });

    it('fits the six tabs on one line each, in English and in French', () => expectTabsFitInEnglishAndFrench(''));

    it('shows short tab labels while each tab keeps its full name', async () => {
      const el = await show('links');
      const money = $(el, '#tab-money')!;
      expect(getComputedStyle(money, '::after').content).to.contain('Balances');
      // What a screen reader announces: the full labels, not the short ones on screen.
      const names = await executeServerCommand<string[], { role: string }>('admin-accessible-names', { role: 'tab' });
      expect(names).to.deep.equal(['Payment links', 'Balances and withdrawals', 'Payments', 'Orders', 'Webhooks', 'Rates']);
    });

    it('keeps a visible label on every field of every cart row', async () => {
      const el = await show('link-form');
      const rows = $$(el, '[part~="cart-item"]');
      expect(rows).to.have.length(2);
      for (const row of rows) {
        for (const input of row.querySelectorAll<HTMLInputElement>('input')) {
          const label = row.querySelector(`label[for="${input.id}"]`);
          expect(visible(label), `label of ${input.getAttribute('part')}`).to.equal(true);
          expect(label!.getBoundingClientRect().bottom, 'label above its field').to.be.at.most(input.getBoundingClientRect().top + 0.5);
        }
      }
    });

    it('fits the network select inside the withdrawal form', async () => {
      const el = await show('money');
      const form = part(el, 'withdraw-form').getBoundingClientRect();
      const network = part(el, 'network').getBoundingClientRect();
      expect(network.right).to.be.at.most(form.right + 0.5);
      expect(network.width, 'wide enough to read the network').to.be.greaterThan(form.width * 0.9);
    });
  });

  describe('inside a phone page’s margins (343 px of 375) and on the narrowest phones (320 px)', () => {
    const NARROW = [
      { name: 'a 375 px page with 16 px margins', viewport: PHONE, margin: 16, width: 343 },
      { name: 'a 320 px phone', viewport: { width: 320, height: 640 }, margin: 0, width: 320 },
    ];

    for (const narrow of NARROW) {
      describe(narrow.name, () => {
        beforeEach(async () => {
          await atWidth(narrow.viewport);
          document.body.style.margin = `0 ${narrow.margin}px`;
        });

        for (const screen of SCREENS) {
          it(`runs nothing off the side on ${screen}`, async () => {
            const el = await show(screen);
            expect(el.getBoundingClientRect().width).to.equal(narrow.width);
            expect(overflows(el)).to.deep.equal([]);
            expect(offScreen(el), 'nothing, not even a clipped header cell, past the screen').to.deep.equal([]);
          });
        }

        it('fits the six tabs, in English and in French', () => expectTabsFitInEnglishAndFrench(narrow.name));

        it('wraps a transaction’s hash inside its card on the payment detail', async () => {
          const el = await show('payment-detail');
          for (const row of $$(el, '[part~="transaction-row"]')) {
            const hash = row.querySelector<HTMLElement>('.hash')!;
            const card = row.getBoundingClientRect();
            const box = hash.getBoundingClientRect();
            expect(box.right, 'the hash ends inside its card').to.be.at.most(card.right + 0.5);
            expect(box.height, 'the hash wraps to more lines').to.be.greaterThan(parseFloat(getComputedStyle(hash).lineHeight) * 1.5);
          }
        });
      });
    }
  });

  it("shows the filters' chosen words whole, in English and in French, from the phone to the desktop", async () => {
    for (const size of [PHONE, { width: 640, height: 900 }, { width: 900, height: 900 }, { width: 1100, height: 900 }, DESKTOP]) {
      await atWidth(size);
      for (const locale of ['en', 'fr']) {
        const el = await show('links', undefined, locale);
        const selects = $$(el, '.filters select') as HTMLSelectElement[];
        expect(selects, 'the type and state filters').to.have.length(2);
        for (const select of selects) {
          // The same select holding only its chosen option, at its own width: the room its words need.
          const alone = select.cloneNode(false) as HTMLSelectElement;
          alone.append(new Option(select.selectedOptions[0]!.text));
          alone.style.cssText = 'position: absolute; width: max-content; visibility: hidden';
          select.after(alone);
          const needed = alone.getBoundingClientRect().width;
          alone.remove();
          expect(select.getBoundingClientRect().width, `${locale} at ${size.width} px: "${select.selectedOptions[0]!.text}" whole`).to.be.at.least(
            needed - 0.5,
          );
        }
        el.parentElement!.style.display = 'none';
      }
    }
  });

  it('fits the six tabs between the phone and the desktop, in English and in French', async () => {
    for (const width of [480, 640, 760, 1024]) {
      await atWidth({ width, height: 900 });
      for (const locale of ['en', 'fr']) {
        const el = await show('links', undefined, locale);
        expectTabsFit(el, `${locale} at ${width} px`);
        el.parentElement!.style.display = 'none';
      }
    }
  });

  describe('at 1280 px', () => {
    beforeEach(() => atWidth(DESKTOP));

    it('shows the full tab labels', async () => {
      const el = await show('links', undefined, 'fr');
      expect(getComputedStyle($(el, '#tab-money')!, '::after').content).to.equal('none');
      expect(visible($(el, '#tab-money .tab-label'))).to.equal(true);
      expectTabsFit(el, 'fr');
    });

    for (const screen of SCREENS) {
      it(`runs nothing off the side on ${screen}`, async () => {
        const el = await show(screen);
        expect(overflows(el)).to.deep.equal([]);
      });
    }

    it('sizes the Max button to its label and padding: no gap for white space beside its hidden text', async () => {
      const el = await show('money');
      const max = part(el, 'max');
      const label = [...max.childNodes].find((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim())!;
      const range = document.createRange();
      range.selectNodeContents(label);
      const style = getComputedStyle(max);
      const frame = ['paddingLeft', 'paddingRight', 'borderLeftWidth', 'borderRightWidth'].reduce(
        (sum, side) => sum + parseFloat(style[side as 'paddingLeft']),
        0,
      );
      expect(max.getBoundingClientRect().width).to.be.closeTo(range.getBoundingClientRect().width + frame, 1);
    });

    it('shows tables as tables: one line per link, column headers visible, no repeated labels', async () => {
      const el = await show('links');
      const table = part(el, 'links-table');
      expect(visible(table.querySelector('thead th'))).to.equal(true);
      expect($$(el, '[part~="cell-label"]').some(visible)).to.equal(false);
      const row = $(el, '[part~="link-row"]')!;
      const cells = [...row.children].map((cell) => cell.getBoundingClientRect());
      expect(new Set(cells.map((cell) => Math.round(cell.top))).size, 'cells side by side').to.equal(1);
    });

    it('shows the whole short hash of each withdrawal, its last character included, at every desktop width', async () => {
      for (const width of [1280, 1090, 1024, 900]) {
        // 1090 px is the admin in the demo page at a 1280 px window.
        await atWidth({ width, height: 900 });
        const api = realisticApi();
        api.withdrawals.unshift(
          makeWithdrawal({ status: 'processing', assetId: 'CNGN', amount: '1250000.500000', txHash: `0x${'9f'.repeat(31)}e7` }),
          makeWithdrawal({ status: 'success', amount: '98765.123456', txHash: `0x3f1be987${'0'.repeat(52)}21f3` }),
        );
        const el = await mount(api, { view: 'money' });
        await openMoney(el);
        await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 5, 'history shown');
        const wrap = part(el, 'withdrawals-table').closest('.table-wrap') as HTMLElement;
        expect(wrap.scrollWidth, `${width} px: the history does not scroll sideways`).to.be.at.most(wrap.clientWidth);
        for (const hash of $$(el, '[part~="withdrawal-row"] [part~="tx-hash"]')) {
          const shown = hash.querySelector('[aria-hidden="true"]')!;
          const cell = hash.closest('td, th')!.getBoundingClientRect();
          expect(shown.getBoundingClientRect().right, `${width} px: ${text(shown)} ends inside its cell`).to.be.at.most(cell.right + 0.5);
          expect(shown.getBoundingClientRect().right, `${width} px: ${text(shown)} is not cut by the table`).to.be.at.most(
            wrap.getBoundingClientRect().right + 0.5,
          );
          expect(hash.getAttribute('title'), 'the full hash on hover').to.match(/^0x[0-9a-f]{64}$/);
          expect(text(shown)).to.match(/^0x[0-9a-f]{8}…[0-9a-f]{4}$/);
        }
        expect(offScreen(el)).to.deep.equal([]);
        el.parentElement!.style.display = 'none';
      }
    });

    it('puts the withdrawal form beside the history', async () => {
      const el = await show('money');
      const form = part(el, 'withdraw-form').getBoundingClientRect();
      const history = part(el, 'withdrawal-history').getBoundingClientRect();
      expect(history.left).to.be.greaterThan(form.right);
    });
  });

  it('makes section headings heavier than field labels', async () => {
    await atWidth(DESKTOP);
    const el = await show('link-form');
    const weight = (node: Element | null) => Number(getComputedStyle(node!).fontWeight);
    const size = (node: Element | null) => parseFloat(getComputedStyle(node!).fontSize);
    const heading = part(el, 'link-form').querySelector('h2');
    const label = $(el, 'label[for="lf-title"]');
    const legend = part(el, 'cart').querySelector('legend');
    expect(weight(heading)).to.be.greaterThan(weight(label));
    expect(size(heading)).to.be.greaterThan(size(label));
    expect(weight(legend), 'a group’s title outranks its fields').to.be.greaterThan(weight(label));
  });

  describe('screenshots under test-results/', () => {
    for (const size of [PHONE, { width: 640, height: 900 }, { width: 900, height: 900 }, { width: 1100, height: 900 }, DESKTOP]) {
      for (const theme of ['light', 'dark'] as const) {
        for (const screen of SCREENS) {
          it(`saves ${screen} at ${size.width} px, ${theme}`, async () => {
            await atWidth(size);
            const el = await show(screen, theme);
            await screenshot(el, `admin-${screen}-${size.width}-${theme}`);
          });
        }
      }
    }
    // French runs longest: the phone is where it would show (the screens whose set-up reads no English).
    for (const screen of ['links', 'payments', 'payment-detail', 'webhooks', 'webhook-form', 'webhook-detail'] as const) {
      it(`saves ${screen} at 375 px in French`, async () => {
        await atWidth(PHONE);
        const el = await show(screen, 'light', 'fr');
        await screenshot(el, `admin-${screen}-375-fr`);
      });
    }
  });
});
