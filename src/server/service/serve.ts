/**
 * Runs the service on a port: opens the database (migrating it), builds the app, starts the
 * background work (the payout worker, the webhook delivery worker, the session expiry sweep, the
 * retention sweep, the rate refresh and, on a real chain, the chain scanner and reconciliation) and listens, on a Node server with the limits
 * against abuse (`server/limits/`: header and body timeouts, connections per client and in total; the app
 * adds event-stream caps and per-client rate limits). Every limit is an option here and an environment
 * variable (`PAYLINK_*`, see `server/limits/options.ts`); options win.
 * `close()` stops the background work (payouts in flight finish first), ends the SSE streams,
 * stops accepting, drains in-flight requests, then closes the database.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createLimitedServer, LISTEN_BACKLOG } from '../limits/node-server.js';
import {
  LIMIT_DEFAULTS,
  resolveConnectionLimits,
  resolvePublicWriteLimits,
  resolveStreamLimits,
  type ConnectionLimitOptions,
  type Env,
  type PublicWriteLimitOptions,
  type StreamLimitOptions,
} from '../limits/options.js';
import { defaultLogger, type Logger } from '../log.js';
import { createSandboxChain } from '../chain/sandbox.js';
import type { ChainAdapter } from '../chain/types.js';
import { openDatabase, type Database } from '../db/index.js';
import { createApp } from './app.js';
import { createSessionEvents, type SessionEvents } from './events/index.js';
import { createPayoutsAhead, startPayoutWorker, type PayoutWorker, type PayoutWorkerOptions } from './payouts/index.js';
import { readRetentionDays, startRetentionSweep } from './retention.js';
import { RateBook, resolveRateSettings, type RateOptions } from './rates/index.js';
import { startReconciler, type Reconciler, type ReconcilerOptions } from './reconciliation/index.js';
import { startChainScanner, startExpirySweep, verifyChainIdentity, type ChainScanner, type ChainScannerOptions } from './sessions/index.js';
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
  close(): Promise<void>;
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
  const db = options.db ?? (await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir }));
  // Before anything reads or sends on a network: the node must serve the chain this database knows.
  try {
    await verifyChainIdentity({ db, chain, now, logger: log });
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
  const limited = createLimitedServer((req, res) => listener(req, res), connectionLimits, log);
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
  const worker = options.payoutWorker === false ? undefined : startPayoutWorker({ db, chain, now, log, ahead }, options.payouts);
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
  const stopRetention = startRetentionSweep({ db, now }, retentionDays, options.retentionSweepMs ?? 60 * 60 * 1000);
  const app = createApp({
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
  listener = getRequestListener(app.fetch);

  let closing: Promise<void> | undefined;
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
    close: () =>
      (closing ??= (async () => {
        // Background work first (a payout in flight is finished and recorded), and the SSE
        // streams are ended so they do not hold the drain.
        await Promise.all([worker?.stop(), webhookWorker?.stop(), scanner?.stop(), reconciler?.stop(), stopSweep(), stopRetention(), stopRates(), sessionEvents.close()]);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // Long-lived streams (SSE) would hold the drain forever; give requests 5 s, then cut.
          setTimeout(() => server.closeAllConnections(), 5000).unref();
        });
        if (!options.db) await db.close();
      })()),
  };
}
