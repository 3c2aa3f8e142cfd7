/**
 * The service's metrics (Prometheus's text format, through `prom-client`): what `GET /metrics` answers.
 *
 * Three sources, each read the cheapest way:
 * - **Requests**, counted as they are answered (the middleware): `paylink_http_requests_total` and
 *   `paylink_http_request_duration_seconds` by route template (`/v1/checkout/:slug`; `unmatched` for a
 *   path no route has), method and status. A label never holds a raw path, an id, an address or an amount.
 * - **The database**, read at scrape time in ONE statement of small aggregates (sessions by status,
 *   payments credited, payouts by status and the oldest waiting, webhook deliveries waiting and failed,
 *   the networks' alerts, the deposit addresses reconciliation could not explain), kept `cacheMs`
 *   (default 5 s) so that frequent scrapes, or several Prometheus servers, cost one statement per
 *   period, and never two at once. These series are the database's, so every instance reports the same values: aggregate them with `max`, not `sum`.
 * - **This process** (./runtime.ts): the scanner's lag and node errors, the hot wallet's balances as
 *   last read, webhook attempts, the rates' ages (from the rate
 *   book), the connections it holds. Per instance: `sum` or `max` them as their meaning asks.
 *
 * The Node process's own (CPU, memory, event loop delay, garbage collection) come from prom-client's
 * defaults, under their usual names (`process_*`, `nodejs_*`).
 */
import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { NETWORK_ALERT_CODES } from '../../core/rules/networks.js';
import { SESSION_STATUSES } from '../../core/rules/session.js';
import { UNFINISHED_WITHDRAWAL_STATUSES, WITHDRAWAL_STATUSES } from '../../core/rules/withdrawal.js';
import type { ChainAdapter } from '../chain/types.js';
import type { Database } from '../db/index.js';
import { sqlList } from '../db/sql-list.js';
import { RequestMetrics } from './requests.js';
import { runtimeMetrics, type NetworkRuntime, type RuntimeMetrics } from './runtime.js';

/** What the service's metrics read. */
export interface ServiceMetricsDeps {
  db: Database;
  chain: ChainAdapter;
  /** The service clock (ages are measured on it). */
  now: () => Date;
  /** The rate book: each priced pair's age (a pair without a quote is stale, as `/readyz` says). */
  rates?:
    | { pair(assetId: string, currency: string, now?: Date): { at: Date } | undefined; settings: { maxAgeMs: number; currencies: readonly string[] } }
    | undefined;
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

/** The statuses of a withdrawal whose payout is not finished, as an SQL list (the partial index `withdrawals_queue`'s). */
const UNFINISHED = sqlList(UNFINISHED_WITHDRAWAL_STATUSES);

/** One read of the database: every aggregate the scrape reports. */
interface DatabaseSnapshot {
  sessions: Array<{ status: string; n: number }>;
  payments: Array<{ network: string; asset: string; n: number; amount: string }>;
  payouts: Array<{ network: string; status: string; n: number }>;
  waiting: Array<{ network: string; oldest: string }>;
  stalled: Array<{ network: string; reason: string; n: number }>;
  webhooks: { waiting: number; retrying: number; failed: number; oldest: string | null };
  alerts: Array<{ network: string; code: string }>;
  mismatches: Array<{ network: string; n: number }>;
}

/**
 * Sessions and payouts by status and the credited payments count their tables; the rest reads partial
 * indexes (withdrawals_queue, webhook_deliveries_due, webhook_deliveries_failed) or small tables
 * (network_alerts; reconciliation_mismatches, one row per address the books do not explain). Amounts
 * and times come back as text: exact, and the same on PGlite and node-postgres.
 */
const SNAPSHOT_SQL = `SELECT
  (SELECT coalesce(json_agg(json_build_object('status', status, 'n', n)), '[]') FROM
    (SELECT status, count(*)::int AS n FROM checkout_sessions GROUP BY status) s) AS sessions,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'asset', asset_id, 'n', n, 'amount', amount)), '[]') FROM
    (SELECT blockchain_id, asset_id, count(*)::int AS n, sum(amount)::text AS amount FROM chain_transfers WHERE reversed_at IS NULL GROUP BY 1, 2) p) AS payments,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'status', status, 'n', n)), '[]') FROM
    (SELECT blockchain_id, status, count(*)::int AS n FROM withdrawals GROUP BY 1, 2) w) AS payouts,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'oldest', oldest)), '[]') FROM
    (SELECT blockchain_id, min(created_at)::text AS oldest FROM withdrawals WHERE status IN (${UNFINISHED}) GROUP BY 1) q) AS waiting,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'reason', stalled_reason, 'n', n)), '[]') FROM
    (SELECT blockchain_id, stalled_reason, count(*)::int AS n FROM withdrawals
      WHERE status IN (${UNFINISHED}) AND stalled_reason IS NOT NULL GROUP BY 1, 2) r) AS stalled,
  (SELECT json_build_object(
     'waiting', count(*) FILTER (WHERE e.is_active)::int,
     'retrying', count(*) FILTER (WHERE e.is_active AND d.attempt_count > 0)::int,
     'oldest', min(d.created_at) FILTER (WHERE e.is_active)::text,
     'failed', (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'failed'))
   FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.status = 'pending') AS webhooks,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'code', code)), '[]') FROM network_alerts) AS alerts,
  (SELECT coalesce(json_agg(json_build_object('network', blockchain_id, 'n', n)), '[]') FROM
    (SELECT blockchain_id, count(*)::int AS n FROM reconciliation_mismatches GROUP BY 1) m) AS mismatches`;

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
          mismatches: json(row.mismatches),
        } satisfies DatabaseSnapshot;
      },
      // The database did not answer: its series are left out of this scrape and `paylink_database_up` says why.
      () => undefined,
    );
    cached = { at, value };
    return value;
  };

  /** Registers a series whose values `read` gives at each scrape (none while the database does not answer). */
  const series = (type: 'gauge' | 'counter', name: string, help: string, read: () => Values | undefined | Promise<Values | undefined>) =>
    registerSeries(registry, { type, name, help, read });
  const fromDatabase = (type: 'gauge' | 'counter', name: string, help: string, read: (data: DatabaseSnapshot, now: Date) => Values) =>
    series(type, name, help, async () => {
      const data = await snapshot();
      return data && read(data, deps.now());
    });
  /** `[labels, 0]` for each configured network (× `more`), so that a rule sees a series before anything happens. */
  const everyNetwork = <T>(more: readonly T[], labels: (network: string, value: T) => Labels): Values =>
    networks.flatMap((network) => more.map((value) => [labels(network.id, value), 0] as [Labels, number]));

  series(
    'gauge',
    'paylink_database_up',
    '1 when the last read of the database for these metrics succeeded, else 0 (its series are then missing).',
    async () => [[{}, (await snapshot()) ? 1 : 0]],
  );
  // Every session status, payout status and alert code is reported, 0 when there is none, so an alert sees its series from the start.
  fromDatabase('gauge', 'paylink_checkout_sessions', "Checkout sessions by status (the database's: the same on every instance).", (data) =>
    withDefaults(
      SESSION_STATUSES.map((status) => [{ status }, 0]),
      data.sessions.map(({ status, n }) => [{ status }, n]),
    ),
  );
  fromDatabase(
    'counter',
    'paylink_payments_credited_total',
    'Transfers credited to a balance (payments and late payments, reorged ones excepted), by asset and network.',
    (data) =>
      withDefaults(
        networks.flatMap((network) => network.assets.map((asset) => [{ asset, network: network.id }, 0] as [Labels, number])),
        data.payments.map(({ network, asset, n }) => [{ asset, network }, n]),
      ),
  );
  fromDatabase(
    'counter',
    'paylink_payments_credited_amount_total',
    'What the credited transfers brought, in units of their asset (USDT, CNGN), by asset and network.',
    (data) =>
      withDefaults(
        networks.flatMap((network) => network.assets.map((asset) => [{ asset, network: network.id }, 0] as [Labels, number])),
        data.payments.map(({ network, asset, amount }) => [{ asset, network }, Number(amount)]),
      ),
  );
  fromDatabase('gauge', 'paylink_payouts', 'Withdrawals by network and status (pending and processing wait for their payout).', (data) =>
    withDefaults(
      everyNetwork(WITHDRAWAL_STATUSES, (network, status) => ({ network, status })),
      data.payouts.map(({ network, status, n }) => [{ network, status }, n]),
    ),
  );
  fromDatabase(
    'gauge',
    'paylink_payouts_oldest_waiting_seconds',
    'Age of the oldest withdrawal still pending or processing, by network (0 when none waits).',
    (data, now) =>
      withDefaults(
        everyNetwork([0], (network) => ({ network })),
        data.waiting.map(({ network, oldest }) => [{ network }, ageSeconds(oldest, now)]),
      ),
  );
  fromDatabase(
    'gauge',
    'paylink_payouts_stalled',
    'Withdrawals held up, by network and reason (hot_wallet_gas, hot_wallet_token, node_unavailable, chain_halted).',
    (data) => data.stalled.map(({ network, reason, n }) => [{ network, reason }, n]),
  );
  fromDatabase('gauge', 'paylink_webhook_deliveries_waiting', 'Webhook deliveries to active endpoints not yet delivered (first tries and retries).', (data) => [
    [{}, data.webhooks.waiting],
  ]);
  fromDatabase('gauge', 'paylink_webhook_deliveries_retrying', 'Webhook deliveries waiting after at least one failed attempt.', (data) => [
    [{}, data.webhooks.retrying],
  ]);
  fromDatabase(
    'gauge',
    'paylink_webhook_deliveries_oldest_waiting_seconds',
    'Age of the oldest webhook delivery still waiting (0 when none waits).',
    (data, now) => [[{}, ageSeconds(data.webhooks.oldest, now)]],
  );
  fromDatabase(
    'counter',
    'paylink_webhook_deliveries_failed_total',
    'Webhook deliveries given up (retried until 3 days after their event, then failed).',
    (data) => [[{}, data.webhooks.failed]],
  );
  fromDatabase(
    'gauge',
    'paylink_network_alert',
    'Whether an alert is raised on a network (1) or not (0), by network and code (reconciliation_mismatch, hot_wallet_low, chain_finality_violated).',
    (data) =>
      withDefaults(
        everyNetwork(NETWORK_ALERT_CODES, (network, code) => ({ network, code })),
        data.alerts.map(({ network, code }) => [{ network, code }, 1]),
      ),
  );

  fromDatabase(
    'gauge',
    'paylink_reconciliation_mismatches',
    "Deposit addresses whose balance reconciliation could not explain (the database's: raised by the last run of any instance, cleared when the chain and the books agree), by network.",
    (data) =>
      withDefaults(
        everyNetwork([0], (network) => ({ network })),
        data.mismatches.map(({ network, n }) => [{ network }, n]),
      ),
  );

  // ── This process ──────────────────────────────────────────────────────────────────────────────
  const version = deps.version ?? 'unknown';
  series('gauge', 'paylink_build_info', 'Always 1; the version of the running service in its label.', () => [[{ version }, 1]]);
  if (deps.openConnections) connectionsGauge(registry, 'this instance', deps.openConnections);
  if (deps.rates) {
    const rates = deps.rates;
    // The priced pairs (the chain's assets × the quoted currencies, what /readyz watches), each looked up
    // once per scrape for both gauges: a quote costs exact arithmetic, and there may be a hundred pairs.
    const pairs = [...new Set(networks.flatMap((network) => network.assets))].flatMap((asset) =>
      rates.settings.currencies.map((currency) => [asset, currency] as const),
    );
    let ages: { at: number; value: Values } | undefined;
    const rateAges = (): Values => {
      const now = deps.now();
      if (ages && Math.abs(now.getTime() - ages.at) < 500) return ages.value;
      const value = pairs.map(([asset, currency]): [Labels, number] => {
        const quote = rates.pair(asset, currency, now);
        return [{ pair: `${asset}/${currency}` }, quote ? Math.max(0, (now.getTime() - quote.at.getTime()) / 1000) : Infinity];
      });
      ages = { at: now.getTime(), value };
      return value;
    };
    series(
      'gauge',
      'paylink_rate_age_seconds',
      'Age of the rate a session of the pair is quoted with (0 for the static table); +Inf when the pair has no fresh rate.',
      rateAges,
    );
    series('gauge', 'paylink_rate_stale', 'Whether the pair has no rate fresher than the maximum age (1: sessions in it answer 503 rate_unavailable).', () =>
      rateAges().map(([labels, age]) => [labels, age === Infinity ? 1 : 0]),
    );
    series('gauge', 'paylink_rate_max_age_seconds', 'How old a rate may be before its pair is stale (PAYLINK_RATES_MAX_AGE_S).', () => [
      [{}, rates.settings.maxAgeMs / 1000],
    ]);
  }
  /** `[{network}, value]` for each network whose runtime value `pick` finds. */
  const perNetwork = (pick: (values: NetworkRuntime) => number | undefined): Values =>
    [...runtime.networks].flatMap(([network, values]) => {
      const value = pick(values);
      return value === undefined ? [] : [[{ network }, value] as [Labels, number]];
    });
  series('gauge', 'paylink_scanner_lag_blocks', "Blocks between a network's head and the last block this instance's scanner has read.", () =>
    perNetwork((values) => values.scannerLagBlocks),
  );
  series('gauge', 'paylink_scanner_last_scan_timestamp_seconds', "When this instance's scanner last finished reading a network (Unix time).", () =>
    perNetwork((values) => (values.scannerScannedAt === undefined ? undefined : values.scannerScannedAt / 1000)),
  );
  series(
    'counter',
    'paylink_node_errors_total',
    "Failed calls to a network's nodes, by network and kind (unreachable, timeout, rate_limited, node_error, …).",
    () => [...runtime.networks].flatMap(([network, values]) => [...values.nodeErrors].map(([kind, n]) => [{ network, kind }, n] as [Labels, number])),
  );
  series('gauge', 'paylink_hot_wallet_token_balance', "The hot wallet's token balance as last read, in token units, by network and asset.", () =>
    [...runtime.networks].flatMap(([network, values]) =>
      [...values.hotWalletTokens].map(([asset, amount]) => [{ network, asset }, amount] as [Labels, number]),
    ),
  );
  series('gauge', 'paylink_hot_wallet_native_balance', "The hot wallet's native coin (gas money) as last read, in whole coins, by network.", () =>
    perNetwork((values) => values.hotWalletNative),
  );
  series(
    'counter',
    'paylink_webhook_attempts_total',
    'Webhook delivery attempts this instance made, by outcome (delivered: a 2xx answer; failed: anything else).',
    () => [
      [{ outcome: 'delivered' }, runtime.webhookAttempts.delivered],
      [{ outcome: 'failed' }, runtime.webhookAttempts.failed],
    ],
  );

  return {
    registry,
    middleware,
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** A series' labels. */
type Labels = Record<string, string>;
/** A series' values at one scrape: each label set and its value. */
type Values = Array<[Labels, number]>;

/** `defaults` with the values of `actual` over them (by label set): zeros first, so every expected series is there. */
function withDefaults(defaults: Values, actual: Values): Values {
  const byKey = new Map(defaults.map(([labels, value]) => [JSON.stringify(labels), [labels, value] as [Labels, number]]));
  for (const [labels, value] of actual) byKey.set(JSON.stringify(labels), [labels, value]);
  return [...byKey.values()];
}

/**
 * Registers a series on `registry` whose values `read` gives at each scrape: a plain object of the shape
 * prom-client renders, without its label hashing (none of these is written between scrapes).
 */
export function registerSeries(
  registry: Registry,
  series: { type: 'gauge' | 'counter'; name: string; help: string; read: () => Values | undefined | Promise<Values | undefined> },
): void {
  const { type, name, help, read } = series;
  registry.registerMetric({
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: ((await read()) ?? []).map(([labels, value]) => ({ labels, value })) }),
    reset: () => {},
  } as never);
}

/** `paylink_http_connections_open`: what `open()` says, at each scrape. */
export function connectionsGauge(registry: Registry, subject: string, open: () => number): void {
  registerSeries(registry, {
    type: 'gauge',
    name: 'paylink_http_connections_open',
    help: `HTTP connections ${subject} holds open (event streams included).`,
    read: () => [[{}, open()]],
  });
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
