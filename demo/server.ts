/**
 * `paylink demo` (`npm start`): the service (PGlite, seeded merchant and links), the proxy at
 * `/paylink`, hosted pages at `/pay/<slug>`, the script-tag builds at `/dist/`, the demo pages, and a
 * shop whose server creates orders (./shop.ts, `/shop/…`), all on one origin.
 *
 * The chain: by default a local EVM node the demo starts itself (demo/chain.ts: anvil,
 * USDT and cNGN test tokens, a few real paid sessions as seed, and a demo wallet the pages can pay
 * with, demo/wallet.ts), so a visitor's payment and the merchant's withdrawal are real transactions
 * on that chain. That chain starts empty each run, so its database does too (a fresh PGlite in
 * `--data-dir`, default `.paylink-data/demo-evm`; `--database-url` is for the sandbox only).
 * `--chain sandbox` runs the sandbox chain on a persistent data directory instead, and so does the
 * default where anvil is not installed (a package installed without dev dependencies), saying so.
 *
 * Demo visitors are signed in to the admin without copying tokens: opening `/admin.html` gives each
 * visitor a session of their own in an HttpOnly, SameSite=Strict cookie (`Secure` over https), and the
 * proxy's `authorize` hook accepts it, the way a merchant's own login would. `PAYLINK_ADMIN_TOKEN`
 * (bearer, at least 32 characters, else the demo refuses to start) works too. The API key stays here.
 * Requests naming a host the demo was not started for are refused (DNS rebinding; ./visitors.ts), the
 * server has the service's connection limits, and no page may be framed (`frame-ancestors 'none'`,
 * `X-Frame-Options: DENY`: a framed admin could be clicked through by another site).
 *
 * Who a visitor is (for every per-client limit: sessions, visits, the wallet's rate limits, admin
 * sessions, failed sign-ins) is resolved once, here, from the visitor's socket, and `X-Forwarded-For`
 * only from the peers `PAYLINK_TRUST_PROXY` names (none by default: a visitor on the loopback writes
 * that header as easily as anyone). The service runs in this process and is handed that client
 * directly, by the in-process calls and the proxy's in-process upstream alike; its own port trusts no
 * header. Webhook endpoints on the loopback or a private network are allowed
 * (`PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`) while the demo listens on a loopback address, where the only
 * private network it reaches is the developer's own machine, and otherwise only when that variable says so.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createPaylinkClient } from '../src/client/index.js';
import { errorBody } from '../src/core/errors.js';
import { connectEvmAdapter } from '../src/server/chain/evm/adapter.js';
import type { ChainAdapter } from '../src/server/chain/types.js';
import { openDatabase, type Database } from '../src/server/db/index.js';
import { clientAddressOf, createLimitedServer, LISTEN_BACKLOG } from '../src/server/limits/node-server.js';
import { resolveConnectionLimits } from '../src/server/limits/options.js';
import { checkAdminToken, createBearerCheck } from '../src/server/proxy/guards/authorize.js';
import { createFetchUpstream, createPaylinkProxy } from '../src/server/proxy/index.js';
import { serveBundle } from '../src/server/bundles.js';
import { commandOutput } from '../src/server/command-output.js';
import { describeRateSettings, type RateSettings } from '../src/server/service/rates/index.js';
import { startService, type RunningService } from '../src/server/service/serve.js';
import { readAllowPrivate } from '../src/server/service/webhooks/settings.js';
import { anvilMissing, DEMO_BLOCK_TIME, DEMO_MNEMONIC, startDemoChains, type DemoChain } from './chain.js';
import { seedDemo, seedDonations, seedPayments } from './seed.js';
import { createAdminSessions, createHostCheck, readCookie, SESSION_COOKIE } from './visitors.js';
import { createDemoShop } from './shop.js';
import { createDemoWallet } from './wallet.js';

/**
 * The package root: this module runs from demo/ in the repository and from lib/demo/ in the installed
 * package (compiled), and the pages, assets and bundles sit at the root's demo/ and dist/ in both.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = [path.resolve(HERE, '..'), path.resolve(HERE, '..', '..')].find((dir) => existsSync(path.join(dir, 'demo', 'pages'))) ?? path.resolve(HERE, '..');
const PAGES = path.join(ROOT, 'demo', 'pages');
const ASSETS = path.join(ROOT, 'demo', 'assets');

/** The chains the demo runs on. */
export type DemoChainName = 'evm' | 'sandbox';

export interface DemoOptions {
  port: number;
  host?: string | undefined;
  /**
   * The PGlite data directory (default `.paylink-data/demo` on the sandbox; `.paylink-data/demo-evm`
   * on the local chain, where each run starts on a fresh copy of an empty database).
   */
  dataDir?: string | undefined;
  /** Sandbox only: a PostgreSQL database instead of PGlite. */
  databaseUrl?: string | undefined;
  /**
   * `evm` (a local anvil node started by the demo) or `sandbox`. Left out: `evm`, or the sandbox
   * where anvil is not installed (then `fallback` says why). Asked for and not installed: an error.
   */
  chain?: DemoChainName | undefined;
}

/** What the demo started on its local chain (absent on the sandbox). */
export interface DemoChainInfo {
  /** Every local chain the demo runs (the fields below are the first one's). */
  networks: Array<{ network: string; name: string; chainId: number; rpcUrl: string; pid: number }>;
  rpcUrl: string;
  chainId: number;
  /** The anvil process: stopped with the demo. */
  pid: number;
  tokens: Record<'USDT' | 'CNGN', { address: string; decimals: number }>;
  demoWallet: string;
  hotWallet: string;
  /** The public mnemonic every demo key comes from. */
  mnemonic: string;
  confirmations: number;
  blockTime: number;
  /** Sessions the seed paid with real transfers at start. */
  seedPayments: Array<{ sessionId: string; txHash: string }>;
}

export interface RunningDemo {
  url: string;
  apiKey: string;
  adminToken: string;
  slugs: { store: string; donation: string; simple: string };
  /** The chain it runs on. */
  chain: DemoChainName;
  /** Why the demo runs on the sandbox though the EVM chain was not declined (anvil missing). */
  fallback: string | undefined;
  /** The local chain, on `evm`. */
  evm: DemoChainInfo | undefined;
  /** Where its prices come from: the static table unless `PAYLINK_RATES_SOURCES` names others. */
  rates: RateSettings;
  close(): Promise<void>;
}

/** Thrown when `--chain evm` was asked for and anvil is not installed. */
export class DemoChainUnavailableError extends Error {
  constructor(reason: string) {
    super(`${reason}. Run the demo with --chain sandbox instead, or install the dev dependencies`);
    this.name = 'DemoChainUnavailableError';
  }
}

/** Thrown when the demo's port is taken (another demo, or another server, listens there). */
export class DemoPortInUseError extends Error {
  constructor(host: string, port: number) {
    const next = port + 1;
    super(
      `port ${port} on ${host} is already in use (another \`npm start\` or \`paylink demo\` running?): stop it, or pick another port with --port ${next} (npm start -- --port ${next}) or PORT=${next}`,
    );
    this.name = 'DemoPortInUseError';
  }
}

/** Listens on `port`, or throws `DemoPortInUseError` when it is taken. */
function listenOn(server: ReturnType<typeof createLimitedServer>['server'], port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new DemoPortInUseError(host, port) : error));
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
}

/** The chain to run on, and why the default fell back to the sandbox. */
function chooseChain(asked: DemoChainName | undefined): { chain: DemoChainName; fallback: string | undefined } {
  if (asked === 'sandbox') return { chain: 'sandbox', fallback: undefined };
  const missing = anvilMissing();
  if (!missing) return { chain: 'evm', fallback: undefined };
  if (asked === 'evm') throw new DemoChainUnavailableError(missing);
  return { chain: 'sandbox', fallback: missing };
}

/**
 * The script-tag bundles must be there: the package ships them, and in the repository `npm install`
 * builds them (its `prepare` script). A repository checkout that lost them builds them again here.
 */
function ensureBuilt() {
  if (existsSync(path.join(ROOT, 'dist', 'paylink-checkout.js')) && existsSync(path.join(ROOT, 'dist', 'paylink.js'))) return;
  if (!existsSync(path.join(ROOT, 'scripts', 'build.ts'))) throw new Error(`the script-tag bundles are missing from ${path.join(ROOT, 'dist')}: reinstall the package`);
  const out = commandOutput();
  out.print('demo_building', 'Building the script-tag bundles…');
  // At a terminal the build's own lines show; elsewhere only the demo's JSON lines are written.
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: ROOT, stdio: out.format === 'pretty' ? 'inherit' : 'ignore' });
  if (result.status !== 0) throw new Error('the build failed; run `npm run build` to see why');
}

/** A setting the demo can't start with (a short `PAYLINK_ADMIN_TOKEN`, a wrong `PAYLINK_WEBHOOK_ALLOW_PRIVATE`), with the sentence that says how to fix it. */
export class DemoConfigError extends Error {
  override name = 'DemoConfigError';
}

/** `PAYLINK_ADMIN_TOKEN` when it is set (at least 32 characters, else a `DemoConfigError`), or a new random one. */
function demoAdminToken(configured: string | undefined): string {
  try {
    return checkAdminToken(configured, 'PAYLINK_ADMIN_TOKEN') ?? randomBytes(32).toString('base64url');
  } catch (error) {
    throw new DemoConfigError((error as Error).message);
  }
}

/** True for the addresses of the loopback interface (`127.0.0.0/8`, `::1`, `localhost`). */
function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * Whether the demo's service posts webhooks to non-public addresses: as `PAYLINK_WEBHOOK_ALLOW_PRIVATE`
 * says when it is set, else only while the demo listens on a loopback address. Every visitor of the
 * demo gets an admin session, so on `0.0.0.0` or a network address anyone who reaches the demo could
 * otherwise have it post signed requests into the network it sits in; on the loopback the only visitor
 * is the developer, and the only private receiver worth reaching is on their own machine.
 */
export function demoAllowsPrivateWebhooks(listenHost: string, env: Record<string, string | undefined> = process.env): boolean {
  if (!env.PAYLINK_WEBHOOK_ALLOW_PRIVATE?.trim()) return isLoopbackHost(listenHost);
  try {
    return readAllowPrivate(env.PAYLINK_WEBHOOK_ALLOW_PRIVATE);
  } catch (error) {
    throw new DemoConfigError((error as Error).message);
  }
}

/**
 * The service in this process as the proxy's upstream: no socket and no `X-Forwarded-For` to trust,
 * the client the proxy resolved handed over as the service's `clientAddress`. An event stream is cut
 * when the proxy aborts the call (its client went away): Hono ends a stream when its body is cancelled.
 */
function inProcessUpstream(service: RunningService) {
  return createFetchUpstream(service.url, async (input, init) => {
    const request = new Request(input, init);
    const response = await service.app.fetch(request, { clientAddress: request.headers.get('x-forwarded-for') ?? undefined });
    const signal = init?.signal;
    if (!response.body || !signal) return response;
    const reader = response.body.getReader();
    signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  });
}

/** Every demo page refuses to be framed: the CSP's `frame-ancestors 'none'` and, for older browsers, `X-Frame-Options`. */
function unframeable(response: Response): Response {
  if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) return response;
  response.headers.set('x-frame-options', 'DENY');
  const csp = response.headers.get('content-security-policy');
  if (!csp) response.headers.set('content-security-policy', "frame-ancestors 'none'");
  else if (!/(^|;)\s*frame-ancestors\s/.test(csp)) response.headers.set('content-security-policy', `${csp}; frame-ancestors 'none'`);
  return response;
}

/** The local chain demo's directory: `--data-dir`, else `.paylink-data/demo-evm`. */
function evmDemoDir(options: Pick<DemoOptions, 'dataDir'>): string {
  return options.dataDir ?? path.join('.paylink-data', 'demo-evm');
}

/** Where the demo writes its API key: in its data directory (the local chain's, or the sandbox's). */
export function demoKeyFile(options: Pick<DemoOptions, 'dataDir' | 'databaseUrl'>, chain: DemoChainName): string {
  if (chain === 'evm') return path.join(evmDemoDir(options), 'demo-api-key');
  return path.join(options.databaseUrl ? '.paylink-data' : (options.dataDir ?? path.join('.paylink-data', 'demo')), 'demo-api-key');
}

/** The Content-Security-Policy of the demo pages: scripts and connections to this origin only, Trusted Types on. */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data: https:; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types lit-html";

/** What the pages say about the chain (`{{chainNote}}`). */
const CHAIN_NOTES: Record<DemoChainName, string> = {
  evm: 'on a local test chain this demo started: payments are real transfers of test tokens, made from the demo wallet (its panel is at the right of the page, or after it on a phone), never real money',
  sandbox: 'on the sandbox chain: no real funds move',
};

/** The demo wallet's script, as the demo pages load it. */
const DEMO_WALLET_SCRIPT = '<script type="module" src="/demo/assets/demo-wallet.js"></script>';

/**
 * A hosted checkout page of the service with the demo wallet's script added to its head (the page's
 * own CSP allows scripts and styles of its origin, which the demo's assets are).
 */
async function withDemoWallet(response: Response): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) return response;
  const html = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(html.replace('</head>', `${DEMO_WALLET_SCRIPT}\n</head>`), { status: response.status, headers });
}

/** What the demo's pages say about prices, in one sentence. */
function pricesNote(rates: RateSettings): string {
  if (rates.sources.length === 1 && rates.sources[0] === 'static') {
    return 'Prices come from the static table built into Paylink (demo figures, not market data); a real deployment names its market sources in PAYLINK_RATES_SOURCES.';
  }
  return `Prices come from the market: ${rates.sources.join(' and ')}${rates.sources.length > 1 ? ' (their median)' : ''}, fetched every ${rates.refreshMs / 1000} s.`;
}

/** True while process `pid` runs (on this host). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A fresh, migrated PGlite database for one run of the local chain demo (its chain starts empty, so
 * its data must too), opened in `<dir>/run-<pid>` and deleted on close. Creating a PGlite cluster
 * takes seconds (initdb), opening one a fraction of that: the first run keeps a migrated, empty
 * cluster as `<dir>/template` and later runs copy it. Runs of processes that are gone are cleared.
 */
async function openFreshDatabase(dir: string): Promise<Database> {
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(dir)) {
    const pid = /^run-(\d+)$/.exec(name)?.[1];
    if (pid && !running(Number(pid))) await rm(path.join(dir, name), { recursive: true, force: true });
  }
  const template = path.join(dir, 'template');
  if (!existsSync(path.join(template, 'PG_VERSION'))) {
    // Made aside and renamed into place, so a demo starting beside this one never copies half of it.
    const making = path.join(dir, `template-${process.pid}`);
    await rm(making, { recursive: true, force: true });
    await (await openDatabase({ dataDir: making })).close();
    await rm(template, { recursive: true, force: true });
    await rename(making, template).catch(() => rm(making, { recursive: true, force: true }));
  }
  const runDir = path.join(dir, `run-${process.pid}`);
  await rm(runDir, { recursive: true, force: true });
  await cp(template, runDir, { recursive: true });
  // A newer version's migrations apply to the copy on open.
  const db = await openDatabase({ dataDir: runDir });
  return {
    ...db,
    close: async () => {
      await db.close();
      await rm(runDir, { recursive: true, force: true });
    },
  };
}

export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  // Settings first: a refusal costs nothing started.
  const adminToken = demoAdminToken(process.env.PAYLINK_ADMIN_TOKEN);
  const allowPrivateWebhooks = demoAllowsPrivateWebhooks(options.host ?? '127.0.0.1');
  ensureBuilt();
  const { chain: chainName, fallback } = chooseChain(options.chain);
  // Everything started so far, stopped in reverse order by close() or by a failed start; the demo's
  // own server first of all, so in-flight requests drain before what they use goes.
  const closers: Array<() => Promise<void>> = [];
  let stopServer: (() => Promise<void>) | undefined;
  const closeAll = async () => {
    const server = stopServer;
    stopServer = undefined;
    await server?.();
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    // The port first: a second demo on a port in use says so at once, before seconds of chain and database.
    const host = options.host ?? '127.0.0.1';
    const connectionLimits = resolveConnectionLimits({}, process.env);
    let listener: Parameters<typeof createLimitedServer>[0] = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' });
      res.end(JSON.stringify(errorBody(503, 'starting', 'The demo is starting: try again in a few seconds')));
    };
    const { server, clientAddress } = createLimitedServer((req, res) => listener(req, res), connectionLimits);
    await listenOn(server, options.port, host);
    stopServer = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 3000).unref();
      });
    const port = (server.address() as AddressInfo).port;
    const origin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

    // On the local chain everything starts empty: the chain first (it fails fastest), then a fresh
    // database that matches it. The sandbox keeps its data directory between runs, as before.
    // Both take seconds (anvil and its contracts; PGlite's WebAssembly), so they start side by side.
    const dataDir = options.dataDir ?? path.join('.paylink-data', 'demo');
    if (chainName === 'sandbox' && !options.databaseUrl) await mkdir(dataDir, { recursive: true });
    const [chainStart, dbOpen] = await Promise.allSettled([
      chainName === 'evm' ? startDemoChains() : undefined,
      chainName === 'evm' ? openFreshDatabase(evmDemoDir(options)) : openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.databaseUrl ? undefined : dataDir }),
    ]);
    const locals: DemoChain[] = chainStart.status === 'fulfilled' ? (chainStart.value ?? []) : [];
    const local: DemoChain | undefined = locals[0];
    for (const chain of locals) closers.push(() => chain.stop());
    if (dbOpen.status === 'fulfilled') closers.push(() => dbOpen.value.close());
    if (chainStart.status === 'rejected') throw chainStart.reason;
    if (dbOpen.status === 'rejected') throw dbOpen.reason;
    const db = dbOpen.value;
    const adapter: ChainAdapter | undefined = local ? await connectEvmAdapter(locals.map((chain) => chain.config), { waitMs: 5_000, log: () => {} }) : undefined;
    if (adapter?.close) closers.push(async () => adapter.close?.());

    const keyFile = demoKeyFile(options, chainName);
    const previousKey = local ? undefined : await readFile(keyFile, 'utf8').then((text) => text.trim(), () => undefined);
    const seed = await seedDemo(db, previousKey, local ? 'Demo merchant (local chain)' : 'Demo merchant (sandbox)');
    await mkdir(path.dirname(keyFile), { recursive: true });
    await writeFile(keyFile, `${seed.apiKey}\n`, { mode: 0o600 });

    const service = await startService({
      db,
      port: 0,
      host: '127.0.0.1',
      publicUrl: process.env.PAYLINK_PUBLIC_URL ?? `${origin}/pay`,
      // Everything reaches the service in this process, with the visitor resolved here; its own port
      // believes no X-Forwarded-For (anyone on this machine could write one).
      trustProxy: false,
      webhooks: { allowPrivate: allowPrivateWebhooks },
      ...(adapter ? { chain: adapter } : {}),
      // The demo prices from the table, on purpose and saying so, unless PAYLINK_RATES_SOURCES names market sources.
      rateSettings: process.env.PAYLINK_RATES_SOURCES?.trim() ? {} : { sources: ['static'] },
    });
    // Stopped after the demo's server has drained (as `serve` does), before the database closes.
    closers.push(() => service.close());

    // The sandbox's fundraiser opens with a few gifts too (simulated: the local chain's are real transfers, below).
    if (!local && seed.created) await seedDonations(service, seed.slugs.donation);
    const wallet = local ? createDemoWallet(locals, origin) : undefined;
    // The shop's server side: it creates orders with the merchant's key, as a plugin's server does.
    const shop = createDemoShop(createPaylinkClient({ baseUrl: service.url, apiKey: seed.apiKey }), origin);
    let evm: DemoChainInfo | undefined;
    if (local) {
      // A few real payments, confirmed before the block clock starts, so the admin opens on a balance.
      const paid = await seedPayments(service, local, seed.slugs);
      await Promise.all(locals.map((chain) => chain.startBlockClock()));
      evm = {
        networks: locals.map((chain) => ({ network: chain.network, name: chain.name, chainId: chain.chainId, rpcUrl: chain.rpcUrl, pid: chain.node.pid })),
        rpcUrl: local.rpcUrl,
        chainId: local.chainId,
        pid: local.node.pid,
        tokens: {
          USDT: { address: local.tokens.USDT.address, decimals: local.tokens.USDT.decimals },
          CNGN: { address: local.tokens.CNGN.address, decimals: local.tokens.CNGN.decimals },
        },
        demoWallet: local.demoWallet.address,
        hotWallet: local.hotWallet.address,
        mnemonic: DEMO_MNEMONIC,
        confirmations: local.config.confirmations,
        blockTime: DEMO_BLOCK_TIME,
        seedPayments: paid,
      };
    }

    const sessions = createAdminSessions();
    const bearerMatches = createBearerCheck(adminToken);
    /** The visitor of a request, by the demo's own rules (its socket, and `X-Forwarded-For` only as `PAYLINK_TRUST_PROXY` says). */
    const visitorOf = (info: { incoming?: IncomingMessage } | undefined) => (info?.incoming ? clientAddressOf(info.incoming, clientAddress) : undefined);
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
      upstream: inProcessUpstream(service),
      apiKey: seed.apiKey,
      allowedOrigins,
      basePath: '/paylink',
      bundles: serveBundle,
      // Behind a reverse proxy that rewrites Host, the origin visitors see (admin changes from it are same-site).
      publicOrigin: process.env.PAYLINK_PUBLIC_ORIGIN,
      trustProxy: connectionLimits.trustProxy,
      authorize: async (request: Request) =>
        sessions.has(readCookie(request.headers.get('cookie'), SESSION_COOKIE)) || (await bearerMatches(request.headers.get('authorization'))),
    });

    const manifest = await readFile(path.join(ROOT, 'dist', 'manifest.json'), 'utf8').then(JSON.parse, () => ({}));
    // The gallery's snippets pin the versioned file with its SRI hash: the alias changes with every
    // release, and a hash on it would then refuse to load.
    const integrity: string = manifest['paylink-checkout.js']?.integrity ?? '';
    const checkoutFile: string = manifest['paylink-checkout.js']?.versioned ?? 'paylink-checkout.js';

    const page = async (name: string): Promise<string | undefined> => {
      if (!/^[a-z-]+\.html$/.test(name)) return undefined;
      const text = await readFile(path.join(PAGES, name), 'utf8').catch(() => undefined);
      return text
        ?.replaceAll('{{origin}}', origin)
        .replaceAll('{{integrity}}', integrity)
        .replaceAll('{{checkoutFile}}', checkoutFile)
        .replaceAll('{{chainNote}}', CHAIN_NOTES[chainName])
        .replaceAll('{{pricesNote}}', pricesNote(service.rates.settings))
        .replaceAll('{{store}}', seed.slugs.store)
        .replaceAll('{{donation}}', seed.slugs.donation)
        .replaceAll('{{simple}}', seed.slugs.simple);
    };

    type NodeEnv = { incoming?: IncomingMessage; outgoing?: ServerResponse };
    const handle = async (request: Request, info?: NodeEnv): Promise<Response> => unframeable(await route(request, info));
    const route = async (request: Request, info?: NodeEnv): Promise<Response> => {
      const url = new URL(request.url);
      const { pathname } = url;
      if (pathname !== '/healthz' && !hosts.allows(request.headers.get('host'))) {
        const message = `This demo answers for ${hosts.names.join(', ')} only (set PAYLINK_ALLOWED_HOSTS to add a host)`;
        return Response.json(errorBody(403, 'host_not_allowed', message), { status: 403, headers: { 'cache-control': 'no-store' } });
      }
      if (pathname === '/paylink' || pathname.startsWith('/paylink/')) return proxy(request, info);
      // A hosted page carries the demo wallet too on the local chain, so a link shared alone can be paid.
      // In process, with the visitor as resolved here, so the service's per-client limits count the visitor.
      if (pathname.startsWith('/pay/') && wallet) return withDemoWallet(await service.app.fetch(request, { ...info, clientAddress: visitorOf(info) }));
      if (pathname.startsWith('/v1/') || pathname.startsWith('/pay/') || pathname.startsWith('/dist/') || pathname === '/healthz' || pathname === '/readyz') {
        return service.app.fetch(request, { ...info, clientAddress: visitorOf(info) });
      }
      if (pathname.startsWith('/shop/')) return shop.handle(request, visitorOf(info) ?? 'unknown');
      if (pathname === '/demo/wallet' || pathname.startsWith('/demo/wallet/')) {
        // On the sandbox there is no wallet: the pages' script finds nothing and stays out of sight.
        if (!wallet) return new Response(JSON.stringify({ error: { code: 'not_found', message: 'the demo wallet runs only on the local chain' } }), { status: 404, headers: { 'content-type': 'application/json' } });
        return wallet.handle(request, visitorOf(info) ?? 'unknown');
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
      const headers = new Headers({ 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP, 'referrer-policy': 'no-referrer' });
      if (name === 'admin.html' && !sessions.has(readCookie(request.headers.get('cookie'), SESSION_COOKIE))) {
        headers.append('set-cookie', sessions.issue(url.protocol === 'https:' || publicOriginIsHttps, visitorOf(info) ?? 'unknown'));
      }
      return new Response(html, { headers });
    };
    // An HTTP/1 server: its env is always `{ incoming: IncomingMessage, outgoing: ServerResponse }`.
    listener = getRequestListener((request, env) => handle(request, env as NodeEnv));

    let closing: Promise<void> | undefined;
    return {
      url: origin,
      apiKey: seed.apiKey,
      adminToken,
      slugs: seed.slugs,
      chain: chainName,
      fallback,
      evm,
      rates: service.rates.settings,
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
}

/** The lines `paylink demo` prints on start. */
export function describeDemo(demo: RunningDemo, options: Pick<DemoOptions, 'dataDir' | 'databaseUrl'>): string {
  const { url, slugs, evm } = demo;
  const chain = evm
    ? `local EVM chain ${evm.chainId}: real transactions of test tokens, never real money`
    : 'sandbox chain: no real funds move';
  const lines = [
    '',
    `Paylink demo running at ${url}  (${chain})`,
    '',
    `  Embed gallery     ${url}/`,
    `  Store (cart)      ${url}/store.html`,
    `  Shop (orders)     ${url}/shop.html   (its server creates an order with the API key; the page pays it)`,
    `  Donation          ${url}/donate.html`,
    `  Dark, French      ${url}/dark.html`,
    `  Merchant admin    ${url}/admin.html   (signed in by a demo session cookie)`,
    `  Hosted checkout   ${url}/pay/${slugs.store}`,
    `  Proxy             ${url}/paylink   (its routes; admin bearer token: ${demo.adminToken})`,
    `  Service API       ${url}/v1/openapi.json   (the API's OpenAPI document; API key in ${demoKeyFile(options, demo.chain)})`,
    '',
    describeRateSettings(demo.rates),
    '',
  ];
  if (evm) {
    const blocks = `a block every ${evm.blockTime} s, ${evm.confirmations} confirmations before a payment counts`;
    lines.push(
      `Local chain (anvil, pid ${evm.pid}, stopped with the demo)`,
      `  RPC URL           ${evm.rpcUrl}   (chain id ${evm.chainId}; ${blocks})`,
      ...evm.networks.slice(1).map((n) => `  ${n.name.padEnd(18)}${n.rpcUrl}   (chain id ${n.chainId}, network id "${n.network}", anvil pid ${n.pid}; the same tokens at the same addresses)`),
      `  USDT (test)       ${evm.tokens.USDT.address}   (${evm.tokens.USDT.decimals} decimals, as on BNB Smart Chain)`,
      `  cNGN (test)       ${evm.tokens.CNGN.address}   (${evm.tokens.CNGN.decimals} decimals)`,
      `  Demo wallet       ${evm.demoWallet}   (pays in the demo pages; holds test USDT and cNGN)`,
      `  Hot wallet        ${evm.hotWallet}   (sends the merchant's withdrawals)`,
      `  Seed              ${evm.seedPayments.length} sessions paid by real transfers at start`,
      `  Mnemonic          "${evm.mnemonic}"`,
      `                    PUBLIC test mnemonic (anvil's): every demo key comes from it. Never send real funds to these addresses.`,
      '',
    );
  }
  return lines.join('\n');
}

/**
 * Sends this process SIGTERM once its parent is gone. `npm start` runs the demo as npm → sh → node:
 * a SIGTERM to npm ends npm and the shell, never this process, which would keep its port and its
 * anvil node. A parent that changes (the orphan is adopted by init or a subreaper) means whoever
 * started the demo has stopped, so the demo stops the way SIGTERM stops it. Windows keeps the first
 * parent id, so there it never fires. `runDemo` watches only under npm (`npm start`, `npx`): a demo
 * started on its own, say with nohup, outlives the shell that started it, as any program does.
 */
export function stopWhenOrphaned(intervalMs = 250): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export async function runDemo(options: DemoOptions, onSignal: (close: () => Promise<void>) => void): Promise<void> {
  // A stop asked for while the demo starts (seconds: anvil, contracts, database) is kept for when it
  // has started, so it then stops everything it started, anvil included, instead of dying half-way.
  let stopAsked: NodeJS.Signals | undefined;
  const early = (signal: NodeJS.Signals) => (stopAsked ??= signal);
  process.on('SIGTERM', early);
  process.on('SIGINT', early);
  if (process.env.npm_lifecycle_event) stopWhenOrphaned();
  let demo: RunningDemo;
  try {
    demo = await startDemo(options);
  } catch (error) {
    if (!(error instanceof DemoChainUnavailableError || error instanceof DemoPortInUseError || error instanceof DemoConfigError)) throw error;
    commandOutput().say('error', 'demo_refused', `paylink: ${error.message}`);
    process.exit(1);
  } finally {
    process.off('SIGTERM', early);
    process.off('SIGINT', early);
  }
  const out = commandOutput();
  if (demo.fallback) {
    out.print('demo_sandbox_fallback', `paylink: ${demo.fallback}, so the demo runs on the sandbox chain (no real funds move); install the dev dependencies for a local EVM chain, or pass --chain sandbox.`);
  }
  if (demo.chain === 'evm' && options.databaseUrl) {
    out.print('demo_database_url_ignored', 'paylink: the local chain demo does not use --database-url (DATABASE_URL): its chain starts empty each run, and so does its database. Pass --chain sandbox to keep the demo in PostgreSQL.');
  }
  // At a terminal, the banner as a person reads it; elsewhere one JSON line, the banner in its `detail`.
  const banner = describeDemo(demo, options);
  out.print('demo_listening', out.format === 'pretty' ? banner : banner.split('\n').find((line) => line.startsWith('Paylink demo running'))!, {
    url: demo.url,
    chain: demo.chain,
    rpcUrl: demo.evm?.rpcUrl,
    detail: banner.trim(),
  });
  onSignal(demo.close);
  if (stopAsked) process.kill(process.pid, stopAsked);
}
