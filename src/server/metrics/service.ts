/**
 * The service's metrics (Prometheus's text format, through `prom-client`): what `GET /metrics` answers.
 *
 * Three sources, each read the cheapest way:
 * - **Requests**, counted as they are answered (the middleware): `paylink_http_requests_total` and
 *   `paylink_http_request_duration_seconds` by route template (`/v1/checkout/:slug`; `unmatched` for a
 *   path no route has), method and status. A label never holds a raw path, an id, an address or an amount.
 * - **The database**, read at scrape time in ONE statement of small aggregates (sessions by status,
 *   payments credited, payouts by status and the oldest waiting, webhook deliveries waiting and failed,
 *   the networks' alerts), kept `cacheMs` (default 5 s) so that frequent scrapes, or several Prometheus
 *   servers, cost one statement per period, and never two at once. These series are the database's,
 *   so every instance reports the same values: aggregate them with `max`, not `sum`.
 * - **This process** (./runtime.ts): the scanner's lag and node errors, the hot wallet's balances as
 *   last read, the last reconciliation's mismatches, webhook attempts, the rates' ages (from the rate
 *   book), the connections it holds. Per instance: `sum` or `max` them as their meaning asks.
 *
 * The Node process's own (CPU, memory, event loop delay, garbage collection) come from prom-client's
 * defaults, under their usual names (`process_*`, `nodejs_*`).
 */
import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ChainAdapter } from '../chain/types.js';
import type { Database } from '../db/index.js';
import { RequestMetrics } from './requests.js';
import { runtimeMetrics, type RuntimeMetrics } from './runtime.js';

/** What the service's metrics read. */
export interface ServiceMetricsDeps {
  db: Database;
  chain: ChainAdapter;
  /** The service clock (ages are measured on it). */
  now: () => Date;
  /** The rate book: each priced pair's age (a pair without a quote is stale, as `/readyz` says). */
  rates?: { pair(assetId: string, currency: string, now?: Date): { at: Date } | undefined; settings: { maxAgeMs: number; currencies: readonly string[] } } | undefined;
  /** Connections the instance holds open now. */
  openConnections?: (() => number) | undefined;
  /** The process's runtime values (default: the process's own). */
  runtime?: RuntimeMetrics | undefined;
  /** How long one read of the database serves scrapes, in ms (default 5000). */
  cacheMs?: number | undefined;
  /** The package version, for `paylink_build_info`. */
  version?: string | undefined;
}

/** The service's metrics: the middleware that counts requests, and the scrape's text. */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** Counts every request by route template, method and status, and times it. Mount it first. */
  readonly middleware: MiddlewareHandler;
  /** The exposition: the body of `GET /metrics` and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The label of a method: itself when it is a standard one, `other` for anything a client makes up. */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}

/** Session and payout statuses always reported (0 when none), so an alert sees a series from the start. */
const SESSION_STATUSES = ['awaiting_payment', 'confirming', 'underpaid', 'paid', 'overpaid', 'expired', 'reversed'];
const PAYOUT_STATUSES = ['pending', 'processing', 'success', 'failed'];
const ALERT_CODES = ['reconciliation_mismatch', 'hot_wallet_low', 'chain_finality_violated'];

/** One read of the database: every aggregate the scrape reports. */
interface DatabaseSnapshot {
  sessions: Array<{ status: string; n: number }>;
  payments: Array<{ network: string; asset: string; n: number; amount: string }>;
  payouts: Array<{ network: string; status: string; n: number }>;
  waiting: Array<{ network: string; oldest: string }>;
  stalled: Array<{ network: string; reason: string; n: number }>;
  webhooks: { waiting: number; retrying: number; failed: number; oldest: string | null };
  alerts: Array<{ network: string; code: string }>;
}

/**
 * Sessions by status and payouts by status count their tables; the rest reads partial indexes
 * (withdrawals_queue, webhook_deliveries_due, webhook_deliveries_failed) or tiny tables. Amounts and
 * times come back as text: exact, and the same on PGlite and node-postgres.
 */
const SNAPSHOT_SQL = `SELECT
  (SELECT coalesce(json_agg(json_build_object('status', status, 'n', n)), '[]') FROM
    (SELECT status, count(*)::int AS n FROM checkout_sessions GROUP BY status) s) AS sessions,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'asset', asset_id, 'n', n, 'amount', amount)), '[]') FROM
    (SELECT blockchain_id, asset_id, count(*)::int AS n, sum(amount)::text AS amount FROM chain_transfers WHERE reversed_at IS NULL GROUP BY 1, 2) p) AS payments,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'status', status, 'n', n)), '[]') FROM
    (SELECT blockchain_id, status, count(*)::int AS n FROM withdrawals GROUP BY 1, 2) w) AS payouts,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'oldest', oldest)), '[]') FROM
    (SELECT blockchain_id, min(created_at)::text AS oldest FROM withdrawals WHERE status IN ('pending', 'processing') GROUP BY 1) q) AS waiting,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'reason', stalled_reason, 'n', n)), '[]') FROM
    (SELECT blockchain_id, stalled_reason, count(*)::int AS n FROM withdrawals
      WHERE status IN ('pending', 'processing') AND stalled_reason IS NOT NULL GROUP BY 1, 2) r) AS stalled,
  (SELECT json_build_object(
     'waiting', count(*) FILTER (WHERE e.is_active)::int,
     'retrying', count(*) FILTER (WHERE e.is_active AND d.attempt_count > 0)::int,
     'oldest', min(d.created_at) FILTER (WHERE e.is_active)::text,
     'failed', (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'failed'))
   FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.status = 'pending') AS webhooks,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'code', code)), '[]') FROM network_alerts) AS alerts`;

/** `value` parsed when a driver hands JSON back as text. */
function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Seconds from a timestamp the database printed to `now` (0 when there is none). */
function ageSeconds(timestamp: string | null | undefined, now: Date): number {
  if (!timestamp) return 0;
  const at = Date.parse(timestamp.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isFinite(at) ? Math.max(0, (now.getTime() - at) / 1000) : 0;
}

export function createServiceMetrics(deps: ServiceMetricsDeps): ServiceMetrics {
  const registry = new Registry();
  const runtime = deps.runtime ?? runtimeMetrics;
  const cacheMs = deps.cacheMs ?? 5000;
  const networks = deps.chain.networks;
  collectNodeMetrics(registry);

  // ── Requests ──────────────────────────────────────────────────────────────────────────────────
  const requests = new RequestMetrics();
  requests.register(registry, 'the service', 'to its headers, for an event stream');
  const middleware: MiddlewareHandler = async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      requests.observe(routeTemplate(matchedRoutes(c)), methodLabel(c.req.method), c.res.status, (performance.now() - started) / 1000);
    }
  };

  // ── The database ──────────────────────────────────────────────────────────────────────────────
  let cached: { at: number; value: Promise<DatabaseSnapshot | undefined> } | undefined;
  const snapshot = (): Promise<DatabaseSnapshot | undefined> => {
    const at = performance.now();
    if (cached && at - cached.at < cacheMs) return cached.value;
    const value = deps.db.query<Record<string, unknown>>(SNAPSHOT_SQL).then(
      ({ rows }) => {
        const row = rows[0]!;
        return {
          sessions: json(row.sessions),
          payments: json(row.payments),
          payouts: json(row.payouts),
          waiting: json(row.waiting),
          stalled: json(row.stalled),
          webhooks: json(row.webhooks),
          alerts: json(row.alerts),
        } satisfies DatabaseSnapshot;
      },
      // The database did not answer: its series are left out of this scrape and `paylink_database_up` says why.
      () => undefined,
    );
    cached = { at, value };
    return value;
  };

  new Gauge({
    name: 'paylink_database_up',
    help: '1 when the last read of the database for these metrics succeeded, else 0 (its series are then missing).',
    registers: [registry],
    async collect() {
      this.set((await snapshot()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'paylink_checkout_sessions',
    help: 'Checkout sessions by status (the database\'s: the same on every instance).',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      const data = await snapshot();
      if (!data) return;
      for (const status of SESSION_STATUSES) this.set({ status }, 0);
      for (const { status, n } of data.sessions) this.set({ status }, n);
    },
  });
  new Counter({
    name: 'paylink_payments_credited_total',
    help: 'Transfers credited to a balance (payments and late payments, reorged ones excepted), by asset and network.',
    labelNames: ['asset', 'network'],
    registers: [registry],
    async collect() {
      this.reset();
      const data = await snapshot();
      if (!data) return;
      for (const network of networks) for (const asset of network.assets) this.inc({ asset, network: network.id }, 0);
      for (const { network, asset, n } of data.payments) this.inc({ asset, network }, n);
    },
  });
  new Counter({
    name: 'paylink_payments_credited_amount_total',
    help: 'What the credited transfers brought, in units of their asset (USDT, CNGN), by asset and network.',
    labelNames: ['asset', 'network'],
    registers: [registry],
    async collect() {
      this.reset();
      const data = await snapshot();
      if (!data) return;
      for (const network of networks) for (const asset of network.assets) this.inc({ asset, network: network.id }, 0);
      for (const { network, asset, amount } of data.payments) this.inc({ asset, network }, Number(amount));
    },
  });
  new Gauge({
    name: 'paylink_payouts',
    help: 'Withdrawals by network and status (pending and processing wait for their payout).',
    labelNames: ['network', 'status'],
    registers: [registry],
    async collect() {
      this.reset();
      const data = await snapshot();
      if (!data) return;
      for (const network of networks) for (const status of PAYOUT_STATUSES) this.set({ network: network.id, status }, 0);
      for (const { network, status, n } of data.payouts) this.set({ network, status }, n);
    },
  });
  new Gauge({
    name: 'paylink_payouts_oldest_waiting_seconds',
    help: 'Age of the oldest withdrawal still pending or processing, by network (0 when none waits).',
    labelNames: ['network'],
    registers: [registry],
    async collect() {
      this.reset();
      const data = await snapshot();
      if (!data) return;
      const now = deps.now();
      for (const network of networks) this.set({ network: network.id }, 0);
      for (const { network, oldest } of data.waiting) this.set({ network }, ageSeconds(oldest, now));
    },
  });
  new Gauge({
    name: 'paylink_payouts_stalled',
    help: 'Withdrawals held up, by network and reason (hot_wallet_gas, hot_wallet_token, node_unavailable, chain_halted).',
    labelNames: ['network', 'reason'],
    registers: [registry],
    async collect() {
      this.reset();
      const data = await snapshot();
      if (!data) return;
      for (const { network, reason, n } of data.stalled) this.set({ network, reason }, n);
    },
  });
  new Gauge({
    name: 'paylink_webhook_deliveries_waiting',
    help: 'Webhook deliveries to active endpoints not yet delivered (first tries and retries).',
    registers: [registry],
    async collect() {
      const data = await snapshot();
      if (data) this.set(data.webhooks.waiting);
    },
  });
  new Gauge({
    name: 'paylink_webhook_deliveries_retrying',
    help: 'Webhook deliveries waiting after at least one failed attempt.',
    registers: [registry],
    async collect() {
      const data = await snapshot();
      if (data) this.set(data.webhooks.retrying);
    },
  });
  new Gauge({
    name: 'paylink_webhook_deliveries_oldest_waiting_seconds',
    help: 'Age of the oldest webhook delivery still waiting (0 when none waits).',
    registers: [registry],
    async collect() {
      const data = await snapshot();
      if (data) this.set(ageSeconds(data.webhooks.oldest, deps.now()));
    },
  });
  new Counter({
    name: 'paylink_webhook_deliveries_failed_total',
    help: 'Webhook deliveries given up (retried until 3 days after their event, then failed).',
    registers: [registry],
    async collect() {
      this.reset();
      const data = await snapshot();
      if (data) this.inc(data.webhooks.failed);
    },
  });
  new Gauge({
    name: 'paylink_network_alert',
    help: 'Whether an alert is raised on a network (1) or not (0), by network and code (reconciliation_mismatch, hot_wallet_low, chain_finality_violated).',
    labelNames: ['network', 'code'],
    registers: [registry],
    async collect() {
      this.reset();
      const data = await snapshot();
      if (!data) return;
      for (const network of networks) for (const code of ALERT_CODES) this.set({ network: network.id, code }, 0);
      for (const { network, code } of data.alerts) this.set({ network, code }, 1);
    },
  });

  // ── This process ──────────────────────────────────────────────────────────────────────────────
  new Gauge({
    name: 'paylink_build_info',
    help: 'Always 1; the version of the running service in its label.',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version: deps.version ?? 'unknown' }, 1);
  if (deps.openConnections) {
    const open = deps.openConnections;
    new Gauge({
      name: 'paylink_http_connections_open',
      help: 'HTTP connections this instance holds open (event streams included).',
      registers: [registry],
      collect() {
        this.set(open());
      },
    });
  }
  if (deps.rates) {
    const rates = deps.rates;
    // The priced pairs (the chain's assets × the quoted currencies, what /readyz watches), each looked up
    // once per scrape for both gauges: a quote costs exact arithmetic, and there may be a hundred pairs.
    const pairs = [...new Set(networks.flatMap((network) => network.assets))].flatMap((asset) => rates.settings.currencies.map((currency) => [asset, currency] as const));
    let ages: { at: number; value: Map<string, number> } | undefined;
    const rateAges = (): Map<string, number> => {
      const now = deps.now();
      if (ages && Math.abs(now.getTime() - ages.at) < 500) return ages.value;
      const value = new Map<string, number>();
      for (const [asset, currency] of pairs) {
        const quote = rates.pair(asset, currency, now);
        value.set(`${asset}/${currency}`, quote ? Math.max(0, (now.getTime() - quote.at.getTime()) / 1000) : Infinity);
      }
      ages = { at: now.getTime(), value };
      return value;
    };
    new Gauge({
      name: 'paylink_rate_age_seconds',
      help: 'Age of the rate a session of the pair is quoted with (0 for the static table); +Inf when the pair has no fresh rate.',
      labelNames: ['pair'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [pair, age] of rateAges()) this.set({ pair }, age);
      },
    });
    new Gauge({
      name: 'paylink_rate_stale',
      help: 'Whether the pair has no rate fresher than the maximum age (1: sessions in it answer 503 rate_unavailable).',
      labelNames: ['pair'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [pair, age] of rateAges()) this.set({ pair }, age === Infinity ? 1 : 0);
      },
    });
    new Gauge({
      name: 'paylink_rate_max_age_seconds',
      help: 'How old a rate may be before its pair is stale (PAYLINK_RATES_MAX_AGE_S).',
      registers: [registry],
    }).set(rates.settings.maxAgeMs / 1000);
  }
  new Gauge({
    name: 'paylink_scanner_lag_blocks',
    help: "Blocks between a network's head and the last block this instance's scanner has read.",
    labelNames: ['network'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [network, values] of runtime.networks) if (values.scannerLagBlocks !== undefined) this.set({ network }, values.scannerLagBlocks);
    },
  });
  new Gauge({
    name: 'paylink_scanner_last_scan_timestamp_seconds',
    help: "When this instance's scanner last finished reading a network (Unix time).",
    labelNames: ['network'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [network, values] of runtime.networks) if (values.scannerScannedAt !== undefined) this.set({ network }, values.scannerScannedAt / 1000);
    },
  });
  new Counter({
    name: 'paylink_node_errors_total',
    help: "Failed calls to a network's nodes, by network and kind (unreachable, timeout, rate_limited, node_error, …).",
    labelNames: ['network', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [network, values] of runtime.networks) for (const [kind, n] of values.nodeErrors) this.inc({ network, kind }, n);
    },
  });
  new Gauge({
    name: 'paylink_hot_wallet_token_balance',
    help: "The hot wallet's token balance as last read, in token units, by network and asset.",
    labelNames: ['network', 'asset'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [network, values] of runtime.networks) for (const [asset, amount] of values.hotWalletTokens) this.set({ network, asset }, amount);
    },
  });
  new Gauge({
    name: 'paylink_hot_wallet_native_balance',
    help: "The hot wallet's native coin (gas money) as last read, in whole coins, by network.",
    labelNames: ['network'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [network, values] of runtime.networks) if (values.hotWalletNative !== undefined) this.set({ network }, values.hotWalletNative);
    },
  });
  new Gauge({
    name: 'paylink_reconciliation_mismatches',
    help: 'Deposit addresses whose balance the last reconciliation on this instance could not explain, by network.',
    labelNames: ['network'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [network, values] of runtime.networks) if (values.reconciliationMismatches !== undefined) this.set({ network }, values.reconciliationMismatches);
    },
  });
  new Counter({
    name: 'paylink_webhook_attempts_total',
    help: 'Webhook delivery attempts this instance made, by outcome (delivered: a 2xx answer; failed: anything else).',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ outcome: 'delivered' }, runtime.webhookAttempts.delivered);
      this.inc({ outcome: 'failed' }, runtime.webhookAttempts.failed);
    },
  });

  return {
    registry,
    middleware,
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/**
 * prom-client's metrics of the Node process (CPU, memory, event loop delay, garbage collection), less
 * the three gauges it names `*_total` (`nodejs_active_handles_total`, …), which Prometheus's naming
 * keeps for counters (`promtool check metrics` flags them); their unsuffixed twins say the same, by type.
 */
export function collectNodeMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
}

/**
 * The route template of a request from the routes that matched it: the last one registered for a
 * method (a handler), not a middleware's (`ALL`, such as `/v1/*`). A path no handler has is `unmatched`,
 * whatever it was: the label's values are the app's own route patterns, never the client's path.
 */
export function routeTemplate(matched: ReadonlyArray<{ method: string; path: string }>): string {
  for (let i = matched.length - 1; i >= 0; i--) {
    const route = matched[i]!;
    if (route.method !== 'ALL') return route.path;
  }
  return 'unmatched';
}
