/**
 * The script-tag bundles carry the translation tables packed (`scripts/packed-tables.ts` writes them,
 * `src/internal/packed-table.ts` reads them): what the element reads must be the readable tables,
 * text for text, in every locale, and the packing must refuse a table it would get wrong.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { literalLayout, packFallback, packList, packLocale, packedTableModule, perfectHash } from '../../scripts/packed-tables.js';
import adminEn from '../../src/components/admin/translations/en.js';
import adminFr from '../../src/components/admin/translations/fr.js';
import checkoutEn from '../../src/components/checkout/translations/en.js';
import checkoutFr from '../../src/components/checkout/translations/fr.js';
import { slotOf, unpackTable } from '../../src/internal/packed-table.js';

type Table = Record<string, string>;

/** `table` packed as the bundles carry it, and read back: the English one, and `locale` over it. */
function packAndRead(en: Table, locale?: Table): { english: Table; other?: Table } {
  const { seeds, texts } = packFallback(en);
  const english = unpackTable(seeds, texts);
  return { english, other: locale && unpackTable(seeds, packLocale(en, locale), english) };
}

/** Every text of `expected` as `actual` reads it by its key. */
function assertReads(actual: Table, expected: Table) {
  for (const key of Object.keys(expected)) assert.equal(actual[key], expected[key], key);
}

const elements = [
  ['admin', adminEn, adminFr],
  ['checkout', checkoutEn, checkoutFr],
] as const;

describe('packed translation tables', () => {
  for (const [element, en, fr] of elements) {
    test(`the ${element}'s tables read back as written, English and French`, () => {
      const { english, other } = packAndRead(en, fr);
      assertReads(english, en);
      assertReads(other!, fr);
    });

    test(`the ${element}'s keys each get a slot of their own, in a table little larger than the keys`, () => {
      const keys = Object.keys(en);
      const { seeds, size } = perfectHash(keys);
      assert.equal(new Set(keys.map((key) => slotOf(key, seeds, size))).size, keys.length);
      assert.ok(size <= keys.length * 1.6 && seeds.length <= keys.length / 2, `${size} slots, ${seeds.length} seeds`);
      assert.doesNotMatch(seeds, /["'`\\$]/, 'the seeds need no escape in a string literal');
    });
  }

  test('a perfect hash is found for any set of keys, and found again the same', () => {
    const keys = Array.from({ length: 300 }, (_, index) => `key_${index.toString(36)}.${'x'.repeat(index % 7)}`);
    const { seeds, size } = perfectHash(keys);
    assert.equal(new Set(keys.map((key) => slotOf(key, seeds, size))).size, keys.length);
    assert.deepEqual(perfectHash([...keys]), { seeds, size });
  });

  test('the modules name no key, and French leaves out the texts English has the same', async () => {
    const path = fileURLToPath(new URL('../../src/components/admin/translations/fr.ts', import.meta.url));
    const source = await packedTableModule(path);
    const english = await packedTableModule(path.replace(/fr\.ts$/, 'en.ts'));
    for (const key of ['consoleLabel', 'tabLinks', 'deliveryRetried']) {
      assert.doesNotMatch(source, new RegExp(`\\b${key}\\b`));
      assert.doesNotMatch(english, new RegExp(`\\b${key}\\b`));
    }
    const same = Object.keys(adminEn).filter((key) => adminFr[key as keyof typeof adminFr] === adminEn[key as keyof typeof adminEn]);
    assert.ok(same.length > 0, 'some French texts are the English ones (Webhooks, Actions…)');
    assert.ok(source.includes('Liens de paiement') && !source.includes('Payment links'));
  });

  test("the admin's French module is its texts and the English layout's mark: no code to read them, no English", async () => {
    const path = fileURLToPath(new URL('../../src/components/admin/translations/fr.ts', import.meta.url));
    const french = await packedTableModule(path, true);
    const english = await packedTableModule(path.replace(/fr\.ts$/, 'en.ts'));
    assert.match(french, /^import \{ packedLocale \} from "[^"]+admin-locales\.ts";\nexport default \/\* @__PURE__ \*\/ packedLocale\("[^"]*", "(\w+)"\);$/);
    assert.match(
      english,
      /^import \{ packedEnglish \} from "[^"]+admin-locales\.ts";\nexport default \/\* @__PURE__ \*\/ packedEnglish\("[^"]+", \d+, "[^"]*", "(\w+)"\);$/,
    );
    assert.equal(/"(\w+)"\);$/.exec(french)![1], /"(\w+)"\);$/.exec(english)![1], 'both name the same layout');
    assert.ok(!french.includes('Payment links') && french.includes('Liens de paiement'));
  });

  test('a table whose code names most keys literally hashes only the computed ones; the others follow by text', () => {
    const en = { title: 'Zebra', status_open: 'Open', status_closed: 'Closed', save: 'Apple', cancel: 'Mango' };
    const fr = { title: 'Zèbre', status_open: 'Ouvert', status_closed: 'Fermé', save: 'Pomme', cancel: 'Mango' };
    const layout = literalLayout(en, new Set(['status_open', 'status_closed']));
    assert.deepEqual(layout.slots.slice(layout.hashed), ['save', 'cancel', 'title'], 'by their English texts');
    assert.deepEqual(layout.slots.slice(0, layout.hashed).filter(Boolean).sort(), ['status_closed', 'status_open']);
    const { seeds, texts } = packFallback(en, layout);
    const english = unpackTable(seeds, texts, undefined, layout.hashed);
    const french = unpackTable(seeds, packLocale(en, fr, 'fr', layout), english, layout.hashed);
    for (const [table, expected] of [
      [english, en],
      [french, fr],
    ] as const) {
      for (const key of ['status_open', 'status_closed'] as const) assert.equal(table[key], expected[key], key);
      for (const key of Object.keys(en) as (keyof typeof en)[]) assert.equal(table[String(layout.slots.indexOf(key))], expected[key], key);
    }
    assert.throws(() => literalLayout(en, new Set(['status_gone'])), /computed keys not in the table: status_gone/);
  });

  test('the separator is one no text contains, so any character may be translated', () => {
    assert.equal(packList(['a', 'b']), '|a|b');
    assert.equal(packList(['a | b', 'c']), '^a | b^c');
    assertReads(packAndRead({ one: 'x|y', two: '' }).english, { one: 'x|y', two: '' });
  });

  test('a text equal to the fallback comes from the fallback; an empty one stays empty where the fallback is empty', () => {
    const en = { a: 'Same', b: '', c: 'Other' };
    const fr = { a: 'Same', b: '', c: 'Autre' };
    const packed = packLocale(en, fr);
    assert.equal(packed.replaceAll('|', ''), 'Autre');
    assertReads(packAndRead(en, fr).other!, fr);
  });

  test('refuses a locale with a missing, emptied or unknown key', () => {
    const en = { a: 'A', b: 'B' };
    assert.throws(() => packLocale(en, { a: 'A' }), /no text for b/);
    assert.throws(() => packLocale(en, { a: 'A', b: '' }), /no text for b/);
    assert.throws(() => packLocale(en, { a: 'A', b: 'B', c: 'C' }), /keys the fallback table has not: c/);
  });
});
