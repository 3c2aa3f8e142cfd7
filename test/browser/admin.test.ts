import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import '../../src/admin.js';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { FakeAdminApi, errorResponse, makeLink, makeWithdrawal } from './admin-fake-api.js';
import {
  $,
  $$,
  CHECKSUMMED,
  UUID,
  button,
  choose,
  click,
  errorFor,
  field,
  fillWithdrawal,
  holdTimers,
  mount,
  openMoney,
  part,
  seededApi,
  settle,
  text,
  type,
} from './admin-helpers.js';

describe('<paylink-admin>', () => {
  it('is accessible on the links list', async () => {
    const el = await mount(seededApi());
    await waitUntil(() => $(el, '[part~="link-row"]'));
    await expect(el).to.be.accessible();
  });

  it('is accessible on the link form', async () => {
    const el = await mount(seededApi());
    await click(el, part(el, 'new-link'));
    await click(el, button(el, /Add item/));
    await expect(el).to.be.accessible();
  });

  it('is accessible on the link detail', async () => {
    const el = await mount(seededApi());
    await waitUntil(() => $(el, '[part~="link-row"]'));
    await click(el, part(el, 'link-title'));
    await waitUntil(() => $(el, '[part~="link-detail"]'));
    await expect(el).to.be.accessible();
  });

  it('is accessible on the money view and its confirm step', async () => {
    const api = seededApi();
    api.withdrawals.push(makeWithdrawal({ status: 'failed', failureReason: 'Network congestion' }));
    const el = await mount(api);
    await openMoney(el);
    await expect(el).to.be.accessible();
    await fillWithdrawal(el);
    await expect(el).to.be.accessible();
  });

  it('is accessible when it asks the merchant to sign in', async () => {
    const api = new FakeAdminApi();
    api.intercept(() => errorResponse(401, 'unauthorized', 'Sign in required'));
    const el = await mount(api);
    await waitUntil(() => $(el, '[part~="sign-in"]'));
    await expect(el).to.be.accessible();
  });

  it('shows where each link stands as the service says, not by the browser’s clock', async () => {
    const api = new FakeAdminApi();
    const past = '2020-01-01T00:00:00.000Z';
    const future = '2099-01-01T00:00:00.000Z';
    // The service's clock and the browser's disagree both ways: the service's `state` decides.
    api.links.push(
      makeLink({ title: 'Open by the service', linkType: 'Donation', closesAt: past, state: 'open' }),
      makeLink({ title: 'Closed by the service', linkType: 'Donation', closesAt: future, state: 'closed' }),
      makeLink({ title: 'Switched off', isActive: false }),
    );
    const el = await mount(api);
    await waitUntil(() => $$(el, '[part~="link-row"]').length === 3);
    const badgeOf = (title: string) => {
      const row = $$(el, '[part~="link-row"]').find((r) => text(r).includes(title))!;
      return row.querySelector('[part~="badge"]')!.getAttribute('part');
    };
    expect(badgeOf('Open by the service')).to.equal('badge badge-active');
    expect(badgeOf('Closed by the service')).to.equal('badge badge-closed');
    expect(badgeOf('Switched off')).to.equal('badge badge-inactive');
    await click(
      el,
      $$(el, '[part~="link-title"]').find((b) => text(b).includes('Closed by the service'))!,
    );
    await waitUntil(() => $(el, '[part~="link-detail"]'));
    expect($(el, '[part~="link-detail"] [part~="badge"]')!.getAttribute('part')).to.equal('badge badge-closed');
    expect(text(part(el, 'link-detail')), 'no closing date is offered for a closed link').not.to.contain('Closes');
  });

  it('defaults: lists links from /paylink/admin with the merchant’s cookies and no token', async () => {
    const api = seededApi();
    const el = await mount(api);
    expect(el.apiBase).to.equal('/paylink');
    expect(el.view).to.equal('links');
    const [first] = api.calls('GET', '/payment-link');
    expect(first, 'the list was requested').to.exist;
    expect(first!.credentials).to.equal('include');
    expect(first!.headers).not.to.have.property('authorization');
    expect(first!.headers).not.to.have.property('x-api-key');
    expect(first!.url.searchParams.get('page')).to.equal('1');
    const tabs = $$(el, '[role="tab"]');
    expect(tabs.map((t) => t.getAttribute('aria-selected'))).to.deep.equal(['true', 'false', 'false', 'false', 'false', 'false']);
    expect($$(el, '[part~="link-row"]')).to.have.length(3);
    expect(text($(el, '[part~="link-row"]'))).to.contain('Coffee beans 1');
    expect(text($(el, '[part~="link-row"]'))).to.contain('5,000.00');
  });

  describe('when a bearer token is set', () => {
    it('sends it as Authorization and never as an attribute', async () => {
      const api = seededApi();
      const el = await fixture<PaylinkAdmin>(html`<paylink-admin .fetch=${api.fetch} .token=${'secret-token'}></paylink-admin>`);
      await settle(el);
      const [first] = api.calls('GET', '/payment-link');
      expect(first!.headers.authorization).to.equal('Bearer secret-token');
      expect(el.hasAttribute('token')).to.equal(false);
      expect(el.outerHTML).not.to.contain('secret-token');
    });

    it('ignores a token attribute in markup', async () => {
      const api = seededApi();
      const el = await fixture<PaylinkAdmin>(html`<paylink-admin .fetch=${api.fetch} token="leaked"></paylink-admin>`);
      await settle(el);
      expect(el.token).to.equal(undefined);
      expect(api.calls('GET', '/payment-link')[0]!.headers).not.to.have.property('authorization');
    });
  });

  describe('when the proxy answers 401', () => {
    it('shows a sign-in message and announces it with an event', async () => {
      const api = new FakeAdminApi();
      api.intercept(() => errorResponse(401, 'unauthorized', 'Missing or invalid admin credentials'));
      const events: number[] = [];
      const el = await fixture<PaylinkAdmin>(
        html`<paylink-admin .fetch=${api.fetch} @paylink-auth-required=${(e: CustomEvent<{ status: number }>) => events.push(e.detail.status)}></paylink-admin>`,
      );
      await waitUntil(() => $(el, '[part~="sign-in"]'), 'sign-in shown');
      const signIn = part(el, 'sign-in');
      expect(signIn.getAttribute('role')).to.equal('alert');
      expect(text(signIn)).to.contain('Sign in');
      expect(events).to.deep.equal([401]);
      expect($(el, '[part~="links-table"]')).to.equal(null);
    });

    it('loads again once the merchant has signed in and retries', async () => {
      const api = seededApi();
      let signedIn = false;
      api.intercept(() => (signedIn ? undefined : errorResponse(401, 'unauthorized', 'Sign in')));
      const el = await mount(api);
      await waitUntil(() => $(el, '[part~="sign-in"]'));
      signedIn = true;
      await click(el, button(el, 'Try again'));
      await waitUntil(() => $$(el, '[part~="link-row"]').length === 3, 'links shown after sign-in');
    });
  });

  describe('when loading fails', () => {
    it('says why in the list and loads again on Try again', async () => {
      const api = seededApi();
      let down = true;
      api.intercept(() => (down ? errorResponse(502, 'upstream_unavailable', 'The payment service is unreachable') : undefined));
      const el = await mount(api);
      await waitUntil(() => $(el, '[part~="links-list"] [part~="error"]'), 'error shown');
      const box = part(el, 'error');
      expect(box.getAttribute('role')).to.equal('alert');
      expect(text(box)).to.contain('The payment service is unreachable');
      down = false;
      await click(el, box.querySelector<HTMLElement>('[part~="retry"]')!);
      await waitUntil(() => $$(el, '[part~="link-row"]').length === 3, 'links shown after retrying');
      expect($(el, '[part~="error"]')).to.equal(null);
    });

    it('says why the balances are missing and loads them again on Try again', async () => {
      const api = seededApi();
      let down = true;
      api.intercept((r) => (down && r.path.endsWith('/balance') ? errorResponse(503, 'unavailable', 'Balances are being recalculated') : undefined));
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => $(el, '[part~="balances"] [part~="error"]'), 'error shown');
      expect(text($(el, '[part~="balances"] [part~="error"]'))).to.contain('Balances are being recalculated');
      down = false;
      await click(el, $(el, '[part~="balances"] [part~="retry"]')!);
      await waitUntil(() => text(part(el, 'balance-usdt')).includes('125.5'), 'balances shown after retrying');
      expect($(el, '[part~="balances"] [part~="error"]')).to.equal(null);
    });
  });

  describe('when the proxy refuses a write as cross-site', () => {
    const REASON =
      'Refused a cross-site write: this request came from https://shop.example, not from https://admin.example. Behind a reverse proxy that rewrites Host, set publicOrigin.';
    const refuseWrites = (api: FakeAdminApi, status = 403, code = 'cross_site_request') =>
      api.intercept((r) => (r.method === 'GET' ? undefined : errorResponse(status, code, REASON)));
    const submitNewLink = async (el: PaylinkAdmin) => {
      await click(el, part(el, 'new-link'));
      await type(el, field(el, 'Title'), 'Yoga class');
      await type(el, field(el, 'Amount (NGN)'), '7500');
      await click(el, part(el, 'submit'));
    };
    const authEvents = (el: PaylinkAdmin) => {
      const statuses: number[] = [];
      el.addEventListener('paylink-auth-required', (e) => statuses.push(e.detail.status));
      return statuses;
    };

    it('shows the proxy’s reason under the link form, keeps what was typed, and does not ask to sign in', async () => {
      const api = seededApi(0);
      refuseWrites(api);
      const el = await mount(api);
      const events = authEvents(el);
      await submitNewLink(el);
      await waitUntil(() => $(el, '[part~="link-form"] [part~="form-error"]'), 'the reason is shown on the form');
      expect(text(part(el, 'form-error'))).to.contain(REASON);
      expect(part(el, 'form-error').getAttribute('role')).to.equal('alert');
      expect($(el, '[part~="sign-in"]'), 'no sign-in message').to.equal(null);
      expect(events).to.deep.equal([]);
      expect(field(el, 'Title').value).to.equal('Yoga class');
      expect(field(el, 'Amount (NGN)').value).to.equal('7500');
    });

    it('shows the reason when pausing a link', async () => {
      const api = seededApi(1);
      refuseWrites(api);
      const el = await mount(api);
      await click(el, part(el, 'link-title'));
      await click(el, part(el, 'toggle-active'));
      await waitUntil(() => $(el, '[part~="link-detail"] [part~="error"]'), 'the reason is shown on the detail');
      expect(text(part(el, 'error'))).to.contain(REASON);
      expect($(el, '[part~="sign-in"]')).to.equal(null);
      expect(text(part(el, 'link-detail'))).to.contain('Active');
    });

    it('shows the reason on the withdrawal form and keeps the withdrawal as typed', async () => {
      const api = seededApi();
      refuseWrites(api);
      const el = await mount(api, { view: 'money' });
      const events = authEvents(el);
      await openMoney(el);
      await fillWithdrawal(el, CHECKSUMMED, '20');
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $(el, '[part~="withdraw-form"] [part~="form-error"]'), 'back on the form with the reason');
      expect(text(part(el, 'form-error'))).to.contain(REASON);
      expect($(el, '[part~="sign-in"]')).to.equal(null);
      expect(events).to.deep.equal([]);
      expect(field(el, 'Destination address').value).to.equal(CHECKSUMMED);
    });

    it('still asks to sign in when a write gets a 401', async () => {
      const api = seededApi(0);
      refuseWrites(api, 401, 'unauthorized');
      const el = await mount(api);
      const events = authEvents(el);
      await submitNewLink(el);
      await waitUntil(() => $(el, '[part~="sign-in"]'), 'sign-in shown');
      expect(text(part(el, 'sign-in'))).to.contain('Sign in');
      expect(text(part(el, 'sign-in'))).not.to.contain(REASON);
      expect(events).to.deep.equal([401]);
    });

    it('still asks to sign in when the proxy’s authorize refuses with another 403', async () => {
      const api = seededApi(0);
      refuseWrites(api, 403, 'forbidden');
      const el = await mount(api);
      const events = authEvents(el);
      await submitNewLink(el);
      await waitUntil(() => $(el, '[part~="sign-in"]'), 'sign-in shown');
      expect(events).to.deep.equal([403]);
    });
  });

  describe('when creating a link', () => {
    it('creates a Standard link and shows it', async () => {
      const api = seededApi(0);
      const saved: string[] = [];
      const el = await mount(api);
      el.addEventListener('paylink-link-saved', (e) => saved.push(e.detail.link.title));
      await click(el, part(el, 'new-link'));
      expect(el.shadowRoot!.activeElement?.id, 'focus moves to the form heading').to.equal('link-form-heading');
      await type(el, field(el, 'Title'), 'Yoga class');
      await type(el, field(el, 'Description'), 'One hour, mats provided');
      await type(el, field(el, 'Amount (NGN)'), '7500');
      await choose(el, field(el, 'Phone number'), 'on');
      await click(el, part(el, 'submit'));
      await waitUntil(() => $(el, '[part~="link-detail"]'), 'detail shown after create');
      const [post] = api.calls('POST', '/payment-link');
      expect(post!.body).to.deep.include({ title: 'Yoga class', description: 'One hour, mats provided', linkType: 'Standard', fiatAmount: '7500' });
      expect(post!.body.options).to.deep.equal({ collectAddress: false, collectPhone: true });
      expect(post!.body.action).to.deep.include({ redirect: false, showConfirmationPage: false, isActive: true });
      expect(text(part(el, 'link-detail'))).to.contain('Yoga class');
      expect(saved).to.deep.equal(['Yoga class']);
      expect(text(part(el, 'status'))).to.contain('created');
    });

    it('computes the cart total as items are added and removed, and sends the items', async () => {
      const api = seededApi(0);
      const el = await mount(api);
      await click(el, part(el, 'new-link'));
      await type(el, field(el, 'Title'), 'Basket');
      await click(el, button(el, /Add item/));
      expect(el.shadowRoot!.activeElement?.getAttribute('part')).to.contain('item-name');
      let rows = $$(el, '[part~="cart-item"]');
      await type(el, rows[0]!.querySelector('[part~="item-name"]')!, 'Beans');
      await type(el, rows[0]!.querySelector('[part~="item-quantity"]')!, '2');
      await type(el, rows[0]!.querySelector('[part~="item-unit"]')!, '1500.25');
      await click(el, button(el, /Add item/));
      rows = $$(el, '[part~="cart-item"]');
      await type(el, rows[1]!.querySelector('[part~="item-name"]')!, 'Mug');
      await type(el, rows[1]!.querySelector('[part~="item-unit"]')!, '999.5');
      expect(text(part(el, 'cart-total'))).to.contain('4,000.00');
      expect($(el, '[part~="amount"]'), 'the cart sets the amount').to.equal(null);
      await click(el, button(el, 'Remove Mug'));
      expect($$(el, '[part~="cart-item"]')).to.have.length(1);
      expect(text(part(el, 'cart-total'))).to.contain('3,000.50');
      await click(el, part(el, 'submit'));
      await waitUntil(() => api.calls('POST', '/payment-link').length === 1);
      const body = api.calls('POST', '/payment-link')[0]!.body;
      expect(body.cart.items).to.deep.equal([{ name: 'Beans', quantity: 2, unitAmount: '1500.25' }]);
      expect(body).not.to.have.property('fiatAmount');
    });

    it('creates a donation with a closing time in ISO, limits and suggested amounts', async () => {
      const api = seededApi(0);
      const el = await mount(api);
      await click(el, part(el, 'new-link'));
      await choose(el, $(el, '#lf-kind-donation') as HTMLInputElement, 'on');
      await type(el, field(el, 'Title'), 'School roof');
      await type(el, field(el, 'Minimum amount (NGN)'), '500');
      await type(el, field(el, 'Maximum amount (NGN)'), '100000');
      await type(el, field(el, 'Suggested amounts'), '1000, 2500, 5000');
      await type(el, field(el, 'Closes at'), '2031-06-30T18:00');
      await choose(el, $(el, '#lf-after-confirmation') as HTMLInputElement, 'on');
      await click(el, part(el, 'submit'));
      await waitUntil(() => api.calls('POST', '/payment-link').length === 1);
      const body = api.calls('POST', '/payment-link')[0]!.body;
      expect(body).to.deep.include({ linkType: 'Donation', minAmount: '500', maxAmount: '100000', suggestedAmounts: ['1000', '2500', '5000'] });
      expect(body.closesAt).to.equal(new Date('2031-06-30T18:00').toISOString());
      expect(body.cart.items).to.deep.equal([]);
      expect(body.action.showConfirmationPage).to.equal(true);
      expect(body).not.to.have.property('fiatAmount');
    });

    it('refuses a redirect URL that is not http(s) without calling the server', async () => {
      const api = seededApi(0);
      const el = await mount(api);
      await click(el, part(el, 'new-link'));
      await type(el, field(el, 'Title'), 'Tickets');
      await type(el, field(el, 'Amount (NGN)'), '100');
      await choose(el, $(el, '#lf-after-redirect') as HTMLInputElement, 'on');
      const url = field(el, 'Redirect URL');
      await type(el, url, 'javascript:alert(1)');
      await click(el, part(el, 'submit'));
      await settle(el);
      expect(api.calls('POST', '/payment-link')).to.have.length(0);
      expect(url.getAttribute('aria-invalid')).to.equal('true');
      expect(errorFor(el, url)).to.contain('https://');
      expect(el.shadowRoot!.activeElement).to.equal(url);
      await type(el, url, 'https://shop.example/thanks');
      await click(el, part(el, 'submit'));
      await waitUntil(() => api.calls('POST', '/payment-link').length === 1);
      expect(api.calls('POST', '/payment-link')[0]!.body.action).to.deep.include({ redirect: true, redirectUrl: 'https://shop.example/thanks' });
    });

    it('shows the server’s field errors beside their fields and keeps what was typed', async () => {
      const api = seededApi(0);
      api.intercept((r) =>
        r.method === 'POST'
          ? errorResponse(400, 'validation_failed', 'Invalid payment link', [
              { path: 'fiatAmount', message: 'NGN amounts have at most 2 decimal places' },
              { path: 'action.redirectUrl', message: 'redirectUrl must be an absolute http:// or https:// URL' },
            ])
          : undefined,
      );
      const el = await mount(api);
      await click(el, part(el, 'new-link'));
      await type(el, field(el, 'Title'), 'Workshop');
      await type(el, field(el, 'Description'), 'Saturday morning');
      await type(el, field(el, 'Amount (NGN)'), '10.50');
      await choose(el, $(el, '#lf-after-redirect') as HTMLInputElement, 'on');
      await type(el, field(el, 'Redirect URL'), 'http://shop.example/done');
      await click(el, part(el, 'submit'));
      await waitUntil(() => $$(el, '[part~="field-error"]').length === 2, 'server errors shown');
      expect(errorFor(el, field(el, 'Amount (NGN)'))).to.contain('at most 2 decimal places');
      expect(errorFor(el, field(el, 'Redirect URL'))).to.contain('absolute http');
      expect(field(el, 'Title').value).to.equal('Workshop');
      expect(field(el, 'Description').value).to.equal('Saturday morning');
      expect(field(el, 'Amount (NGN)').value).to.equal('10.50');
      expect(field(el, 'Redirect URL').value).to.equal('http://shop.example/done');
      expect(el.shadowRoot!.activeElement).to.equal(field(el, 'Amount (NGN)'));
    });
  });

  describe('when editing a link', () => {
    it('opens the form filled in and saves the changes with PATCH', async () => {
      const api = seededApi(1);
      api.links[0] = { ...api.links[0]!, title: 'Old title', description: 'Old', fiatAmount: '2500.00', isActive: true };
      const el = await mount(api);
      await click(el, part(el, 'edit-link'));
      const title = field(el, 'Title');
      expect(title.value).to.equal('Old title');
      expect(field(el, 'Amount (NGN)').value).to.equal('2500.00');
      expect((part(el, 'active-toggle') as HTMLInputElement).checked).to.equal(true);
      await type(el, title, 'New title');
      await choose(el, part(el, 'active-toggle') as HTMLInputElement, 'off');
      await click(el, part(el, 'submit'));
      await waitUntil(() => $(el, '[part~="link-detail"]'));
      const [patch] = api.calls('PATCH', '/payment-link');
      expect(patch!.body).to.deep.include({ id: api.links[0]!.id, title: 'New title' });
      expect(patch!.body.action.isActive).to.equal(false);
      expect(text(part(el, 'link-detail'))).to.contain('New title');
      expect(text(part(el, 'link-detail'))).to.contain('Inactive');
    });

    it('keeps a closed fundraiser editable without resending its past closing time', async () => {
      const api = seededApi(0);
      api.links.push(
        makeLink({
          title: 'Old appeal',
          linkType: 'Donation',
          fiatAmount: '0.00',
          closesAt: '2024-01-31T18:00:00.000Z',
          minAmount: '100.00',
          maxAmount: null,
          suggestedAmounts: [],
        }),
      );
      const el = await mount(api);
      await click(el, part(el, 'edit-link'));
      expect(field(el, 'Closes at').value, 'shown in the merchant’s time zone').to.match(/^2024-01-3[01]T\d\d:00$/);
      await type(el, field(el, 'Description'), 'Thank you all');
      await click(el, part(el, 'submit'));
      await waitUntil(() => api.calls('PATCH', '/payment-link').length === 1, 'saved');
      const body = api.calls('PATCH', '/payment-link')[0]!.body;
      expect(body).not.to.have.property('closesAt');
      expect(body).to.deep.include({ description: 'Thank you all', linkType: 'Donation', minAmount: '100.00' });
    });

    it('goes back to the link without saving on Cancel', async () => {
      const api = seededApi(1);
      const el = await mount(api);
      await click(el, part(el, 'edit-link'));
      await click(el, part(el, 'cancel'));
      expect($(el, '[part~="link-detail"]')).to.exist;
      expect(api.calls('PATCH', '/payment-link')).to.have.length(0);
    });
  });

  describe('when there are more links than fit a page', () => {
    it('pages forward and back', async () => {
      const api = seededApi(25);
      const el = await mount(api);
      expect(text(part(el, 'page-info'))).to.contain('Page 1 of 3');
      expect((part(el, 'previous-page') as HTMLButtonElement).disabled).to.equal(true);
      await click(el, part(el, 'next-page'));
      await waitUntil(() => text(part(el, 'page-info')).includes('Page 2 of 3'));
      expect(api.requests.at(-1)!.url.searchParams.get('page')).to.equal('2');
      expect(text($(el, '[part~="link-row"]'))).to.contain('Coffee beans 11');
      await click(el, part(el, 'next-page'));
      await waitUntil(() => text(part(el, 'page-info')).includes('Page 3 of 3'));
      expect($$(el, '[part~="link-row"]')).to.have.length(5);
      expect((part(el, 'next-page') as HTMLButtonElement).disabled).to.equal(true);
      await click(el, part(el, 'previous-page'));
      await waitUntil(() => text(part(el, 'page-info')).includes('Page 2 of 3'));
    });
  });

  describe('when filtering links', () => {
    it('filters by kind and status and starts again at page 1', async () => {
      const api = seededApi(12);
      api.links.push(makeLink({ title: 'Flood relief', linkType: 'Donation', isActive: false }));
      const el = await mount(api);
      await click(el, part(el, 'next-page'));
      await waitUntil(() => text(part(el, 'page-info')).includes('Page 2'));
      await choose(el, part(el, 'filter-kind') as HTMLSelectElement, 'Donation');
      await waitUntil(() => $$(el, '[part~="link-row"]').length === 1);
      let last = api.requests.at(-1)!.url.searchParams;
      expect(last.get('linkType')).to.equal('Donation');
      expect(last.get('page')).to.equal('1');
      expect(text($(el, '[part~="link-row"]'))).to.contain('Flood relief');
      await choose(el, part(el, 'filter-active') as HTMLSelectElement, 'true');
      await waitUntil(() => $(el, '[part~="empty"]'));
      last = api.requests.at(-1)!.url.searchParams;
      expect(last.get('isActive')).to.equal('true');
      expect(text(part(el, 'empty'))).to.contain('No links match');
    });

    it('searches after a pause in typing, or at once on Enter', async () => {
      const api = seededApi(5);
      api.links.push(makeLink({ title: 'Tea leaves' }));
      const el = await mount(api);
      await type(el, part(el, 'search') as HTMLInputElement, 'tea');
      await waitUntil(() => $$(el, '[part~="link-row"]').length === 1, 'search applied after typing');
      expect(api.requests.at(-1)!.url.searchParams.get('q')).to.equal('tea');
      const before = api.requests.length;
      await type(el, part(el, 'search') as HTMLInputElement, 'coffee');
      (part(el, 'filters') as HTMLFormElement).requestSubmit();
      await waitUntil(() => $$(el, '[part~="link-row"]').length === 5);
      expect(api.requests.length - before, 'Enter does not wait for the pause, and the pause adds no second request').to.be.at.most(1);
    });
  });

  describe('when viewing a link', () => {
    it('shows visits, payments and their conversion with a text alternative', async () => {
      const api = seededApi(1);
      api.links[0] = { ...api.links[0]!, visitedCount: 200, paymentCount: 50 };
      const el = await mount(api);
      await click(el, part(el, 'link-title'));
      await waitUntil(() => $(el, '[part~="chart"]'));
      expect(text(part(el, 'stat-visits'))).to.equal('200');
      expect(text(part(el, 'stat-payments'))).to.equal('50');
      expect(text(part(el, 'stat-conversion'))).to.equal('25%');
      const chart = $(el, '[part~="chart"] [role="img"]')!;
      expect(chart.getAttribute('aria-label')).to.contain('25%');
      // Each bar's length is its count against the larger one (set through the CSSOM, which a strict CSP allows).
      const widths = ['bar-visits', 'bar-payments'].map(
        (name) => part(el, name).getBoundingClientRect().width / part(el, name).parentElement!.getBoundingClientRect().width,
      );
      expect(widths[0]).to.be.closeTo(1, 0.02);
      expect(widths[1]).to.be.closeTo(0.25, 0.02);
      expect(el.shadowRoot!.activeElement?.id).to.equal('link-detail-heading');
    });

    it('copies the public URL and the embed snippet with a confirmation', async () => {
      const api = seededApi(1);
      const el = await mount(api);
      const copied: string[] = [];
      const original = navigator.clipboard?.writeText;
      Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, value: async (value: string) => void copied.push(value) });
      try {
        await click(el, part(el, 'link-title'));
        await waitUntil(() => $(el, '[part~="link-detail"]'));
        const link = api.links[0]!;
        expect((part(el, 'public-url') as HTMLInputElement).value).to.equal(link.url);
        const snippet = (part(el, 'embed-snippet') as HTMLTextAreaElement).value;
        expect(snippet).to.equal(
          `<script type="module" src="https://pay.example.com/dist/paylink-checkout.js"></script>\n<paylink-checkout slug="${link.slug}"></paylink-checkout>`,
        );
        await click(el, part(el, 'copy-url'));
        await waitUntil(() => text(part(el, 'copy-url')).includes('Copied'));
        await click(el, part(el, 'copy-snippet'));
        await waitUntil(() => text(part(el, 'copy-snippet')).includes('Copied'));
        expect(copied).to.deep.equal([link.url, snippet]);
        expect(text(part(el, 'status'))).to.contain('copied');
      } finally {
        if (original) Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, value: original });
      }
    });

    it('uses checkout-src for the embed snippet when set', async () => {
      const api = seededApi(1);
      const el = await fixture<PaylinkAdmin>(
        html`<paylink-admin .fetch=${api.fetch} checkout-src="https://cdn.example/paylink/0.1.0/paylink-checkout.js"></paylink-admin>`,
      );
      await waitUntil(() => $(el, '[part~="link-title"]'));
      await click(el, part(el, 'link-title'));
      expect((part(el, 'embed-snippet') as HTMLTextAreaElement).value).to.contain('src="https://cdn.example/paylink/0.1.0/paylink-checkout.js"');
    });
  });

  describe('when managing money', () => {
    it('shows the balance of each asset', async () => {
      const el = await mount(seededApi(), { view: 'money' });
      await waitUntil(() => text(part(el, 'balance-usdt')).includes('125.5'));
      expect(text(part(el, 'balance-usdt'))).to.contain('4 USDT');
      expect(text(part(el, 'balance-cngn'))).to.contain('0 cNGN');
    });

    it('shows the balances of each network and withdraws on the network chosen, within what that network holds', async () => {
      const api = seededApi();
      api.networks.push({
        id: 'polygon',
        name: 'Polygon',
        aliases: ['matic'],
        assets: ['USDT'],
        chainId: 137,
        explorerUrl: 'https://polygonscan.com',
        alerts: [],
      });
      api.balance.push({ assetId: 'USDT', blockchainId: 'polygon', available: '30.000000', pending: '1.000000' });
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => text(part(el, 'balance-usdt-polygon')).includes('30'), 'the Polygon balance');
      expect(text(part(el, 'balance-usdt-polygon'))).to.contain('Polygon');
      expect(text(part(el, 'balance-usdt-bsc'))).to.contain('125.5');
      await waitUntil(() => $$(el, '[part~="network"] option').length === 2, 'both networks offered');
      await choose(el, part(el, 'network') as HTMLSelectElement, 'polygon');
      await type(el, field(el, 'Destination address'), CHECKSUMMED);
      await type(el, field(el, /^Amount/), '40');
      await click(el, part(el, 'review'));
      expect(errorFor(el, field(el, /^Amount/))).to.contain('more than your available');
      await type(el, field(el, /^Amount/), '25');
      await click(el, part(el, 'review'));
      await waitUntil(() => $(el, '[part~="withdraw-confirm"]'), 'confirm step shown');
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $(el, '[part~="withdraw-done"]'), 'done shown');
      expect(api.calls('POST', '/withdrawal')[0]!.body).to.deep.equal({ amount: '25', address: CHECKSUMMED, blockchainId: 'polygon', assetId: 'USDT' });
    });

    it('checks the address as it is typed, including its EIP-55 checksum', async () => {
      const el = await mount(seededApi(), { view: 'money' });
      const address = field(el, 'Destination address');
      await type(el, address, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA');
      expect(address.getAttribute('aria-invalid')).to.equal(null);
      await type(el, address, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD');
      expect(address.getAttribute('aria-invalid')).to.equal('true');
      expect(errorFor(el, address)).to.contain('checksum');
      await type(el, address, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
      expect(address.getAttribute('aria-invalid')).to.equal(null);
      expect(text(part(el, 'address-status'))).to.contain('Valid address');
      await type(el, address, '0xzz');
      expect(errorFor(el, address)).to.contain('0–9 and a–f');
    });

    it('fills the available balance with Max', async () => {
      const el = await mount(seededApi(), { view: 'money' });
      await waitUntil(() => !(part(el, 'max') as HTMLButtonElement).disabled);
      await click(el, part(el, 'max'));
      expect(field(el, /^Amount/).value).to.equal('125.5');
    });

    it('repeats address and amount on the confirm step and sends one withdrawal with an Idempotency-Key', async () => {
      const api = seededApi();
      const el = await mount(api, { view: 'money' });
      await openMoney(el);
      await fillWithdrawal(el, CHECKSUMMED, '20.5');
      expect(text(part(el, 'confirm-address'))).to.equal(CHECKSUMMED);
      expect(text(part(el, 'confirm-amount'))).to.equal('20.5 USDT');
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $(el, '[part~="withdraw-done"]'), 'done shown');
      const [post] = api.calls('POST', '/withdrawal');
      expect(post!.body).to.deep.equal({ amount: '20.5', address: CHECKSUMMED, blockchainId: 'bsc', assetId: 'USDT' });
      expect(post!.headers['idempotency-key']).to.match(UUID);
      await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 1, 'history refreshed');
    });

    it('sends exactly one withdrawal on a double click', async () => {
      const api = seededApi();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      api.intercept(async (r) => {
        if (r.method === 'POST') await gate;
        return undefined;
      });
      const el = await mount(api, { view: 'money' });
      await openMoney(el);
      await fillWithdrawal(el);
      const confirm = part(el, 'confirm') as HTMLButtonElement;
      confirm.click();
      confirm.click();
      await el.updateComplete;
      expect((part(el, 'confirm') as HTMLButtonElement).disabled, 'disabled while in flight').to.equal(true);
      (part(el, 'confirm') as HTMLButtonElement).click();
      release();
      await waitUntil(() => $(el, '[part~="withdraw-done"]'));
      expect(api.calls('POST', '/withdrawal')).to.have.length(1);
    });

    it('retries a failed send with the same Idempotency-Key', async () => {
      const api = seededApi();
      let failures = 1;
      api.intercept((r) => (r.method === 'POST' && failures-- > 0 ? errorResponse(502, 'upstream_unavailable', 'The service is unreachable') : undefined));
      const el = await mount(api, { view: 'money' });
      await openMoney(el);
      await fillWithdrawal(el);
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $(el, '[part~="withdraw-confirm"] [part~="form-error"]'), 'error on the confirm step');
      expect(text(part(el, 'form-error'))).to.contain('safe');
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $(el, '[part~="withdraw-done"]'));
      const keys = api.calls('POST', '/withdrawal').map((r) => r.headers['idempotency-key']);
      expect(keys).to.have.length(2);
      expect(keys[0]).to.equal(keys[1]);
    });

    it('shows the server’s refusal beside the amount and keeps what was typed', async () => {
      const api = seededApi();
      api.intercept((r) => (r.method === 'POST' ? errorResponse(422, 'insufficient_balance', 'Insufficient USDT balance: 125.5 available') : undefined));
      const el = await mount(api, { view: 'money' });
      await openMoney(el);
      await fillWithdrawal(el, CHECKSUMMED, '100');
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $(el, '[part~="withdraw-form"] [part~="field-error"]'), 'back on the form with the reason');
      const amount = field(el, /^Amount/);
      expect(errorFor(el, amount)).to.contain('Insufficient USDT balance');
      expect(amount.value).to.equal('100');
      expect(field(el, 'Destination address').value).to.equal(CHECKSUMMED);
      expect(el.shadowRoot!.activeElement).to.equal(amount);
    });

    it('shows a server field error beside the address', async () => {
      const api = seededApi();
      api.intercept((r) =>
        r.method === 'POST'
          ? errorResponse(400, 'validation_failed', 'Invalid withdrawal', [{ path: 'address', message: 'This address is on a blocklist' }])
          : undefined,
      );
      const el = await mount(api, { view: 'money' });
      await openMoney(el);
      await fillWithdrawal(el);
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $(el, '[part~="withdraw-form"]'));
      expect(errorFor(el, field(el, 'Destination address'))).to.contain('blocklist');
    });

    it('names the network the service reports in the address hint', async () => {
      const api = seededApi();
      api.networks = [{ id: 'local', name: 'Local chain', aliases: [], assets: ['USDT', 'CNGN'], chainId: 31337, explorerUrl: null, alerts: [] }];
      const el = await mount(api, { view: 'money' });
      await openMoney(el);
      await waitUntil(() => text($(el, '#wd-address-hint')).includes('Local chain'), 'the hint names the configured network');
      expect(text($(el, '#wd-address-hint'))).not.to.contain('BNB');
      await click(el, part(el, 'review'));
      expect(errorFor(el, field(el, 'Destination address'))).to.contain('Local chain');
    });

    it('shows the refusal of one of the merchant’s own deposit addresses beside the address, before anything is sent', async () => {
      const api = seededApi();
      const message = `${CHECKSUMMED} is one of your own deposit addresses (where a customer pays a checkout): a withdrawal there would come back as a late payment.`;
      api.intercept((r) => (r.method === 'POST' ? errorResponse(422, 'own_deposit_address', message, [{ path: 'address', message }]) : undefined));
      const el = await mount(api, { view: 'money' });
      await openMoney(el);
      await fillWithdrawal(el);
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $(el, '[part~="withdraw-form"] [part~="field-error"]'), 'back on the form with the reason');
      const address = field(el, 'Destination address');
      expect(errorFor(el, address)).to.contain('own deposit addresses');
      expect(address.value).to.equal(CHECKSUMMED);
      expect($(el, '[part~="withdraw-done"]')).to.equal(null);
    });

    it('refuses an amount over the available balance before asking to confirm', async () => {
      const api = seededApi();
      const el = await mount(api, { view: 'money' });
      await openMoney(el);
      await type(el, field(el, 'Destination address'), CHECKSUMMED);
      await type(el, field(el, /^Amount/), '500');
      await click(el, part(el, 'review'));
      expect($(el, '[part~="withdraw-confirm"]')).to.equal(null);
      expect(errorFor(el, field(el, /^Amount/))).to.contain('more than your available');
    });
  });

  describe('when following withdrawals', () => {
    it('filters the history by status and dates', async () => {
      const api = seededApi();
      api.withdrawals.push(makeWithdrawal({ status: 'failed' }), makeWithdrawal({ status: 'success' }));
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 2);
      await choose(el, part(el, 'filter-status') as HTMLSelectElement, 'failed');
      await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 1);
      await choose(el, part(el, 'filter-from') as HTMLInputElement, '2025-04-01');
      await choose(el, part(el, 'filter-to') as HTMLInputElement, '2025-04-30');
      await settle(el);
      const params = api.calls('GET', '/withdrawal').at(-1)!.url.searchParams;
      expect(params.get('status')).to.equal('failed');
      expect(params.get('startDate')).to.equal(new Date(2025, 3, 1).toISOString());
      expect(params.get('endDate')).to.equal(new Date(2025, 3, 30, 23, 59, 59, 999).toISOString());
      expect(params.get('page')).to.equal('1');
    });

    it('says what the recipient received when a fee-charging token delivered less than was sent', async () => {
      const api = seededApi();
      api.withdrawals.push(
        makeWithdrawal({ amount: '2.500000', receivedAmount: '2.475000' }),
        makeWithdrawal({ amount: '1.000000', receivedAmount: '1.000000' }),
      );
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 2);
      const received = $$(el, '[part~="received-amount"]');
      expect(received, 'only the withdrawal with a shortfall').to.have.length(1);
      expect(text(received[0]!)).to.contain('2.475');
      expect(text(received[0]!)).to.contain('received');
    });

    it('says why a withdrawal is held up, in words, and no more once it moves on', async () => {
      const api = seededApi();
      const held = makeWithdrawal({ status: 'pending', txHash: null, stalledReason: 'hot_wallet_gas' });
      api.withdrawals.push(
        held,
        makeWithdrawal({ status: 'processing', stalledReason: 'node_unavailable' }),
        makeWithdrawal({ status: 'pending', txHash: null, stalledReason: 'chain_halted' }),
      );
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => $$(el, '[part~="stalled-reason"]').length === 3);
      expect($$(el, '[part~="stalled-reason"]').map(text)).to.deep.equal([
        'Waiting: the payout wallet needs gas',
        'Waiting: the network does not answer',
        'Waiting: payouts are halted',
      ]);
      Object.assign(held, { status: 'processing', stalledReason: null, txHash: `0x${'cd'.repeat(32)}` });
      await waitUntil(() => $$(el, '[part~="stalled-reason"]').length === 2, 'the reason is gone once it moves on');
    });

    it('shows a banner for each alert of a network, its kind in words and the message the service gave', async () => {
      const api = seededApi();
      const since = new Date(Date.UTC(2025, 4, 1)).toISOString();
      api.networks[0]!.alerts = [
        {
          code: 'hot_wallet_low',
          message: 'The hot wallet 0x7099…79C8 on BNB Smart Chain holds 0 BNB of gas money, under the 0.02 BNB it should keep.',
          since,
        },
        { code: 'reconciliation_mismatch', message: 'Deposit address 0xabc… holds 5 USDT the books do not explain.', since },
        { code: 'chain_finality_violated', message: 'Block 1200 changed after it was final: payouts are halted.', since },
      ];
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => $$(el, '[part~="network-alert"]').length === 3);
      const banners = $$(el, '[part~="network-alert"]');
      expect(banners.map((banner) => banner.getAttribute('role'))).to.deep.equal(['alert', 'alert', 'alert']);
      expect(text(part(el, 'alert-hot_wallet_low')))
        .to.contain('Payout wallet low')
        .and.to.contain('holds 0 BNB of gas money');
      expect(text(part(el, 'alert-reconciliation_mismatch')))
        .to.contain('Deposits do not match the books')
        .and.to.contain('5 USDT');
      expect(text(part(el, 'alert-chain_finality_violated')))
        .to.contain('Payouts halted: a final block changed')
        .and.to.contain('Block 1200');
      await expect(el).to.be.accessible();
      // Mended: the banner goes when the money tab next looks (here, once a withdrawal is made).
      api.networks[0]!.alerts = [];
      await fillWithdrawal(el);
      await click(el, part(el, 'confirm'));
      await waitUntil(() => $$(el, '[part~="network-alert"]').length === 0, 'the banners gone');
    });

    it('pages through the history', async () => {
      const api = seededApi();
      for (let i = 0; i < 12; i++) api.withdrawals.push(makeWithdrawal());
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 10);
      await click(el, $(el, '[part~="history-pagination"] [part~="next-page"]')!);
      await waitUntil(() => $$(el, '[part~="withdrawal-row"]').length === 2);
      expect(api.calls('GET', '/withdrawal').at(-1)!.url.searchParams.get('page')).to.equal('2');
    });

    it('updates pending withdrawals live and stops once none is pending', async () => {
      // The history's refreshes (every poll-interval, 300 ms) are held, and run when the test says.
      const timers = holdTimers(300);
      try {
        const api = seededApi();
        const pending = makeWithdrawal({ status: 'pending', txHash: null });
        api.withdrawals.push(pending);
        const el = await mount(api, { view: 'money' });
        await waitUntil(() => $(el, '[part~="status-pending"]'));
        expect($(el, '[part~="live-indicator"]')).to.exist;
        await waitUntil(() => timers.pending === 1, 'a refresh of the pending withdrawal on its way');
        api.withdrawals[0] = { ...pending, status: 'success', txHash: `0x${'cd'.repeat(32)}` };
        const count = api.calls('GET', '/withdrawal').length;
        timers.fire();
        await waitUntil(() => $(el, '[part~="status-success"]'), 'status updated without a reload');
        expect(text(part(el, 'status'))).to.contain('Completed');
        expect(api.calls('GET', '/withdrawal').length, 'one request for one refresh').to.equal(count + 1);
        await settle(el);
        expect(timers.pending, 'nothing is pending: no more polling').to.equal(0);
        expect($(el, '[part~="live-indicator"]')).to.equal(null);
      } finally {
        timers.restore();
      }
    });
  });

  describe('when a balance is pending', () => {
    // The tests mount with poll-interval 300: pending balances are asked for again every 900 ms.
    const BALANCE_POLL_MS = 900;
    let timers: ReturnType<typeof holdTimers>;
    beforeEach(() => {
      timers = holdTimers(BALANCE_POLL_MS);
    });
    afterEach(() => timers.restore());

    it('shows the pending amount turn available without a click, then stops asking', async () => {
      const api = seededApi();
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => text(part(el, 'balance-usdt')).includes('125.5'), 'balances shown');
      expect(text($(el, '[part~="balance-usdt"] [part~="balance-pending"]'))).to.contain('4 USDT');
      expect(timers.pending, 'a refresh is on its way while 4 USDT are pending').to.equal(1);

      // The payment's block became final: the service moves the 4 USDT to available.
      api.balance[0] = { ...api.balance[0]!, available: '129.500000', pending: '0.000000' };
      const asked = api.calls('GET', '/balance').length;
      timers.fire();
      await waitUntil(() => text(part(el, 'balance-usdt')).includes('129.5'), 'the 4 USDT became available on screen');
      expect(text($(el, '[part~="balance-usdt"] [part~="balance-pending"]'))).to.contain('0 USDT');
      expect(api.calls('GET', '/balance').length, 'one request for one refresh').to.equal(asked + 1);
      await settle(el);
      expect(timers.pending, 'nothing is pending: no more refreshes').to.equal(0);
    });

    it('keeps asking while an amount is still pending, one request at a time', async () => {
      const api = seededApi();
      let answer: (() => void) | undefined;
      api.intercept(async (request) => {
        if (!request.path.endsWith('/balance') || api.calls('GET', '/balance').length < 2) return undefined;
        await new Promise<void>((resolve) => (answer = resolve));
        return undefined;
      });
      const el = await mount(api, { view: 'money' });
      await waitUntil(() => text(part(el, 'balance-usdt')).includes('125.5'), 'balances shown');
      timers.fire();
      await waitUntil(() => answer, 'the refresh was sent');
      expect(timers.pending, 'no second refresh while the first has no answer').to.equal(0);
      answer!();
      await waitUntil(() => timers.pending === 1, 'the next refresh scheduled once the answer came: 4 USDT still pending');
      expect(api.calls('GET', '/balance')).to.have.length(2);
    });

    it('stops asking while the money tab or the page is hidden, and when the element leaves the page', async () => {
      const el = await mount(seededApi(), { view: 'money' });
      await waitUntil(() => timers.pending === 1, 'polling the pending balance');

      await click(el, $(el, '#tab-links')!);
      await settle(el);
      expect(timers.pending, 'the links tab is shown').to.equal(0);
      await click(el, $(el, '#tab-money')!);
      await waitUntil(() => timers.pending === 1, 'polling again once the money tab is back');

      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
      expect(timers.pending, 'the browser tab is in the background').to.equal(0);
      delete (document as { hidden?: boolean }).hidden;
      document.dispatchEvent(new Event('visibilitychange'));
      expect(timers.pending, 'the browser tab is shown again').to.equal(1);

      el.remove();
      expect(timers.pending, 'the element left the page').to.equal(0);
    });
  });

  describe('when used with the keyboard', () => {
    it('moves between tabs with the arrow keys', async () => {
      const el = await mount(seededApi());
      const tab = $(el, '#tab-links')!;
      tab.focus();
      tab.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, composed: true }));
      await settle(el);
      expect(el.view).to.equal('money');
      expect(el.shadowRoot!.activeElement?.id).to.equal('tab-money');
      expect($(el, '#panel-links')!.hidden).to.equal(true);
      expect($(el, '#panel-money')!.hidden).to.equal(false);
    });
  });

  describe('when the locale is French', () => {
    it('speaks French and formats numbers the French way', async () => {
      const el = await mount(seededApi(), { locale: 'fr', view: 'money' });
      await waitUntil(() => text(part(el, 'balance-usdt')).includes('125,5'));
      expect(text($(el, '#tab-links'))).to.equal('Liens de paiement');
      expect(text(part(el, 'review'))).to.equal('Vérifier le retrait');
    });
  });
});
