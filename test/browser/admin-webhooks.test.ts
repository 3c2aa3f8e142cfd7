/**
 * `<paylink-admin>`'s webhooks: adding an endpoint and reading its secret the one time it
 * is shown, enabling, disabling and deleting endpoints, sending a test event, and the delivery log
 * with its retries.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/core/rules/webhooks.js';
import { FakeAdminApi, errorResponse, makeDelivery } from './admin-fake-api.js';
import { $, $$, button, choose, click, errorFor, field, focused, mount, part, settle, text, type } from './admin-helpers.js';

async function mountWebhooks(api: FakeAdminApi, locale = 'en'): Promise<PaylinkAdmin> {
  const el = await mount(api, { view: 'webhooks', locale });
  await waitUntil(() => $(el, '[part~="endpoints-table"], [part~="empty"]'), 'endpoints shown');
  await settle(el);
  return el;
}

/** An API with one endpoint and its log: a delivered event, a failing one waiting for its retry, one that gave up. */
function endpointApi() {
  const api = new FakeAdminApi();
  const endpoint = api.addEndpoint({
    url: 'https://shop.example/paylink/webhooks',
    description: 'Orders',
    events: ['checkout.session.paid', 'withdrawal.failed'],
  });
  const failing = makeDelivery(endpoint.id, {
    eventType: 'checkout.session.paid',
    status: 'pending',
    attemptCount: 2,
    attempts: [
      { at: '2025-04-02T10:00:00.000Z', statusCode: 500, error: 'HTTP 500', durationMs: 120 },
      { at: '2025-04-02T10:00:30.000Z', statusCode: null, error: 'timed out after 10 s', durationMs: 10_000 },
    ],
    nextAttemptAt: '2025-04-02T10:01:30.000Z',
    deliveredAt: null,
  });
  const gaveUp = makeDelivery(endpoint.id, {
    eventType: 'withdrawal.failed',
    status: 'failed',
    attemptCount: 3,
    attempts: [{ at: '2025-04-05T10:00:00.000Z', statusCode: 404, error: 'HTTP 404', durationMs: 80 }],
    deliveredAt: null,
  });
  api.deliveries.push(makeDelivery(endpoint.id), failing, gaveUp);
  return { api, endpoint, failing, gaveUp };
}

async function openEndpoint(el: PaylinkAdmin) {
  await click(el, part(el, 'endpoint-url'));
  await waitUntil(() => $(el, '[part~="delivery-row"], [part~="webhook-detail"] [part~="empty"]'), 'endpoint shown');
  await settle(el);
}

/** Every text an element shows or holds in a form control. */
function everything(el: PaylinkAdmin): string {
  const values = [...el.shadowRoot!.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')].map((input) => input.value);
  return `${el.shadowRoot!.innerHTML} ${values.join(' ')}`;
}

describe('<paylink-admin> webhooks', () => {
  it('is accessible on the list, the form with errors, the secret, the delete step and the deliveries', async () => {
    const empty = await mountWebhooks(new FakeAdminApi());
    await expect(empty).to.be.accessible();
    await click(empty, part(empty, 'new-endpoint'));
    await click(empty, part(empty, 'submit-endpoint'));
    await expect(empty).to.be.accessible();
    await type(empty, field(empty, 'Endpoint URL'), 'https://shop.example/hook');
    await click(empty, part(empty, 'submit-endpoint'));
    await waitUntil(() => $(empty, '[part~="endpoint-secret"]'));
    await expect(empty).to.be.accessible();

    const { api } = endpointApi();
    const el = await mountWebhooks(api);
    await expect(el).to.be.accessible();
    await openEndpoint(el);
    await click(el, part(el, 'delete-endpoint'));
    await expect(el).to.be.accessible();
  });

  it('defaults: lists the endpoints with their events and state, never a secret', async () => {
    const { api } = endpointApi();
    api.addEndpoint({ url: 'https://erp.example/in', isActive: false });
    const el = await mountWebhooks(api);
    const rows = $$(el, '[part~="endpoint-row"]');
    expect(rows).to.have.length(2);
    expect(text(rows[0])).to.contain('https://erp.example/in').and.contain('All events').and.contain('Disabled');
    expect(text(rows[1])).to.contain('Orders').and.contain('checkout.session.paid, withdrawal.failed').and.contain('Enabled');
    expect(everything(el)).not.to.contain('whsec_');
  });

  describe('when adding an endpoint', () => {
    it('adds one with the keyboard, shows its secret once with a warning and a copy button', async () => {
      const api = new FakeAdminApi();
      const el = await mountWebhooks(api);
      part(el, 'new-endpoint').focus();
      await sendKeys({ press: 'Enter' });
      await settle(el);
      expect(focused(el)?.id).to.equal('webhook-form-heading');
      await sendKeys({ press: 'Tab' });
      expect(focused(el)?.id).to.equal('wh-url');
      await sendKeys({ type: 'https://shop.example/paylink/webhooks' });
      // Every event is chosen to begin with: leave out the two about withdrawals.
      for (let i = 0; i < 12; i++) await sendKeys({ press: 'Tab' });
      expect(focused(el)?.id).to.equal('wh-event-11');
      await sendKeys({ press: 'Space' });
      await sendKeys({ press: 'Tab' });
      await sendKeys({ press: 'Space' });
      await sendKeys({ press: 'Tab' });
      expect(focused(el)?.id).to.equal('wh-event-13');
      await sendKeys({ press: 'Tab' });
      expect(focused(el)?.getAttribute('part')).to.contain('select-all-events');
      await sendKeys({ press: 'Tab' });
      expect(focused(el)?.id).to.equal('wh-description');
      await sendKeys({ type: 'Orders' });
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => $(el, '[part~="endpoint-secret"]'), 'secret shown');
      await settle(el);

      const [create] = api.calls('POST', '/webhook-endpoint');
      expect(create!.body).to.deep.equal({
        url: 'https://shop.example/paylink/webhooks',
        events: WEBHOOK_EVENT_TYPES.filter((type) => !type.startsWith('withdrawal.')),
        description: 'Orders',
      });
      const secret = api.endpoints[0]!.secret;
      expect(secret).to.match(/^whsec_/);
      expect((part(el, 'secret') as HTMLInputElement).value).to.equal(secret);
      expect(text(part(el, 'secret-warning'))).to.contain('you won’t see it again');
      expect(focused(el)?.id, 'focus on the secret').to.equal('wh-secret-heading');
      expect(text(part(el, 'status'))).to.contain('added');

      const copied: string[] = [];
      const original = navigator.clipboard?.writeText;
      Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, value: async (value: string) => void copied.push(value) });
      try {
        await click(el, part(el, 'copy-secret'));
        await waitUntil(() => text(part(el, 'copy-secret')).includes('Copied'));
      } finally {
        if (original) Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, value: original });
      }
      expect(copied).to.deep.equal([secret]);

      await click(el, part(el, 'secret-saved'));
      await settle(el);
      expect($(el, '[part~="endpoint-secret"]')).to.equal(null);
      expect(focused(el)?.id).to.equal('webhook-detail-heading');
      expect(everything(el), 'the secret is gone from the page').not.to.contain(secret);
      await click(el, part(el, 'back'));
      await waitUntil(() => $(el, '[part~="endpoint-row"]'));
      await openEndpoint(el);
      expect(everything(el), 'and does not come back').not.to.contain(secret);
    });

    it('forgets the secret when the merchant leaves without confirming', async () => {
      const api = new FakeAdminApi();
      const el = await mountWebhooks(api);
      await click(el, part(el, 'new-endpoint'));
      await type(el, field(el, 'Endpoint URL'), 'https://shop.example/hook');
      await click(el, part(el, 'submit-endpoint'));
      await waitUntil(() => $(el, '[part~="endpoint-secret"]'));
      const secret = api.endpoints[0]!.secret;
      await click(el, part(el, 'back'));
      await waitUntil(() => $(el, '[part~="endpoint-row"]'));
      await openEndpoint(el);
      expect(everything(el)).not.to.contain(secret);
    });

    it('selects the secret for a manual copy where the clipboard is refused', async () => {
      const api = new FakeAdminApi();
      const el = await mountWebhooks(api);
      await click(el, part(el, 'new-endpoint'));
      await type(el, field(el, 'Endpoint URL'), 'https://shop.example/hook');
      await click(el, part(el, 'submit-endpoint'));
      await waitUntil(() => $(el, '[part~="endpoint-secret"]'));
      const original = navigator.clipboard?.writeText;
      Object.defineProperty(navigator.clipboard, 'writeText', {
        configurable: true,
        value: async () => Promise.reject(new DOMException('denied', 'NotAllowedError')),
      });
      try {
        await click(el, part(el, 'copy-secret'));
        await waitUntil(() => focused(el)?.id === 'wh-secret', 'the secret is focused');
      } finally {
        if (original) Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, value: original });
      }
      const area = part(el, 'secret') as HTMLTextAreaElement;
      expect(area.value.slice(area.selectionStart, area.selectionEnd)).to.equal(api.endpoints[0]!.secret);
      expect(text(part(el, 'endpoint-secret'))).to.contain('Could not copy');
    });

    it('checks the URL and the events before sending', async () => {
      const api = new FakeAdminApi();
      const el = await mountWebhooks(api);
      await click(el, part(el, 'new-endpoint'));
      await click(el, part(el, 'submit-endpoint'));
      expect(errorFor(el, field(el, 'Endpoint URL'))).to.equal('Enter the address to send events to.');
      expect(focused(el)?.id).to.equal('wh-url');
      await type(el, field(el, 'Endpoint URL'), 'https://user:pw@shop.example/hook');
      for (const box of $$(el, '[part~="event-option"]')) await choose(el, box as HTMLInputElement, 'off');
      await click(el, part(el, 'submit-endpoint'));
      expect(errorFor(el, field(el, 'Endpoint URL'))).to.contain('without a password');
      expect(text(part(el, 'events'))).to.contain('Choose at least one event.');
      expect($$(el, '[part~="event-option"]').every((box) => box.getAttribute('aria-invalid') === 'true')).to.equal(true);
      expect(api.calls('POST', '/webhook-endpoint')).to.have.length(0);
      await click(el, part(el, 'select-all-events'));
      expect($$(el, '[part~="event-option"]').every((box) => (box as HTMLInputElement).checked)).to.equal(true);
    });

    it('tells how a local http:// receiver is allowed, in the URL field’s description', async () => {
      const el = await mountWebhooks(new FakeAdminApi());
      await click(el, part(el, 'new-endpoint'));
      const url = field(el, 'Endpoint URL');
      const described = (url.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => text(el.shadowRoot!.getElementById(id)))
        .join(' ');
      expect(described).to.contain('http://localhost').and.contain('PAYLINK_WEBHOOK_ALLOW_PRIVATE=1');
    });

    it('shows the service’s refusal beside the URL and keeps what was typed', async () => {
      const api = new FakeAdminApi();
      api.intercept((request) =>
        request.method === 'POST' && request.path.endsWith('/webhook-endpoint')
          ? errorResponse(400, 'validation_error', 'Invalid webhook endpoint', [{ path: 'url', message: 'url must use https://' }])
          : undefined,
      );
      const el = await mountWebhooks(api);
      await click(el, part(el, 'new-endpoint'));
      await type(el, field(el, 'Endpoint URL'), 'http://shop.example/hook');
      await click(el, part(el, 'submit-endpoint'));
      await waitUntil(() => errorFor(el, field(el, 'Endpoint URL')).includes('https://'));
      expect(field(el, 'Endpoint URL').value).to.equal('http://shop.example/hook');
      expect($(el, '[part~="endpoint-secret"]')).to.equal(null);
    });

    it('shows a cross-site refusal under the form and does not ask to sign in', async () => {
      const api = new FakeAdminApi();
      api.intercept((request) =>
        request.method !== 'GET' ? errorResponse(403, 'cross_site_request', 'This write came from another site: set publicOrigin') : undefined,
      );
      const el = await mountWebhooks(api);
      await click(el, part(el, 'new-endpoint'));
      await type(el, field(el, 'Endpoint URL'), 'https://shop.example/hook');
      await click(el, part(el, 'submit-endpoint'));
      await waitUntil(() => $(el, '[part~="form-error"]'));
      expect(text(part(el, 'form-error'))).to.contain('publicOrigin');
      expect($(el, '[part~="sign-in"]')).to.equal(null);
    });
  });

  describe('when managing an endpoint', () => {
    it('disables and enables it from the list and from its detail', async () => {
      const { api, endpoint } = endpointApi();
      const el = await mountWebhooks(api);
      await click(el, button(el, `Disable ${endpoint.url}`));
      await waitUntil(() => text(part(el, 'endpoint-row')).includes('Disabled'));
      expect(api.calls('PATCH', '/webhook-endpoint').map((r) => r.body)).to.deep.equal([{ id: endpoint.id, isActive: false }]);
      expect(text(part(el, 'status'))).to.contain('disabled');
      await openEndpoint(el);
      await click(el, part(el, 'toggle-endpoint'));
      await waitUntil(() => text(part(el, 'webhook-detail')).includes('Enabled'));
      expect(api.calls('PATCH', '/webhook-endpoint').at(-1)!.body).to.deep.equal({ id: endpoint.id, isActive: true });
    });

    it('changes its events', async () => {
      const { api, endpoint } = endpointApi();
      const el = await mountWebhooks(api);
      await openEndpoint(el);
      await click(el, part(el, 'edit-endpoint'));
      expect(field(el, 'Endpoint URL').value).to.equal(endpoint.url);
      await click(el, part(el, 'select-all-events'));
      await click(el, part(el, 'submit-endpoint'));
      await waitUntil(() => $(el, '[part~="webhook-detail"]'));
      expect(api.calls('PATCH', '/webhook-endpoint')[0]!.body.events).to.deep.equal([...WEBHOOK_EVENT_TYPES]);
      expect(text(part(el, 'endpoint-events'))).to.contain('All events');
      expect($(el, '[part~="endpoint-secret"]'), 'no secret on a change').to.equal(null);
    });

    it('rolls its secret: the new one is shown once, as after adding it, and the old one is never shown', async () => {
      const { api, endpoint } = endpointApi();
      const el = await mountWebhooks(api);
      await openEndpoint(el);
      expect($(el, '[part~="endpoint-secret"]')).to.equal(null);
      await click(el, part(el, 'roll-secret'));
      await waitUntil(() => $(el, '[part~="endpoint-secret"]'), 'the new secret shown');
      expect(api.calls('POST', `/webhook-endpoint/${endpoint.id}/roll-secret`)).to.have.length(1);
      const shown = (part(el, 'secret') as HTMLTextAreaElement).value;
      expect(shown).to.match(/^whsec_rolled/);
      expect(everything(el)).not.to.contain(`whsec_${'0'.repeat(32)}`);
      await settle(el);
      expect(focused(el)?.id).to.equal('wh-secret-heading');
      await click(el, part(el, 'secret-saved'));
      expect(everything(el)).not.to.contain(shown);
    });

    it('deletes it only after a confirm step', async () => {
      const { api, endpoint } = endpointApi();
      const el = await mountWebhooks(api);
      await openEndpoint(el);
      await click(el, part(el, 'delete-endpoint'));
      await settle(el);
      expect(focused(el)?.id).to.equal('wh-delete-heading');
      expect(text(part(el, 'delete-confirm')))
        .to.contain(endpoint.url)
        .and.contain('cannot be undone');
      await click(el, part(el, 'cancel-delete'));
      await settle(el);
      expect($(el, '[part~="delete-confirm"]')).to.equal(null);
      expect(focused(el)?.getAttribute('part')).to.contain('delete-endpoint');
      expect(api.calls('DELETE', `/webhook-endpoint/${endpoint.id}`)).to.have.length(0);
      await click(el, part(el, 'delete-endpoint'));
      await click(el, part(el, 'confirm-delete'));
      await waitUntil(() => $(el, '[part~="webhooks-list"] [part~="empty"]'), 'back on an empty list');
      expect(api.calls('DELETE', `/webhook-endpoint/${endpoint.id}`)).to.have.length(1);
      expect(text(part(el, 'status'))).to.contain('deleted');
    });
  });

  describe('when testing and following deliveries', () => {
    it('sends a test event and says how the endpoint answered', async () => {
      const { api, endpoint } = endpointApi();
      const el = await mountWebhooks(api);
      await openEndpoint(el);
      await click(el, part(el, 'send-test'));
      await waitUntil(() => $(el, '[part~="test-result"]'));
      expect(api.calls('POST', `/webhook-endpoint/${endpoint.id}/test`)).to.have.length(1);
      expect(text(part(el, 'test-result'))).to.contain('Test event delivered: HTTP 200');
      await waitUntil(() => $$(el, '[part~="delivery-row"]').length === 4, 'the test is in the log');
      expect(text($$(el, '[part~="delivery-row"]')[0]))
        .to.contain('webhook.test')
        .and.contain('Delivered');

      api.endpointAnswer = { statusCode: 500, error: null };
      await click(el, part(el, 'send-test'));
      await waitUntil(() => text($(el, '[part~="test-result"]')).includes('not delivered'));
      expect(text(part(el, 'test-result'))).to.contain('HTTP 500');
    });

    it('says the same as the log’s row about retrying a failed test event', async () => {
      const { api } = endpointApi();
      const el = await mountWebhooks(api);
      await openEndpoint(el);
      api.endpointAnswer = { statusCode: 503, error: null };
      await click(el, part(el, 'send-test'));
      await waitUntil(() => text($(el, '[part~="test-result"]')).includes('not delivered'));
      await waitUntil(() => text($$(el, '[part~="delivery-row"]')[0]).includes('webhook.test'), 'the test is in the log');
      const row = $$(el, '[part~="delivery-row"]')[0]!;
      // The service does not retry a test event: the row has no next retry, and the banner must not promise one.
      expect(text(row)).to.contain('Failed');
      expect(text(row.querySelector('[part~="next-retry"]'))).to.equal('—');
      const banner = text(part(el, 'test-result'));
      expect(banner).to.contain('not retried on its own').and.contain('Retry');
      expect(banner).not.to.match(/schedule|tries it again/);
    });

    it('shows each delivery’s status, attempts, response and next retry, and filters by status', async () => {
      const { api, endpoint } = endpointApi();
      const el = await mountWebhooks(api);
      await openEndpoint(el);
      const [log] = api.calls('GET', `/webhook-endpoint/${endpoint.id}/deliveries`);
      expect(Object.fromEntries(log!.url.searchParams)).to.deep.equal({ page: '1', limit: '10' });
      const rows = $$(el, '[part~="delivery-row"]');
      expect(rows).to.have.length(3);
      const failing = rows.find((row) => text(row).includes('Pending'))!;
      expect(text(failing)).to.contain('checkout.session.paid');
      expect(text(failing.querySelector('td.num .cell-value'))).to.equal('2');
      expect(text(failing.querySelector('[part~="delivery-response"]'))).to.equal('timed out after 10 s · 10,000 ms');
      expect(text(failing.querySelector('[part~="next-retry"]'))).not.to.equal('—');
      const gaveUp = rows.find((row) => text(row).includes('Failed'))!;
      expect(text(gaveUp.querySelector('[part~="delivery-response"]'))).to.equal('HTTP 404 · 80 ms');
      expect(text(gaveUp.querySelector('[part~="next-retry"]'))).to.equal('—');
      await choose(el, part(el, 'filter-delivery-status') as HTMLSelectElement, 'failed');
      await waitUntil(() => $$(el, '[part~="delivery-row"]').length === 1);
      expect(api.calls('GET', `/webhook-endpoint/${endpoint.id}/deliveries`).at(-1)!.url.searchParams.get('status')).to.equal('failed');
    });

    it('retries a delivery with the keyboard and shows its new state', async () => {
      const { api, gaveUp } = endpointApi();
      const el = await mountWebhooks(api);
      await openEndpoint(el);
      const retry = $$(el, '[part~="retry-delivery"]').find((b) => b.getAttribute('aria-label')!.startsWith('Retry withdrawal.failed'))!;
      retry.focus();
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => text($$(el, '[part~="delivery-row"]').find((row) => text(row).includes('withdrawal.failed'))).includes('Delivered'), 'row updated');
      expect(api.calls('POST', `/webhook-delivery/${gaveUp.id}/retry`)).to.have.length(1);
      const row = $$(el, '[part~="delivery-row"]').find((r) => text(r).includes('withdrawal.failed'))!;
      expect(text(row.querySelector('td.num .cell-value'))).to.equal('4');
      expect(text(row.querySelector('[part~="delivery-response"]'))).to.contain('HTTP 200');
      expect(text(part(el, 'status'))).to.contain('withdrawal.failed retried: Delivered');
    });

    it('asks to sign in when a retry gets a 401', async () => {
      const { api } = endpointApi();
      const el = await mountWebhooks(api);
      await openEndpoint(el);
      api.intercept((request) => (request.method === 'POST' ? errorResponse(401, 'unauthorized', 'Sign in') : undefined));
      await click(el, part(el, 'retry-delivery'));
      await waitUntil(() => $(el, '[part~="sign-in"]'));
    });
  });

  describe('when the locale is French', () => {
    it('speaks French', async () => {
      const { api } = endpointApi();
      const el = await mountWebhooks(api, 'fr');
      expect(text(part(el, 'new-endpoint'))).to.equal('Ajouter un point de terminaison');
      await openEndpoint(el);
      expect(text(part(el, 'send-test'))).to.equal('Envoyer un événement de test');
      expect(text($(el, '#wh-deliveries'))).to.equal('Envois');
    });
  });
});
