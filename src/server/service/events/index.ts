/**
 * # Room: events
 *
 * Owns: domain events (./record.ts: `recordEvent(tx, event)`, the one place a change is announced,
 * inside its own transaction) and this instance's fan-out of session changes to its SSE streams
 * (./session-events.ts: one read per change, shared by all the streams of a session). Phase 2's
 * webhook outbox lands in `recordEvent` (one more insert per event).
 *
 * May touch: no table today (NOTIFY only). Every room records its events through `recordEvent`;
 * none calls `pg_notify` itself.
 */
export { LINK_CHANNEL, SESSION_CHANNEL, recordEvent, type DomainEvent } from './record.js';
export { createSessionEvents, type ReadCause, type SessionEvents, type SessionEventsOptions, type SessionSubscriber } from './session-events.js';
