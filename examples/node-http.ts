/**
 * Mounting the proxy in a plain `node:http` server, next to the merchant's own routes.
 *
 * In your app: `import { createPaylinkProxy, toNodeHandler } from 'paylink/proxy';`
 */
import { createServer, type Server } from 'node:http';
import { createPaylinkProxy, toNodeHandler } from '../src/server/proxy/index.js';

export function createMerchantServer(env: Record<string, string | undefined> = process.env): Server {
  const paylink = toNodeHandler(
    createPaylinkProxy({
      upstream: env.PAYLINK_URL ?? 'http://127.0.0.1:8787',
      apiKey: env.PAYLINK_API_KEY!, // stays on this server
      adminToken: env.PAYLINK_ADMIN_TOKEN, // <paylink-admin>'s bearer token
      allowedOrigins: ['https://shop.example'], // pages on other origins that embed the checkout
    }),
  );
  return createServer((req, res) => {
    if (req.url?.startsWith('/paylink/')) return paylink(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('my shop');
  });
}
