/**
 * Where `/metrics` is served, and to whom. Metrics say how much money moves and where it is stuck,
 * so they are never public:
 *
 * - `PAYLINK_METRICS_TOKEN`: `GET /metrics` on the server's own port answers a scraper that sends
 *   `Authorization: Bearer <token>`; anyone else gets 401 (and `WWW-Authenticate: Bearer`).
 * - `PAYLINK_METRICS_PORT`: a second listener on 127.0.0.1 only, serving `GET /metrics` without a
 *   token (whoever can reach the loopback is on the machine: a Prometheus agent or a sidecar). `0`
 *   takes a free port, which the start line names.
 * - Neither: no metrics are kept, and `/metrics` is a 404 like any unknown path.
 *
 * Both may be set. The token is compared in constant time, through digests, and never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorBody } from '../../core/errors.js';
import type { Logger } from '../log.js';

/** Where `/metrics` is served: on the main port with a token, on a loopback port, both, or not at all. */
export interface MetricsSettings {
  token: string | undefined;
  port: number | undefined;
}

/** What the options of a server say of its metrics (over `PAYLINK_METRICS_TOKEN` and `PAYLINK_METRICS_PORT`). */
export interface MetricsOptions {
  token?: string | undefined;
  /** A port on 127.0.0.1 (0: a free one). */
  port?: number | undefined;
}

/** A metrics setting that can't be used, with the sentence that says why. */
export class MetricsConfigError extends Error {
  override name = 'MetricsConfigError';
}

/** The settings: `options` first, then the environment. `undefined` when metrics are off. */
export function resolveMetricsSettings(
  options: MetricsOptions | false | undefined,
  env: Readonly<Record<string, string | undefined>>,
): MetricsSettings | undefined {
  if (options === false) return undefined;
  const token = (options?.token ?? env.PAYLINK_METRICS_TOKEN)?.trim() || undefined;
  let port = options?.port;
  const portText = env.PAYLINK_METRICS_PORT?.trim();
  if (port === undefined && portText) {
    if (!/^\d+$/.test(portText) || Number(portText) > 65535)
      throw new MetricsConfigError(`PAYLINK_METRICS_PORT must be a port number (0 for any free one); got ${portText}`);
    port = Number(portText);
  }
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new MetricsConfigError(`the metrics port must be a port number; got ${port}`);
  return token === undefined && port === undefined ? undefined : { token, port };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** A check of `Authorization` headers against `token`, in constant time. */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}

/** The 401 of a scrape without the right token, in the one error shape. */
export function metricsRefusal(): { status: 401; headers: Record<string, string>; body: string } {
  return {
    status: 401,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'www-authenticate': 'Bearer realm="metrics"' },
    body: JSON.stringify(errorBody(401, 'unauthorized', 'The metrics need Authorization: Bearer <PAYLINK_METRICS_TOKEN>')),
  };
}

/** Renders the exposition: its body and content type. */
export type RenderMetrics = () => Promise<{ contentType: string; body: string }>;

/** The loopback listener of `PAYLINK_METRICS_PORT`. */
export interface MetricsServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` and answers `GET /metrics` (anything else: 404), without a token. */
export async function startMetricsServer(port: number, render: RenderMetrics, log: Logger): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(errorBody(404, 'not_found', 'Only GET /metrics is served here')));
      return;
    }
    render().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        log.error('metrics_failed', 'the metrics could not be rendered', { error });
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(errorBody(500, 'internal_error', 'Something went wrong on our side')));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
