/**
 * The script-tag bundles carry the translation tables packed (`scripts/packed-tables.ts` writes them,
 * `src/internal/packed-table.ts` reads them): what the element reads must be the readable tables,
 * text for text, in every locale, and the packing must refuse a table it would get wrong.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packFallback, packList, packLocale, packedTableModule } from '../../scripts/packed-tables.js';
import adminEn from '../../src/components/admin/translations/en.js';
import adminFr from '../../src/components/admin/translations/fr.js';
import checkoutEn from '../../src/components/checkout/translations/en.js';
import checkoutFr from '../../src/components/checkout/translations/fr.js';
import { unpackTable } from '../../src/internal/packed-table.js';

const elements = [
  ['admin', adminEn, adminFr],
  ['checkout', checkoutEn, checkoutFr],
] as const;

describe('packed translation tables', () => {
  for (const [element, en, fr] of elements) {
    test(`the ${element}'s tables read back as written, English and French`, () => {
      const { keys, texts } = packFallback(en);
      const english = unpackTable(keys, texts);
      assert.deepEqual(english, en);
      assert.deepEqual(Object.keys(english), Object.keys(en), 'keys keep their order');
      assert.deepEqual(unpackTable(english, packLocale(en, fr)), fr);
    });
  }

  test('the French module names no key and leaves out the texts English has the same', async () => {
    const path = fileURLToPath(new URL('../../src/components/admin/translations/fr.ts', import.meta.url));
    const source = await packedTableModule(path);
    for (const key of ['consoleLabel', 'tabLinks', 'deliveryRetried']) assert.doesNotMatch(source, new RegExp(`\\b${key}\\b`));
    const same = Object.keys(adminEn).filter((key) => adminFr[key as keyof typeof adminFr] === adminEn[key as keyof typeof adminEn]);
    assert.ok(same.length > 0, 'some French texts are the English ones (Webhooks, Actions…)');
    assert.ok(source.includes('Liens de paiement') && !source.includes('Payment links'));
  });

  test('the separator is one no text contains, so any character may be translated', () => {
    assert.equal(packList(['a', 'b']), '|a|b');
    assert.equal(packList(['a | b', 'c']), '^a | b^c');
    assert.deepEqual(unpackTable(packList(['one', 'two']), packList(['x|y', ''])), { one: 'x|y', two: '' });
  });

  test('a text equal to the fallback comes from the fallback; an empty one stays empty where the fallback is empty', () => {
    const en = { a: 'Same', b: '', c: 'Other' };
    const packed = packLocale(en, { a: 'Same', b: '', c: 'Autre' });
    assert.equal(packed, '|||Autre');
    assert.deepEqual(unpackTable(en, packed), { a: 'Same', b: '', c: 'Autre' });
  });

  test('refuses a locale with a missing, emptied or unknown key', () => {
    const en = { a: 'A', b: 'B' };
    assert.throws(() => packLocale(en, { a: 'A' }), /no text for b/);
    assert.throws(() => packLocale(en, { a: 'A', b: '' }), /no text for b/);
    assert.throws(() => packLocale(en, { a: 'A', b: 'B', c: 'C' }), /keys the fallback table has not: c/);
  });
});
