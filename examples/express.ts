/**
 * Mounting the proxy in Express. Put it before `express.json()` (it streams bodies itself); if a body
 * parser runs first anyway, the adapter forwards the parsed `req.body`.
 * The `authorize` hook reuses the shop's own login for `<paylink-admin>`: no second password.
 *
 * In your app: `import { createNodeUpstream, createPaylinkProxy, toNodeHandler } from 'paylink/proxy';`
 */
import express, { type Express } from 'express';
import { createNodeUpstream, createPaylinkProxy, toNodeHandler } from '../src/server/proxy/index.js';

/** The shop's existing session check (here: a cookie that names a signed-in staff member). */
export type SessionLookup = (cookieHeader: string | null) => Promise<{ staff: boolean } | undefined>;

export function createShopApp(options: { upstream: string; apiKey: string; findSession: SessionLookup }): Express {
  const app = express();
  app.use(
    '/paylink',
    toNodeHandler(
      createPaylinkProxy({
        // On Node: keep-alive node:http to the service, cheaper per call than the global fetch (a URL string works too).
        upstream: createNodeUpstream(options.upstream),
        apiKey: options.apiKey,
        allowedOrigins: ['https://shop.example'],
        // Admin routes for signed-in staff only.
        authorize: async (request) => (await options.findSession(request.headers.get('cookie')))?.staff === true,
      }),
    ),
  );
  app.use(express.json());
  app.get('/', (_req, res) => {
    res.type('text/plain').send('my shop');
  });
  return app;
}
