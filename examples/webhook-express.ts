/**
 * Receiving Paylink webhooks in Express. The route reads the body raw (`express.raw`) and hands the
 * bytes to `verifyWebhook`: the signature covers the exact bytes sent, which `express.json()` would
 * parse and lose. Answer 2xx fast (within 10 s) and do slow work afterwards; a delivery can come more
 * than once (after a timeout, a crash, a retry), always with the same event id, so handle each id once.
 * What a shop does with a paid order is examples/order-webhook.ts (`shipPaidOrder`).
 *
 * In your app: `import { verifyWebhook, WebhookVerificationError } from 'paylink/webhooks';`
 */
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { verifyWebhook, WebhookVerificationError, type PaylinkWebhookEvent } from '../src/webhooks/index.js';

/** What the shop does with an event it has not seen before. */
export type EventHandler = (event: PaylinkWebhookEvent<Record<string, unknown>>) => Promise<unknown>;

/**
 * The webhook route's handler, after `express.raw({ type: 'application/json' })`: verifies the
 * delivery (400 with the reason otherwise), hands each event id to `onEvent` once, answers 204.
 */
export function webhookHandler(options: { secret: string | (() => string); onEvent: EventHandler }): RequestHandler {
  const handled = new Set<string>(); // in a real shop: a table with a unique event id
  const handle = async (req: Request, res: Response) => {
    let event: PaylinkWebhookEvent<Record<string, unknown>>;
    try {
      const secret = typeof options.secret === 'string' ? options.secret : options.secret();
      event = await verifyWebhook(req.body as Buffer, req.get('paylink-signature'), secret);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return void res.status(400).send(error.reason);
      throw error;
    }
    if (!handled.has(event.id)) {
      handled.add(event.id);
      await options.onEvent(event); // e.g. shipPaidOrder(event, orders, ship)
    }
    res.sendStatus(204);
  };
  // Express 4 does not catch a rejected promise: hand the error on (a 500, and Paylink retries).
  return (req, res, next) => void handle(req, res).catch(next);
}

export function createWebhookApp(options: { secret: string; onEvent: EventHandler }): Express {
  const app = express();
  app.post('/paylink/webhooks', express.raw({ type: 'application/json' }), webhookHandler(options));
  app.use(express.json()); // the rest of the shop's routes, after the webhook route
  return app;
}
