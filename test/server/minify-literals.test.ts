/**
 * The build steps of the script-tag bundles: what the template minifier drops from Lit's `html` and
 * `css` templates, and what the lit-hooks plugin drops from lit-html, must not change what the
 * browser runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minifyLiterals } from '../../scripts/minify-literals.js';

test('html: unquotes plain attribute values, keeps the quotes a value needs and every binding as written', () => {
  const source = [
    'html`<button',
    '  type="button"',
    '  part="button primary"',
    '  aria-label="${label}"',
    '  data-x="a${b}c"',
    '  tabindex="-1"',
    '  @click=${go}',
    '>',
    '  <br class="x"/><img src="a/b.png" alt="">',
    '</button>`',
  ].join('\n');
  assert.equal(
    minifyLiterals(source),
    'html`<button type=button part="button primary" aria-label="${label}" data-x="a${b}c" tabindex=-1 @click=${go}><br class="x"/><img src=a/b.png alt=""></button>`',
  );
});

test('css: drops the spaces of !important and @media, and comments', () => {
  assert.equal(
    minifyLiterals('css`\n  /* why */\n  @media (prefers-reduced-motion: reduce) {\n    * { animation: none !important; }\n  }\n`'),
    'css` @media(prefers-reduced-motion:reduce){*{animation:none!important}}`',
  );
});

test("lit-hooks: the script-tag bundles drop lit-html's polyfill and version announcement, and nothing else", async () => {
  const { readFileSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const { litHooksPlugin } = await import('../../scripts/lit-hooks.js');
  const id = fileURLToPath(new URL('../../node_modules/lit-html/lit-html.js', import.meta.url));
  const source = readFileSync(id, 'utf8');
  const transform = litHooksPlugin().transform as (source: string, id: string) => { code: string } | null;
  const result = transform(source, id);
  assert.ok(result, 'the installed lit-html still announces itself the way the plugin knows');
  assert.doesNotMatch(result.code, /litHtmlPolyfillSupport|litHtmlVersions/);
  assert.equal(source.length - result.code.length, source.match(/,\w+=\w+\.litHtmlPolyfillSupport;[^;]+;/)![0].length - 1, 'only that statement goes');
  assert.equal(transform(source, '/elsewhere/other.js'), null, 'other modules are left alone');
});
