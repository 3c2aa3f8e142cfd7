/**
 * A shop's checkout in Express, the plugin author's path whole: the shop's server prices the cart and
 * creates the Paylink order with its key (`POST /orders/:id/checkout` for a script, or the page
 * `GET /orders/:id/pay`, which renders `<paylink-checkout order="…">`); the page pays that order through
 * the proxy at `/paylink`, which holds the key; the webhook ships the order once Paylink says it is paid,
 * after checking the payment is the one the shop priced (examples/order-webhook.ts).
 *
 * In your app: `import { createPaylinkClient } from 'paylink/client';`,
 * `import { createNodeUpstream, createPaylinkProxy, toNodeHandler } from 'paylink/proxy';` and
 * `import { serveBundle } from 'paylink/server';`
 */
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Order } from '../src/client/index.js';
import { serveBundle } from '../src/server/bundles.js';
import { createNodeUpstream, createPaylinkProxy, toNodeHandler } from '../src/server/proxy/index.js';
import { paylinkClient, paylinkOrderFor } from './node-client.js';
import { shipPaidOrder, type ShopOrders } from './order-webhook.js';
import { webhookHandler } from './webhook-express.js';

export interface OrderShopOptions {
  /** The Paylink service's origin, and the shop's API key (server side only). */
  paylinkUrl: string;
  apiKey: string;
  /** The secret of the shop's webhook endpoint (`whsec_…`), read when a delivery comes. */
  webhookSecret: () => string;
  orders: ShopOrders;
  /** Sends the goods: called once per paid order. */
  ship: Parameters<typeof shipPaidOrder>[2];
}

export function createOrderShop(options: OrderShopOptions): Express {
  const { orders } = options;
  const paylink = paylinkClient({ baseUrl: options.paylinkUrl, apiKey: options.apiKey });
  const app = express();

  /** The Paylink order of the shop's order `id` (made now, or the one made before), or undefined. */
  async function checkoutOf(id: string): Promise<Order | undefined> {
    const order = await orders.find(id); // priced by this server, never by the page
    if (!order) return undefined;
    const made = await paylinkOrderFor(paylink, order);
    await orders.setPaylinkOrder(order.id, made.id);
    return made;
  }

  // The webhook first, with its body raw (and before the proxy, which answers everything else under /paylink).
  app.post(
    '/paylink/webhooks',
    express.raw({ type: 'application/json' }),
    webhookHandler({ secret: options.webhookSecret, onEvent: (event) => shipPaidOrder(event, orders, options.ship) }),
  );
  // The page's checkout calls (/paylink/checkout/…) and the script (/paylink/dist/…); the key stays here.
  app.use('/paylink', toNodeHandler(createPaylinkProxy({ upstream: createNodeUpstream(options.paylinkUrl), apiKey: options.apiKey, bundles: serveBundle })));

  // For a script of the shop's own: the order to pay, and its hosted page.
  app.post(
    '/orders/:id/checkout',
    route(async (req, res) => {
      const made = await checkoutOf(req.params.id!);
      if (!made) return void res.sendStatus(404);
      res.json({ order: made.id, url: made.url });
    }),
  );

  // The shop's checkout page: the element pays the order this server made (its id is a UUID: safe in HTML).
  app.get(
    '/orders/:id/pay',
    route(async (req, res) => {
      const made = await checkoutOf(req.params.id!);
      if (!made) return void res.sendStatus(404);
      res.type('html').send(`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Pay your order</title>
    <script type="module" src="/paylink/dist/paylink-checkout.js"></script>
  </head>
  <body style="margin: 1rem">
    <paylink-checkout order="${made.id}"></paylink-checkout>
  </body>
</html>`);
    }),
  );
  return app;
}

/** An async route for Express 4, which does not catch a rejected promise: the error goes to `next` (a 500). */
function route(handler: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res, next) => void handler(req, res).catch(next);
}
