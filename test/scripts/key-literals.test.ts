/**
 * `dist/paylink.js` writes the admin's literal translation keys as their slots in the packed table
 * (`scripts/key-literals.ts`). The browser tests run the sources, where keys stay strings, so this
 * holds the transform to what it promises: every literal key the code asks for becomes the slot the
 * table reads it from, every key the code computes is found by its name, a word that only looks like
 * a key stays a word, and code that would treat a key as a string in the bundle fails the build.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packFallback } from '../../scripts/packed-tables.js';
import { applyKeyEdits, findKeyEdits, keyEdits, keyLayout } from '../../scripts/key-literals.js';
import en from '../../src/components/admin/translations/en.js';
import { RULE_KEYS } from '../../src/core/rules/types.js';
import { unpackTable } from '../../src/internal/packed-table.js';

const ADMIN = fileURLToPath(new URL('../../src/components/admin/paylink-admin.ts', import.meta.url));
const LINKS_VIEW = fileURLToPath(new URL('../../src/components/admin/links/links-view.ts', import.meta.url));
const RATES_TAB = fileURLToPath(new URL('../../src/components/admin/rates/rates-tab.ts', import.meta.url));
const layout = await keyLayout('admin');
/** The keys the admin's code computes: the only ones the bundle finds by name. */
const computed = new Set(layout.slots.slice(0, layout.hashed).filter(Boolean));

describe('key literals in dist/paylink.js', () => {
  test('a literal key becomes the slot its text is read from, and nothing else in the module changes', async () => {
    const edits = (await keyEdits()).get(ADMIN)!;
    const source = readFileSync(ADMIN, 'utf8');
    const replaced = edits.map(([start, end]) => source.slice(start + 1, end - 1));
    for (const key of ['signInTitle', 'signInBody', 'tryAgain', 'consoleLabel']) assert.ok(replaced.includes(key), key);
    for (const [start, end, slot] of edits) {
      const key = source.slice(start + 1, end - 1) as keyof typeof en;
      assert.equal(slot, layout.slots.indexOf(key), key);
      assert.ok(slot > 0, 'a slot number is never falsy');
    }
    const edited = applyKeyEdits(source, edits);
    assert.ok(edited.includes(`t(${layout.slots.indexOf('signInTitle')})`));
    let expected = source;
    for (const [start, end, slot] of [...edits].reverse()) expected = `${expected.slice(0, start)}${slot}${expected.slice(end)}`;
    assert.equal(edited, expected);
  });

  test('every key has a slot of its own; the packed table reads each by its number, and a computed one by its name too', () => {
    assert.deepEqual([...layout.slots].filter(Boolean).sort(), Object.keys(en).sort());
    assert.equal(layout.slots[0], '', 'slot 0 is no key’s');
    const { seeds, texts } = packFallback(en, layout);
    const table = unpackTable(seeds, texts, undefined, layout.hashed);
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      assert.equal(table[String(layout.slots.indexOf(key))], en[key], key);
      if (computed.has(key)) assert.equal(table[key], en[key], key);
    }
  });

  test('the keys the code computes are those TypeScript lists for it: statuses, rule messages, rate states', () => {
    for (const key of [
      'status_pending',
      'session_underpaid',
      'order_cancelled',
      'delivery_failed',
      'eventHint_order.paid',
      'rate_held',
      'rate_agrees',
      'rate_quoted',
    ]) {
      assert.ok(computed.has(key), key);
    }
    for (const key of RULE_KEYS.filter((key) => key in en)) assert.ok(computed.has(key), `a rule's ${key}`);
    // A tab's label is written where no key is expected (`readonly label = 'tabLinks'`), so it stays a string.
    assert.ok(computed.has('tabLinks'), 'a key written as a plain string is found by name');
    for (const key of ['signInTitle', 'linkCreated', 'consoleLabel']) assert.ok(!computed.has(key), `${key} is only ever written as a key`);
    assert.ok(computed.size < Object.keys(en).length / 2.5, `${computed.size} keys found by name`);
  });

  test('a word that only looks like a key stays a string: a link status the view also writes as a class', async () => {
    const source = readFileSync(LINKS_VIEW, 'utf8');
    const edits = (await keyEdits()).get(LINKS_VIEW)!;
    const at = (text: string) => source.indexOf(text);
    const statusLine = at("const status = link.state == 'closed' ? 'closed' : link.isActive ? 'active' : 'inactive';");
    assert.ok(statusLine > 0, 'links-view.ts still computes the status word');
    assert.ok(!edits.some(([start]) => start > statusLine && start < statusLine + 90), 'the status words stay words');
    const filter = at("t('active')");
    assert.ok(
      edits.some(([start]) => start === filter + 2),
      "t('active') asks for the key",
    );
  });

  test('fails the build where the keys a computed key may be are unknown: an assertion, a plain string', async () => {
    const source = readFileSync(RATES_TAB, 'utf8');
    const asserted = source.replace(
      'const status = (state: RateState) => t(`rate_${state}`);',
      "const status = (state: string) => t(`rate_${state}` as 'rate_held');",
    );
    assert.notEqual(asserted, source);
    await assert.rejects(
      findKeyEdits({ [RATES_TAB]: asserted }, [RATES_TAB]),
      /rates-tab\.ts:\d+:\d+: `rate_\$\{state\}` is a translation key TypeScript cannot list the keys of/,
    );
    const widened = source.replace(
      'const status = (state: RateState) => t(`rate_${state}`);',
      'const status = (state: RateState | number) => t(state as never);',
    );
    await assert.rejects(
      findKeyEdits({ [RATES_TAB]: widened }, [RATES_TAB]),
      /rates-tab\.ts:\d+:\d+: .* is a translation key TypeScript cannot list the keys of/,
    );
  });

  test('fails the build where a key would be used as a string', async () => {
    const source = readFileSync(ADMIN, 'utf8');
    const broken = source.replace(
      'const { label, shortLabel } = this.tabs[view];',
      "const { label, shortLabel } = this.tabs[view];\n    this.id = `${label}`;\n    this.hidden = label === 'tabLinks' || label.length > 3;",
    );
    assert.notEqual(broken, source);
    await assert.rejects(findKeyEdits({ [ADMIN]: broken }, [ADMIN]), (error: Error) => {
      const lines = error.message.split('\n').slice(1);
      assert.equal(lines.length, 3, error.message);
      for (const line of lines) assert.match(line, /paylink-admin\.ts:\d+:\d+: label is used other than as a translation key/);
      return true;
    });
  });
});
