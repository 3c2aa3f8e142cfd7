/**
 * The checkout takes each currency's minor digits from `Intl` (to keep core/money.ts's table out of
 * its 15 kB bundle); they must be the digits the service validates amounts with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIAT_DIGITS } from '../../../src/core/money.js';
import { Localizer } from '../../../src/internal/localize.js';

test('Intl knows the same minor digits as FIAT_DIGITS for every priced currency', () => {
  const l10n = new Localizer('en');
  for (const [currency, digits] of Object.entries(FIAT_DIGITS)) assert.equal(l10n.digits(currency), digits, currency);
});

test('money is formatted from the exact decimal string, in the reader’s locale', () => {
  const plain = (text: string) => text.replace(/\s/g, ' ');
  assert.equal(plain(new Localizer('en').money('19500.5', 'NGN')), 'NGN 19,500.50');
  assert.equal(new Localizer('en').money('123456789012345.67', 'USD'), '$123,456,789,012,345.67');
  assert.equal(plain(new Localizer('fr').money('1000', 'JPY')), '1 000 JPY');
  assert.equal(new Localizer('not a locale!').locale, 'en');
});
