/**
 * Creating the order on your server in a Next.js route handler: save as
 * `app/orders/[id]/checkout/route.ts`. The shop's page POSTs here when the customer checks out; the
 * handler prices nothing it is sent: it looks the order up in the shop's own store, makes (or finds) the
 * Paylink order with the API key, and answers its id for `<PaylinkCheckout order={id} />` and its hosted
 * page's `url`. The page pays through the proxy's route handler (examples/next-route.ts), which holds the
 * key; the webhook (examples/webhook-next-route.ts) ships the order.
 *
 * In your app: `import { createPaylinkClient } from 'paylink/client';`
 */
import type { PaylinkClient } from '../src/client/index.js';
import { paylinkClient, paylinkOrderFor } from './node-client.js';
import { memoryShopOrders, type ShopOrders } from './order-webhook.js';

/** The handler, given the client (built on first use) and the shop's orders. */
export function createOrderCheckoutRoute(client: () => PaylinkClient, orders: ShopOrders) {
  return async function POST(_request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
    const { id } = await context.params;
    const order = await orders.find(id); // priced by this server, never by the page
    if (!order) return Response.json({ error: 'No such order' }, { status: 404 });
    const made = await paylinkOrderFor(client(), order);
    await orders.setPaylinkOrder(order.id, made.id);
    return Response.json({ order: made.id, url: made.url });
  };
}

let paylink: PaylinkClient | undefined;
const orders = memoryShopOrders([]); // replace with your store
/** Next.js calls this; the client is built on the first request, so `next build` doesn't need the key. */
export const POST = createOrderCheckoutRoute(() => (paylink ??= paylinkClient()), orders);
export const dynamic = 'force-dynamic';
