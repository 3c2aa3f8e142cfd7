/**
 * The script-tag bundles give the admin's private class names short ones (`scripts/css-private-classes.ts`);
 * the browser tests of the sources see the names as written, `npm run test:browser:dist` the renamed
 * ones. This holds the pass to its promise: a class is renamed in its styles and templates alike, one
 * the code could reach another way keeps its name, and a class name built at run time fails the build.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { KEEP, privateClassNames, renameClasses } from '../../scripts/css-private-classes.js';
import { rewriteTemplates } from '../../scripts/minify-literals.js';

const ADMIN = '/src/components/admin/';
const isAdmin = (path: string) => path.startsWith(ADMIN);

test('css-private-classes: a class gets one short name in its styles and its templates, the most written the shortest', () => {
  const sources = new Map([
    [`${ADMIN}a.styles.ts`, 'export const s = css`.table-wrap{overflow:auto} .toolbar h2,.table-wrap>table{margin:0} td.cell-value{padding:.5rem}`;'],
    [
      `${ADMIN}a.ts`,
      'html`<div class="table-wrap"><table class="x table-wrap"></table></div><p class="toolbar cell-value">${v}</p><td class=cell-value></td>`',
    ],
  ]);
  const names = privateClassNames(sources, isAdmin, []);
  assert.deepEqual(
    [...names],
    [
      ['table-wrap', 'a'],
      ['cell-value', 'b'],
      ['toolbar', 'c'],
    ],
  );
  assert.equal(
    renameClasses(sources.get(`${ADMIN}a.styles.ts`)!, names),
    'export const s = css`.a{overflow:auto} .c h2,.a>table{margin:0} td.b{padding:.5rem}`;',
  );
  assert.equal(
    renameClasses(sources.get(`${ADMIN}a.ts`)!, names),
    'html`<div class="a"><table class="x a"></table></div><p class="c b">${v}</p><td class=b></td>`',
    'a class the styles never name (x) keeps its name',
  );
});

test('css-private-classes: a class the code could reach another way keeps its name, and no short name meets a kept one', () => {
  const sources = new Map([
    [
      `${ADMIN}a.styles.ts`,
      "css`.badge.paid,.badge.b{color:green} .mono,.field,.shared,.hint{x:y} :host(.compact) .compact{a:b} ::slotted(.slot){a:b} .slot{} .kept{} [part~='a.b']{} .note{background:url(a.note)}`",
    ],
    [
      `${ADMIN}a.ts`,
      [
        // The status comes from the service (its values are in the schemas); `mono` and `field` are strings the code writes.
        'html`<span class="badge ${status}"></span><input class=${extra.mono ? "mono" : ""}><div class=${f.class ?? "field"}></div>`;',
        'html`<i class="mono field shared hint compact slot kept note b"></i>`; el.querySelector(`.x`);',
      ].join('\n'),
    ],
    ['/src/core/schemas.ts', "export const STATUSES = ['paid', 'expired'];"],
    ['/src/components/checkout/c.ts', 'html`<p class="shared"></p>`'],
  ]);
  const names = privateClassNames(sources, isAdmin, ['kept']);
  assert.deepEqual(
    [...names.keys()].sort(),
    ['badge', 'hint', 'note'],
    'not paid (a string), mono and field (strings), shared (the checkout writes it), compact and slot (reached from outside), kept (kept), b (too short)',
  );
  for (const short of names.values())
    assert.ok(!['b', 'paid', 'expired', 'mono', 'field', 'shared', 'compact', 'slot', 'kept', 'x', 'status'].includes(short), `${short} is taken`);
  const css = renameClasses(sources.get(`${ADMIN}a.styles.ts`)!, names);
  assert.match(css, /url\(a\.note\)/, 'a url is not a selector');
  assert.match(css, /\[part~='a\.b'\]/, 'a string is not a selector');
});

test('css-private-classes: a class name built from a binding, or a selector on the class attribute, fails the build', () => {
  const build = (source: string) => privateClassNames(new Map([[`${ADMIN}a.ts`, source]]), isAdmin, []);
  assert.throws(() => build('html`<span class="bar-${kind}"></span>`'), /builds a class name from a binding: class="bar-\$\{…\}"/);
  assert.throws(() => build('html`<span class="a ${x}-b"></span>`'), /builds a class name from a binding/);
  assert.throws(() => build('html`<span class=bar-${kind}></span>`'), /builds a class name from a binding/);
  assert.throws(() => build('css`.${name}{color:red}`'), /builds a class selector from a binding/);
  assert.throws(() => build('css`.bar-${kind}{color:red}`'), /builds a class selector from a binding/);
  assert.throws(() => build("css`[class~='x']{color:red}`"), /selects by the class attribute/);
  // Whole classes beside bindings are fine.
  assert.doesNotThrow(() => build('html`<span class="badge ${x}" part="bar-${kind}"></span><b class=${y}></b>` ; css`.a ${b}{c:d}`'));
});

test("css-private-classes: in the admin as it is, every renamed class is renamed in its styles and its templates, and the tests' classes stay", () => {
  const sources = new Map<string, string>();
  const root = new URL('../../src/', import.meta.url);
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) {
      const path = `${entry.parentPath}/${entry.name}`;
      sources.set(path, readFileSync(path, 'utf8'));
    }
  }
  const admin = (path: string) => /[\\/]src[\\/]components[\\/]admin[\\/]/.test(path);
  const names = privateClassNames(sources);
  assert.ok(names.size > 40, `${names.size} classes renamed`);
  for (const kept of KEEP) assert.ok(!names.has(kept), `${kept} keeps its name`);
  // The admin's browser tests run against dist/paylink.js too (web-test-runner.dist.config.mjs): a class
  // they select by must keep its name.
  const browserTests = new URL('../browser/', import.meta.url);
  for (const file of readdirSync(browserTests).filter((name) => /^admin.*\.test\.ts$/.test(name))) {
    const selectors: string[] = [];
    rewriteTemplates(
      readFileSync(new URL(file, browserTests), 'utf8'),
      (part, kind) => (kind === 'other' && selectors.push(part), part),
      (string) => selectors.push(string),
    );
    for (const selector of selectors)
      for (const [, name] of selector.matchAll(/\.(-?[A-Za-z_][\w-]*)/g))
        assert.ok(!names.has(name!), `${file} selects .${name}, which dist/paylink.js renames: add it to KEEP`);
  }
  // The admin's templates and styles, renamed.
  let text = '';
  for (const [path, source] of sources) {
    if (admin(path))
      rewriteTemplates(renameClasses(source, names, path), (part, kind) => {
        if (kind !== 'other') text += `${part}\n`;
        return part;
      });
  }
  for (const [name, short] of names) {
    assert.doesNotMatch(text, new RegExp(`class=("[^"]*\\s|"|)${name}[\\s">]|\\.${name}(?![\\w-])`), `${name} is left somewhere`);
    assert.match(text, new RegExp(`\\.${short}(?![\\w-])`), `${short} (${name}) is styled`);
    assert.match(text, new RegExp(`class=("[^"]*\\s|"|)${short}[\\s">]`), `${short} (${name}) is written in a template`);
  }
});
