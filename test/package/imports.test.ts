/**
 * Every entry of the package loads where there is no DOM: plain Node (a server component, an SSR
 * build), and a resolver that names an edge runtime (`workerd`, `edge-light`, `worker`, with `browser`
 * as workers' bundlers add it). Each import runs in a fresh Node process without a TypeScript loader,
 * through the package's own name and `exports`, from lib/ (built by `npm run build`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
/** `paylink`, `paylink/checkout`, … : every code entry of `exports`. */
const ENTRIES = Object.keys(pkg.exports)
  .filter((key) => !key.endsWith('.json') && !key.includes('*'))
  .map((key) => (key === '.' ? 'paylink' : `paylink/${key.slice(2)}`));
/** The entries that hold an element. */
const ELEMENT_ENTRIES = ['paylink', 'paylink/checkout', 'paylink/admin'];
const EDGE = [
  ['workerd', 'worker', 'browser'],
  ['edge-light', 'browser'],
];

/** Runs an ES module script in plain Node with `conditions`; returns what it printed as JSON. */
function node(script: string, conditions: string[] = []): any {
  const args = [...conditions.map((name) => `--conditions=${name}`), '--input-type=module', '-e', script];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}

/** Imports `entry`, then reports its export names and which DOM globals exist afterwards. */
const importScript = (entry: string) => `
  const module = await import(${JSON.stringify(entry)});
  console.log(JSON.stringify({
    names: Object.keys(module).sort(),
    dom: ['HTMLElement', 'window', 'document'].filter((name) => name in globalThis),
    registry: typeof globalThis.customElements,
  }));`;

describe('the package where there is no DOM', () => {
  it('lists every export here', () => {
    assert.deepEqual(ENTRIES, [
      'paylink',
      'paylink/checkout',
      'paylink/admin',
      'paylink/client',
      'paylink/proxy',
      'paylink/server',
      'paylink/webhooks',
      'paylink/react',
      'paylink/vue',
    ]);
  });

  for (const entry of ENTRIES) {
    it(`${entry} imports in plain Node and leaves no DOM global behind`, () => {
      const { names, dom, registry } = node(importScript(entry));
      assert.deepEqual(dom, []);
      if (entry !== 'paylink/vue') assert.ok(names.length > 0, 'it exports something');
      // Lit's own server build brings a registry of its own for Lit SSR; nothing else may.
      if (!['paylink', 'paylink/admin'].includes(entry)) assert.equal(registry, 'undefined');
    });
  }

  for (const conditions of EDGE) {
    it(`every entry but the service imports under the conditions ${conditions.join(', ')} (an edge runtime's resolver)`, () => {
      for (const entry of ENTRIES.filter((name) => name !== 'paylink/server')) {
        const { dom } = node(importScript(entry), conditions);
        assert.deepEqual(dom, [], entry);
      }
    });
  }

  it('the edge entries export the same names as the browser entries', () => {
    for (const entry of ELEMENT_ENTRIES) {
      assert.deepEqual(node(importScript(entry), EDGE[0]).names, node(importScript(entry)).names, entry);
    }
  });

  it('<paylink-checkout> is defined only where there is a registry, and then on import', () => {
    const bare = node(`
      const { PaylinkCheckout } = await import('paylink/checkout');
      console.log(JSON.stringify({ type: typeof PaylinkCheckout, registry: typeof customElements }));`);
    assert.deepEqual(bare, { type: 'function', registry: 'undefined' });
    const withRegistry = node(`
      const defined = new Map();
      globalThis.HTMLElement = class HTMLElement {};
      globalThis.customElements = { get: (name) => defined.get(name), define: (name, element) => defined.set(name, element) };
      const { PaylinkCheckout } = await import('paylink/checkout');
      console.log(JSON.stringify({ defined: defined.get('paylink-checkout') === PaylinkCheckout, extendsHTMLElement: PaylinkCheckout.prototype instanceof HTMLElement }));`);
    assert.deepEqual(withRegistry, { defined: true, extendsHTMLElement: true });
  });

  it('paylink/react is a client module that server-renders the element with its attributes and no handlers', () => {
    assert.match(readFileSync('lib/frameworks/react.js', 'utf8'), /^['"]use client['"];/, 'the directive a server component bundler reads');
    const { html } = node(`
      const React = await import('react');
      const { renderToString } = await import('react-dom/server');
      const { PaylinkCheckout, PaylinkAdmin } = await import('paylink/react');
      const html = renderToString(React.createElement('div', null,
        React.createElement(PaylinkCheckout, { slug: 'abc', apiBase: '/paylink', metadata: { cart: 'c_9' }, onPaylinkReady() {} }),
        React.createElement(PaylinkAdmin, { apiBase: '/paylink', pollInterval: 5000 })));
      console.log(JSON.stringify({ html }));`);
    assert.equal(
      html,
      '<div><paylink-checkout slug="abc" api-base="/paylink"></paylink-checkout><paylink-admin api-base="/paylink" poll-interval="5000"></paylink-admin></div>',
    );
  });
});
