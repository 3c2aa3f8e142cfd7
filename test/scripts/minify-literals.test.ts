/**
 * The build steps of the script-tag bundles: what the template minifier drops from Lit's `html` and
 * `css` templates, and what the lit-hooks and lit-static plugins drop from lit-html, must not change
 * what the browser runs.
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

test('html: drops the comments written for the reader, never a binding', () => {
  const source = 'html`<div>\n  <!-- Focusable so that keyboard users can scroll. -->\n  <p>${text}</p>\n</div>`';
  assert.equal(minifyLiterals(source), 'html`<div><p>${text}</p></div>`');
  assert.equal(minifyLiterals('html`<p><!-- a ${note} --></p>`'), 'html`<p><!-- a ${note} --></p>`', 'a comment around a binding is left as it is');
});

test('css: drops the spaces of !important and @media, and comments', () => {
  assert.equal(
    minifyLiterals('css`\n  /* why */\n  @media (prefers-reduced-motion: reduce) {\n    * { animation: none !important; }\n  }\n`'),
    'css` @media(prefers-reduced-motion:reduce){*{animation:none!important}}`',
  );
});

test('css: an attribute selector loses the quotes of a value that is a name, and keeps those a value needs', () => {
  assert.equal(
    minifyLiterals(
      `css\`[part~='links-table'] td, :host([theme="dark"]) {} [lang='en-GB'] {} [data-x='a b'] {} [href^='https:'] {} [x='1a'] {} [part~='\${p}'] {}\``,
    ),
    "css`[part~=links-table] td,:host([theme=dark]){}[lang=en-GB]{}[data-x='a b']{}[href^='https:']{}[x='1a']{}[part~='${p}']{}`",
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

test("lit-static: the bundles drop lit-html's directive support, SVG and MathML templates and what else they never reach, all of a part or none of it", async () => {
  const { readFileSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const { trimLitHtml } = await import('../../scripts/lit-static.js');
  const source = readFileSync(fileURLToPath(new URL('../../node_modules/lit-html/lit-html.js', import.meta.url)), 'utf8');
  const { code, removed } = trimLitHtml(source);
  const { LIT_STATIC_EDITS } = await import('../../scripts/lit-static.js');
  assert.deepEqual(removed, Object.keys(LIT_STATIC_EDITS), 'the installed lit-html reads the way the plugin knows: every part goes');
  assert.doesNotMatch(code, /_\$litDirective\$|new Z\(|setConnected|startNode|endNode|get tagName|<math>|<svg>|_\$AU|_\$AP|_\$AN|isConnected/);
  // Element bindings are still found (so the values after them keep their places), and nothing renders them.
  assert.match(code, /type:6,index:/);
  // Whatever else lit-html does stays: every part kind but the element's, events, properties, booleans.
  for (const kept of ['class k{', 'class H{', 'class I extends H', 'class L extends H', 'class z extends H', 'handleEvent(t)', 'toggleAttribute'])
    assert.ok(code.includes(kept), kept);
  assert.doesNotMatch(code, /textContent\.split|\.capture|handleEvent\(t\)\}/);

  // A lit-html that reads otherwise keeps the part whole: half of a part is never taken.
  const changed = source.replace('get startNode(){return this._$AA}', 'get startNode(){return this._$AA??null}');
  // A bundle whose elements render with options (`{ host }`) keeps them, and its listeners' host.
  const withOptions = trimLitHtml(source, { renderOptions: true });
  assert.deepEqual(
    withOptions.removed,
    removed.filter((part) => part != 'render options' && part != "parts' options"),
  );
  assert.match(withOptions.code, /this\.options\?\.host\?\?this\.element/);
  assert.match(withOptions.code, /renderBefore/);
  const partial = trimLitHtml(changed);
  // The connection tracking's edits read the code as the directive API's leave it, and the parts'
  // kinds and options as the connection tracking's leave it: they stay too.
  const following = ["parts' directive API", 'connection tracking', 'part kinds and parents', "parts' options"];
  assert.deepEqual(
    partial.removed,
    removed.filter((part) => !following.includes(part)),
  );
  assert.match(partial.code, /setConnected/);
});

test('lit-static: a bundle that needs what it drops does not build', async () => {
  const { litStaticPlugin } = await import('../../scripts/lit-static.js');
  const transform = litStaticPlugin().transform as (this: { error(message: string): never }, source: string, id: string) => unknown;
  const context = {
    error: (message: string): never => {
      throw new Error(message);
    },
  };
  for (const id of [
    '/p/node_modules/lit-html/directive.js',
    '/p/node_modules/lit-html/directives/if-defined.js',
    '/p/node_modules/lit/directives/ref.js',
    '/p/node_modules/lit-element/lit-element.js',
  ])
    assert.throws(() => transform.call(context, '', id), /needs all of lit-html/, id);
  assert.throws(() => transform.call(context, "import { html, mathml } from 'lit';", '/p/src/components/checkout/x.ts'), /MathML/);
  assert.throws(() => transform.call(context, "import { svg } from 'lit/html.js';", '/p/src/components/admin/x.ts'), /SVG/);
  assert.throws(() => transform.call(context, 'html`<textarea part="input">${text}</textarea>`', '/p/src/components/admin/x.ts'), /raw-text/);
  assert.throws(() => transform.call(context, 'html`<button @click=${{ handleEvent }}>Go</button>`', '/p/src/components/checkout/x.ts'), /listener object/);
  assert.equal(transform.call(context, 'html`<textarea .value=${text} @input=${(e) => go(e)}></textarea>`', '/p/src/components/checkout/x.ts'), null);
  assert.throws(
    () =>
      transform.call(context, "import { render } from 'lit/html.js';\nrender(html`<p></p>`, root, { renderBefore: node });", '/p/src/components/checkout/x.ts'),
    /render\(\) with options/,
  );
  assert.equal(
    transform.call(context, "import { render } from 'lit/html.js';\nrender(html`<p>${f(a, b)}</p>`, this.shadowRoot!);", '/p/src/components/checkout/x.ts'),
    null,
  );
  assert.equal(transform.call(context, "import { html } from 'lit/html.js';", '/p/src/components/checkout/x.ts'), null, 'plain templates build');
  // Only templates count: a comment or a plain string that names a raw-text element builds.
  assert.equal(transform.call(context, '/** Pastes a `<script>` tag. */\nconst s = `<script src="${src}"></script>`;', '/p/src/components/admin/x.ts'), null);
  assert.throws(() => transform.call(context, 'html`<title>${name}</title>`', '/p/src/components/admin/x.ts'), /raw-text/);
  // A bundle whose elements render with options builds with them.
  const withOptions = litStaticPlugin({ renderOptions: true }).transform as unknown as (this: typeof context, source: string, id: string) => unknown;
  assert.equal(
    withOptions.call(context, "import { render } from 'lit/html.js';\nrender(view, this.renderRoot, { host: this });", '/p/src/internal/x.ts'),
    null,
  );
});
