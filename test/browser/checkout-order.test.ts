/**
 * `<paylink-checkout order="…">` against the real service: the shop's server creates the order (the
 * test runner's `POST /__test/order` holds the key), the element shows it at its own price (no amount
 * to type), pays it, and the merchant's keyed read finds the order's reference on the session. Then a
 * second tab finds the order paid; a closed order (a fake API's) says payments are closed. Screenshots of the order at 375 px
 * and 1280 px go to test-results/checkout/order-*.png for a person to look at.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { executeServerCommand, setViewport } from '@web/test-runner-commands';
import '../../src/checkout.js';
import type { PaylinkCheckout } from '../../src/components/checkout/paylink-checkout.js';
import type { Order } from '../../src/core/schemas.js';
import { FakeCheckoutApi, makeOrder } from './checkout-fake-api.js';
import { text, until as untilFor } from './checkout-helpers.js';

/** A part, or null (the order's first render has none). */
const part = (el: PaylinkCheckout, name: string) => el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`);
const heading = (el: PaylinkCheckout) => text(part(el, 'heading'));

/** Waits as the other checkout tests do, 6 s: the real service answers here, not a fake. */
const until = (el: PaylinkCheckout, predicate: () => boolean, message: string) => untilFor(el, predicate, message, 6000);
async function view(el: PaylinkCheckout, wanted: PaylinkCheckout['machine']['view']) {
  await until(el, () => el.machine.view === wanted, `view ${wanted}, still ${el.machine.view}: ${text(part(el, 'card'))}`);
}

/** What the shop's server does: creates the order with its key (the page never sees the key). */
async function createOrder(body: Record<string, unknown>): Promise<Order> {
  const response = await fetch('/__test/order', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const order = await response.json();
  expect(response.status, JSON.stringify(order)).to.equal(201);
  return order;
}

const ORDER_BODY = {
  fiatCurrency: 'USD',
  title: 'Order 1042',
  description: 'Two desk lamps, delivered',
  cart: { items: [{ name: 'Desk lamp', quantity: 2, unitAmount: '74.50', description: 'Brass' }] },
  metadata: { cart: 'c_1042' },
  postpayAction: { successMessage: 'Thank you! Your lamps ship tomorrow.' },
};

async function mount(orderId: string, width = 0) {
  const stage = await fixture<HTMLElement>(html`<div style="box-sizing:border-box;min-height:100vh;padding:16px;background:#f6f7fb">
    <paylink-checkout style="max-width:28rem;margin:0 auto" order=${orderId} client-reference="tab-${width}"></paylink-checkout>
  </div>`);
  return stage.querySelector('paylink-checkout')!;
}

describe('<paylink-checkout order>', () => {
  // The config starts the service (PGlite, migrations, seed) on first use: that start is not what
  // these tests time, and on a loaded machine it outlasts a test's 10 s.
  before(async function (this: { timeout(ms: number): void }) {
    this.timeout(120_000);
    await fetch('/__test/seed');
  });

  let reference = '';
  const newReference = () => (reference = `order-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);

  it('is accessible', async () => {
    const order = await createOrder({ ...ORDER_BODY, reference: newReference() });
    const el = await mount(order.id);
    await view(el, 'amount');
    await expect(el).to.be.accessible();
  });

  it('shows the order at its own price with nothing to type, pays it, and the merchant finds its reference on the session', async () => {
    const order = await createOrder({ ...ORDER_BODY, reference: newReference() });
    const el = await mount(order.id);
    await view(el, 'amount');
    expect(el.machine.link!.id).to.equal(order.id);
    expect(heading(el)).to.equal('Order 1042');
    expect(text(part(el, 'total'))).to.equal('Total $149.00');
    expect(el.shadowRoot!.querySelector('input'), 'no amount to type').to.equal(null);
    expect(text(part(el, 'pay-button'))).to.equal('Pay $149.00 · USDT');

    const started = oneEvent(el, 'paylink-session');
    part(el, 'pay-button')!.click();
    const { session } = (await started).detail;
    expect(session.orderId).to.equal(order.id);
    expect(session.fiatAmount).to.equal('149.00');
    await view(el, 'pay');

    // The merchant's server reads the session with its key: the order's reference, never the page's word.
    const stored = await (await fetch(`/__test/session/${session.id}`)).json();
    expect(stored.orderId).to.equal(order.id);
    expect(stored.reference).to.equal(reference);
    expect(stored.clientReference).to.equal('tab-0');
    expect(stored.metadata).to.deep.equal({ cart: 'c_1042' });

    const success = oneEvent(el, 'paylink-success');
    part(el, 'simulate')!.click();
    expect((await success).detail.session.status).to.equal('paid');
    await view(el, 'done');
    expect(text(part(el, 'message'))).to.equal('Thank you! Your lamps ship tomorrow.');

    // Another tab on the same order (or this one, reloaded): it is paid, and shows the paid screen, not a bare heading.
    const second = await mount(order.id);
    await view(second, 'paid');
    expect(heading(second)).to.equal('Payment received');
    expect(part(second, 'success-icon'), 'the check mark').not.to.equal(null);
    expect(text(part(second, 'message'))).to.equal('Thank you!');
    expect(part(second, 'pay-button'), 'nothing to pay').to.equal(null);
    await expect(second).to.be.accessible();
  });

  it('an expired or cancelled order is closed; an unknown one is not found', async () => {
    const api = new FakeCheckoutApi();
    const order = makeOrder({ state: 'closed' });
    api.orders.set(order.id, order);
    const stage = await fixture<HTMLElement>(html`<div><paylink-checkout order=${order.id} .fetch=${api.fetch}></paylink-checkout></div>`);
    const el = stage.querySelector('paylink-checkout')!;
    await view(el, 'closed');
    expect(heading(el)).to.equal('Payments are closed');
    await expect(el).to.be.accessible();
    const missing = await mount('0f9a7c1e-2b3d-4e5f-8a9b-000000000000');
    await view(missing, 'notFound');
  });

  for (const width of [375, 1280])
    it(`screenshot at ${width} px: the order, then paid`, async () => {
      await setViewport({ width, height: width == 375 ? 812 : 900 });
      const order = await createOrder({ ...ORDER_BODY, reference: newReference() });
      const el = await mount(order.id, width);
      await view(el, 'amount');
      expect(el.getBoundingClientRect().width).to.be.at.most(width);
      await executeServerCommand('paylink-screenshot', { name: `checkout/order-amount-${width}` });
      part(el, 'pay-button')!.click();
      await view(el, 'pay');
      part(el, 'simulate')!.click();
      await view(el, 'done');
      await executeServerCommand('paylink-screenshot', { name: `checkout/order-paid-${width}` });
      await setViewport({ width: 800, height: 600 });
    });
});
