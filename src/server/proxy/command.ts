/**
 * `paylink proxy [--port 8788] [--host 127.0.0.1] --upstream URL`: the proxy as a standalone server.
 * Env: `PAYLINK_API_KEY` (required), `PAYLINK_ADMIN_TOKEN` (at least 32 characters, else the proxy refuses
 * to start and says how to make one; without it the admin routes answer 401),
 * `PAYLINK_ALLOWED_ORIGINS` (comma list, or `*`), `PAYLINK_UPSTREAM` (when `--upstream` is not given),
 * `PAYLINK_TRUST_PROXY` (`1`/`true` or a hop count, when a load balancer you run sets `X-Forwarded-For`),
 * `PAYLINK_PUBLIC_ORIGIN` (the origin browsers load your pages from, when a reverse proxy in front rewrites
 * `Host`: admin changes from it are same-site),
 * `PAYLINK_RATE_LIMIT` (checkout requests per second per client, optionally `:burst`, e.g. `10:60`, the
 * default; or `off`), and the limits against abuse shared with the service (`server/limits/options.ts`:
 * `PAYLINK_HEADERS_TIMEOUT_MS`, `PAYLINK_BODY_TIMEOUT_MS`, `PAYLINK_MAX_CONNECTIONS_PER_CLIENT`,
 * `PAYLINK_MAX_CONNECTIONS_TOTAL`, `PAYLINK_MAX_EVENT_STREAMS_PER_CLIENT`, `PAYLINK_MAX_EVENT_STREAMS_TOTAL`, …).
 * `GET /healthz` answers `200 {"status":"ok"}`. The API key is never printed.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLimitedServer, LISTEN_BACKLOG } from '../limits/node-server.js';
import { LimitConfigError, parseRateLimit, resolveConnectionLimits, resolveStreamLimits, LIMIT_DEFAULTS, type ConnectionLimits } from '../limits/options.js';
import { commandOutput } from '../command-output.js';
import { defaultLogger } from '../log.js';
import { errorBody } from '../../core/errors.js';
import { bearerCheck, metricsRefusal, MetricsConfigError, resolveMetricsSettings, startMetricsServer, type MetricsServer } from '../metrics/endpoint.js';
import { createProxyMetrics } from '../metrics/proxy.js';
import { checkAdminToken } from './guards/authorize.js';
import { parsePublicOrigin } from './guards/cross-site.js';
import { createNodeUpstream } from './node-upstream.js';
import { toNodeHandler } from './node.js';
import { serveBundle } from '../bundles.js';
import { createPaylinkProxy, type PaylinkProxyOptions } from './proxy.js';

/** The command's flags (and its environment, for tests). */
export interface ProxyCommandOptions {
  port: number;
  host?: string | undefined;
  upstream?: string | undefined;
  /** Defaults to `process.env`. */
  env?: Record<string, string | undefined>;
}

/** A started proxy server: where it listens, and how to stop it. */
export interface RunningProxy {
  url: string;
  port: number;
  server: Server;
  /** The loopback listener of `/metrics` (`PAYLINK_METRICS_PORT`), when there is one. */
  metricsServer: MetricsServer | undefined;
  close(): Promise<void>;
}

/** A configuration mistake the command reports in one line, without a stack. */
export class ProxyConfigError extends Error {
  override name = 'ProxyConfigError';
}

/**
 * The proxy's options as the command reads them: `upstream` is the URL (the server adds the Node
 * transport), and the Node server's connection limits.
 */
export type ProxyCommandConfig = PaylinkProxyOptions & { upstream: string; connectionLimits: ConnectionLimits };

/** Reads the proxy's options from flags and environment, refusing to start without a key or upstream. */
export function proxyOptionsFromEnv(options: ProxyCommandOptions): ProxyCommandConfig {
  const env = options.env ?? process.env;
  const apiKey = env.PAYLINK_API_KEY?.trim();
  if (!apiKey) throw new ProxyConfigError('PAYLINK_API_KEY is not set: the proxy needs the integrator API key (create one with "paylink keys create")');
  const upstream = options.upstream ?? env.PAYLINK_UPSTREAM;
  if (!upstream) throw new ProxyConfigError('--upstream is required: the URL of the Paylink service, e.g. --upstream http://127.0.0.1:8787');
  try {
    const url = new URL(upstream);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch {
    throw new ProxyConfigError(`--upstream is not an http(s) URL: ${upstream}`);
  }
  const origins = (env.PAYLINK_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  let publicOrigin: string | undefined;
  try {
    publicOrigin = parsePublicOrigin(env.PAYLINK_PUBLIC_ORIGIN);
  } catch {
    throw new ProxyConfigError(
      `PAYLINK_PUBLIC_ORIGIN must be an origin such as https://shop.example (scheme, host and port only); got ${env.PAYLINK_PUBLIC_ORIGIN}`,
    );
  }
  let adminToken: string | undefined;
  try {
    adminToken = checkAdminToken(env.PAYLINK_ADMIN_TOKEN, 'PAYLINK_ADMIN_TOKEN');
  } catch (error) {
    throw new ProxyConfigError((error as Error).message);
  }
  let connectionLimits: ConnectionLimits;
  let streams: ReturnType<typeof resolveStreamLimits>;
  let rateLimit: PaylinkProxyOptions['rateLimit'];
  try {
    connectionLimits = resolveConnectionLimits({}, env);
    streams = resolveStreamLimits({}, env, LIMIT_DEFAULTS.proxyMaxEventStreamsPerClient);
    rateLimit = parseRateLimit(env.PAYLINK_RATE_LIMIT, 'PAYLINK_RATE_LIMIT');
  } catch (error) {
    if (error instanceof LimitConfigError) throw new ProxyConfigError(error.message);
    throw error;
  }
  return {
    rateLimit,
    connectionLimits,
    ...streams,
    upstream,
    apiKey,
    adminToken,
    allowedOrigins: origins.includes('*') ? '*' : origins,
    publicOrigin,
    trustProxy: connectionLimits.trustProxy,
  };
}

/**
 * Starts the proxy server; `close()` stops accepting, answers the requests in flight (each answer
 * closing its connection) and cuts what is still open after 5 s (event streams: their clients
 * reconnect). The `node:http` server is the limited one of `server/limits/node-server.ts` (header and
 * body timeouts, connections per client and in total): they act before the proxy's guards see a request.
 * `/metrics` is served as the service serves it (`PAYLINK_METRICS_TOKEN`, `PAYLINK_METRICS_PORT`).
 */
export async function startProxyServer(options: ProxyCommandOptions): Promise<RunningProxy> {
  const { connectionLimits, ...config } = proxyOptionsFromEnv(options);
  const metricsSettings = resolveMetricsSettings(undefined, options.env ?? process.env);
  // The script-tag bundles of this package, at basePath/dist/* (Node only: they are read from disk).
  const proxy = createPaylinkProxy({ ...config, upstream: createNodeUpstream(config.upstream), bundles: serveBundle, logger: defaultLogger });
  const nodeHandler = toNodeHandler(proxy);
  let stopping = false;
  const metrics = metricsSettings && createProxyMetrics({ basePath: proxy.basePath, openConnections: () => limited.openConnections });
  const authorized = metricsSettings?.token ? bearerCheck(metricsSettings.token) : undefined;
  const limited = createLimitedServer(
    (req, res) => {
      metrics?.track(req, res);
      if (stopping) res.setHeader('connection', 'close');
      if (req.url === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ status: 'ok' }));
        return;
      }
      if (metrics && authorized && req.url === '/metrics' && req.method === 'GET') {
        if (!authorized(req.headers.authorization)) {
          const refusal = metricsRefusal();
          res.writeHead(refusal.status, refusal.headers);
          res.end(refusal.body);
          return;
        }
        metrics.render().then(
          ({ contentType, body }) => {
            res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
            res.end(body);
          },
          (error: unknown) => {
            defaultLogger.error('metrics_failed', 'the metrics could not be rendered', { error });
            res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
            res.end(JSON.stringify(errorBody(500, 'internal_error', 'Something went wrong on our side')));
          },
        );
        return;
      }
      nodeHandler(req, res);
    },
    connectionLimits,
    defaultLogger,
  );
  const { server } = limited;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let metricsServer: MetricsServer | undefined;
  if (metrics && metricsSettings.port !== undefined) {
    try {
      metricsServer = await startMetricsServer(metricsSettings.port, metrics.render, defaultLogger);
    } catch (error) {
      server.close();
      throw error;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    server,
    metricsServer,
    close: () =>
      (closing ??= (async () => {
        stopping = true;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 5000).unref();
        });
        await metricsServer?.close();
      })()),
  };
}

/** The `paylink proxy` command: starts the server and prints where it listens (never the key). */
export async function runProxyCommand(options: ProxyCommandOptions, onSignal: (close: () => Promise<void>) => void): Promise<void> {
  const out = commandOutput();
  let proxy: RunningProxy;
  try {
    proxy = await startProxyServer(options);
  } catch (error) {
    if (error instanceof ProxyConfigError || error instanceof TypeError || error instanceof MetricsConfigError) {
      out.say('error', 'config_invalid', `paylink proxy: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const config = proxyOptionsFromEnv(options);
  const origins = config.allowedOrigins === '*' ? '*' : (config.allowedOrigins as string[]).join(', ') || '(same origin only)';
  out.print('proxy_listening', `paylink proxy listening on ${proxy.url}/paylink → ${config.upstream}`, {
    url: `${proxy.url}/paylink`,
    upstream: config.upstream,
  });
  out.print('proxy_admin_routes', `  admin routes: ${config.adminToken ? 'bearer PAYLINK_ADMIN_TOKEN' : 'disabled (set PAYLINK_ADMIN_TOKEN)'}`, {
    adminRoutes: Boolean(config.adminToken),
  });
  out.print('proxy_cors_origins', `  checkout CORS origins: ${origins}`, { origins });
  out.print(
    'proxy_public_origin',
    `  public origin: ${config.publicOrigin ?? 'from the Host header (set PAYLINK_PUBLIC_ORIGIN behind a reverse proxy that rewrites Host)'}`,
    config.publicOrigin ? { publicOrigin: config.publicOrigin } : undefined,
  );
  if (proxy.metricsServer) out.print('metrics_listening', `  metrics at ${proxy.metricsServer.url} (loopback only)`, { metricsUrl: proxy.metricsServer.url });
  onSignal(proxy.close);
}
