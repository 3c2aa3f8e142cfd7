/**
 * The SQL of `webhook_deliveries`: nothing else in the service reads or writes it. Workers claim due
 * deliveries here (`claimDue`, `FOR UPDATE SKIP LOCKED`, with a lease), and record each attempt only
 * under the claim that made it (`recordAttempt`).
 */
import type { WebhookAttempt, WebhookDeliveryStatus } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';

/** How many attempts a delivery's log keeps (the oldest go first). */
export const ATTEMPT_LOG_SIZE = 50;

/** A delivery as the log shows it. */
export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempt_count: number;
  attempts: WebhookAttempt[];
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

const SELECT = `SELECT d.id, d.endpoint_id, d.event_id, ev.type AS event_type, d.status, d.attempt_count, d.attempts,
  d.next_attempt_at, d.delivered_at, d.created_at
  FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id`;

/** Queues `eventId` for each endpoint, due at `dueAt`, retried automatically until `retryUntil`. */
export async function insertDeliveries(
  tx: Queryable,
  delivery: { ids: readonly string[]; endpointIds: readonly string[]; eventId: string; dueAt: Date; retryUntil: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, next_attempt_at, retry_until, created_at, updated_at)
     SELECT delivery.id, delivery.endpoint_id, $3, 'pending', $4, $5, $4, $4
     FROM unnest($1::uuid[], $2::uuid[]) AS delivery(id, endpoint_id)`,
    [delivery.ids, delivery.endpointIds, delivery.eventId, delivery.dueAt, delivery.retryUntil],
  );
}

/** One delivery of one of the integrator's endpoints, or undefined. */
export async function findDelivery(db: Queryable, integratorId: string, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `${SELECT} WHERE d.id = $1 AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.integrator_id = $2)`,
    [id, integratorId],
  );
  return rows[0];
}

/** One page of an endpoint's deliveries, newest first, and how many match. */
export async function listDeliveries(
  db: Queryable,
  endpointId: string,
  status: WebhookDeliveryStatus | undefined,
  page: { page: number; limit: number },
): Promise<{ rows: DeliveryRow[]; totalItems: number }> {
  const where = status === undefined ? 'd.endpoint_id = $1' : 'd.endpoint_id = $1 AND d.status = $2';
  const params = status === undefined ? [endpointId] : [endpointId, status];
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM webhook_deliveries d WHERE ${where}`, params);
  const { rows } = await db.query<DeliveryRow>(
    `${SELECT} WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`,
    params,
  );
  return { rows, totalItems: count.rows[0]?.total ?? 0 };
}

/** A delivery a worker holds: what it sends, where, and with which secret. */
export interface ClaimedDelivery {
  id: string;
  claim_id: string;
  endpoint_id: string;
  url: string;
  secret: string;
  /** The secret a roll replaced, while it still signs (beside `secret`); else null. */
  previous_secret: string | null;
  event_id: string;
  body: string;
  attempt_count: number;
  attempts: WebhookAttempt[];
  retry_until: Date;
}

/**
 * Claims due deliveries for `leaseMs`: up to `batch` pending ones whose time has come, of active
 * endpoints, that no live claim holds (`FOR UPDATE SKIP LOCKED`, so concurrent workers on any number
 * of instances never take the same one). With `onlyId`, that one delivery whenever it is due and
 * whatever its endpoint's state (a test event or a manual retry, sent at once).
 */
export async function claimDue(
  tx: Queryable,
  claim: {
    claimId: string;
    now: Date;
    leaseMs: number;
    batch: number;
    onlyId?: string | undefined;
    /** Deliveries this worker is sending right now: never claimed again by it, even once their lease has run out. */
    skipIds?: readonly string[] | undefined;
  },
): Promise<ClaimedDelivery[]> {
  const onlyOne = claim.onlyId !== undefined;
  const { rows } = await tx.query<ClaimedDelivery>(
    `WITH due AS (
       SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until <= $2)
         AND ${onlyOne ? 'd.id = $5' : 'd.next_attempt_at <= $2 AND e.is_active AND d.id <> ALL($5::uuid[])'}
       ORDER BY d.next_attempt_at LIMIT $4 FOR UPDATE OF d SKIP LOCKED)
     UPDATE webhook_deliveries d SET claim_id = $1, claimed_until = $3
     FROM due, webhook_endpoints e, webhook_events ev
     WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
     RETURNING d.id, d.claim_id, d.endpoint_id, e.url, e.secret,
       CASE WHEN e.previous_secret_expires_at > $2 THEN e.previous_secret END AS previous_secret, ev.id AS event_id, ev.body, d.attempt_count, d.attempts, d.retry_until`,
    [claim.claimId, claim.now, new Date(claim.now.getTime() + claim.leaseMs), claim.batch, onlyOne ? claim.onlyId : [...(claim.skipIds ?? [])]],
  );
  return rows;
}

/** What became of an attempt: delivered, due again at `retryAt`, or failed for good. */
export type AttemptOutcome = { status: 'delivered' } | { status: 'pending'; retryAt: Date } | { status: 'failed' };

/**
 * Records an attempt of a claimed delivery and releases the claim. Only the claim that made the
 * attempt records it: false when the lease ran out and another claim took over (or the endpoint
 * was deleted meanwhile).
 */
export async function recordAttempt(tx: Queryable, claimed: ClaimedDelivery, attempt: WebhookAttempt, outcome: AttemptOutcome, now: Date): Promise<boolean> {
  const attempts = [...claimed.attempts, attempt].slice(-ATTEMPT_LOG_SIZE);
  const { rows } = await tx.query(
    `UPDATE webhook_deliveries SET status = $3, attempt_count = attempt_count + 1, attempts = $4::jsonb,
       next_attempt_at = $5, delivered_at = $6, claim_id = NULL, claimed_until = NULL, updated_at = $7
     WHERE id = $1 AND claim_id = $2 RETURNING id`,
    [
      claimed.id,
      claimed.claim_id,
      outcome.status,
      JSON.stringify(attempts),
      outcome.status === 'pending' ? outcome.retryAt : null,
      outcome.status === 'delivered' ? now : null,
      now,
    ],
  );
  return rows.length === 1;
}

/** Makes one of the integrator's deliveries due now, whatever its state (a manual retry); false when it is not theirs. */
export async function scheduleNow(tx: Queryable, integratorId: string, id: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = $3, delivered_at = NULL, updated_at = $3
     FROM webhook_endpoints e WHERE d.id = $1 AND e.id = d.endpoint_id AND e.integrator_id = $2 RETURNING d.id`,
    [id, integratorId, now],
  );
  return rows.length === 1;
}

/** When the next claimable delivery comes due (or its claim runs out), or null when none waits. */
export async function nextDueAt(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `SELECT min(GREATEST(d.next_attempt_at, COALESCE(d.claimed_until, d.next_attempt_at))) AS at
     FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.status = 'pending' AND e.is_active`,
  );
  return rows[0]?.at ?? null;
}
