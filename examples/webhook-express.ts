/**
 * Receiving Paylink webhooks in Express. The route reads the body raw (`express.raw`) and hands the
 * bytes to `verifyWebhook`: the signature covers the exact bytes sent, which `express.json()` would
 * parse and lose. Answer 2xx fast (within 10 s) and do slow work afterwards; a delivery can come more
 * than once (after a timeout, a crash, a retry), always with the same event id, so handle each id once.
 *
 * In your app: `import { verifyWebhook, WebhookVerificationError } from 'paylink/webhooks';`
 */
import express, { type Express } from 'express';
import { verifyWebhook, WebhookVerificationError, type PaylinkWebhookEvent } from '../src/webhooks/index.js';

/** What the shop does with an event it has not seen before. */
export type EventHandler = (event: PaylinkWebhookEvent<Record<string, unknown>>) => Promise<void>;

export function createWebhookApp(options: { secret: string; onEvent: EventHandler }): Express {
  const app = express();
  const handled = new Set<string>(); // in a real shop: a table with a unique event id
  app.post('/paylink/webhooks', express.raw({ type: 'application/json' }), async (req, res) => {
    let event: PaylinkWebhookEvent<Record<string, unknown>>;
    try {
      event = await verifyWebhook(req.body as Buffer, req.get('paylink-signature'), options.secret);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return void res.status(400).send(error.reason);
      throw error;
    }
    if (!handled.has(event.id)) {
      handled.add(event.id);
      await options.onEvent(event); // e.g. on checkout.session.paid: mark order event.data.object.reference as paid
    }
    res.sendStatus(204);
  });
  app.use(express.json()); // the rest of the shop's routes, after the webhook route
  return app;
}
