/**
 * For `bench/proxy.ts` (BENCH_PROXY_HONO=1): the proxy's checkout area composed from Hono's own
 * middleware instead of the proxy's guards, served by `@hono/node-server`, forwarding with the proxy's
 * own forwarder over the same Node upstream. It exists to measure what that composition costs per
 * request (the `Request`/`Response` per call and Hono's routing), which is why the proxy does not use it
 * (see `src/server/proxy/proxy.ts`). Not a product: checkout GETs only, no rate limit, no streams.
 *
 *   PAYLINK_UPSTREAM=http://127.0.0.1:8787 PAYLINK_API_KEY=… node --import tsx bench/support/hono-proxy.ts --port 8790
 */
import { serve, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { createClientKeyResolver } from '../../src/server/proxy/client-key.js';
import { Exchange } from '../../src/server/proxy/exchange.js';
import { createForwarder } from '../../src/server/proxy/forward.js';
import { requestIncoming, toResponse } from '../../src/server/proxy/messages.js';
import { createNodeUpstream } from '../../src/server/proxy/node-upstream.js';
import { createRedactor } from '../../src/server/proxy/redact.js';
import { PROXY_AREAS } from '../../src/server/proxy/routes.js';

const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const apiKey = process.env.PAYLINK_API_KEY!;
const forward = createForwarder({ upstream: createNodeUpstream(process.env.PAYLINK_UPSTREAM!), apiKey, timeoutMs: 15_000, redactor: createRedactor(apiKey) });
const checkout = PROXY_AREAS.find((area) => area.name === 'checkout')!;
const clientKey = createClientKeyResolver({});

const app = new Hono<{ Bindings: HttpBindings }>();
app.get('/healthz', (c) => c.json({ status: 'ok' }));
app.use('/paylink/checkout/*', cors({ origin: [], allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'], exposeHeaders: ['Retry-After'] }));
app.get('/paylink/checkout/*', async (c) => {
  const incoming = requestIncoming(c.req.raw);
  const rest = incoming.pathname.slice('/paylink/checkout'.length);
  const exchange = new Exchange(incoming, { incoming: c.env.incoming }, checkout, rest, clientKey);
  exchange.route = checkout.routes.at(-1);
  return toResponse(await forward(exchange, `/v1/checkout${rest}${incoming.search}`));
});
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
