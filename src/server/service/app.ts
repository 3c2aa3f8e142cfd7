/**
 * The service's HTTP app. `createApp` builds it from its dependencies and listens nowhere:
 * tests call `app.request()`, and `serve.ts` puts it on a port.
 *
 * The service is made of rooms, one folder each, every room's boundary written at the top of its
 * `index.ts`: links, orders, sessions (with the public checkout API), withdrawals, refunds, ledger, payouts, keys, rates,
 * plus idempotency and events, which the money rooms share. Each table is written by exactly one
 * room's repository; a room that needs another's table calls that room's functions inside its own
 * transaction. This file only composes them: cross-cutting middleware (the request id, errors and
 * their log lines, body limit, CORS of the public API, `X-API-KEY` and `Cache-Control: no-store` under
 * the keyed prefixes of the route table) and the table's operations: each room's handlers keyed by
 * operation id, mounted by ./operations.ts behind what each entry implies.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { API_ROUTES, type ApiRoute } from '../../core/routes.js';
import { serveBundle } from '../bundles.js';
import { LIMIT_DEFAULTS } from '../limits/options.js';
import { defaultLogger, requestIdFrom } from '../log.js';
import { bearerCheck, metricsRefusal } from '../metrics/endpoint.js';
import { errorBody } from '../../core/errors.js';
import { type AppEnv, type ServiceDeps } from './context.js';
import { ApiError, internalError } from './errors.js';
import { hostedPageRoutes } from './hosted-page.js';
import { requireKey } from './keys/index.js';
import { balanceOperations } from './ledger/index.js';
import { createLinkCache, paymentLinkOperations, type LinkCache } from './links/index.js';
import { type MoneyDeps, type MoneyServiceDeps, withMoneyDefaults } from './money-deps.js';
import { openApiDocument } from './openapi.js';
import { joinRooms, mountOperations, type ServiceOperations } from './operations.js';
import { orderOperations } from './orders/index.js';
import { rateOperations, readinessAnswer } from './rates/index.js';
import { refundOperations } from './refunds/index.js';
import { checkoutOperations, checkoutSessionOperations } from './sessions/index.js';
import { closeOrderSessions } from './money-in/index.js';
import { webhookOperations } from './webhooks/index.js';
import { withdrawalOperations } from './withdrawals/index.js';

export type { ServiceDeps } from './context.js';
export type { MoneyDeps } from './money-deps.js';

/**
 * The prefixes of the keyed API: the first segment below `/v1` of every `key` operation of the route
 * table (`/v1/payment-link`, `/v1/order`, …). Every call under them needs an `X-API-KEY`, and every answer
 * under them, refusals and unknown paths included, is `Cache-Control: no-store` (balances, withdrawals
 * and the merchant's customers must not sit in a shared or browser cache). By prefix, so a path of a
 * keyed resource that the table lacks is a 401 without a key, as the table's paths are; a `public`
 * operation never lies under one (`test/core/routes.test.ts`).
 */
export const KEYED_PREFIXES: readonly string[] = [
  ...new Set((API_ROUTES as readonly ApiRoute[]).filter((route) => route.auth === 'key').map((route) => route.path.split('/', 3).join('/'))),
];

/**
 * Every operation of the route table, by operation id, from the rooms that serve them. The type
 * makes a missing operation a compile error; each room's map makes an unknown one one.
 */
export function serviceOperations(deps: MoneyServiceDeps, links: LinkCache) {
  return joinRooms(
    paymentLinkOperations(deps, links),
    checkoutOperations(deps, links),
    withdrawalOperations(deps),
    balanceOperations(deps),
    checkoutSessionOperations(deps),
    webhookOperations(deps),
    orderOperations(deps, closeOrderSessions),
    refundOperations(deps),
    rateOperations(deps),
  ) satisfies ServiceOperations;
}

/**
 * Builds the app. The money routes' extra dependencies (rates, session events, the payout worker's
 * wake-up) default when left out; `serve.ts` passes them so it can run and stop them.
 */
export function createApp(baseDeps: ServiceDeps & Partial<MoneyDeps>) {
  const deps = withMoneyDefaults(baseDeps);
  const log = deps.log ?? defaultLogger;
  const links = createLinkCache(deps.db);
  const app = new Hono<AppEnv>();

  // Counted and timed around everything else, refusals included (`server/metrics/`).
  if (deps.metrics) app.use(deps.metrics.middleware);

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
  app.get('/readyz', (c) => {
    if (!deps.draining?.()) return readinessAnswer(c, deps.rates, deps.now());
    c.header('cache-control', 'no-store');
    return c.json(errorBody(503, 'draining', 'This instance is stopping: send requests to another one'), 503);
  });
  const metricsToken = deps.metrics?.token;
  if (deps.metrics && metricsToken) {
    const { render } = deps.metrics;
    const authorized = bearerCheck(metricsToken);
    app.get('/metrics', async (c) => {
      if (!authorized(c.req.header('authorization'))) {
        const refusal = metricsRefusal();
        return c.body(refusal.body, refusal.status, refusal.headers);
      }
      const { contentType, body } = await render();
      return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
    });
  }
  app.get('/v1/openapi.json', (c) => c.json(openApiDocument()));

  const tooLarge = () => new ApiError(413, 'body_too_large', `The request body is larger than ${LIMIT_DEFAULTS.maxBodyBytes / 1024} KiB`);
  const limitBody = bodyLimit({
    maxSize: LIMIT_DEFAULTS.maxBodyBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  // Reads have no body to limit; skipping them also spares the Node adapter from building a full
  // fetch Request (abort signal and all), which costs more than the rest of a cached read. A declared
  // length is checked from its header as `bodyLimit` would, without touching `c.req.raw.body` (which
  // builds that Request too: a third of a withdrawal's CPU), so the body is then read straight from
  // the socket; only a body without one (chunked) goes through `bodyLimit`, counted as it streams.
  app.use('/v1/*', (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return limitBody(c, next);
    if (parseInt(length, 10) > LIMIT_DEFAULTS.maxBodyBytes) throw tooLarge();
    return next();
  });

  // The checkout API is keyless and public, so any page may call it directly. The header is set
  // before the handler builds its response: adding it afterwards (as hono/cors does) makes the Node
  // adapter rebuild every response as a full fetch Response, which cost three quarters of a cached
  // read's time in `npm run bench`.
  app.use('/v1/checkout/*', async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      return c.body(null, 204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'Content-Type, Accept, Last-Event-ID, Paylink-Claim',
        'access-control-max-age': '600',
      });
    }
    c.header('access-control-allow-origin', '*');
    await next();
  });

  // The `X-API-KEY` check of the table's `key` operations, by their prefixes: any call under one needs a
  // key (401 without), unknown paths included, and no answer under one sits in a cache.
  const keyed = requireKey(deps.db);
  const noStore: MiddlewareHandler<AppEnv> = (c, next) => {
    c.header('cache-control', 'no-store');
    return next();
  };
  // Hono's `/x/*` matches `/x` itself too: registering `/x` as well ran the key lookup twice there.
  for (const prefix of KEYED_PREFIXES) app.use(`${prefix}/*`, noStore, keyed);

  // The route table's operations, each with its room's handler behind what its entry implies: ./operations.ts.
  mountOperations(app, serviceOperations(deps, links));
  hostedPageRoutes(app, deps, links);
  app.get('/dist/:file', (c) => serveBundle(c.req.raw, c.req.param('file')));
  return app;
}
