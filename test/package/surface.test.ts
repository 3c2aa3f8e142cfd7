/**
 * What plugin authors and framework users rely on outside the code: the Custom Elements Manifest
 * lists both elements with their attributes and events, and the package's subpath exports resolve.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
    for (const event of ['paylink-ready', 'paylink-session', 'paylink-success', 'paylink-error']) assert.ok(names(checkout.events).includes(event), event);
    assert.ok(checkout.cssParts.length > 10, 'parts are documented');
    assert.ok(names(admin.attributes).includes('api-base'));
    assert.ok(!names(admin.attributes).includes('token'), 'the admin token is a property, never an attribute');
  });

  it('points every export at compiled JavaScript and its declarations in lib/', () => {
    const subpaths = ['.', './checkout', './admin', './client', './proxy', './server', './webhooks', './react', './vue'];
    assert.deepEqual(
      Object.keys(pkg.exports).filter((key) => !key.includes('json') && !key.includes('*')),
      subpaths,
    );
    for (const subpath of subpaths) {
      const { types, default: code } = pkg.exports[subpath];
      assert.match(types, /^\.\/lib\/.*\.d\.ts$/, subpath);
      assert.equal(code, types.replace(/\.d\.ts$/, '.js'), subpath);
      assert.ok(existsSync(code) && existsSync(types), `${subpath}: ${code} and ${types} are built`);
      assert.doesNotMatch(readFileSync(code, 'utf8'), /^\s*@\w+\(/m, `${subpath}: no decorator syntax left`);
    }
    for (const file of pkg.sideEffects.filter((f: string) => !f.includes('*'))) assert.ok(existsSync(file), `sideEffects names ${file}, which exists`);
  });

  it('the Node entry points load from lib/ with plain Node (no TypeScript loader)', () => {
    const script = `
      const client = await import('paylink/client');
      const proxy = await import('paylink/proxy');
      const server = await import('paylink/server');
      const webhooks = await import('paylink/webhooks');
      console.log([typeof client.createPaylinkClient, typeof proxy.createPaylinkProxy, typeof server.startService, typeof server.serveBundle, typeof webhooks.verifyWebhook].join());`;
    // Resolved through the package's own name and exports, in a process without tsx.
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'function,function,function,function,function');
  });

  it('keeps build and test tools out of the runtime dependencies', () => {
    for (const tool of ['tsx', 'uqr', 'typescript', 'vite', 'pg']) assert.equal(pkg.dependencies[tool], undefined, tool);
    assert.deepEqual(pkg.peerDependenciesMeta.pg, { optional: true });
  });
});
