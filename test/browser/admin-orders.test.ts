/**
 * `<paylink-admin>`'s orders: the list of the orders the shop's server created, newest first, with a
 * status filter, an exact reference filter and paging; each row opens its hosted page and its payments
 * (the payments tab filtered by the order's reference), where an order's payment is marked as such and
 * what a page said is labelled as the page's word. Screenshots at 375 and 1280 px go to
 * test-results/admin-orders-*.png for a person to look at.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { executeServerCommand, setViewport } from '@web/test-runner-commands';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { FakeAdminApi, makeOrder, makeSession } from './admin-fake-api.js';
import { $, $$, choose, click, mount, openTab, part, settle, text, type } from './admin-helpers.js';

/** 25 orders (a page and more): the newest paid, one cancelled, one expired, the rest open. */
function ordersApi(): FakeAdminApi {
  const api = new FakeAdminApi();
  // References fixed here: makeOrder's numbering runs on across tests.
  for (let i = 0; i < 25; i++) api.orders.push(makeOrder({ reference: `order-${1001 + i}` }));
  const newest = api.orders.at(-1)!;
  Object.assign(newest, { status: 'paid', paidAt: newest.createdAt, paidSessionId: '00000001-0000-4000-8000-000000000001', title: 'Two desk lamps' });
  Object.assign(api.orders.at(-2)!, { status: 'cancelled', cancelledAt: api.orders.at(-2)!.createdAt });
  Object.assign(api.orders.at(-3)!, { status: 'expired' });
  // The paid order's payment, and a link's payment whose page said something.
  api.sessions.push(
    makeSession({ linkId: null, slug: null, linkTitle: null, orderId: newest.id, reference: newest.reference, fiatAmount: '149.00', fiatCurrency: 'USD' }),
    makeSession({ reference: null, clientReference: 'cart-77' }),
  );
  return api;
}

const rows = (el: PaylinkAdmin) => $$(el, '[part~="order-row"]');

async function mountOrders(api: FakeAdminApi, locale = 'en') {
  const el = await mount(api, { view: 'orders', locale });
  await waitUntil(() => $(el, '[part~="orders-table"], [part~="empty"]'), 'orders shown');
  await settle(el);
  return el;
}

describe('<paylink-admin> orders', () => {
  it('is accessible', async () => {
    const el = await mountOrders(ordersApi());
    await expect(el).to.be.accessible();
  });

  it('lists the orders newest first, 20 a page, with their status, reference, title and end', async () => {
    const api = ordersApi();
    const el = await mountOrders(api);
    expect(rows(el)).to.have.length(20);
    const first = text(rows(el)[0]);
    expect(first).to.contain('$149.00').and.to.contain('Paid').and.to.contain('order-1025').and.to.contain('Two desk lamps');
    expect(text(rows(el)[1])).to.contain('Cancelled');
    expect(text(rows(el)[2])).to.contain('Expired');
    expect(text(rows(el)[3]))
      .to.contain('Open')
      .and.to.contain('Until');
    expect(text(part(el, 'orders-pagination')))
      .to.contain('Page 1 of 2')
      .and.to.contain('25 orders');
    const link = rows(el)[0]!.querySelector<HTMLAnchorElement>('[part~="order-page"]')!;
    expect(link.href).to.equal(api.orders.at(-1)!.url);
    expect(link.target).to.equal('_blank');
    await click(
      el,
      $$(el, '[part~="orders-pagination"] button').find((b) => /Next/.test(text(b)))!,
    );
    await waitUntil(() => rows(el).length === 5, 'page 2');
    expect(api.calls('GET', '/order').at(-1)!.url.searchParams.get('page')).to.equal('2');
  });

  it('filters by status and by exact reference, from page 1, and clears', async () => {
    const api = ordersApi();
    const el = await mountOrders(api);
    await choose(el, part(el, 'filter-order-status') as HTMLSelectElement, 'paid');
    await waitUntil(() => rows(el).length === 1, 'the paid order');
    const query = api.calls('GET', '/order').at(-1)!.url.searchParams;
    expect(query.get('status')).to.equal('paid');
    expect(query.get('page')).to.equal('1');
    await choose(el, part(el, 'filter-order-status') as HTMLSelectElement, 'open');
    await waitUntil(() => rows(el).length === 20, 'open orders');
    expect(text(part(el, 'orders-pagination'))).to.contain('22 orders');
    await type(el, part(el, 'filter-order-reference') as HTMLInputElement, 'order-1004');
    await waitUntil(() => rows(el).length === 1, 'one reference');
    expect(text(rows(el)[0])).to.contain('order-1004');
    await type(el, part(el, 'filter-order-reference') as HTMLInputElement, 'order-9999');
    await waitUntil(() => $(el, '[part~="orders-list"] [part~="empty"]'), 'nothing matches');
    expect(text($(el, '[part~="orders-list"] [part~="empty"]'))).to.equal('No orders match these filters.');
    await click(el, part(el, 'clear-filters'));
    await waitUntil(() => rows(el).length === 20, 'all again');
  });

  it('opens an order’s payments: the payments tab filtered by its reference, the order marked, the page’s word labelled', async () => {
    const api = ordersApi();
    const el = await mountOrders(api);
    await click(el, rows(el)[0]!.querySelector<HTMLElement>('[part~="order-payments"]')!);
    await waitUntil(() => el.view === 'payments' && $$(el, '[part~="payment-row"]').length === 1, 'the order’s payments');
    expect((part(el, 'filter-reference') as HTMLInputElement).value).to.equal(api.orders.at(-1)!.reference);
    expect(api.calls('GET', '/checkout-session').at(-1)!.url.searchParams.get('reference')).to.equal(api.orders.at(-1)!.reference);
    expect(text($(el, '[part~="payment-row"] [part~="order-badge"]'))).to.equal('Order');

    // A link's payment shows what its page said as the page's word, never as the reference.
    await click(el, part(el, 'clear-filters'));
    await waitUntil(() => $$(el, '[part~="payment-row"]').length === 2, 'both payments');
    expect(text($(el, '[part~="client-reference"]'))).to.equal('What the page said: cart-77');
    await click(el, $$(el, '[part~="open-payment"]')[0]!);
    await waitUntil(() => $(el, '[part~="payment-detail"]'), 'detail');
    await settle(el);
    expect(text(part(el, 'client-reference')))
      .to.contain('cart-77')
      .and.to.contain('anyone can change a page');
    expect(text(part(el, 'reference'))).to.equal('Not given');
  });

  it('shows an order’s payment in detail with its order and reference', async () => {
    const api = ordersApi();
    const el = await mount(api, { view: 'payments' });
    await openTab(el, 'payments');
    const orderRow = $$(el, '[part~="payment-row"]').find((row) => row.querySelector('[part~="order-badge"]'))!;
    await click(el, orderRow.querySelector<HTMLElement>('[part~="open-payment"]')!);
    await waitUntil(() => $(el, '[part~="payment-detail"]'), 'detail');
    await settle(el);
    expect(text(part(el, 'order-id'))).to.equal(api.orders.at(-1)!.id);
    expect(text(part(el, 'reference'))).to.equal(api.orders.at(-1)!.reference);
    expect(text(part(el, 'payment-link'))).to.equal('Order');
    await expect(el).to.be.accessible();
  });

  it('speaks French', async () => {
    const el = await mountOrders(ordersApi(), 'fr');
    expect(text($(el, '#tab-orders'))).to.equal('Commandes');
    expect(text(rows(el)[0])).to.contain('Payée');
    expect(text(part(el, 'orders-pagination'))).to.contain('25 commandes');
  });

  it('screenshots at 375 and 1280 px', async () => {
    for (const width of [375, 1280]) {
      await setViewport({ width, height: 900 });
      const el = await mountOrders(ordersApi());
      const box = el.getBoundingClientRect();
      expect(el.scrollWidth, 'nothing runs off the side').to.be.at.most(el.clientWidth + 1);
      await executeServerCommand('admin-screenshot', {
        name: `admin-orders-${width}`,
        clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 2400) },
      });
      el.remove();
    }
    await setViewport({ width: 800, height: 600 });
  });
});
