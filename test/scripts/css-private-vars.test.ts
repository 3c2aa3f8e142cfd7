/**
 * The script-tag bundles give the elements' private CSS custom properties (`--_*`) short names
 * (`scripts/css-private-vars.ts`); the browser tests run the sources, where they keep theirs. This holds
 * the pass to its promise: every use of a name meets its declaration, public `--paylink-*` properties
 * keep theirs, and a name built at run time fails the build.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shortenPrivateVars } from '../../scripts/css-private-vars.js';

test('css-private-vars: each private property gets one short name everywhere, the most used the shortest; public ones stay', () => {
  const code =
    'const a=`:host{--_space:var(--paylink-space,1rem);--_accent:var(--paylink-accent,#635bff)}p{margin:var(--_space);gap:var(--_space)}`;' +
    'const b=`a{color:var(--_accent);padding:var(--_space)}`;e.style.setProperty("--_accent","red");';
  const out = shortenPrivateVars(code);
  assert.equal(
    out,
    'const a=`:host{--_0:var(--paylink-space,1rem);--_1:var(--paylink-accent,#635bff)}p{margin:var(--_0);gap:var(--_0)}`;' +
      'const b=`a{color:var(--_1);padding:var(--_0)}`;e.style.setProperty("--_1","red");',
  );
  assert.match(out, /--paylink-space/, 'a public token keeps its name');
});

test('css-private-vars: a short name never takes one the code already writes', () => {
  // `--_fg`, the most used, would take `--_0`, which the code writes already: it takes `--_1`.
  assert.equal(shortenPrivateVars('a{--_0:1;--_fg:var(--_0);color:var(--_fg);x:var(--_fg)}'), 'a{--_0:1;--_1:var(--_0);color:var(--_1);x:var(--_1)}');
  assert.equal(shortenPrivateVars('a{--_a:1;b:var(--_a)}'), 'a{--_a:1;b:var(--_a)}', 'a name no longer than its short one stays');
});

test('css-private-vars: a name built at run time fails the build', () => {
  assert.throws(
    () => shortenPrivateVars('e.style.setProperty(`--_${name}`,v);a{--_bg:red}', 'x.js'),
    /x\.js builds a private custom property's name at run time/,
  );
  assert.throws(() => shortenPrivateVars('e.style.setProperty("--_"+name,v)'), /at run time/);
});
