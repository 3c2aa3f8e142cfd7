/**
 * Receiving Paylink webhooks in a Next.js route handler: save as `app/paylink/webhooks/route.ts`.
 * `request.text()` is the raw body, exactly as signed (never `request.json()` first). Answer 2xx within
 * 10 s; the same event may arrive more than once, with the same id: the recipe ships an order once
 * (examples/order-webhook.ts, `shipPaidOrder`), whatever the event id.
 *
 * In your app: `import { verifyWebhook, WebhookVerificationError } from 'paylink/webhooks';`
 */
import { verifyWebhook, WebhookVerificationError, type PaylinkWebhookEvent } from '../src/webhooks/index.js';
import { memoryShopOrders, shipPaidOrder } from './order-webhook.js';

/** The handler, given the endpoint's secret and what to do with a verified event. */
export function createWebhookRoute(secret: () => string, onEvent: (event: PaylinkWebhookEvent<unknown>) => Promise<unknown>) {
  return async function POST(request: Request): Promise<Response> {
    let event;
    try {
      event = await verifyWebhook(await request.text(), request.headers.get('paylink-signature'), secret());
    } catch (error) {
      if (error instanceof WebhookVerificationError) return new Response(error.reason, { status: 400 });
      throw error;
    }
    await onEvent(event);
    return new Response(null, { status: 204 });
  };
}

const orders = memoryShopOrders([]); // replace with your store
const ship = async () => {}; // replace with your fulfilment
/** Next.js calls this; the secret is read when a delivery comes, so `next build` doesn't need it. */
export const POST = createWebhookRoute(
  () => process.env.PAYLINK_WEBHOOK_SECRET!,
  (event) => shipPaidOrder(event, orders, ship),
);
export const dynamic = 'force-dynamic';
