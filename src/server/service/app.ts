/**
 * The service's HTTP app. `createApp` builds it from its dependencies and listens nowhere:
 * tests call `app.request()`, and `serve.ts` puts it on a port.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { type AppEnv, type ServiceDeps } from './context.js';
import { ApiError } from './errors.js';
import { hostedPageRoutes } from './hosted-page.js';
import { findPrincipal } from './keys.js';
import { openApiDocument } from './openapi.js';
import { type MoneyDeps, withMoneyDefaults } from './money-deps.js';
import { balanceRoutes } from './routes/balance.js';
import { checkoutRoutes } from './routes/checkout.js';
import { paymentLinkRoutes } from './routes/payment-links.js';
import { sessionRoutes } from './routes/sessions.js';
import { withdrawalRoutes } from './routes/withdrawals.js';

export type { ServiceDeps } from './context.js';
export type { MoneyDeps } from './money-deps.js';

/**
 * Builds the app. The money routes' extra dependencies (rates, session events, the payout worker's
 * wake-up) default when left out; `serve.ts` passes them so it can run and stop them.
 */
export function createApp(baseDeps: ServiceDeps & Partial<MoneyDeps>) {
  const deps = withMoneyDefaults(baseDeps);
  const app = new Hono<AppEnv>();

  app.onError((error, c) => {
    if (error instanceof ApiError) {
      return c.json(error.toJSON(), error.statusCode as 400, error.headers);
    }
    // Never a stack trace: the details go to the log, the caller gets the one shape.
    console.error('[paylink] unexpected error', error);
    return c.json({ status: 'error', statusCode: 500, code: 'internal_error', message: 'Something went wrong on our side' }, 500);
  });
  app.notFound((c) => c.json(new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}`).toJSON(), 404));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/v1/openapi.json', (c) => c.json(openApiDocument()));

  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: 256 * 1024,
      onError: () => {
        throw new ApiError(413, 'body_too_large', 'The request body is larger than 256 KiB');
      },
    }),
  );

  // The checkout API is keyless and public, so any page may call it directly.
  app.use('/v1/checkout/*', cors({ origin: '*', allowHeaders: ['Content-Type', 'Accept', 'Last-Event-ID'], maxAge: 600 }));

  const requireKey = async (c: import('hono').Context<AppEnv>, next: () => Promise<void>) => {
    const key = c.req.header('x-api-key');
    if (!key) throw new ApiError(401, 'missing_api_key', 'Send your API key in the X-API-KEY header');
    const principal = await findPrincipal(deps.db, key.trim());
    if (!principal) throw new ApiError(401, 'invalid_api_key', 'The API key is not valid');
    c.set('principal', principal);
    await next();
  };
  for (const prefix of ['/v1/payment-link', '/v1/withdrawal', '/v1/balance']) {
    app.use(prefix, requireKey);
    app.use(`${prefix}/*`, requireKey);
  }

  app.route('/v1/payment-link', paymentLinkRoutes(deps));
  app.route('/v1/checkout', checkoutRoutes(deps));
  app.route('/v1/checkout', sessionRoutes(deps));
  app.route('/v1/withdrawal', withdrawalRoutes(deps));
  app.route('/v1/balance', balanceRoutes(deps));
  hostedPageRoutes(app, deps);
  return app;
}
