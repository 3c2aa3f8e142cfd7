/**
 * The proxy's metrics (`paylink proxy`): requests by route template, method and status, and how long
 * each took (for an event stream, how long it stayed open), the connections it holds, and the Node
 * process's own. The template is the proxy's route table's (`/paylink/checkout/:slug`), `unmatched` for
 * a path no route has: never the client's path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import { compilePath, PROXY_AREAS, type ProxyArea } from '../proxy/routes.js';
import { RequestMetrics } from './requests.js';
import { collectNodeMetrics, connectionsGauge, methodLabel } from './service.js';

/** What the proxy's metrics read. */
export interface ProxyMetricsDeps {
  /** The proxy's base path (`/paylink`). */
  basePath: string;
  /** Connections the server holds open now. */
  openConnections?: (() => number) | undefined;
  /** The route table (default the proxy's). */
  areas?: readonly ProxyArea[] | undefined;
}

/** The proxy's metrics: `track` each request as it comes in; `render` answers `/metrics`. */
export interface ProxyMetrics {
  readonly registry: Registry;
  track(req: IncomingMessage, res: ServerResponse): void;
  render(): Promise<{ contentType: string; body: string }>;
}

/** The template of `pathname` in the proxy's route table, or `unmatched`. */
export function proxyRouteTemplate(templates: ReadonlyArray<{ pattern: RegExp; template: string }>, pathname: string): string {
  for (const { pattern, template } of templates) if (pattern.test(pathname)) return template;
  return 'unmatched';
}

export function createProxyMetrics(deps: ProxyMetricsDeps): ProxyMetrics {
  const registry = new Registry();
  collectNodeMetrics(registry);
  const templates = [
    { pattern: /^\/healthz$/, template: '/healthz' },
    { pattern: /^\/metrics$/, template: '/metrics' },
    ...(deps.areas ?? PROXY_AREAS).flatMap((area) =>
      area.routes.map((route) => {
        const template = `${deps.basePath}${area.prefix}${route.path}`;
        return { pattern: compilePath(template), template };
      }),
    ),
  ];
  const requests = new RequestMetrics();
  requests.register(registry, 'the proxy', 'for an event stream, how long it stayed open');
  if (deps.openConnections) connectionsGauge(registry, 'the proxy', deps.openConnections);
  return {
    registry,
    track(req, res) {
      const started = performance.now();
      res.once('close', () => {
        requests.observe(
          proxyRouteTemplate(templates, (req.url ?? '').split('?', 1)[0]!),
          methodLabel(req.method ?? ''),
          res.statusCode,
          (performance.now() - started) / 1000,
        );
      });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
