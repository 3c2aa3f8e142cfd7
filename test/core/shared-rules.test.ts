/**
 * Rules written once and used by every side: how a message's `{placeholders}` are filled (the API's
 * English, the checkout's and the admin's texts), and a donation's bounds (the checkout machine and
 * the service). If a side kept its own copy, the same refusal would read differently, or a
 * placeholder would show as "undefined" in one element and vanish in the other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminText } from '../../src/components/admin/admin-context.js';
import { CheckoutMachine } from '../../src/components/checkout/checkout-machine.js';
import type { CheckoutHost } from '../../src/components/checkout/checkout-types.js';
import en from '../../src/components/checkout/translations/en.js';
import fr from '../../src/components/checkout/translations/fr.js';
import { compareDecimal } from '../../src/core/money.js';
import { checkDonationBounds } from '../../src/core/rules/amount.js';
import { fillMessage } from '../../src/core/rules/types.js';
import { Localizer } from '../../src/internal/localize.js';
import { createSandboxChain } from '../../src/server/chain/sandbox/index.js';
import type { Database } from '../../src/server/db/index.js';
import { createApp } from '../../src/server/service/app.js';
import { createApiKey } from '../../src/server/service/keys/index.js';
import { ruleMessage } from '../../src/server/service/messages.js';
import { FakeCheckoutApi, makeDonation } from '../browser/checkout-fake-api.js';
import { openMigratedPglite } from '../support/pglite-template.js';

describe('fillMessage', () => {
  it('fills every placeholder of a name, each time it appears', () => {
    assert.equal(fillMessage('{n} of {n}, {total} in all', { n: 2, total: '3' }), '2 of 2, 3 in all');
  });

  it('leaves a placeholder with no value as it is, never "undefined" or a gap', () => {
    assert.equal(fillMessage('Pay {amount} in {asset}', { amount: '10 USDT' }), 'Pay 10 USDT in {asset}');
    assert.equal(fillMessage('Pay {amount}', { amount: undefined }), 'Pay {amount}');
    assert.equal(fillMessage('Pay {amount}'), 'Pay {amount}');
  });

  it('fills only `{name}`: other braces stay as written', () => {
    assert.equal(fillMessage('{} { amount } {amount-x} {{amount}}', { amount: 5 }), '{} { amount } {amount-x} {5}');
  });

  it('puts values in as text, once: a value that looks like a placeholder or a replacement pattern stays', () => {
    assert.equal(fillMessage('Hello {name}', { name: '{other} $& $1', other: 'no' }), 'Hello {other} $& $1');
    assert.equal(fillMessage('{a}', { a: 0 }), '0', 'zero is a value');
  });

  it('is what the service, the checkout and the admin fill their texts with', () => {
    const missing = { amount: undefined } as unknown as Record<string, string>;
    assert.equal(ruleMessage({ path: 'fiatAmount', key: 'donation.min', params: {} }), 'The smallest amount accepted is {amount}');
    assert.equal(new Localizer('en', { en }).t('donation.min', missing), 'Minimum {amount}');
    assert.equal(new AdminText('en').t('donation.min', missing), 'Enter at least {amount}.');
    assert.equal(new Localizer('fr', { en, fr }).t('confirming', { n: 1, total: 3 }), 'Confirmation 1/3…');
    assert.equal(new AdminText('fr').t('donation.max', { amount: '5 €' }), 'Saisissez au plus 5 €.');
  });
});

describe('checkDonationBounds', () => {
  it('refuses below the minimum and above the maximum, naming the bound', () => {
    assert.deepEqual(checkDonationBounds('499.99', '500', '1000'), { key: 'donation.min', params: { amount: '500' } });
    assert.deepEqual(checkDonationBounds('1000.01', '500', '1000'), { key: 'donation.max', params: { amount: '1000' } });
  });

  it('takes the bounds themselves, and no bound means none', () => {
    assert.equal(checkDonationBounds('500', '500', '1000'), null);
    assert.equal(checkDonationBounds('1000.00', '500', '1000'), null);
    assert.equal(checkDonationBounds('0.01', null, undefined), null);
    assert.equal(checkDonationBounds('99999999', undefined, null), null);
  });

  it('compares with the comparison it is given (the service compares across currencies)', () => {
    // Amounts in USD against bounds in NGN, at 1 USD = 1,000 NGN.
    const acrossCurrencies = (usd: string, ngn: string) => compareDecimal(String(Number(usd) * 1000), ngn);
    assert.equal(checkDonationBounds('0.4', '500', null, acrossCurrencies)?.key, 'donation.min');
    assert.equal(checkDonationBounds('0.5', '500', null, acrossCurrencies), null);
  });
});

describe('a donation outside its bounds reads the same refusal in the checkout and the service', () => {
  let db: Database;
  let app: ReturnType<typeof createApp>;
  let slug: string;
  const machines: CheckoutMachine[] = [];

  before(async () => {
    db = await openMigratedPglite();
    app = createApp({ db, chain: createSandboxChain(), publicUrl: 'http://pay.test/pay', now: () => new Date() });
    const { key } = await createApiKey(db);
    const response = await app.request('/v1/payment-link', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Fund',
        description: '',
        linkType: 'Donation',
        fiatCurrency: 'NGN',
        minAmount: 500,
        maxAmount: 2_000_000,
        action: {},
        options: {},
        cart: { items: [] },
      }),
    });
    assert.equal(response.status, 201);
    slug = ((await response.json()) as { slug: string }).slug;
  });
  after(async () => {
    machines.forEach((machine) => machine.disconnect());
    await db.close();
  });

  async function serviceRefusal(fiatAmount: string): Promise<string | undefined> {
    const response = await app.request(`/v1/checkout/${slug}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assetId: 'USDT', fiatAmount }),
    });
    const body = (await response.json()) as { errors?: { path: string; message: string }[] };
    return response.status == 201 ? undefined : body.errors?.find((error) => error.path == 'fiatAmount')?.message;
  }

  async function checkoutRefusal(fiatAmount: string): Promise<string> {
    const host: CheckoutHost = { emit: () => true, store: () => null, navigate() {}, clipboard: async () => {}, requestUpdate() {} };
    const machine = new CheckoutMachine(host);
    machines.push(machine);
    machine.fetch = new FakeCheckoutApi(makeDonation({ minAmount: '500', maxAmount: '2000000' })).fetch;
    machine.l10n = new Localizer('en', { en, fr });
    await machine.load('give1');
    machine.edit('fiatAmount', fiatAmount);
    return machine.amountProblem.replace(/\s/g, ' ');
  }

  it('below the minimum', async () => {
    assert.equal(await serviceRefusal('499.99'), 'The smallest amount accepted is 500.00 NGN');
    assert.equal(await checkoutRefusal('499.99'), 'Minimum NGN 500.00');
  });

  it('above the maximum', async () => {
    assert.equal(await serviceRefusal('2000000.01'), 'The largest amount accepted is 2000000.00 NGN');
    assert.equal(await checkoutRefusal('2000000.01'), 'Maximum NGN 2,000,000.00');
  });

  it('within: neither refuses', async () => {
    assert.equal(await serviceRefusal('500'), undefined);
    assert.equal(await checkoutRefusal('500'), '');
  });
});
