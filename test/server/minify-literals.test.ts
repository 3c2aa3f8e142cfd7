/**
 * The template minifier of the script-tag bundles: what it drops from Lit's `html` and `css` templates
 * must not change what the browser parses.
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
