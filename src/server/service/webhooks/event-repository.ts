/** The SQL of `webhook_events`, the outbox: nothing else in the service reads or writes it. */
import type { Queryable } from '../../db/index.js';

/** An event as written, with the exact body its deliveries send. */
export interface NewWebhookEvent {
  id: string;
  integratorId: string;
  type: string;
  body: string;
  createdAt: Date;
}

export async function insertEvent(tx: Queryable, event: NewWebhookEvent): Promise<void> {
  await tx.query('INSERT INTO webhook_events (id, integrator_id, type, body, created_at) VALUES ($1, $2, $3, $4, $5)', [
    event.id,
    event.integratorId,
    event.type,
    event.body,
    event.createdAt,
  ]);
}

/**
 * Retention: deletes up to `batch` events written before `before` that no delivery still waits to
 * send (their deliveries and log go with them); returns how many. Events carry customers' details,
 * so they are kept no longer than the sessions they describe.
 */
export async function deleteEventsBefore(tx: Queryable, before: Date, batch: number): Promise<number> {
  const { rows } = await tx.query(
    `DELETE FROM webhook_events WHERE id IN (
       SELECT ev.id FROM webhook_events ev
       WHERE ev.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status = 'pending')
       ORDER BY ev.created_at LIMIT ${batch} FOR UPDATE OF ev SKIP LOCKED)
     RETURNING id`,
    [before],
  );
  return rows.length;
}
