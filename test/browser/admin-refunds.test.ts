/**
 * `<paylink-admin>`'s refunds: on a payment's detail, Refund (all that is left, or part of it; to an
 * address, or through a claim link to copy) and Accept as paid for an underpaid payment; the Refunds
 * list of the payments tab with its status filter, each refund opening its payment; an order's refunds
 * from the orders list. In English and French, by keyboard, at 375 and 1280 px (screenshots in
 * test-results/admin-refunds-*.png for a person to look at, light and dark).
 */
import { expect, waitUntil } from '@open-wc/testing';
import { executeServerCommand, sendKeys, setViewport } from '@web/test-runner-commands';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { FakeAdminApi, makeOrder, makeSession } from './admin-fake-api.js';
import { $, $$, CHECKSUMMED, choose, click, errorFor, field, focused, mount, part, settle, text, type } from './admin-helpers.js';

/** A merchant with a paid payment (of an order), an underpaid one, and an earlier refund awaiting its address. */
function refundsApi() {
  const api = new FakeAdminApi();
  const order = makeOrder({ reference: 'order-2042', status: 'paid', title: 'Desk lamp', refundedAmount: '1.000000' });
  const paid = makeSession({
    linkId: null,
    slug: null,
    linkTitle: null,
    orderId: order.id,
    reference: order.reference,
    paidAmount: '10.000000',
    cryptoAmount: '10.000000',
    refundedAmount: '1.000000',
  });
  const underpaid = makeSession({ linkTitle: 'Coffee beans', status: 'underpaid', paidAmount: '2.000000', cryptoAmount: '3.250000', paidAt: null });
  api.orders.push(order);
  api.sessions.push(underpaid, paid);
  api.refunds.push({
    id: '00000009-0000-4000-8000-00000000abcd',
    sessionId: paid.id,
    orderId: order.id,
    assetId: 'USDT',
    blockchainId: 'bsc',
    amount: '1.000000',
    address: null,
    status: 'awaiting_address',
    claimUrl: 'https://pay.example.com/pay/refund/00000009-0000-4000-8000-00000000abcd#EARLIER',
    txHash: null,
    failureReason: null,
    stalledReason: null,
    reason: null,
    createdAt: paid.createdAt,
    updatedAt: paid.createdAt,
  });
  return { api, order, paid, underpaid };
}

async function openPayment(el: PaylinkAdmin, which: 'paid' | 'underpaid') {
  await waitUntil(() => $(el, '[part~="payments-table"]'), 'payments shown');
  const rows = $$(el, '[part~="payment-row"]');
  const row = rows.find((r) => text(r).includes('Coffee beans') === (which === 'underpaid'))!;
  await click(el, row.querySelector<HTMLElement>('[part~="open-payment"]')!);
  await waitUntil(() => $(el, '[part~="refunds"] [part~="refunds-table"], [part~="refunds"] [part~="empty"]'), 'its refunds shown');
  await settle(el);
}

/** Holds the page's clipboard writes for the test (`written`), then gives the real one back. */
function fakeClipboard() {
  const written: string[] = [];
  const original = navigator.clipboard?.writeText;
  Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, value: async (value: string) => void written.push(value) });
  return { written, restore: () => original && Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, value: original }) };
}

describe('<paylink-admin> refunds', () => {
  it('is accessible: a payment with its refunds and the refund form open, and the Refunds list', async () => {
    const { api } = refundsApi();
    const el = await mount(api, { view: 'payments' });
    await openPayment(el, 'paid');
    await click(el, part(el, 'refund'));
    await expect(el).to.be.accessible();
    await click(el, part(el, 'back'));
    await click(el, part(el, 'show-refunds'));
    await waitUntil(() => $(el, '[part~="refunds-list"] [part~="refunds-table"]'), 'refunds list');
    await expect(el).to.be.accessible();
  });

  it('refunds all that is left through a claim link, shown to copy, with Cancel while it awaits', async () => {
    const { api, paid } = refundsApi();
    const el = await mount(api, { view: 'payments' });
    await openPayment(el, 'paid');
    expect(text(part(el, 'refunded-amount'))).to.contain('1 USDT');
    expect(text(part(el, 'refunds'))).to.contain('Awaiting address');
    await click(el, part(el, 'refund'));
    expect(focused(el)?.id, 'focus on the amount').to.equal('rf-amount');
    expect(text(part(el, 'refund-form'))).to.contain('Leave empty for all that is left: 9 USDT');
    await click(el, part(el, 'submit-refund'));
    await waitUntil(() => $(el, '[part~="claim-link"]'), 'the claim link');
    const [call] = api.calls('POST', '/refund');
    expect(call!.body).to.deep.equal({ sessionId: paid.id });
    expect(call!.headers['idempotency-key'], 'one key per refund').to.match(/^[0-9a-f-]{36}$/);
    const link = field(el, /Claim link/);
    expect(link.value).to.equal(api.refunds[0]!.claimUrl);
    expect(focused(el)?.id).to.equal('claim-link');
    const clipboard = fakeClipboard();
    try {
      await click(el, part(el, 'copy-claim-link'));
      await waitUntil(() => clipboard.written.length === 1, 'copied');
    } finally {
      clipboard.restore();
    }
    expect(clipboard.written).to.deep.equal([api.refunds[0]!.claimUrl]);
    expect(text(part(el, 'status'))).to.contain('Link copied');
    await waitUntil(() => $$(el, '[part~="refunds"] [part~="refund-row"]').length === 2, 'both refunds listed');

    await click(el, $$(el, '[part~="refunds"] [part~="cancel-refund"]')[0]!);
    await waitUntil(() => api.calls('POST', `/refund/${api.refunds[0]!.id}/cancel`).length === 1, 'cancelled');
    await waitUntil(() => text($$(el, '[part~="refunds"] [part~="refund-row"]')[0]).includes('Cancelled'), 'shown cancelled');
  });

  it('refunds part of it to an address: refuses a bad checksum before asking, by keyboard', async () => {
    const { api } = refundsApi();
    const el = await mount(api, { view: 'payments' });
    await openPayment(el, 'paid');
    await click(el, part(el, 'refund'));
    await type(el, field(el, /^Amount/), '2.5');
    const address = field(el, 'Destination address');
    await type(el, address, CHECKSUMMED.replace('fB', 'Fb'));
    await sendKeys({ press: 'Enter' });
    await settle(el);
    expect(errorFor(el, address)).to.contain('checksum');
    expect(api.calls('POST', '/refund')).to.have.length(0);
    await type(el, address, CHECKSUMMED);
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => api.calls('POST', '/refund').length === 1, 'sent');
    expect(api.calls('POST', '/refund')[0]!.body).to.include({ amount: '2.5', address: CHECKSUMMED });
    await waitUntil(() => text($$(el, '[part~="refunds"] [part~="refund-row"]')[0]).includes('Pending'), 'listed as pending');
    expect($(el, '[part~="claim-link"]'), 'no link for a refund to an address').to.equal(null);
  });

  it('accepts an underpaid payment as paid, after asking', async () => {
    const { api, underpaid } = refundsApi();
    const el = await mount(api, { view: 'payments' });
    await openPayment(el, 'underpaid');
    const asked: string[] = [];
    const original = window.confirm;
    window.confirm = (message?: string) => (asked.push(String(message)), true);
    try {
      await click(el, part(el, 'resolve'));
      await waitUntil(() => api.calls('POST', `/checkout-session/${underpaid.id}/resolve`).length === 1, 'resolved');
    } finally {
      window.confirm = original;
    }
    expect(asked[0]).to.contain('Accept this payment as paid?');
    await waitUntil(() => $(el, '[part~="resolved-at"]'), 'shown accepted');
    expect($(el, '[part~="resolve"]'), 'no second time').to.equal(null);
  });

  it('lists every refund with a status filter; a refund opens its payment', async () => {
    const { api, paid } = refundsApi();
    api.refunds.push({
      ...api.refunds[0]!,
      id: '00000010-0000-4000-8000-00000000abcd',
      status: 'success',
      address: CHECKSUMMED,
      claimUrl: null,
      txHash: `0x${'ef'.repeat(32)}`,
    });
    const el = await mount(api, { view: 'payments' });
    await waitUntil(() => $(el, '[part~="payments-table"]'), 'payments shown');
    await click(el, part(el, 'show-refunds'));
    await waitUntil(() => $$(el, '[part~="refund-row"]').length === 2, 'two refunds');
    expect(focused(el)?.id).to.equal('refunds-heading');
    await choose(el, part(el, 'filter-refund-status') as HTMLSelectElement, 'success');
    await waitUntil(() => $$(el, '[part~="refund-row"]').length === 1, 'filtered');
    expect(api.calls('GET', '/refund').at(-1)!.url.searchParams.get('status')).to.equal('success');
    expect(text($(el, '[part~="refund-row"]')))
      .to.contain('Completed')
      .and.to.contain(CHECKSUMMED);
    await click(el, $(el, '[part~="refund-row"] [part~="open-payment"]')!);
    await waitUntil(() => $(el, '[part~="payment-detail"]'), 'its payment');
    expect(api.calls('GET', `/checkout-session/${paid.id}`).length).to.be.greaterThan(0);
  });

  it('shows an order’s refunds from the orders list', async () => {
    const { api, order } = refundsApi();
    api.orders.push(makeOrder({ reference: 'order-2043' }));
    const el = await mount(api, { view: 'orders' });
    await waitUntil(() => $(el, '[part~="order-row"]'), 'orders');
    expect($$(el, '[part~="order-refunds"]'), 'only on the order with refunds').to.have.length(1);
    await click(el, part(el, 'order-refunds'));
    await waitUntil(() => $(el, '#panel-payments [part~="refund-row"]'), 'its refunds');
    expect(api.calls('GET', '/refund').at(-1)!.url.searchParams.get('orderId')).to.equal(order.id);
  });

  it('speaks French', async () => {
    const { api } = refundsApi();
    const el = await mount(api, { view: 'payments', locale: 'fr' });
    await openPayment(el, 'underpaid');
    expect(text(part(el, 'refunds')))
      .to.contain('Remboursements')
      .and.to.contain('Accepter comme payé');
    await click(el, part(el, 'refund'));
    expect(text(part(el, 'refund-form')))
      .to.contain('Vide pour tout le reste')
      .and.to.contain('Rembourser');
  });

  it('fits a phone (375 px) and a desktop (1280 px), light and dark', async () => {
    for (const [width, theme] of [
      [375, 'light'],
      [1280, 'light'],
      [375, 'dark'],
    ] as const) {
      await setViewport({ width, height: 900 });
      const { api } = refundsApi();
      const el = await mount(api, { view: 'payments', theme });
      await openPayment(el, 'paid');
      await click(el, part(el, 'refund'));
      await click(el, part(el, 'submit-refund'));
      await waitUntil(() => $(el, '[part~="claim-link"]'), 'the claim link');
      expect(el.scrollWidth, 'nothing runs off the side').to.be.at.most(el.clientWidth + 1);
      await expect(el).to.be.accessible();
      const box = part(el, 'refunds').getBoundingClientRect();
      await executeServerCommand('admin-screenshot', {
        name: `admin-refunds-${width}-${theme}`,
        clip: { x: box.x + scrollX, y: box.y + scrollY, width: box.width, height: Math.min(box.height, 2400) },
      });
      el.remove();
    }
    await setViewport({ width: 800, height: 600 });
  });
});
