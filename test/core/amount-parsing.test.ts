/**
 * How a typed amount reads, one table of locales × inputs run against both places a person types an
 * amount: the checkout (a donor's amount, `CheckoutMachine.price`) and the admin (a link's price, the
 * body `LinkFormModel` sends). If these disagreed, the same keys would charge a donor one amount in
 * the checkout and price a link at another in the admin (`12,50` used to be 12.50 in one and 1250 in
 * the other). The rule itself is `readTypedAmount` (`core/rules/amount.ts`).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { AdminText } from '../../src/components/admin/admin-context.js';
import { LinkFormModel } from '../../src/components/admin/links/link-form-model.js';
import { CheckoutMachine } from '../../src/components/checkout/checkout-machine.js';
import type { CheckoutHost } from '../../src/components/checkout/checkout-types.js';
import en from '../../src/components/checkout/translations/en.js';
import fr from '../../src/components/checkout/translations/fr.js';
import { Localizer } from '../../src/internal/localize.js';
import { FakeCheckoutApi, makeDonation } from '../browser/checkout-fake-api.js';

/** Locales whose decimal separator is `.`, and those whose is `,` (checked against `Intl` below). */
const POINT_LOCALES = ['en', 'en-NG', 'de-CH', 'ja'];
const COMMA_LOCALES = ['fr', 'fr-CA', 'de', 'pt-BR'];

/** `[typed, read where the decimal separator is '.', read where it is ',']`; null: unreadable, refused. */
const TABLE: Array<[string, string | null, string | null]> = [
  ['1250', '1250', '1250'],
  ['  42 ', '42', '42'],
  // A comma or a point before one or two digits is the decimal point everywhere: no one groups by two.
  ['12,50', '12.50', '12.50'],
  ['12.50', '12.50', '12.50'],
  ['12,5', '12.5', '12.5'],
  ['0,05', '0.05', '0.05'],
  // So is one before more than three digits (a crypto amount).
  ['25.123456', '25.123456', '25.123456'],
  ['25,123456', '25.123456', '25.123456'],
  // Grouped thousands, in every way people group them.
  ['1,250.50', '1250.50', '1250.50'],
  ['1.250,50', '1250.50', '1250.50'],
  ['1 250,50', '1250.50', '1250.50'],
  ['1\u00a0250,50', '1250.50', '1250.50'],
  ['1\u202f250,50', '1250.50', '1250.50'],
  ['1’250.50', '1250.50', '1250.50'],
  ["1'250.50", '1250.50', '1250.50'],
  ['1,234,567.89', '1234567.89', '1234567.89'],
  ['1.234.567,89', '1234567.89', '1234567.89'],
  // Before exactly three digits, the locale decides.
  ['1,000', '1000', '1.000'],
  ['1.000', '1.000', '1000'],
  ['1,000,000', '1000000', null],
  ['1.000.000', null, '1000000'],
  ['1234.567', '1234.567', null],
  ['1234,567', null, '1234.567'],
  // Never an amount.
  ['', null, null],
  ['   ', null, null],
  ['abc', null, null],
  ['-5', null, null],
  ['+5', null, null],
  ['1e3', null, null],
  ['.5', null, null],
  ['5.', null, null],
  ['12,5,0', null, null],
  ['1,00,000', null, null],
  ['1,2345.6', null, null],
  ['₦500', null, null],
  ['500 NGN', null, null],
];

/** A checkout machine on a donation link, in `locale`: what its amount step reads. */
async function checkoutIn(locale: string): Promise<CheckoutMachine> {
  const host: CheckoutHost = { emit: () => true, store: () => null, navigate() {}, clipboard: async () => {}, requestUpdate() {} };
  const machine = new CheckoutMachine(host);
  machine.fetch = new FakeCheckoutApi(makeDonation()).fetch;
  machine.l10n = new Localizer(locale, { en, fr });
  await machine.load('give1');
  assert.equal(machine.view, 'amount');
  machines.push(machine);
  return machine;
}
const machines: CheckoutMachine[] = [];
after(() => machines.forEach((machine) => machine.disconnect()));

/** What the checkout reads from `typed` (null where it refuses it as unreadable). */
function checkoutReads(machine: CheckoutMachine, typed: string): string | null {
  machine.edit('fiatAmount', typed);
  const price = machine.price;
  if (price === '') {
    assert.notEqual(machine.amountProblem, '', `${typed}: an unreadable amount can't be paid`);
    return null;
  }
  return price;
}

/** What the admin's link form reads from `typed` as a price (null where its check refuses it as unreadable). */
function adminReads(locale: string, typed: string): string | null {
  const form = new LinkFormModel(() => new AdminText(locale));
  form.open();
  form.set('title', 'Workshop');
  form.set('amount', typed);
  const amount = form.body().fiatAmount;
  if (typeof amount != 'string' || !/^\d+(\.\d+)?$/.test(amount)) {
    assert.ok(form.check()['lf-amount'], `${typed}: the admin refuses what it can't read`);
    return null;
  }
  return amount;
}

describe('a typed amount reads the same in the checkout and the admin', () => {
  it('the table’s locales write decimals as it says', () => {
    for (const locale of POINT_LOCALES) assert.equal(new Localizer(locale).decimalSeparator, '.', locale);
    for (const locale of COMMA_LOCALES) assert.equal(new Localizer(locale).decimalSeparator, ',', locale);
  });

  for (const [locales, column] of [
    [POINT_LOCALES, 1],
    [COMMA_LOCALES, 2],
  ] as const)
    for (const locale of locales)
      it(`in ${locale}`, async () => {
        const machine = await checkoutIn(locale);
        const wrong: string[] = [];
        for (const row of TABLE) {
          const [typed, expected] = [row[0], row[column]];
          const checkout = checkoutReads(machine, typed);
          const admin = adminReads(locale, typed);
          if (checkout !== expected || admin !== expected) wrong.push(`${JSON.stringify(typed)}: expected ${expected}, checkout ${checkout}, admin ${admin}`);
        }
        assert.deepEqual(wrong, []);
      });

  it('the checkout sends what it read, and the bounds judge that amount', async () => {
    const machine = await checkoutIn('en');
    machine.edit('fiatAmount', '1,000');
    assert.equal(machine.price, '1000');
    assert.equal(machine.amountProblem, '', 'NGN 1,000.00 is within the link’s 500 to 2,000,000');
    machine.edit('fiatAmount', '1.000');
    assert.match(machine.amountProblem, /1,000\.00/, '1.000 in English is one naira and some: three decimals are refused with an example');
  });
});
