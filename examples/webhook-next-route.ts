/**
 * Receiving Paylink webhooks in a Next.js route handler: save as `app/paylink/webhooks/route.ts`.
 * `request.text()` is the raw body, exactly as signed (never `request.json()` first). Answer 2xx within
 * 10 s; the same event may arrive more than once, with the same id.
 *
 * In your app: `import { verifyWebhook, WebhookVerificationError } from 'paylink/webhooks';`
 */
import { verifyWebhook, WebhookVerificationError } from '../src/webhooks/index.js';

/** The shop's own order store (here: what the example needs of it). */
export interface Orders {
  /** Marks the order paid once; false when this event id was handled already. */
  markPaid(reference: string, eventId: string): Promise<boolean>;
}

/** The handler, given the endpoint's secret and the shop's orders. */
export function createWebhookRoute(secret: () => string, orders: Orders) {
  return async function POST(request: Request): Promise<Response> {
    let event;
    try {
      event = await verifyWebhook<{ reference: string | null }>(await request.text(), request.headers.get('paylink-signature'), secret());
    } catch (error) {
      if (error instanceof WebhookVerificationError) return new Response(error.reason, { status: 400 });
      throw error;
    }
    if (event.type === 'checkout.session.paid' && event.data.object.reference) await orders.markPaid(event.data.object.reference, event.id);
    return new Response(null, { status: 204 });
  };
}

const orders: Orders = { markPaid: async () => true }; // replace with your store
/** Next.js calls this; the secret is read when a delivery comes, so `next build` doesn't need it. */
export const POST = createWebhookRoute(() => process.env.PAYLINK_WEBHOOK_SECRET!, orders);
export const dynamic = 'force-dynamic';
