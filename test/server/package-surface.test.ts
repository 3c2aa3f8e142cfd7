/**
 * What plugin authors and framework users rely on outside the code: the Custom Elements Manifest
 * lists both elements with their attributes and events, and the package's subpath exports resolve.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

describe('package surface', () => {
  it('points package.json at a Custom Elements Manifest describing both elements', () => {
    assert.equal(pkg.customElements, 'custom-elements.json');
    const manifest = JSON.parse(readFileSync(pkg.customElements, 'utf8'));
    const declarations = manifest.modules.flatMap((m: { declarations?: unknown[] }) => m.declarations ?? []);
    const checkout = declarations.find((d: { tagName?: string }) => d.tagName === 'paylink-checkout');
    const admin = declarations.find((d: { tagName?: string }) => d.tagName === 'paylink-admin');
    assert.ok(checkout && admin, 'both elements are in the manifest');
    const names = (list: Array<{ name: string }> = []) => list.map((x) => x.name);
    for (const attribute of ['slug', 'api-base', 'locale', 'theme']) assert.ok(names(checkout.attributes).includes(attribute), attribute);
    for (const event of ['paylink-ready', 'paylink-session', 'paylink-success', 'paylink-error'])
      assert.ok(names(checkout.events).includes(event), event);
    assert.ok(checkout.cssParts.length > 10, 'parts are documented');
    assert.ok(names(admin.attributes).includes('api-base'));
    assert.ok(!names(admin.attributes).includes('token'), 'the admin token is a property, never an attribute');
  });

  it('exports paylink, client, proxy and server entry points that load', async () => {
    for (const subpath of ['./client', './proxy', './server']) {
      const target = pkg.exports[subpath].default as string;
      const module = await import(`../../${target}`);
      assert.ok(Object.keys(module).length > 0, `${subpath} exports something`);
    }
    const server = await import('../../src/server/index.js');
    assert.equal(typeof server.startService, 'function');
    const client = await import('../../src/client/index.js');
    assert.equal(typeof client.createPaylinkClient, 'function');
    const proxy = await import('../../src/server/proxy/index.js');
    assert.equal(typeof proxy.createPaylinkProxy, 'function');
  });
});
