/**
 * Hardening of the payments and webhooks views: what a customer typed at checkout (address, phone,
 * email), what the merchant's own code sent (reference, metadata) and what the service reports (link
 * titles, networks, hashes, endpoint URLs, delivery errors) stays text. Each payload would set
 * `window.__xss` if it became markup, a handler or a followed link; none may, and no element that
 * could run script may appear. The same rules as `xss.test.ts`, for the views added after it.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { FakeAdminApi, makeDelivery, makeSession } from './admin-fake-api.js';
import { $, $$, click, mount, part, settle, text } from './admin-helpers.js';

declare global {
  interface Window {
    __xss?: unknown;
  }
}

const PAYLOADS = [
  '<img src=x onerror="window.__xss=1">',
  '"><svg onload="window.__xss=1">',
  `'><iframe srcdoc="<script>parent.__xss=1</script>"></iframe>`,
  'javascript:window.__xss=1',
];

/** What in the admin's shadow tree could run script: it must all be empty. */
function dangerous(el: PaylinkAdmin): string[] {
  return [...el.shadowRoot!.querySelectorAll('*')]
    .filter(
      (node) =>
        ['img', 'script', 'iframe', 'object', 'embed', 'svg'].includes(node.localName) ||
        [...node.attributes].some((attribute) => /^on/i.test(attribute.name)) ||
        /^\s*(javascript|data|vbscript):/i.test(node.getAttribute('href') ?? ''),
    )
    .map((node) => node.outerHTML.slice(0, 160));
}

async function expectInert(el: PaylinkAdmin, where: string) {
  await settle(el);
  expect(dangerous(el), where).to.deep.equal([]);
  expect(window.__xss, where).to.equal(undefined);
}

describe('<paylink-admin> payments and webhooks render what they are given as text', () => {
  for (const payload of PAYLOADS) {
    describe(payload, () => {
      it('in a payment: link title, reference, metadata, customer details, network, hash', async () => {
        const api = new FakeAdminApi();
        api.sessions.push(
          makeSession({
            linkTitle: payload,
            reference: payload,
            networkName: payload,
            metadata: { [payload.slice(0, 40)]: payload },
            customer: { address: payload, phone: payload, email: payload },
            transfers: [{ txHash: payload, blockchainId: 'bsc', amount: '1.000000', confirmedAt: null, late: false }],
          }),
        );
        const el = await mount(api, { view: 'payments' });
        await waitUntil(() => $(el, '[part~="payment-row"]'));
        expect(text(part(el, 'payment-row'))).to.contain(payload.trim());
        await expectInert(el, 'list');
        await click(el, part(el, 'open-payment'));
        await waitUntil(() => $(el, '[part~="payment-detail"]'));
        await waitUntil(() => api.calls('GET', '/withdrawal/networks').length > 0);
        await settle(el);
        expect(text(part(el, 'customer-address'))).to.equal(payload.trim());
        expect(text(part(el, 'reference'))).to.equal(payload.trim());
        expect(text(part(el, 'transactions-table'))).to.contain(payload.trim());
        expect($(el, '[part~="explorer-link"]'), 'a hash that is not one gets no explorer link').to.equal(null);
        expect(part(el, 'customer-phone').querySelector('a')!.getAttribute('href'), 'only digits reach tel:').to.match(/^tel:\+?\d*$/);
        expect(part(el, 'customer-email').querySelector('a'), 'what is no email address gets no mailto: link').to.equal(null);
        expect(text(part(el, 'customer-email'))).to.equal(payload.trim());
        await expectInert(el, 'detail');
      });

      it('in a webhook endpoint and its deliveries', async () => {
        const api = new FakeAdminApi();
        const endpoint = api.addEndpoint({ url: `https://shop.example/${payload}`, description: payload });
        api.deliveries.push(
          makeDelivery(endpoint.id, {
            eventType: payload,
            eventId: payload,
            status: 'failed',
            attempts: [{ at: '2025-04-02T10:00:00.000Z', statusCode: null, error: payload, durationMs: 5 }],
          }),
        );
        const el = await mount(api, { view: 'webhooks' });
        await waitUntil(() => $(el, '[part~="endpoint-row"]'));
        expect(text(part(el, 'endpoint-row'))).to.contain(payload.trim());
        await expectInert(el, 'list');
        await click(el, part(el, 'endpoint-url'));
        await waitUntil(() => $$(el, '[part~="delivery-row"]').length === 1);
        expect(text(part(el, 'delivery-row'))).to.contain(payload.trim());
        await expectInert(el, 'detail');
      });
    });
  }
});
