/**
 * Runs the service on a port: opens the database (migrating it), builds the app, starts the
 * background work (the payout worker, the webhook delivery worker, the session expiry sweep, the
 * retention sweep, the rate refresh and, on a real chain, the chain scanner and reconciliation) and listens, on a Node server with the limits
 * against abuse (`server/limits/`: header and body timeouts, connections per client and in total; the app
 * adds event-stream caps and per-client rate limits). Every limit is an option here and an environment
 * variable (`PAYLINK_*`, see `server/limits/options.ts`); options win. `/metrics` is served when
 * `PAYLINK_METRICS_TOKEN` or `PAYLINK_METRICS_PORT` says where (`server/metrics/`).
 *
 * `close()` (SIGTERM) stops the instance without failing a request, for a rolling restart behind a
 * load balancer:
 * 1. Drain: `/readyz` answers 503 `draining` and every answer closes its connection, while the
 *    instance keeps serving for `drainDelayMs` (`PAYLINK_DRAIN_DELAY_MS`; default 5 s once something
 *    has asked `/readyz`, a load balancer's check, else none): time for the balancer to see it and send
 *    nothing more. Closing the listener at once would refuse the requests already on their way.
 * 2. Stop: the listener closes, idle connections close, the event streams are told to reconnect
 *    (`retry:`, then closed: an `EventSource` comes back through the balancer to another instance).
 * 3. Finish: requests in flight are answered (cut after `SHUTDOWN_CUT_MS`), and the background work
 *    stops: the payout round in progress finishes and records what it did, webhook attempts in flight
 *    are recorded, which releases their claims, so another instance takes the rest at once.
 * 4. The database closes.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createLimitedServer, LISTEN_BACKLOG } from '../limits/node-server.js';
import {
  LIMIT_DEFAULTS,
  resolveConnectionLimits,
  resolvePublicWriteLimits,
  resolveStreamLimits,
  LimitConfigError,
  type ConnectionLimitOptions,
  type Env,
  type PublicWriteLimitOptions,
  type StreamLimitOptions,
} from '../limits/options.js';
import { defaultLogger, type Logger } from '../log.js';
import { createSandboxChain } from '../chain/sandbox/index.js';
import { resolveMetricsSettings, startMetricsServer, type MetricsOptions, type MetricsServer } from '../metrics/endpoint.js';
import { createServiceMetrics } from '../metrics/service.js';
import type { ChainAdapter } from '../chain/types.js';
import { openDatabase, type Database } from '../db/index.js';
import { createApp } from './app.js';
import { createSessionEvents, type SessionEvents } from './events/index.js';
import { createPayoutsAhead, startPayoutWorker, type PayoutWorker, type PayoutWorkerOptions } from './payouts/index.js';
import { readRetentionDays, startRetentionSweep } from './retention.js';
import { RateBook, resolveRateSettings, type RateOptions } from './rates/index.js';
import { startReconciler, type Reconciler, type ReconcilerOptions } from './reconciliation/index.js';
import { startExpirySweep } from './sessions/index.js';
import { startChainScanner, verifyChainIdentity, type ChainScanner, type ChainScannerOptions } from './money-in/index.js';
import { resolveWebhookSettings, startWebhookWorker, type WebhookSettings, type WebhookWorker, type WebhookWorkerOptions } from './webhooks/index.js';

/** Options of `startService`; the limits' defaults and environment variables are in `server/limits/options.ts`. */
export interface ServiceOptions extends ConnectionLimitOptions, StreamLimitOptions, PublicWriteLimitOptions {
  port?: number;
  host?: string;
  /** PGlite data directory (default in memory); ignored when `databaseUrl` is set. */
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
  /** The spec's `{paylink_url}`; defaults to `http://<host>:<port>/pay`. */
  publicUrl?: string | undefined;
  chain?: ChainAdapter;
  now?: () => Date;
  /** An already open database to use instead of opening one. */
  db?: Database;
  /** Overrides of the static table: units per USD, e.g. `{NGN: '1600'}` (rates/table.ts; env `PAYLINK_RATES` too). */
  rates?: Record<string, string | number>;
  /**
   * Where prices come from, over the environment's `PAYLINK_RATES_*` (rates/settings.ts): sources, their
   * URLs, refresh, max age, pegs. Without sources the static table quotes (on a real chain a warning says so).
   */
  rateSettings?: RateOptions;
  /** Run the payout worker in this instance (default true). */
  payoutWorker?: boolean;
  /** Payout worker tuning; tests use a short `pollIntervalMs`. */
  payouts?: PayoutWorkerOptions;
  /** Run the chain scanner in this instance, on a chain that has one (default true); tuning for tests. */
  scanner?: boolean | ChainScannerOptions;
  /**
   * Reconcile the deposit addresses with the chain in this instance, on a chain that has them (default:
   * where the scanner runs; each network every `PAYLINK_EVM_RECONCILE_S`, one instance at a time); tuning for tests.
   */
  reconciler?: boolean | ReconcilerOptions;
  /** How often the session expiry sweep runs, in ms (default 30 s). */
  expirySweepMs?: number;
  /** SSE heartbeat interval, in ms (default 15 s). */
  sseHeartbeatMs?: number;
  /** Where log lines go (default stderr; `server/log.ts`). */
  logger?: Logger;
  /** Where `PAYLINK_*` settings are read from (default `process.env`). */
  env?: Env;
  /** Run the webhook delivery worker in this instance (default true). */
  webhookWorker?: boolean;
  /**
   * Webhook settings over the environment's (`PAYLINK_WEBHOOK_RETRY_BASE_MS`, `PAYLINK_WEBHOOK_ALLOW_PRIVATE`):
   * tests shorten the retry base and the lease, and inject a DNS resolver.
   */
  webhooks?: Partial<WebhookSettings> & WebhookWorkerOptions;
  /** Days a never-paid session is kept after it expired (default `PAYLINK_SESSION_RETENTION_DAYS`, else 30). */
  retentionDays?: number;
  /** How often the retention sweep runs, in ms (default 1 hour). */
  retentionSweepMs?: number;
  /**
   * `/metrics` over `PAYLINK_METRICS_TOKEN` and `PAYLINK_METRICS_PORT` (`false`: off whatever the
   * environment says); `cacheMs`: how long one read of the database serves scrapes (default 5 s).
   */
  metrics?: (MetricsOptions & { cacheMs?: number }) | false;
  /**
   * How long `close()` keeps serving, `/readyz` answering 503, before it stops accepting, in ms
   * (`PAYLINK_DRAIN_DELAY_MS`). Default: 5 000 once `/readyz` has been asked, else 0.
   */
  drainDelayMs?: number;
  /** A direct connection for LISTEN when `databaseUrl` goes through a pooler in transaction mode (`PAYLINK_DATABASE_LISTEN_URL`). */
  databaseListenUrl?: string | undefined;
}

/** The drain when a load balancer has been checking `/readyz` and no delay was set. */
export const DEFAULT_DRAIN_DELAY_MS = 5_000;
/** How long requests in flight may take to finish once the listener is closed, before their connections are cut. */
export const SHUTDOWN_CUT_MS = 10_000;
/**
 * After how long a withdrawal claimed by an instance that has gone (killed, its host lost) is claimed
 * again: short, so payouts go on within half a minute. A claim that outlives it while its instance is
 * still at work is safe: the payouts are fenced by the claim's attempt and keyed by withdrawal, so
 * the second claim never pays twice (`payouts/worker.ts`).
 */
export const PAYOUT_LEASE_MS = 20_000;

/** `PAYLINK_DRAIN_DELAY_MS`: a whole number of ms, or undefined when unset. */
function drainDelayFromEnv(env: Env): number | undefined {
  const text = env.PAYLINK_DRAIN_DELAY_MS?.trim();
  if (!text) return undefined;
  if (!/^\d+$/.test(text)) throw new LimitConfigError(`PAYLINK_DRAIN_DELAY_MS must be a whole number of ms (0 for none); got ${text}`);
  return Number(text);
}

export interface RunningService {
  url: string;
  port: number;
  db: Database;
  server: Server;
  app: ReturnType<typeof createApp>;
  /** This instance's payout worker (absent with `payoutWorker: false`). */
  payoutWorker: PayoutWorker | undefined;
  /** This instance's chain scanner (real chains; absent on the sandbox or with `scanner: false`). */
  scanner: ChainScanner | undefined;
  /** This instance's webhook delivery worker (absent with `webhookWorker: false`). */
  webhookWorker: WebhookWorker | undefined;
  /** This instance's reconciliation (real chains; absent on the sandbox or with `reconciler: false`). */
  reconciler: Reconciler | undefined;
  /** This instance's fan-out of session changes to its event streams (its `reads` count the database reads it made). */
  sessionEvents: SessionEvents;
  /** This instance's rates (in memory, refreshed in the background). */
  rates: RateBook;
  /** Connections open now (refused ones excluded). */
  readonly openConnections: number;
  /** The loopback listener of `/metrics` (`PAYLINK_METRICS_PORT`), when there is one. */
  metricsServer: MetricsServer | undefined;
  /** True once `close()` was called: `/readyz` answers 503 `draining`. */
  readonly draining: boolean;
  /** Drains, stops and closes (see the module comment); resolves once the database is closed. */
  close(): Promise<void>;
}

/** This package's version (`paylink_build_info`), read once from its package.json. */
let version: string | undefined;
function packageVersion(): string {
  if (version === undefined) {
    try {
      const file = fileURLToPath(new URL('../../../package.json', import.meta.url));
      version = String((JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version ?? 'unknown');
    } catch {
      version = 'unknown';
    }
  }
  return version;
}

export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  // A malformed rate setting, limit or setting fails here, before anything is opened.
  const env = options.env ?? process.env;
  const chain = options.chain ?? createSandboxChain();
  // Where money is real, a price needs two sources that agree unless the operator says otherwise.
  const rateSettings = resolveRateSettings({ ...options.rateSettings, overrides: options.rates }, env, { realMoney: !chain.sandbox });
  const connectionLimits = resolveConnectionLimits(options, env);
  const limits = { ...resolveStreamLimits(options, env), ...resolvePublicWriteLimits(options, env) };
  const log = options.logger ?? defaultLogger;
  if (!rateSettings.explicit && !chain.sandbox) {
    log.warn('rates_static_implied', 'a real chain quotes from the static table (fixed figures, not market data): set PAYLINK_RATES_SOURCES');
  }
  const now = options.now ?? (() => new Date());
  const { pollIntervalMs: webhookPollMs, batchSize: webhookBatch, ...webhookOverrides } = options.webhooks ?? {};
  const webhooks = resolveWebhookSettings(webhookOverrides, env);
  const retentionDays = options.retentionDays ?? readRetentionDays(env.PAYLINK_SESSION_RETENTION_DAYS);
  const metricsSettings = resolveMetricsSettings(options.metrics, env);
  const drainDelaySetting = options.drainDelayMs ?? drainDelayFromEnv(env);
  const listenUrl = options.databaseListenUrl ?? (env.PAYLINK_DATABASE_LISTEN_URL?.trim() || undefined);
  const db = options.db ?? (await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir, listenUrl }));
  // Before anything reads or sends on a network: the node must serve the chain this database knows.
  try {
    await verifyChainIdentity({ db, chain, now, logger: log });
  } catch (error) {
    if (!options.db) await db.close();
    throw error;
  }
  // How changes reach this instance: LISTEN, or polling behind a pooler in transaction mode. Said once, at start.
  try {
    const mode = await db.listenMode?.();
    if (mode?.notifications === 'poll') {
      log.warn(
        'database_listen_polling',
        `LISTEN does not work through this DATABASE_URL (a pooler in transaction mode?): session events, link changes, new withdrawals and webhooks are polled every ${mode.intervalMs / 1000} s instead. Set PAYLINK_DATABASE_LISTEN_URL to a direct connection to hear them at once`,
      );
    } else if (mode) {
      log.info(
        'database_listen',
        mode.via === 'listen-url' ? 'changes are heard through LISTEN on PAYLINK_DATABASE_LISTEN_URL' : 'changes are heard through LISTEN on DATABASE_URL',
      );
    }
  } catch (error) {
    if (!options.db) await db.close();
    throw error;
  }
  // The last quoted rates live in the database, so that every instance agrees on what a move is.
  const rates = new RateBook(rateSettings, { assets: chain.networks.flatMap((network) => network.assets), now, log, db });
  const host = options.host ?? '127.0.0.1';
  let listener: Parameters<typeof createLimitedServer>[0] = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  let draining = false;
  let readinessAsked = false;
  const limited = createLimitedServer(
    (req, res) => {
      // While draining, every answer closes its connection: a client (or the balancer) opens its next one elsewhere.
      if (draining) res.setHeader('connection', 'close');
      else if (!readinessAsked && req.url === '/readyz') readinessAsked = true;
      listener(req, res);
    },
    connectionLimits,
    log,
  );
  const server = limited.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const publicUrl = (options.publicUrl ?? process.env.PAYLINK_PUBLIC_URL ?? `${origin}/pay`).replace(/\/+$/, '');
  // The first rates before the first customer (each source bounded by its timeout); then in the background.
  await rates.refresh();
  const stopRates = rates.start();
  const sseHeartbeatMs = options.sseHeartbeatMs ?? LIMIT_DEFAULTS.sseHeartbeatMs;
  const sessionEvents = createSessionEvents(db, { heartbeatMs: sseHeartbeatMs });
  // The intake prepares payouts ahead only for a worker of this instance to pick up.
  const ahead = options.payoutWorker === false ? undefined : createPayoutsAhead({ db, chain });
  const worker =
    options.payoutWorker === false ? undefined : startPayoutWorker({ db, chain, now, log, ahead }, { leaseMs: PAYOUT_LEASE_MS, ...options.payouts });
  const scanner =
    chain.kind === 'real' && options.scanner !== false
      ? startChainScanner({ db, chain, now, logger: log }, typeof options.scanner === 'object' ? options.scanner : {})
      : undefined;
  const reconcile = options.reconciler ?? options.scanner !== false;
  const reconciler =
    chain.kind === 'real' && reconcile !== false ? startReconciler({ db, chain, now, logger: log }, typeof reconcile === 'object' ? reconcile : {}) : undefined;
  const stopSweep = startExpirySweep({ db, now, log, chain }, options.expirySweepMs ?? 30_000);
  const webhookWorker =
    options.webhookWorker === false ? undefined : startWebhookWorker({ db, now, webhooks, log }, { pollIntervalMs: webhookPollMs, batchSize: webhookBatch });
  const stopRetention = startRetentionSweep({ db, now, log }, retentionDays, options.retentionSweepMs ?? 60 * 60 * 1000);
  const metrics =
    metricsSettings &&
    createServiceMetrics({
      db,
      chain,
      now,
      rates,
      openConnections: () => limited.openConnections,
      cacheMs: options.metrics ? options.metrics.cacheMs : undefined,
      version: packageVersion(),
    });
  let metricsServer: MetricsServer | undefined;
  if (metrics && metricsSettings.port !== undefined) {
    metricsServer = await startMetricsServer(metricsSettings.port, metrics.render, log);
  }
  const app = createApp({
    metrics: metrics && { middleware: metrics.middleware, render: metrics.render, token: metricsSettings.token },
    draining: () => draining,
    db,
    chain,
    publicUrl,
    now,
    rates,
    sessionEvents,
    onWithdrawalCreated: () => worker?.kick(),
    anticipatePayouts: (requests) => ahead?.anticipate(requests),
    sseHeartbeatMs,
    log,
    clientAddress: limited.clientAddress,
    limits,
    webhooks,
  });
  // An HTTP/1.0 request may come without a Host (HAProxy's health checks do, by default): it is answered
  // as one to this host rather than refused 400, so a load balancer's check of /readyz works as it is.
  listener = getRequestListener(app.fetch, { hostname: 'localhost' });

  let closing: Promise<void> | undefined;
  const drainDelayMs = () => drainDelaySetting ?? (readinessAsked ? DEFAULT_DRAIN_DELAY_MS : 0);
  return {
    url: origin,
    port,
    db,
    server,
    app,
    payoutWorker: worker,
    scanner,
    webhookWorker,
    reconciler,
    sessionEvents,
    rates,
    get openConnections() {
      return limited.openConnections;
    },
    metricsServer,
    get draining() {
      return draining;
    },
    close: () =>
      (closing ??= (async () => {
        // 1. Drain: still serving, not ready, each answer closing its connection.
        draining = true;
        const delay = drainDelayMs();
        log.info('service_draining', `stopping: not ready any more${delay ? `, serving ${delay / 1000} s more while the load balancer notices` : ''}`, {
          drainDelayMs: delay,
        });
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        // 2. Stop accepting; the event streams are told to reconnect (elsewhere) and closed.
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_CUT_MS);
        cut.unref();
        // 3. Requests in flight finish while the background work does: the payout round in progress
        // records what it did, and webhook attempts in flight are recorded (their claims released).
        await Promise.all([
          sessionEvents.close(),
          worker?.stop(),
          webhookWorker?.stop(),
          scanner?.stop(),
          reconciler?.stop(),
          stopSweep(),
          stopRetention(),
          stopRates(),
        ]);
        await serverClosed;
        clearTimeout(cut);
        await metricsServer?.close();
        // 4. The database, last: nothing of this instance uses it any more.
        if (!options.db) await db.close();
        log.info('service_stopped', 'stopped: every request answered, every claim released, the database closed');
      })()),
  };
}
