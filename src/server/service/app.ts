/**
 * The service's HTTP app. `createApp` builds it from its dependencies and listens nowhere:
 * tests call `app.request()`, and `serve.ts` puts it on a port.
 *
 * The service is made of rooms, one folder each, every room's boundary written at the top of its
 * `index.ts`: links, orders, sessions (with the public checkout API), withdrawals, ledger, payouts, keys, rates,
 * plus idempotency and events, which the money rooms share. Each table is written by exactly one
 * room's repository; a room that needs another's table calls that room's functions inside its own
 * transaction. This file only composes them: cross-cutting middleware (the request id, errors and
 * their log lines, body limit, CORS of the public API, `X-API-KEY` and `Cache-Control: no-store` on
 * keyed answers) and each room's routes under its prefix.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { serveBundle } from '../bundles.js';
import { defaultLogger, requestIdFrom } from '../log.js';
import { type AppEnv, type ServiceDeps } from './context.js';
import { ApiError, internalError } from './errors.js';
import { hostedPageRoutes } from './hosted-page.js';
import { requireKey } from './keys/index.js';
import { balanceRoutes } from './ledger/index.js';
import { createLinkCache, paymentLinkRoutes } from './links/index.js';
import { type MoneyDeps, withMoneyDefaults } from './money-deps.js';
import { openApiDocument } from './openapi.js';
import { orderRoutes } from './orders/index.js';
import { readinessAnswer } from './rates/index.js';
import { checkoutRoutes, checkoutSessionRoutes, closeOrderSessions } from './sessions/index.js';
import { webhookDeliveryRoutes, webhookEndpointRoutes } from './webhooks/index.js';
import { withdrawalRoutes } from './withdrawals/index.js';

export type { ServiceDeps } from './context.js';
export type { MoneyDeps } from './money-deps.js';

/**
 * The prefixes of the keyed API (`X-API-KEY`): every answer under them, refusals included, is
 * `Cache-Control: no-store` (balances, withdrawals and the merchant's customers must not sit in a shared
 * or browser cache). By prefix, so a route added under one inherits both.
 */
export const KEYED_PREFIXES = [
  '/v1/payment-link',
  '/v1/withdrawal',
  '/v1/balance',
  '/v1/checkout-session',
  '/v1/webhook-endpoint',
  '/v1/webhook-delivery',
  '/v1/order',
] as const;

/**
 * Builds the app. The money routes' extra dependencies (rates, session events, the payout worker's
 * wake-up) default when left out; `serve.ts` passes them so it can run and stop them.
 */
export function createApp(baseDeps: ServiceDeps & Partial<MoneyDeps>) {
  const deps = withMoneyDefaults(baseDeps);
  const log = deps.log ?? defaultLogger;
  const links = createLinkCache(deps.db);
  const app = new Hono<AppEnv>();

  // First thing: the request's id, answered in `X-Request-Id` and written on its log lines. Set before
  // the handler builds its response, so the Node adapter does not rebuild it (see the CORS note below).
  app.use(async (c, next) => {
    const incoming = (c.env as AppEnv['Bindings'] | undefined)?.incoming;
    const header = incoming ? incoming.headers['x-request-id'] : c.req.header('x-request-id');
    const id = requestIdFrom(typeof header === 'string' ? header : undefined);
    c.set('requestId', id);
    c.header('x-request-id', id);
    await next();
  });

  app.onError((error, c) => {
    if (error instanceof ApiError) {
      return c.json(error.toJSON(), error.statusCode as 400, error.headers);
    }
    const context = { requestId: c.get('requestId'), method: c.req.method, route: c.req.routePath };
    const incoming = (c.env as AppEnv['Bindings'] | undefined)?.incoming;
    if (incoming && (incoming.readableAborted || incoming.destroyed) && !incoming.complete) {
      // The client broke off its upload: nobody reads the answer, and it is no fault of ours.
      log.info('body_aborted', 'the client broke off the request body', context);
      return c.json(new ApiError(400, 'unreadable_body', 'The request body could not be read').toJSON(), 400);
    }
    // Never a stack trace to the caller, never request data in the log: the one shape out, the error's
    // class, SQLSTATE, quote-blanked message and frames in (server/log.ts).
    log.error('internal_error', 'unexpected error', { ...context, error });
    return c.json(internalError().toJSON(), 500);
  });
  app.notFound((c) => c.json(new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}`).toJSON(), 404));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => readinessAnswer(c, deps.rates, deps.now()));
  app.get('/v1/openapi.json', (c) => c.json(openApiDocument()));

  const limitBody = bodyLimit({
    maxSize: 256 * 1024,
    onError: () => {
      throw new ApiError(413, 'body_too_large', 'The request body is larger than 256 KiB');
    },
  });
  // Reads have no body to limit; skipping them also spares the Node adapter from building a full
  // fetch Request (abort signal and all), which costs more than the rest of a cached read.
  app.use('/v1/*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));

  // The checkout API is keyless and public, so any page may call it directly. The header is set
  // before the handler builds its response: adding it afterwards (as hono/cors does) makes the Node
  // adapter rebuild every response as a full fetch Response, which cost three quarters of a cached
  // read's time in `npm run bench`.
  app.use('/v1/checkout/*', async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      return c.body(null, 204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'Content-Type, Accept, Last-Event-ID',
        'access-control-max-age': '600',
      });
    }
    c.header('access-control-allow-origin', '*');
    await next();
  });

  const keyed = requireKey(deps.db);
  const noStore: MiddlewareHandler<AppEnv> = (c, next) => {
    c.header('cache-control', 'no-store');
    return next();
  };
  for (const prefix of KEYED_PREFIXES) {
    for (const path of [prefix, `${prefix}/*`]) app.use(path, noStore, keyed);
  }

  app.route('/v1/payment-link', paymentLinkRoutes(deps, links));
  app.route('/v1/checkout', checkoutRoutes(deps, links));
  app.route('/v1/withdrawal', withdrawalRoutes(deps));
  app.route('/v1/balance', balanceRoutes(deps));
  app.route('/v1/checkout-session', checkoutSessionRoutes(deps));
  app.route('/v1/webhook-endpoint', webhookEndpointRoutes(deps));
  app.route('/v1/webhook-delivery', webhookDeliveryRoutes(deps));
  app.route('/v1/order', orderRoutes(deps, closeOrderSessions));
  hostedPageRoutes(app, deps, links);
  app.get('/dist/:file', (c) => serveBundle(c.req.raw, c.req.param('file')));
  return app;
}
