/**
 * The link form's model without a DOM: what a merchant types becomes the body a save sends, is
 * checked with the service's rules, and keeps its errors beside the right fields. If this failed, a
 * merchant would save a different link than the one typed, or see an error under the wrong field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdminText } from '../../../../src/components/admin/admin-context.js';
import { LinkFormModel, emptyLinkFormValues, toLocalDateTime } from '../../../../src/components/admin/links/link-form-model.js';
import type { PaymentLink } from '../../../../src/core/schemas.js';

const model = (locale = 'en') => new LinkFormModel(() => new AdminText(locale));

/** A stored link, as the admin client hands it to the form. */
function storedLink(overrides: Partial<PaymentLink> = {}): PaymentLink {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    slug: 'abc123',
    url: 'http://pay.test/pay/abc123',
    title: 'Roof',
    description: 'New roof for the school',
    linkType: 'Donation',
    userId: '00000000-0000-4000-8000-000000000002',
    integratorId: '00000000-0000-4000-8000-000000000003',
    fiatAmount: '0',
    fiatCurrency: ['NGN', 'USD'],
    prepayOptions: { collectAddress: true, collectPhone: false },
    postpayAction: { redirect: true, showConfirmationPage: false, successMessage: '', redirectUrl: 'https://school.example/thanks' },
    cart: { items: [] },
    isActive: true,
    state: 'open',
    visitedCount: 0,
    paymentCount: 0,
    closesAt: '2099-06-30T17:00:00.000Z',
    minAmount: '500',
    maxAmount: '100000',
    suggestedAmounts: ['1000', '2500.5'],
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:00.000Z',
    deletedAt: null,
    ...overrides,
  };
}

describe('the link form model', () => {
  it('starts empty: a Standard link in NGN that the rules refuse for its title, then its amount', () => {
    const form = model();
    form.open();
    assert.deepEqual(form.values, emptyLinkFormValues());
    assert.deepEqual(form.check(), { 'lf-title': 'Enter a title.' });
    form.set('title', 'Workshop');
    assert.deepEqual(Object.keys(form.check()), ['lf-amount']);
    assert.equal(form.formError, '');
  });

  it('maps a typed Standard link to the create body', () => {
    const form = model();
    form.open();
    form.set('title', '  Workshop ');
    form.set('amount', '1,250.50');
    form.set('otherCurrencies', ['USD', 'NGN']);
    form.set('after', 'confirmation');
    form.set('collectPhone', true);
    assert.deepEqual(form.check(), {});
    assert.deepEqual(form.body(), {
      title: 'Workshop',
      description: '',
      linkType: 'Standard',
      fiatCurrency: ['NGN', 'USD'],
      action: { successMessage: '', redirect: false, showConfirmationPage: true, isActive: true },
      options: { collectAddress: false, collectPhone: true },
      cart: { items: [] },
      fiatAmount: '1250.50',
    });
  });

  it('sends a cart without a price (the service totals it) and totals it for the merchant', () => {
    const form = model();
    form.open();
    form.set('title', 'Coffee');
    form.set('amount', '999');
    const beans = form.addItem();
    form.setItem(beans, { name: 'Beans', quantity: '2', unitAmount: '1500.25' }, `lf-item-${beans}-name`);
    const mug = form.addItem();
    form.setItem(mug, { name: 'Mug', unitAmount: '999.5' }, `lf-item-${mug}-name`);
    assert.notEqual(beans, mug);
    assert.equal(form.cartTotal, '4000.00');
    const body = form.body();
    assert.equal(body.fiatAmount, undefined, 'the typed amount is not sent beside a cart');
    assert.deepEqual(body.cart.items, [
      { name: 'Beans', quantity: 2, unitAmount: '1500.25' },
      { name: 'Mug', quantity: 1, unitAmount: '999.5' },
    ]);
    form.setItem(mug, { unitAmount: 'lots' }, `lf-item-${mug}-unit`);
    assert.equal(form.cartTotal, undefined, 'no total while a price is unreadable');
  });

  it('puts each rule error beside its control, by the cart line key, even after a removal', () => {
    const form = model();
    form.open();
    form.set('title', 'Coffee');
    const first = form.addItem();
    const second = form.addItem();
    form.setItem(first, { name: 'A', unitAmount: '5' }, '');
    form.setItem(second, { name: 'B', quantity: '0', unitAmount: '5' }, '');
    form.removeItem(first);
    const errors = form.check();
    assert.deepEqual(Object.keys(errors), [`lf-item-${second}-quantity`]);
    assert.match(errors[`lf-item-${second}-quantity`]!, /1/);
  });

  it('says in the form what no control claims, and maps the server paths to controls', () => {
    const form = model();
    form.open();
    assert.equal(form.controlOf('action.redirectURL'), 'lf-redirect-url');
    assert.equal(form.controlOf('suggestedAmounts.2'), 'lf-suggested');
    assert.equal(form.controlOf('cart.items.4.name'), 'lf-add-item', 'a line the form does not have');
    assert.equal(form.controlOf('somethingElse'), undefined);
  });

  it('clears only the error of the field that changes', () => {
    const form = model();
    form.open();
    form.errors = { 'lf-title': 'Enter a title.', 'lf-amount': 'Enter an amount.' };
    form.set('title', 'Workshop', 'lf-title');
    assert.deepEqual(Object.keys(form.errors), ['lf-amount']);
    form.set('description', 'Saturday', 'lf-description');
    assert.deepEqual(Object.keys(form.errors), ['lf-amount']);
  });

  it('opens on a stored donation and sends back what it holds', () => {
    const link = storedLink();
    const form = model();
    form.open(link);
    assert.equal(form.values.closesAt, toLocalDateTime(link.closesAt));
    assert.equal(form.values.suggestedAmounts, '1000, 2500.5');
    assert.equal(form.values.after, 'redirect');
    const body = form.body();
    assert.equal(body.closesAt, undefined, 'an unchanged closing time is not sent, so a closed fundraiser stays editable');
    assert.deepEqual(
      { min: body.minAmount, max: body.maxAmount, suggested: body.suggestedAmounts, currencies: body.fiatCurrency, redirect: body.action.redirectUrl },
      { min: '500', max: '100000', suggested: ['1000', '2500.5'], currencies: ['NGN', 'USD'], redirect: 'https://school.example/thanks' },
    );
    form.set('closesAt', '');
    assert.equal(form.body().closesAt, null, 'a cleared closing time is sent as none');
    form.set('minAmount', ' ');
    assert.equal(form.body().minAmount, null);
  });

  it('reads amounts as the French locale writes them', () => {
    const form = model('fr');
    form.open();
    form.set('linkType', 'Donation');
    form.set('title', 'Toit');
    form.set('minAmount', '1 250,50');
    form.set('suggestedAmounts', '2000 ; 2500,5 3000');
    const body = form.body();
    assert.equal(body.minAmount, '1250.50');
    assert.deepEqual(body.suggestedAmounts, ['2000', '2500.5', '3000']);
    assert.deepEqual(form.check(), {});
  });

  it('refuses with the rules what the service refuses, in the language of the admin', () => {
    const refused = (locale: string) => {
      const form = model(locale);
      form.open();
      form.set('linkType', 'Donation');
      form.set('title', 'Toit');
      form.set('minAmount', '500');
      form.set('maxAmount', '100');
      return form.check();
    };
    const [fr, en] = [refused('fr'), refused('en')];
    assert.deepEqual(Object.keys(fr), Object.keys(en));
    assert.equal(Object.keys(fr).length, 1);
    const control = Object.keys(fr)[0]!;
    assert.match(control, /^lf-(min|max)$/);
    assert.ok(fr[control] && en[control] && fr[control] !== en[control], `${fr[control]} / ${en[control]}`);
  });
});
