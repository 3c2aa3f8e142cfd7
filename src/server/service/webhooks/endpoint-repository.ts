/** The SQL of `webhook_endpoints`: nothing else in the service reads or writes it. */
import type { WebhookEventTypeName } from '../../../core/rules/webhooks.js';
import type { Queryable } from '../../db/index.js';

/** An endpoint as stored (its secret is read only by the sender, through `ClaimedDelivery`). */
export interface EndpointRow {
  id: string;
  integrator_id: string;
  url: string;
  description: string;
  events: WebhookEventTypeName[];
  is_active: boolean;
  /** Until when the secret a roll replaced still signs deliveries (null when no roll left one). */
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, integrator_id, url, description, events, is_active, previous_secret_expires_at, created_at, updated_at';

/** A new endpoint. */
export interface NewEndpoint {
  id: string;
  integratorId: string;
  url: string;
  description: string;
  events: WebhookEventTypeName[];
  secret: string;
  createdAt: Date;
}

export async function insertEndpoint(db: Queryable, endpoint: NewEndpoint): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, integrator_id, url, description, events, secret, is_active, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::text[], $6, true, $7, $7) RETURNING ${COLUMNS}`,
    [endpoint.id, endpoint.integratorId, endpoint.url, endpoint.description, endpoint.events, endpoint.secret, endpoint.createdAt],
  );
  return rows[0]!;
}

/** One of the integrator's endpoints, or undefined (another integrator's too). */
export async function findEndpoint(db: Queryable, integratorId: string, id: string): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND integrator_id = $2`, [id, integratorId]);
  return rows[0];
}

/** One page of the integrator's endpoints, newest first, and how many there are. */
export async function listEndpoints(
  db: Queryable,
  integratorId: string,
  page: { page: number; limit: number },
): Promise<{ rows: EndpointRow[]; totalItems: number }> {
  const count = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM webhook_endpoints WHERE integrator_id = $1', [integratorId]);
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE integrator_id = $1
     ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`,
    [integratorId],
  );
  return { rows, totalItems: count.rows[0]?.total ?? 0 };
}

/** What an update may change; absent fields stay. */
export interface EndpointChange {
  url?: string | undefined;
  description?: string | undefined;
  events?: WebhookEventTypeName[] | undefined;
  isActive?: boolean | undefined;
}

/** Applies `change` to one of the integrator's endpoints; undefined when it is not theirs. */
export async function updateEndpoint(db: Queryable, integratorId: string, id: string, change: EndpointChange, now: Date): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET url = COALESCE($3, url), description = COALESCE($4, description),
       events = COALESCE($5::text[], events), is_active = COALESCE($6, is_active), updated_at = $7
     WHERE id = $1 AND integrator_id = $2 RETURNING ${COLUMNS}`,
    [id, integratorId, change.url ?? null, change.description ?? null, change.events ?? null, change.isActive ?? null, now],
  );
  return rows[0];
}

/**
 * Gives one of the integrator's endpoints the signing secret `secret`. The one it had keeps signing
 * beside it until `previousUntil` (null: it stops now); a secret an earlier roll left is dropped.
 * Undefined when the endpoint is not theirs.
 */
export async function rollEndpointSecret(
  db: Queryable,
  integratorId: string,
  id: string,
  secret: string,
  previousUntil: Date | null,
  now: Date,
): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET previous_secret = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE secret END,
       previous_secret_expires_at = $4, secret = $3, updated_at = $5
     WHERE id = $1 AND integrator_id = $2 RETURNING ${COLUMNS}`,
    [id, integratorId, secret, previousUntil, now],
  );
  return rows[0];
}

/** Deletes one of the integrator's endpoints (its deliveries go with it); false when it is not theirs. */
export async function deleteEndpoint(db: Queryable, integratorId: string, id: string): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND integrator_id = $2 RETURNING id', [id, integratorId]);
  return rows.length === 1;
}

/** The integrator's active endpoints that receive `type`. */
export async function findSubscribedEndpoints(db: Queryable, integratorId: string, type: WebhookEventTypeName): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM webhook_endpoints WHERE integrator_id = $1 AND is_active AND $2 = ANY(events)', [
    integratorId,
    type,
  ]);
  return rows.map((row) => row.id);
}
