/**
 * `dist/paylink.js` writes the admin's literal translation keys as their slots in the packed table
 * (`scripts/key-literals.ts`). The browser tests run the sources, where keys stay strings, so this
 * holds the transform to what it promises: every literal key the code asks for becomes the slot the
 * table reads it from, a word that only looks like a key stays a word, and code that would treat a
 * key as a string in the bundle fails the build.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { perfectHash } from '../../scripts/packed-tables.js';
import { applyKeyEdits, findKeyEdits, keyEdits } from '../../scripts/key-literals.js';
import en from '../../src/components/admin/translations/en.js';
import { slotOf, unpackTable } from '../../src/internal/packed-table.js';

const ADMIN = fileURLToPath(new URL('../../src/components/admin/paylink-admin.ts', import.meta.url));
const LINKS_VIEW = fileURLToPath(new URL('../../src/components/admin/links/links-view.ts', import.meta.url));
const { seeds, size } = perfectHash(Object.keys(en));

describe('key literals in dist/paylink.js', () => {
  test('a literal key becomes the slot its text is read from, and nothing else in the module changes', async () => {
    const edits = (await keyEdits()).get(ADMIN)!;
    const source = readFileSync(ADMIN, 'utf8');
    const replaced = edits.map(([start, end]) => source.slice(start + 1, end - 1));
    for (const key of ['signInTitle', 'signInBody', 'tryAgain', 'consoleLabel']) assert.ok(replaced.includes(key), key);
    for (const [start, end, slot] of edits) {
      const key = source.slice(start + 1, end - 1) as keyof typeof en;
      assert.equal(slot, slotOf(key, seeds, size), key);
      assert.ok(slot > 0, 'a slot number is never falsy');
    }
    const edited = applyKeyEdits(source, edits);
    assert.ok(edited.includes(`t(${slotOf('signInTitle', seeds, size)})`));
    let expected = source;
    for (const [start, end, slot] of [...edits].reverse()) expected = `${expected.slice(0, start)}${slot}${expected.slice(end)}`;
    assert.equal(edited, expected);
  });

  test('the packed table reads a key by its slot number as by its name', () => {
    const texts = Array<string>(size).fill('');
    for (const key of Object.keys(en) as (keyof typeof en)[]) texts[slotOf(key, seeds, size)] = en[key];
    const table = unpackTable(seeds, `|${texts.join('|')}`);
    for (const key of ['tabLinks', 'status_pending', 'linkCreated'] as const) {
      assert.equal(table[key], en[key]);
      assert.equal(table[String(slotOf(key, seeds, size))], en[key]);
    }
  });

  test('a word that only looks like a key stays a string: a link status the view also writes as a class', async () => {
    const source = readFileSync(LINKS_VIEW, 'utf8');
    const edits = (await keyEdits()).get(LINKS_VIEW)!;
    const at = (text: string) => source.indexOf(text);
    const statusLine = at("const status = !link.isActive ? 'inactive' : closed ? 'closed' : 'active';");
    assert.ok(statusLine > 0, 'links-view.ts still computes the status word');
    assert.ok(!edits.some(([start]) => start > statusLine && start < statusLine + 80), 'the status words stay words');
    const filter = at("t('active')");
    assert.ok(edits.some(([start]) => start === filter + 2), "t('active') asks for the key");
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
