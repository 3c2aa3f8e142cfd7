/**
 * Recording a domain event: the one place where a room says "this happened, in this transaction".
 * An event recorded inside a transaction takes effect when (and only if) that transaction commits:
 * today each is a `NOTIFY` that every instance listening on the database hears (session streams,
 * link caches); the webhook outbox of phase 2 (DESIGN §8) is one more insert here, in the same
 * transaction, so an event is never sent for a change that rolled back, nor lost for one that committed.
 */
import type { Queryable } from '../../db/index.js';

/** Checkout session changes, heard by the SSE streams of every instance (./session-events.ts). */
export const SESSION_CHANNEL = 'paylink_session_status';

/** Link changes (payload: the slug), heard by the link caches of every instance (../links/cache.ts). */
export const LINK_CHANNEL = 'paylink_link_changed';

/** Something that happened to a room's data. */
export type DomainEvent =
  /** A checkout session changed: its status, what was paid, or its expiry. */
  | { type: 'session.changed'; sessionId: string }
  /** A payment link's content or state changed. */
  | { type: 'link.changed'; slug: string };

/** Records `event` in the transaction `tx`. Call it from the transaction that makes the change. */
export async function recordEvent(tx: Queryable, event: DomainEvent): Promise<void> {
  switch (event.type) {
    case 'session.changed':
      await tx.query('SELECT pg_notify($1, $2)', [SESSION_CHANNEL, event.sessionId]);
      return;
    case 'link.changed':
      await tx.query('SELECT pg_notify($1, $2)', [LINK_CHANNEL, event.slug]);
      return;
  }
}
