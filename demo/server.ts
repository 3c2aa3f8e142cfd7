/**
 * `paylink demo` (`npm start`): the service (PGlite, sandbox chain, seeded merchant and links), the
 * proxy at `/paylink`, hosted pages at `/pay/<slug>`, the script-tag builds at `/dist/` and the demo
 * pages, all on one origin.
 *
 * Demo visitors are signed in to the admin without copying tokens: opening `/admin.html` gives each
 * visitor a session of their own in an HttpOnly, SameSite=Strict cookie (`Secure` over https), and the
 * proxy's `authorize` hook accepts it, the way a merchant's own login would. `PAYLINK_ADMIN_TOKEN`
 * (bearer) works too. The API key stays here. Requests naming a host the demo was not started for are
 * refused (DNS rebinding; ./visitors.ts), and the server has the service's connection limits.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { errorBody } from '../src/core/errors.js';
import { openDatabase } from '../src/server/db/index.js';
import { createLimitedServer, LISTEN_BACKLOG } from '../src/server/limits/node-server.js';
import { resolveConnectionLimits } from '../src/server/limits/options.js';
import { createNodeUpstream, createPaylinkProxy, type ProxyRequestInfo } from '../src/server/proxy/index.js';
import { serveBundle } from '../src/server/bundles.js';
import { startService } from '../src/server/service/serve.js';
import { seedDemo } from './seed.js';
import { createAdminSessions, createHostCheck, readCookie, SESSION_COOKIE } from './visitors.js';

/**
 * The package root: this module runs from demo/ in the repository and from lib/demo/ in the installed
 * package (compiled), and the pages, assets and bundles sit at the root's demo/ and dist/ in both.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = [path.resolve(HERE, '..'), path.resolve(HERE, '..', '..')].find((dir) => existsSync(path.join(dir, 'demo', 'pages'))) ?? path.resolve(HERE, '..');
const PAGES = path.join(ROOT, 'demo', 'pages');
const ASSETS = path.join(ROOT, 'demo', 'assets');

export interface DemoOptions {
  port: number;
  host?: string | undefined;
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
}

export interface RunningDemo {
  url: string;
  apiKey: string;
  adminToken: string;
  slugs: { store: string; donation: string; simple: string };
  close(): Promise<void>;
}

/**
 * The script-tag bundles must be there: the package ships them, and in the repository `npm install`
 * builds them (its `prepare` script). A repository checkout that lost them builds them again here.
 */
function ensureBuilt() {
  if (existsSync(path.join(ROOT, 'dist', 'paylink-checkout.js')) && existsSync(path.join(ROOT, 'dist', 'paylink.js'))) return;
  if (!existsSync(path.join(ROOT, 'scripts', 'build-dist.ts'))) throw new Error(`the script-tag bundles are missing from ${path.join(ROOT, 'dist')}: reinstall the package`);
  process.stdout.write('Building the script-tag bundles…\n');
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('the build failed; run `npm run build` to see why');
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  ensureBuilt();
  const dataDir = options.dataDir ?? path.join('.paylink-data', 'demo');
  if (!options.databaseUrl) await mkdir(dataDir, { recursive: true });
  const db = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.databaseUrl ? undefined : dataDir });
  const keyFile = path.join(options.databaseUrl ? '.paylink-data' : dataDir, 'demo-api-key');
  const previousKey = await readFile(keyFile, 'utf8').then((text) => text.trim(), () => undefined);
  const seed = await seedDemo(db, previousKey);
  await mkdir(path.dirname(keyFile), { recursive: true });
  await writeFile(keyFile, `${seed.apiKey}\n`, { mode: 0o600 });

  // The demo's own server first, so its origin is known for the links' public URLs.
  const host = options.host ?? '127.0.0.1';
  const connectionLimits = resolveConnectionLimits({}, process.env);
  let listener: Parameters<typeof createLimitedServer>[0] = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const { server } = createLimitedServer((req, res) => listener(req, res), connectionLimits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

  // The service's own port is reached only by the proxy below, from 127.0.0.1: its X-Forwarded-For names
  // the visitor, so the service's per-client limits count visitors, not the proxy.
  const service = await startService({ db, port: 0, host: '127.0.0.1', publicUrl: process.env.PAYLINK_PUBLIC_URL ?? `${origin}/pay`, trustProxy: ['127.0.0.1'] });
  const adminToken = process.env.PAYLINK_ADMIN_TOKEN || randomBytes(24).toString('base64url');
  const sessions = createAdminSessions();
  const hosts = createHostCheck({
    listenHost: host,
    origins: [process.env.PAYLINK_PUBLIC_ORIGIN, process.env.PAYLINK_PUBLIC_URL],
    hosts: (process.env.PAYLINK_ALLOWED_HOSTS ?? '').split(','),
  });
  const publicOriginIsHttps = (process.env.PAYLINK_PUBLIC_ORIGIN ?? '').trim().toLowerCase().startsWith('https:');
  const allowedOrigins = process.env.PAYLINK_ALLOWED_ORIGINS
    ? process.env.PAYLINK_ALLOWED_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean)
    : '*';
  const proxy = createPaylinkProxy({
    upstream: createNodeUpstream(service.url),
    apiKey: seed.apiKey,
    allowedOrigins,
    basePath: '/paylink',
    bundles: serveBundle,
    // Behind a reverse proxy that rewrites Host, the origin visitors see (admin changes from it are same-site).
    publicOrigin: process.env.PAYLINK_PUBLIC_ORIGIN,
    trustProxy: connectionLimits.trustProxy,
    authorize: (request: Request) => {
      const bearer = request.headers.get('authorization')?.match(/^Bearer (.+)$/)?.[1];
      if (bearer && safeEqual(bearer, adminToken)) return true;
      return sessions.has(readCookie(request.headers.get('cookie'), SESSION_COOKIE));
    },
  });

  const manifest = await readFile(path.join(ROOT, 'dist', 'manifest.json'), 'utf8').then(JSON.parse, () => ({}));
  const integrity: string = manifest['paylink-checkout.js']?.integrity ?? '';

  const page = async (name: string): Promise<string | undefined> => {
    if (!/^[a-z-]+\.html$/.test(name)) return undefined;
    const text = await readFile(path.join(PAGES, name), 'utf8').catch(() => undefined);
    return text
      ?.replaceAll('{{origin}}', origin)
      .replaceAll('{{integrity}}', integrity)
      .replaceAll('{{store}}', seed.slugs.store)
      .replaceAll('{{donation}}', seed.slugs.donation)
      .replaceAll('{{simple}}', seed.slugs.simple);
  };

  const handle = async (request: Request, info?: ProxyRequestInfo & Parameters<typeof service.app.fetch>[1]): Promise<Response> => {
    const url = new URL(request.url);
    const { pathname } = url;
    if (pathname !== '/healthz' && !hosts.allows(request.headers.get('host'))) {
      const message = `This demo answers for ${hosts.names.join(', ')} only (set PAYLINK_ALLOWED_HOSTS to add a host)`;
      return Response.json(errorBody(403, 'host_not_allowed', message), { status: 403, headers: { 'cache-control': 'no-store' } });
    }
    if (pathname === '/paylink' || pathname.startsWith('/paylink/')) return proxy(request, info);
    if (pathname.startsWith('/v1/') || pathname.startsWith('/pay/') || pathname.startsWith('/dist/') || pathname === '/healthz') {
      // In process, with the visitor's socket, so the service's per-client limits count the visitor.
      return service.app.fetch(request, info);
    }
    if (pathname.startsWith('/demo/assets/')) {
      const name = pathname.slice('/demo/assets/'.length);
      if (!/^[a-z-]+\.(css|js)$/.test(name)) return new Response('Not found', { status: 404 });
      const body = await readFile(path.join(ASSETS, name)).catch(() => undefined);
      if (!body) return new Response('Not found', { status: 404 });
      const type = name.endsWith('.css') ? 'text/css' : 'text/javascript';
      return new Response(new Uint8Array(body), { headers: { 'content-type': `${type}; charset=utf-8` } });
    }
    const name = pathname === '/' ? 'index.html' : pathname.slice(1);
    const html = await page(name);
    if (html === undefined) return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } });
    const headers = new Headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy':
        "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data: https:; style-src 'self'; base-uri 'none'; form-action 'none'; require-trusted-types-for 'script'; trusted-types lit-html",
      'referrer-policy': 'no-referrer',
    });
    if (name === 'admin.html' && !sessions.has(readCookie(request.headers.get('cookie'), SESSION_COOKIE))) {
      headers.append('set-cookie', sessions.issue(url.protocol === 'https:' || publicOriginIsHttps));
    }
    return new Response(html, { headers });
  };
  listener = getRequestListener(handle);

  return {
    url: origin,
    apiKey: seed.apiKey,
    adminToken,
    slugs: seed.slugs,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 3000).unref();
      });
      await service.close();
      await db.close();
    },
  };
}

export async function runDemo(options: DemoOptions, onSignal: (close: () => Promise<void>) => void): Promise<void> {
  const demo = await startDemo(options);
  const { url, slugs } = demo;
  process.stdout.write(
    [
      '',
      `Paylink demo running at ${url}  (sandbox chain: no real funds move)`,
      '',
      `  Embed gallery     ${url}/`,
      `  Store (cart)      ${url}/store.html`,
      `  Donation          ${url}/donate.html`,
      `  Dark, French      ${url}/dark.html`,
      `  Merchant admin    ${url}/admin.html   (signed in by a demo session cookie)`,
      `  Hosted checkout   ${url}/pay/${slugs.store}`,
      `  Proxy             ${url}/paylink   (admin bearer token: ${demo.adminToken})`,
      `  Service API       ${url}/v1   (sandbox API key in ${options.databaseUrl ? '.paylink-data' : options.dataDir ?? '.paylink-data/demo'}/demo-api-key)`,
      '',
    ].join('\n'),
  );
  onSignal(demo.close);
}
