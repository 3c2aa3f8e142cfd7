/**
 * # Room: webhooks
 *
 * Owns: the tables `webhook_endpoints` (./endpoint-repository.ts), `webhook_events`, the outbox
 * (./event-repository.ts), and `webhook_deliveries` (./delivery-repository.ts); `/v1/webhook-endpoint*`
 * and `/v1/webhook-delivery*` (./routes.ts, ./domain.ts); the outbox's writer (./outbox.ts:
 * `enqueueWebhookEvents`, called by `recordEvent`/`recordEvents` of the events room inside the transaction of the change);
 * the delivery worker (./worker.ts) and each attempt (./sender.ts); the SSRF guard (./ssrf.ts); and this
 * instance's delivery settings (./settings.ts).
 *
 * May touch: idempotency (`runIdempotent`, for the `Idempotency-Key` of a create or a retry), nothing
 * else of another room. It does not know sessions or withdrawals: the rooms that change
 * them build the event's object (`announceSession`, `announceWithdrawals`) and record it through the
 * events room. Its operations are reached through the route table alone (`webhookOperations`).
 */
export { deleteEventsBefore } from './event-repository.js';
export { enqueueWebhookEvents, eventBody, newEventId, RETRY_WINDOW_MS, type OutboxEvent } from './outbox.js';
export { webhookOperations } from './routes.js';
export { sendAttempt, type Outgoing } from './sender.js';
export {
  DEFAULT_LEASE_MS,
  DEFAULT_RETRY_BASE_MS,
  DELIVERY_TIMEOUT_MS,
  readAllowPrivate,
  readRetryBaseMs,
  resolveWebhookSettings,
  type WebhookSettings,
} from './settings.js';
export { checkHost, guardedLookup, isPrivateAddress, PrivateAddressError, systemResolveHost, type ResolveHost, type ResolvedAddress } from './ssrf.js';
export {
  attemptNow,
  claimNow,
  processDueDeliveries,
  retryDelayMs,
  startWebhookWorker,
  type WebhookDeps,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from './worker.js';
