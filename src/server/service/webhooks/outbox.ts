/**
 * The outbox: an event a room records (`recordEvent`, ../events/record.ts) is written here,
 * in the transaction of the change it announces, once, with one delivery per endpoint that listens.
 * The workers (./worker.ts) send what is written; nothing is sent for a change that rolled back, and
 * nothing is lost for one that committed, whatever crashes in between.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { WebhookEventTypeName } from '../../../core/rules/webhooks.js';
import type { Queryable } from '../../db/index.js';
import { insertDeliveries } from './delivery-repository.js';
import { findSubscribedEndpoints } from './endpoint-repository.js';
import { insertEvent } from './event-repository.js';

/** How long a delivery is retried automatically after its event (3 days). */
export const RETRY_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;

/** A new event id: `evt_` and 24 random hex characters. */
export function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

/** The body of every delivery of an event, exactly as signed and sent. */
export function eventBody(id: string, type: string, createdAt: Date, object: unknown): string {
  return JSON.stringify({ id, type, createdAt: createdAt.toISOString(), data: { object } });
}

/** An event to announce: `object` is read (in the same transaction) only when some endpoint listens. */
export interface OutboxEvent {
  type: WebhookEventTypeName;
  integratorId: string;
  /** When it happened, on the service clock: the event's `createdAt`, and when its deliveries are first due. */
  at: Date;
  object: () => Promise<unknown>;
}

/**
 * Writes each event and its deliveries in `tx` when at least one of the integrator's active
 * endpoints listens to its type (nothing is written for one nobody listens to). The endpoints are
 * read once per integrator and type, however many events (a batch of payouts finished at once).
 * Returns each event's id, or undefined where nobody listens, in the events' order.
 */
export async function enqueueWebhookEvents(tx: Queryable, events: readonly OutboxEvent[]): Promise<Array<string | undefined>> {
  const listening = new Map<string, string[]>();
  const ids: Array<string | undefined> = [];
  for (const event of events) {
    const key = `${event.integratorId} ${event.type}`;
    let endpointIds = listening.get(key);
    if (!endpointIds) listening.set(key, (endpointIds = await findSubscribedEndpoints(tx, event.integratorId, event.type)));
    if (endpointIds.length === 0) {
      ids.push(undefined);
      continue;
    }
    const id = newEventId();
    await insertEvent(tx, {
      id,
      integratorId: event.integratorId,
      type: event.type,
      body: eventBody(id, event.type, event.at, await event.object()),
      createdAt: event.at,
    });
    await insertDeliveries(tx, {
      ids: endpointIds.map(() => randomUUID()),
      endpointIds,
      eventId: id,
      dueAt: event.at,
      retryUntil: new Date(event.at.getTime() + RETRY_WINDOW_MS),
    });
    ids.push(id);
  }
  return ids;
}
