/**
 * Mounting the proxy in a fetch-handler runtime: Hono (on Node, Bun, Deno or workers).
 * The proxy is a plain `(Request) => Promise<Response>`, so it mounts as one route.
 *
 * In your app: `import { createPaylinkProxy } from 'paylink/proxy';`
 */
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { createPaylinkProxy } from '../src/server/proxy/index.js';

export function createShopApp(env: { PAYLINK_URL: string; PAYLINK_API_KEY: string; PAYLINK_ADMIN_TOKEN?: string }) {
  const paylink = createPaylinkProxy({
    upstream: env.PAYLINK_URL,
    apiKey: env.PAYLINK_API_KEY,
    adminToken: env.PAYLINK_ADMIN_TOKEN,
    allowedOrigins: ['https://shop.example'],
  });
  const app = new Hono<{ Bindings: HttpBindings }>();
  // On @hono/node-server, `c.env` carries the socket: the rate limit keys on the client's address.
  app.all('/paylink/*', (c) => paylink(c.req.raw, c.env));
  app.get('/', (c) => c.text('my shop'));
  return app;
}
