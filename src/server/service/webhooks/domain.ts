/**
 * Webhook endpoints and their delivery logs as the API serves them: the rules of
 * `core/rules/webhooks.ts`, the SSRF check of a new or changed URL (./ssrf.ts; checked again at every
 * delivery), the secret made and shown once, the test event, and the manual retry.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { isUuid } from '../../../core/rules/limits.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_SECRET_PREFIX, WEBHOOK_TEST_EVENT_TYPE, checkWebhookEndpoint } from '../../../core/rules/webhooks.js';
import type {
  CreateWebhookEndpointInput,
  ListWebhookDeliveriesQuery,
  RollWebhookSecretInput,
  UpdateWebhookEndpointInput,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointList,
} from '../../../core/schemas.js';
import { pageMeta } from '../context.js';
import { notFound, ruleError, validationError } from '../errors.js';
import { runIdempotent, runIdempotentAcross, storedAnswer, type IdempotencyState, type StoredResponse } from '../idempotency/index.js';
import type { Principal } from '../keys/index.js';
import { ruleMessage } from '../messages.js';
import {
  findDelivery,
  insertDeliveries,
  listDeliveries as listDeliveryRows,
  scheduleNow,
  type ClaimedDelivery,
  type DeliveryRow,
} from './delivery-repository.js';
import {
  deleteEndpoint as deleteEndpointRow,
  findEndpoint,
  insertEndpoint,
  listEndpoints as listEndpointRows,
  rollEndpointSecret,
  updateEndpoint as updateEndpointRow,
  type EndpointRow,
} from './endpoint-repository.js';
import { insertEvent } from './event-repository.js';
import { eventBody, newEventId } from './outbox.js';
import { checkHost } from './ssrf.js';
import { attemptNow, claimNow, type WebhookDeps } from './worker.js';

/** An endpoint as the API returns it at `now`: never its secret, nor an expired predecessor's time. */
export function toWebhookEndpoint(row: EndpointRow, now: Date): WebhookEndpoint {
  const previousUntil = row.previous_secret_expires_at;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    isActive: row.is_active,
    previousSecretExpiresAt: previousUntil && previousUntil > now ? previousUntil.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** A delivery and its log as the API returns them. */
export function toWebhookDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempt_count,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

type EndpointInput = { url?: string | undefined; events?: readonly string[] | undefined; description?: string | undefined };

/** The rules on a create or update body (400 naming each field); returns the fields as stored. */
function endpointFields(deps: WebhookDeps, input: EndpointInput, requireUrl: boolean) {
  const { fields, errors } = checkWebhookEndpoint(input, { allowHttp: deps.webhooks.allowPrivate, requireUrl });
  if (errors.length) throw ruleError(errors);
  return fields;
}

/**
 * The SSRF check of a new or changed URL: unless private endpoints are allowed, its host must resolve,
 * and to public addresses only. A host that does not resolve and one that resolves to a private address
 * get the same 400 on `url`, naming the host as given and never what it resolved to: were the two told
 * apart, a key holder could map the names the service's DNS knows (an internal zone) one guess at a time.
 * Deliveries check the host again.
 */
async function checkEndpointHost(deps: WebhookDeps, url: string | undefined): Promise<void> {
  const { allowPrivate, resolveHost } = deps.webhooks;
  if (url === undefined || allowPrivate) return;
  const hostname = new URL(url).hostname;
  try {
    await checkHost(hostname, resolveHost);
  } catch {
    throw validationError([{ path: 'url', message: `${ruleMessage({ path: 'url', key: 'webhook.urlPrivate' })} (host ${hostname})` }]);
  }
}

/** The rules on a create or update body, then the SSRF check of its URL. */
async function checkEndpointInput(deps: WebhookDeps, input: EndpointInput, requireUrl: boolean) {
  const fields = endpointFields(deps, input, requireUrl);
  await checkEndpointHost(deps, fields.url);
  return fields;
}

/**
 * `POST /v1/webhook-endpoint`: 201 with the secret, which no other answer carries; once per
 * `Idempotency-Key` (a replay answers the first answer, secret included, without resolving the host
 * again; the key with another endpoint is a 409).
 */
export async function createEndpoint(
  deps: WebhookDeps,
  principal: Principal,
  input: z.output<typeof CreateWebhookEndpointInput>,
  idempotency?: IdempotencyState,
): Promise<StoredResponse> {
  const fields = endpointFields(deps, input, true);
  const request = ['POST /v1/webhook-endpoint', fields];
  const replayed = await storedAnswer(deps.db, idempotency, principal.integratorId, request);
  if (replayed) return replayed;
  await checkEndpointHost(deps, fields.url);
  return deps.db.transaction((tx) =>
    runIdempotent(tx, idempotency, principal.integratorId, request, async () => {
      const secret = newWebhookSecret();
      const row = await insertEndpoint(tx, {
        id: randomUUID(),
        integratorId: principal.integratorId,
        url: fields.url!,
        description: fields.description ?? '',
        events: fields.events ?? [...WEBHOOK_EVENT_TYPES],
        secret,
        createdAt: deps.now(),
      });
      const created: WebhookEndpointCreated = { ...toWebhookEndpoint(row, deps.now()), secret };
      return { statusCode: 201, body: { ...created } };
    }),
  );
}

/** `GET /v1/webhook-endpoint/{id}`: the caller's own endpoint, else 404. */
export async function getEndpoint(deps: WebhookDeps, principal: Principal, id: string): Promise<WebhookEndpoint> {
  return toWebhookEndpoint(await ownEndpoint(deps, principal, id), deps.now());
}

async function ownEndpoint(deps: WebhookDeps, principal: Principal, id: string): Promise<EndpointRow> {
  const row = isUuid(id) ? await findEndpoint(deps.db, principal.integratorId, id) : undefined;
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/** `GET /v1/webhook-endpoint`: the caller's endpoints, newest first. */
export async function listEndpoints(deps: WebhookDeps, principal: Principal, page: { page: number; limit: number }): Promise<WebhookEndpointList> {
  const { rows, totalItems } = await listEndpointRows(deps.db, principal.integratorId, page);
  const now = deps.now();
  return { items: rows.map((row) => toWebhookEndpoint(row, now)), meta: pageMeta(totalItems, rows.length, page) };
}

/** `PATCH /v1/webhook-endpoint`: changes what the body names of the caller's endpoint `id`. */
export async function updateEndpoint(deps: WebhookDeps, principal: Principal, input: z.output<typeof UpdateWebhookEndpointInput>): Promise<WebhookEndpoint> {
  const id = input.id.trim();
  await ownEndpoint(deps, principal, id);
  const fields = await checkEndpointInput(deps, input, false);
  const row = await updateEndpointRow(deps.db, principal.integratorId, id, { ...fields, isActive: input.isActive }, deps.now());
  if (!row) throw notFound('Webhook endpoint');
  return toWebhookEndpoint(row, deps.now());
}

/** How long a rolled secret keeps signing beside the new one when the request does not say. */
export const DEFAULT_SECRET_OVERLAP_HOURS = 24;

/**
 * `POST /v1/webhook-endpoint/{id}/roll-secret`: a new secret, answered once (as at creation); the
 * current one keeps signing every delivery beside it (`v1=<new>,v1=<old>`) for `expiresInHours`, so
 * the merchant's receiver can move to the new one without refusing a delivery meanwhile. Once per
 * `Idempotency-Key`: a replay answers the same new secret and rolls nothing.
 */
export async function rollSecret(
  deps: WebhookDeps,
  principal: Principal,
  id: string,
  input: z.output<typeof RollWebhookSecretInput>,
  idempotency?: IdempotencyState,
): Promise<StoredResponse> {
  if (!isUuid(id)) throw notFound('Webhook endpoint');
  const hours = input.expiresInHours ?? DEFAULT_SECRET_OVERLAP_HOURS;
  return deps.db.transaction((tx) =>
    runIdempotent(tx, idempotency, principal.integratorId, ['POST /v1/webhook-endpoint/roll-secret', id, hours], async () => {
      const secret = newWebhookSecret();
      const now = deps.now();
      const previousUntil = hours > 0 ? new Date(now.getTime() + hours * 3_600_000) : null;
      const row = await rollEndpointSecret(tx, principal.integratorId, id, secret, previousUntil, now);
      if (!row) throw notFound('Webhook endpoint');
      const rolled: WebhookEndpointCreated = { ...toWebhookEndpoint(row, now), secret };
      return { statusCode: 200, body: { ...rolled } };
    }),
  );
}

/**
 * A `PATCH` that names `secret`: refused rather than ignored (a merchant who sets a secret and gets a
 * 200 would trust a secret the service never signs with). A secret is made by the service, by a roll.
 */
export function refuseSecretInUpdate(body: Record<string, unknown>): void {
  if (Object.hasOwn(body, 'secret'))
    throw validationError([
      {
        path: 'secret',
        message:
          'secret cannot be set: roll it with POST /v1/webhook-endpoint/{id}/roll-secret, which makes a new one, answers it once, and keeps the current one signing beside it for a while (expiresInHours, default 24)',
      },
    ]);
}

/** `DELETE /v1/webhook-endpoint/{id}`: the endpoint, its pending deliveries and its log. */
export async function deleteEndpoint(deps: WebhookDeps, principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
  if (!isUuid(id) || !(await deleteEndpointRow(deps.db, principal.integratorId, id))) throw notFound('Webhook endpoint');
  return { id, deleted: true };
}

/** `GET /v1/webhook-endpoint/{id}/deliveries`: the endpoint's log, newest first. */
export async function listDeliveries(
  deps: WebhookDeps,
  principal: Principal,
  endpointId: string,
  query: z.output<typeof ListWebhookDeliveriesQuery>,
): Promise<WebhookDeliveryList> {
  await ownEndpoint(deps, principal, endpointId);
  const { rows, totalItems } = await listDeliveryRows(deps.db, endpointId, query.status, query);
  return { items: rows.map(toWebhookDelivery), meta: pageMeta(totalItems, rows.length, query) };
}

/** `GET /v1/webhook-delivery/{id}`: one of the caller's deliveries, else 404. */
export async function getDelivery(deps: WebhookDeps, principal: Principal, id: string): Promise<WebhookDelivery> {
  const row = isUuid(id) ? await findDelivery(deps.db, principal.integratorId, id) : undefined;
  if (!row) throw notFound('Webhook delivery');
  return toWebhookDelivery(row);
}

/**
 * `POST /v1/webhook-delivery/{id}/retry`: sends the delivery's event again now, whatever its state
 * (same event id, new signature), and answers with the delivery after that attempt. A failed retry
 * goes back on the automatic schedule while the event's 3 days last. Once per `Idempotency-Key`: a
 * replay answers the first answer and sends nothing.
 */
export async function retryDelivery(deps: WebhookDeps, principal: Principal, id: string, idempotency?: IdempotencyState): Promise<StoredResponse> {
  if (!isUuid(id)) throw notFound('Webhook delivery');
  let claimed: ClaimedDelivery | undefined;
  return runIdempotentAcross(
    deps.db,
    idempotency,
    principal.integratorId,
    ['POST /v1/webhook-delivery/retry', id],
    async (tx) => {
      if (!(await scheduleNow(tx, principal.integratorId, id, deps.now()))) throw notFound('Webhook delivery');
      claimed = await claimNow(tx, deps, id);
    },
    async () => {
      await attemptNow(deps, claimed);
      return { statusCode: 200, body: { ...(await getDelivery(deps, principal, id)) } };
    },
  );
}

/**
 * `POST /v1/webhook-endpoint/{id}/test`: a `webhook.test` event for this endpoint alone, sent now
 * (even to an inactive endpoint), signed like any other; answers with its delivery after that attempt.
 * A test is not retried on its own (a manual retry sends it again). With an `Idempotency-Key`, a
 * retried request answers the first test's delivery and sends nothing more.
 */
export async function sendTestEvent(deps: WebhookDeps, principal: Principal, endpointId: string, idempotency?: IdempotencyState): Promise<StoredResponse> {
  const endpoint = await ownEndpoint(deps, principal, endpointId);
  const now = deps.now();
  const eventId = newEventId();
  const deliveryId = randomUUID();
  const object = {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    message: 'A test event from Paylink: this endpoint receives and verifies deliveries. It is about no payment.',
  };
  let claimed: ClaimedDelivery | undefined;
  return runIdempotentAcross(
    deps.db,
    idempotency,
    principal.integratorId,
    ['POST /v1/webhook-endpoint/test', endpoint.id],
    async (tx) => {
      await insertEvent(tx, {
        id: eventId,
        integratorId: principal.integratorId,
        type: WEBHOOK_TEST_EVENT_TYPE,
        body: eventBody(eventId, WEBHOOK_TEST_EVENT_TYPE, now, object),
        createdAt: now,
      });
      await insertDeliveries(tx, { ids: [deliveryId], endpointIds: [endpoint.id], eventId, dueAt: now, retryUntil: now });
      claimed = await claimNow(tx, deps, deliveryId);
    },
    async () => {
      await attemptNow(deps, claimed);
      return { statusCode: 200, body: { ...(await getDelivery(deps, principal, deliveryId)) } };
    },
  );
}
