/**
 * Recording a domain event: the one place where a room says "this happened, in this transaction".
 * An event recorded inside a transaction takes effect when (and only if) that transaction commits:
 * - `session.changed` and `link.changed` are a `NOTIFY` that every instance listening on the database
 *   hears (session streams, link caches);
 * - `withdrawals.due` is a `NOTIFY` that wakes the payout workers of every instance: a hint to look now
 *   (they poll too), recorded once a burst of withdrawals has been;
 * - the webhook events are written to the webhook outbox (../webhooks/outbox.ts), in
 *   the same transaction, followed by a `NOTIFY` that wakes the delivery workers of every instance. So
 *   an event is never sent for a change that rolled back, nor lost for one that committed.
 */
import type { RefundEventType, SessionEventType, WebhookEventTypeName, WithdrawalEventType } from '../../../core/rules/webhooks.js';
import type { CheckoutSessionRecord, Order, ReconciliationMismatch, Refund, Withdrawal } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import { enqueueWebhookEvents } from '../webhooks/outbox.js';

/** Checkout session changes, heard by the SSE streams of every instance (./session-events.ts). */
export const SESSION_CHANNEL = 'paylink_session_status';

/** Link changes (payload: the slug), heard by the link caches of every instance (../links/cache.ts). */
export const LINK_CHANNEL = 'paylink_link_changed';

/** New webhook deliveries (payload: the event id), heard by the delivery workers of every instance (../webhooks/worker.ts). */
export const WEBHOOK_CHANNEL = 'paylink_webhook_due';

/** New withdrawals to pay out (no payload), heard by the payout workers of every instance (../payouts/worker.ts). */
export const WITHDRAWAL_CHANNEL = 'paylink_withdrawal_due';

/**
 * A change merchants hear of by webhook. `object` is the subject as its keyed GET returns it, read in the
 * recording transaction (so it shows the change) and only when an endpoint of `integratorId` listens.
 */
interface Announcement<Type extends WebhookEventTypeName, Subject> {
  type: Type;
  integratorId: string;
  /** When it happened, on the service clock. */
  at: Date;
  object: () => Promise<Subject>;
}

/** Something that happened to a room's data. */
export type DomainEvent =
  /** A checkout session changed: its status, what was paid, or its expiry. */
  | { type: 'session.changed'; sessionId: string }
  /** A payment link's content or state changed. */
  | { type: 'link.changed'; slug: string }
  /** New withdrawals wait for a payout. */
  | { type: 'withdrawals.due' }
  /**
   * A session was paid (or overpaid), left underpaid by a transfer, or expired; its money became final;
   * the merchant accepted it as paid; a transfer came late; a credit was taken back.
   */
  | Announcement<SessionEventType, CheckoutSessionRecord>
  /** An order was paid in full (once per order). */
  | Announcement<'order.paid', Order>
  /** A withdrawal's payout went out, or failed (its funds returned). */
  | Announcement<WithdrawalEventType, Withdrawal>
  /** A refund was made; its payout went out, or failed (its amount returned). */
  | Announcement<RefundEventType, Refund>
  /** A deposit address of one of the merchant's sessions holds what the books cannot explain (once per raise). */
  | Announcement<'reconciliation.mismatch', ReconciliationMismatch>;

/** Records `event` in the transaction `tx`. Call it from the transaction that makes the change. */
export async function recordEvent(tx: Queryable, event: DomainEvent): Promise<void> {
  await recordEvents(tx, [event]);
}

/**
 * Records several events in the transaction `tx` (a batch of changes made at once), in their order;
 * the delivery workers are woken once for all their webhook events.
 */
export async function recordEvents(tx: Queryable, events: readonly DomainEvent[]): Promise<void> {
  const announcements: Array<Extract<DomainEvent, { integratorId: string }>> = [];
  for (const event of events) {
    if (event.type === 'session.changed') await tx.query('SELECT pg_notify($1, $2)', [SESSION_CHANNEL, event.sessionId]);
    else if (event.type === 'link.changed') await tx.query('SELECT pg_notify($1, $2)', [LINK_CHANNEL, event.slug]);
    else if (event.type === 'withdrawals.due') await tx.query('SELECT pg_notify($1, $2)', [WITHDRAWAL_CHANNEL, '']);
    else announcements.push(event);
  }
  if (announcements.length === 0) return;
  const written = (await enqueueWebhookEvents(tx, announcements)).filter((id) => id !== undefined);
  // The workers read what is due, whatever the payload says: one wake-up is enough.
  if (written.length > 0) await tx.query('SELECT pg_notify($1, $2)', [WEBHOOK_CHANNEL, written.at(-1)]);
}

/** The webhook event types: the events a merchant hears of. */
export type AnnouncedType = Extract<DomainEvent, { integratorId: string }>['type'];

/** The webhook events of `Type`, and what their `object` is (a `Refund` for `refund.*`, …). */
type AnnouncementOf<Type extends AnnouncedType> = Extract<DomainEvent, { type: Type }>;
type SubjectOf<Type extends AnnouncedType> = Awaited<ReturnType<AnnouncementOf<Type>['object']>>;

/**
 * Records a webhook event about each of `subjects` (its type, its id, its merchant) in the transaction
 * `tx` that changed them. Each carries its subject as `read` finds it in `tx` (the keyed GET's view, after
 * the change), read only when an endpoint of that merchant listens; one `read` cannot find is a bug.
 */
export async function announce<Type extends AnnouncedType>(
  tx: Queryable,
  subjects: ReadonlyArray<{ type: Type; id: string; integratorId: string }>,
  at: Date,
  read: (id: string, integratorId: string) => Promise<SubjectOf<Type> | undefined>,
): Promise<void> {
  await recordEvents(
    tx,
    subjects.map(
      ({ type, id, integratorId }) =>
        ({
          type,
          integratorId,
          at,
          object: async () => {
            const subject = await read(id, integratorId);
            if (subject === undefined) throw new Error(`${type}: no ${id} in this transaction`);
            return subject;
          },
        }) as AnnouncementOf<Type>,
    ),
  );
}
