/**
 * # Room: events
 *
 * Owns: domain events (./record.ts: `recordEvent(tx, event)`, or `recordEvents` for a batch, the one place a change is announced,
 * inside its own transaction) and this instance's fan-out of session changes to its SSE streams
 * (./session-events.ts: one read per change, shared by all the streams of a session). The webhook
 * events go through `recordEvent` too: it hands them to the webhooks room's outbox
 * (`enqueueWebhookEvents`), in the same transaction, and wakes the delivery workers with a NOTIFY.
 *
 * May touch: no table of its own; the webhook outbox only through `enqueueWebhookEvents`. Every room
 * records its events through `recordEvent`; none calls `pg_notify` itself.
 */
export {
  announce,
  LINK_CHANNEL,
  SESSION_CHANNEL,
  WEBHOOK_CHANNEL,
  WITHDRAWAL_CHANNEL,
  recordEvent,
  recordEvents,
  type AnnouncedType,
  type DomainEvent,
} from './record.js';
export { createSessionEvents, type ReadCause, type SessionEvents, type SessionEventsOptions, type SessionSubscriber } from './session-events.js';
