/**
 * The script-tag bundles as a storefront's browser gets them (src/server/bundles.ts, mounted by the
 * service at /dist/*): compressed, cached for a year under their versioned names and briefly under
 * their aliases, revalidated by ETag, loadable cross-origin, nothing but the bundles reachable; and
 * the built files compile no code at run time (a strict CSP or Trusted Types would refuse it).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { ALIAS_CACHE, chooseEncoding, createBundleHandler, IMMUTABLE_CACHE } from '../../src/server/bundles.js';
import { createApp } from '../../src/server/service/app.js';
import type { Database } from '../../src/server/db/index.js';
import { createSandboxChain } from '../../src/server/chain/sandbox/index.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** A dist/ folder as the build writes it, with `code` as the bundle. */
function fakeDist(code: string, version = '1.2.3'): { dir: string; rewrite(code: string): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-dist-'));
  const write = (text: string) => {
    const body = Buffer.from(text);
    const versioned = `paylink-checkout.${version}.js`;
    writeFileSync(path.join(dir, 'paylink-checkout.js'), body);
    writeFileSync(path.join(dir, versioned), body);
    writeFileSync(path.join(dir, `${versioned}.br`), brotliCompressSync(body));
    writeFileSync(path.join(dir, `${versioned}.gz`), gzipSync(body));
    writeFileSync(path.join(dir, 'secret.txt'), 'not a bundle');
    const integrity = `sha384-${createHash('sha384').update(body).digest('base64')}`;
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ 'paylink-checkout.js': { versioned, integrity } }));
  };
  write(code);
  return {
    dir,
    rewrite(text) {
      write(text);
      // A later modification time, whatever the file system's resolution.
      const later = new Date(Date.now() + 5000);
      utimesSync(path.join(dir, 'manifest.json'), later, later);
    },
  };
}

const CODE = `customElements.define('paylink-checkout', class extends HTMLElement {}); // ${'padding '.repeat(200)}`;
const get = (name: string, headers: Record<string, string> = {}, method = 'GET') => new Request(`http://shop.test/dist/${name}`, { method, headers });

describe('serving the bundles', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const handler = () => {
    const dist = fakeDist(CODE);
    dirs.push(dist.dir);
    return { serve: createBundleHandler({ distDir: dist.dir }), dist };
  };

  it('serves a versioned file for a year, cross-origin, as JavaScript', async () => {
    const { serve } = handler();
    const res = await serve(get('paylink-checkout.1.2.3.js'), 'paylink-checkout.1.2.3.js');
    assert.equal(res.status, 200);
    assert.equal(await res.text(), CODE);
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), IMMUTABLE_CACHE);
    assert.equal(res.headers.get('access-control-allow-origin'), '*', 'module scripts are fetched with CORS');
    assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(CODE)));
    assert.equal(res.headers.get('content-encoding'), null, 'no Accept-Encoding, no compression');
    assert.match(res.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{27}"$/);
  });

  it('serves the alias with the same bytes and a short cache', async () => {
    const { serve } = handler();
    const versioned = await serve(get('paylink-checkout.1.2.3.js'), 'paylink-checkout.1.2.3.js');
    const alias = await serve(get('paylink-checkout.js'), 'paylink-checkout.js');
    assert.equal(alias.status, 200);
    assert.equal(await alias.text(), CODE);
    assert.equal(alias.headers.get('cache-control'), ALIAS_CACHE);
    assert.equal(alias.headers.get('etag'), versioned.headers.get('etag'));
    const manifest = await serve(get('manifest.json'), 'manifest.json');
    assert.equal(manifest.status, 200);
    assert.equal(manifest.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(manifest.headers.get('cache-control'), ALIAS_CACHE);
    assert.match((await manifest.json())['paylink-checkout.js'].integrity, /^sha384-/);
  });

  it('sends the precompressed brotli or gzip file by Accept-Encoding', async () => {
    const { serve } = handler();
    const name = 'paylink-checkout.1.2.3.js';
    const br = await serve(get(name, { 'accept-encoding': 'gzip, deflate, br, zstd' }), name);
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.equal(br.headers.get('vary'), 'Accept-Encoding');
    const brBody = Buffer.from(await br.arrayBuffer());
    assert.ok(brBody.length < Buffer.byteLength(CODE) / 5, `compressed (${brBody.length} bytes)`);
    assert.equal(brotliDecompressSync(brBody).toString(), CODE);
    assert.equal(br.headers.get('content-length'), String(brBody.length));

    const gz = await serve(get(name, { 'accept-encoding': 'gzip' }), name);
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.equal(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString(), CODE);

    const refusedBr = await serve(get(name, { 'accept-encoding': 'br;q=0, gzip;q=0.5' }), name);
    assert.equal(refusedBr.headers.get('content-encoding'), 'gzip');
    const identity = await serve(get(name, { 'accept-encoding': 'identity' }), name);
    assert.equal(identity.headers.get('content-encoding'), null);
    assert.equal(await identity.text(), CODE);

    const etags = new Set([br, gz, identity].map((res) => res.headers.get('etag')));
    assert.equal(etags.size, 3, 'each encoding has its own ETag');
  });

  it('chooses encodings as RFC 9110 reads Accept-Encoding', () => {
    const all = ['br', 'gzip', 'identity'] as const;
    assert.equal(chooseEncoding('*', all), 'br');
    assert.equal(chooseEncoding('*;q=0, gzip', all), 'gzip');
    assert.equal(chooseEncoding('GZIP', all), 'gzip');
    assert.equal(chooseEncoding('br;q=0.0', all), 'identity');
    assert.equal(chooseEncoding('br;q=abc', all), 'identity');
    assert.equal(chooseEncoding('br', ['gzip', 'identity']), 'identity');
    assert.equal(chooseEncoding(null, all), 'identity');
  });

  it('answers If-None-Match with 304 and no body', async () => {
    const { serve } = handler();
    const name = 'paylink-checkout.1.2.3.js';
    const first = await serve(get(name, { 'accept-encoding': 'br' }), name);
    const etag = first.headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await serve(get(name, { 'accept-encoding': 'br', 'if-none-match': ifNoneMatch }), name);
      assert.equal(again.status, 304, ifNoneMatch);
      assert.equal(await again.text(), '');
      assert.equal(again.headers.get('etag'), etag);
      assert.equal(again.headers.get('cache-control'), IMMUTABLE_CACHE);
      assert.equal(again.headers.get('access-control-allow-origin'), '*');
    }
    const otherEncoding = await serve(get(name, { 'accept-encoding': 'gzip', 'if-none-match': etag }), name);
    assert.equal(otherEncoding.status, 200, 'the brotli ETag does not validate the gzip body');
    const stale = await serve(get(name, { 'if-none-match': '"stale"' }), name);
    assert.equal(stale.status, 200);
  });

  it('answers HEAD with the headers alone and refuses other methods', async () => {
    const { serve } = handler();
    const head = await serve(get('paylink-checkout.js', {}, 'HEAD'), 'paylink-checkout.js');
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(CODE)));
    assert.equal(await head.text(), '');
    const post = await serve(get('paylink-checkout.js', {}, 'POST'), 'paylink-checkout.js');
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assert.equal((await post.json()).code, 'method_not_allowed');
  });

  it('answers any other name with the service JSON 404, never another file', async () => {
    const { serve } = handler();
    const names = [
      'secret.txt',
      '../package.json',
      '..',
      '.',
      '',
      'a/b.js',
      '..%2fpackage.json',
      'paylink-checkout.1.2.3.js.br',
      'paylink-checkout.1.2.3.js.gz',
      'paylink-checkout.9.9.9.js',
      '/etc/passwd',
      'C:\\windows\\win.ini',
      'paylink-checkout.js\0',
      'x'.repeat(5000),
    ];
    for (const name of names) {
      const res = await serve(get('x'), name);
      assert.equal(res.status, 404, name);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      const body = await res.json();
      assert.equal(body.status, 'error');
      assert.equal(body.statusCode, 404);
      assert.equal(body.code, 'not_found');
      assert.ok(body.message.length < 400, 'the message does not echo a long name');
      assert.doesNotMatch(body.message.split('Bundles:')[1], /secret\.txt/, 'only bundle names are listed');
    }
  });

  it('serves a rebuilt bundle once the manifest changes, and says when nothing is built', async () => {
    const { serve, dist } = handler();
    assert.equal(await (await serve(get('paylink-checkout.js'), 'paylink-checkout.js')).text(), CODE);
    dist.rewrite('/* rebuilt */');
    assert.equal(await (await serve(get('paylink-checkout.js'), 'paylink-checkout.js')).text(), '/* rebuilt */');

    // A rebuild removes dist/ while it runs: the bundles read last are still served, never a 404.
    for (const name of readdirSync(dist.dir)) rmSync(path.join(dist.dir, name));
    const during = await serve(get('paylink-checkout.js'), 'paylink-checkout.js');
    assert.equal(during.status, 200);
    assert.equal(await during.text(), '/* rebuilt */');
    dist.rewrite('/* rebuilt again */');
    assert.equal(await (await serve(get('paylink-checkout.js'), 'paylink-checkout.js')).text(), '/* rebuilt again */');

    const empty = mkdtempSync(path.join(os.tmpdir(), 'paylink-dist-'));
    dirs.push(empty);
    const none = await createBundleHandler({ distDir: empty })(get('paylink-checkout.js'), 'paylink-checkout.js');
    assert.equal(none.status, 404);
    assert.match((await none.json()).message, /not built/);
  });
});

describe('the service at /dist/*', () => {
  it('serves the built bundles of this package, compressed, and no other file', async () => {
    // Bundles need no database: one that throws on use proves it and spares the test a PGlite start.
    const db = new Proxy({} as Database, {
      get: (_, name) => () => {
        throw new Error(`the /dist route used the database (${String(name)})`);
      },
    });
    const app = createApp({ db, chain: createSandboxChain(), publicUrl: 'http://127.0.0.1/pay', now: () => new Date() });
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8'));
    const versioned = manifest['paylink-checkout.js'].versioned as string;
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.equal(versioned, `paylink-checkout.${version}.js`, 'the versioned name carries the package version');

    const res = await app.request(`/dist/${versioned}`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-encoding'), 'br');
    assert.equal(res.headers.get('cache-control'), IMMUTABLE_CACHE);
    const code = brotliDecompressSync(Buffer.from(await res.arrayBuffer()));
    assert.equal(`sha384-${createHash('sha384').update(code).digest('base64')}`, manifest['paylink-checkout.js'].integrity, 'the SRI hash matches');

    const alias = await app.request('/dist/paylink.js', { method: 'HEAD' });
    assert.equal(alias.status, 200);
    assert.equal(alias.headers.get('cache-control'), ALIAS_CACHE);

    // The admin's French, a file of its own: listed, versioned and served like the elements' bundles.
    const french = manifest['paylink-admin.fr.js'] as { versioned: string; integrity: string };
    assert.equal(french.versioned, `paylink-admin.fr.${version}.js`);
    const frenchRes = await app.request(`/dist/${french.versioned}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(frenchRes.status, 200);
    const frenchCode = gunzipSync(Buffer.from(await frenchRes.arrayBuffer()));
    assert.equal(`sha384-${createHash('sha384').update(frenchCode).digest('base64')}`, french.integrity, 'the SRI hash matches');
    assert.match(frenchCode.toString('utf8'), /Liens de paiement/);
    assert.doesNotMatch(readFileSync(path.join(ROOT, 'dist', 'paylink.js'), 'utf8'), /Liens de paiement/, 'dist/paylink.js has no admin French');

    for (const pathname of ['/dist/..%2fpackage.json', '/dist/%2e%2e', '/dist/a/b.js', '/dist/manifest.json.br', '/dist/']) {
      const missing = await app.request(pathname);
      assert.equal(missing.status, 404, pathname);
      assert.equal((await missing.json()).code, 'not_found', pathname);
    }
    const css = await app.request('/dist/hosted.css');
    assert.equal(css.status, 200, 'the hosted page keeps its stylesheet');
    assert.match(css.headers.get('content-type') ?? '', /text\/css/);
  });
});

/** Calls of `eval` or the `Function` constructor, and aliases of them (`x=Function`), in minified code. */
function evalCalls(code: string): string[] {
  const patterns = [
    /(?<![\w$.])Function\s*\(/g,
    /\bnew\s+Function\b/g,
    /[=,(:?&|]\s*Function\b(?!\s*\.)/g,
    /(?<![\w$.])eval\s*\(/g,
    /[=,(:?&|]\s*eval\b(?!\s*\.)/g,
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => code.slice(Math.max(0, m.index - 30), m.index + 30)));
}

describe('the built bundles', () => {
  it('the detector finds the ways libraries compile code', () => {
    assert.equal(evalCalls('let e=Function,t=[];return new e("a","return a")').length, 1);
    assert.equal(evalCalls('try{return Function(``),!0}catch{return!1}').length, 1);
    assert.equal(evalCalls('x=new Function("return 1")').length, 2);
    assert.equal(evalCalls('(0,eval)("1")').length, 1);
    assert.equal(evalCalls('eval("1")').length, 1);
    assert.deepEqual(evalCalls('x instanceof Function;Function.prototype.toString.call(f);isFunction(x);a.eval(1)'), []);
    // zod's own JIT, as published: what the build must take out.
    const zodUtil = readFileSync(path.join(ROOT, 'node_modules', 'zod', 'v4', 'core', 'util.js'), 'utf8');
    assert.ok(evalCalls(zodUtil).length > 0, "zod's eval probe is found in its source");
  });

  it('dist/*.js compile no code at run time (no eval, no Function constructor)', () => {
    const files = readdirSync(path.join(ROOT, 'dist')).filter((name) => name.endsWith('.js'));
    assert.ok(files.includes('paylink.js') && files.includes('paylink-checkout.js'), `built: ${files.join(', ')}`);
    for (const file of files) {
      assert.deepEqual(evalCalls(readFileSync(path.join(ROOT, 'dist', file), 'utf8')), [], file);
    }
  });
});
