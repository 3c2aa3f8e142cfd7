/**
 * Browser tests (`npm run test:browser`): Chromium headless, TypeScript through esbuild with the
 * project's tsconfig (legacy decorators, `useDefineForClassFields: false`).
 *
 * For the tests that talk to the real thing, the config starts the Paylink service in this process
 * (PGlite in memory, sandbox chain), seeds a merchant and links, and serves on the test origin:
 *   /paylink/checkout/*  → the service's /v1/checkout/* (a tiny stand-in for the proxy; SSE streams through)
 *   /__test/seed         → `{slugs: {store, donation, simple}}`
 *   /__test/session/<id> → the keyed `GET /v1/checkout-session/<id>` (what the merchant's server reads)
 *   POST /__test/order   → a new order (`POST /v1/order` with the key, the JSON body as given): what a shop's server does
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { register } from 'tsx/esm/api';
import { adminScreenshotPlugin } from './test/browser/admin-screenshot-plugin.mjs';
import { reactEsmPlugin } from './test/browser/react-esm-plugin.mjs';
import { CHROME_PATH, CHROMIUM_ARGS } from './test/support/chromium.mjs';

register();

const { startService } = await import('./src/server/service/serve.ts');
const { createApiKey } = await import('./src/server/service/keys/index.ts');
const { createLink } = await import('./src/server/service/links/index.ts');

/** The real service and its seed, started on first use (so configs that only list files stay fast). */
let running;
function realService() {
  running ??= (async () => {
    const service = await startService({ port: 0 });
    const key = await createApiKey(service.db, { name: 'Browser tests' });
    const principal = { integratorId: key.integratorId, userId: key.userId, keyId: key.keyId };
    const base = { options: { collectAddress: false, collectPhone: false }, cart: { items: [] } };
    const store = await createLink(service.db, principal, {
      ...base,
      title: 'Browser test store',
      description: 'Two coffees',
      fiatCurrency: ['USD'],
      action: { successMessage: 'Thanks from the real service!', showConfirmationPage: true },
      cart: { items: [{ name: 'Coffee', quantity: 2, unitAmount: '4.50' }] },
    });
    const donation = await createLink(service.db, principal, {
      ...base,
      title: 'Browser test fund',
      description: 'Give what you like',
      linkType: 'Donation',
      fiatCurrency: 'NGN',
      action: { successMessage: 'Thank you for giving.' },
      minAmount: 500,
      suggestedAmounts: [1000, 5000],
    });
    const simple = await createLink(service.db, principal, {
      ...base,
      title: 'Browser test consultation',
      description: 'One hour',
      fiatAmount: 45,
      fiatCurrency: ['USD'],
      action: { successMessage: 'Booked.' },
    });
    return { service, key: key.key, slugs: { store: store.slug, donation: donation.slug, simple: simple.slug } };
  })();
  return running;
}

/** The DevTools sessions of `paylink-emulate`, by test session. */
const emulations = {};

const HOP_BY_HOP = new Set(['connection', 'content-encoding', 'content-length', 'keep-alive', 'transfer-encoding']);

/** Serves `/__test/seed` and forwards `/paylink/checkout/*` to the real service. */
async function realServiceMiddleware(ctx, next) {
  if (ctx.path === '/__test/seed') {
    const { slugs } = await realService();
    ctx.body = { slugs };
    return;
  }
  // What the merchant's server reads (the keyed session, with reference and metadata): the test
  // checks what the service stored, with the key that never reaches the page.
  const keyed = /^\/__test\/session\/([\w-]+)$/.exec(ctx.path);
  if (keyed) {
    const { service, key } = await realService();
    const upstream = await fetch(`${service.url}/v1/checkout-session/${keyed[1]}`, { headers: { 'x-api-key': key } });
    ctx.status = upstream.status;
    ctx.body = await upstream.json();
    return;
  }
  if (ctx.path === '/__test/order' && ctx.method === 'POST') {
    const { service, key } = await realService();
    const chunks = [];
    for await (const chunk of ctx.req) chunks.push(chunk);
    const upstream = await fetch(`${service.url}/v1/order`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: Buffer.concat(chunks),
    });
    ctx.status = upstream.status;
    ctx.body = await upstream.json();
    return;
  }
  if (!ctx.path.startsWith('/paylink/checkout/')) return next();
  const { service } = await realService();
  const chunks = [];
  for await (const chunk of ctx.req) chunks.push(chunk);
  const upstream = await fetch(`${service.url}/v1${ctx.path.slice('/paylink'.length)}${ctx.search}`, {
    method: ctx.method,
    headers: { accept: ctx.get('accept') || '*/*', 'content-type': ctx.get('content-type') || 'application/json' },
    body: ['GET', 'HEAD'].includes(ctx.method) ? undefined : Buffer.concat(chunks),
  });
  ctx.status = upstream.status;
  upstream.headers.forEach((value, name) => HOP_BY_HOP.has(name) || ctx.set(name, value));
  ctx.compress = false;
  ctx.body = upstream.body ? Readable.fromWeb(upstream.body) : null;
}

export default {
  // test/browser/dist/: the built bundles themselves, in `npm run test:browser:dist` only.
  files: ['test/browser/**/*.test.ts', '!test/browser/dist/**'],
  // Lit's production build, as the bundles ship it: the dev server would pick the `development` export
  // condition by default, whose Lit prints "Lit is in dev mode" in every test file.
  nodeResolve: { exportConditions: ['production'] },
  concurrency: 1,
  testsFinishTimeout: 180_000,
  testFramework: { config: { timeout: 10_000 } },
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: CHROME_PATH,
        headless: true,
        args: CHROMIUM_ARGS,
      },
    }),
  ],
  middleware: [realServiceMiddleware],
  plugins: [
    reactEsmPlugin(),
    esbuildPlugin({ ts: true, tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }),
    adminScreenshotPlugin(),
    {
      // `executeServerCommand('paylink-screenshot', { name })`: the page as it is, to
      // test-results/<name>.png (gitignored), for the checkout's screenshot tests.
      name: 'paylink-screenshot',
      async executeCommand({ command, payload, session }) {
        if (command !== 'paylink-screenshot') return undefined;
        if (!/^[\w/-]+$/.test(payload.name)) throw new Error(`Bad screenshot name ${payload.name}`);
        const file = path.join('test-results', `${payload.name}.png`);
        await mkdir(path.dirname(file), { recursive: true });
        await session.browser.getPage(session.id).screenshot({ path: file, fullPage: true });
        return true;
      },
    },
    {
      // `executeServerCommand('paylink-emulate', { touch, width })`: a touch screen (its pointer is
      // coarse) `width` CSS pixels wide, or, with `{}`, the desktop again, without reloading the page.
      name: 'paylink-emulate',
      async executeCommand({ command, payload, session }) {
        if (command !== 'paylink-emulate') return undefined;
        // The emulation lasts as long as its DevTools session: one per test page, kept open.
        emulations[session.id] ??= session.browser.getPage(session.id).createCDPSession();
        const cdp = await emulations[session.id];
        await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: !!payload.touch, maxTouchPoints: payload.touch ? 5 : 1 });
        if (payload.width) await cdp.send('Emulation.setDeviceMetricsOverride', { width: payload.width, height: 844, deviceScaleFactor: 1, mobile: false });
        else await cdp.send('Emulation.clearDeviceMetricsOverride');
        return true;
      },
    },
    {
      name: 'paylink-real-service',
      async serverStop() {
        if (running) await (await running).service.close();
      },
    },
  ],
};
