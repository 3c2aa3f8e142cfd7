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
import { findDelivery, insertDeliveries, listDeliveries as listDeliveryRows, scheduleNow, type ClaimedDelivery, type DeliveryRow } from './delivery-repository.js';
import {
  deleteEndpoint as deleteEndpointRow,
  findEndpoint,
  insertEndpoint,
  listEndpoints as listEndpointRows,
  updateEndpoint as updateEndpointRow,
  type EndpointRow,
} from './endpoint-repository.js';
import { insertEvent } from './event-repository.js';
import { eventBody, newEventId } from './outbox.js';
import { checkHost, PrivateAddressError } from './ssrf.js';
import { attemptNow, claimNow, type WebhookDeps } from './worker.js';

/** An endpoint as the API returns it: never its secret. */
export function toWebhookEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    isActive: row.is_active,
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
 * The SSRF check of a new or changed URL: a host that is, or resolves to, a private address is refused
 * (400 on `url`, naming the host as given, never what it resolved to) unless private endpoints are
 * allowed. A host that does not resolve (yet) is accepted: deliveries check it again, and are retried
 * while it fails.
 */
async function checkEndpointHost(deps: WebhookDeps, url: string | undefined): Promise<void> {
  const { allowPrivate, resolveHost } = deps.webhooks;
  if (url === undefined || allowPrivate) return;
  try {
    await checkHost(new URL(url).hostname, resolveHost);
  } catch (error) {
    if (error instanceof PrivateAddressError)
      throw validationError([{ path: 'url', message: `${ruleMessage({ path: 'url', key: 'webhook.urlPrivate' })} (host ${error.hostname})` }]);
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
      const created: WebhookEndpointCreated = { ...toWebhookEndpoint(row), secret };
      return { statusCode: 201, body: { ...created } };
    }),
  );
}

/** `GET /v1/webhook-endpoint/{id}`: the caller's own endpoint, else 404. */
export async function getEndpoint(deps: WebhookDeps, principal: Principal, id: string): Promise<WebhookEndpoint> {
  return toWebhookEndpoint(await ownEndpoint(deps, principal, id));
}

async function ownEndpoint(deps: WebhookDeps, principal: Principal, id: string): Promise<EndpointRow> {
  const row = isUuid(id) ? await findEndpoint(deps.db, principal.integratorId, id) : undefined;
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/** `GET /v1/webhook-endpoint`: the caller's endpoints, newest first. */
export async function listEndpoints(deps: WebhookDeps, principal: Principal, page: { page: number; limit: number }): Promise<WebhookEndpointList> {
  const { rows, totalItems } = await listEndpointRows(deps.db, principal.integratorId, page);
  return { items: rows.map(toWebhookEndpoint), meta: pageMeta(totalItems, rows.length, page) };
}

/** `PATCH /v1/webhook-endpoint`: changes what the body names of the caller's endpoint `id`. */
export async function updateEndpoint(
  deps: WebhookDeps,
  principal: Principal,
  input: z.output<typeof UpdateWebhookEndpointInput>,
): Promise<WebhookEndpoint> {
  const id = input.id.trim();
  await ownEndpoint(deps, principal, id);
  const fields = await checkEndpointInput(deps, input, false);
  const row = await updateEndpointRow(deps.db, principal.integratorId, id, { ...fields, isActive: input.isActive }, deps.now());
  if (!row) throw notFound('Webhook endpoint');
  return toWebhookEndpoint(row);
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
      await insertEvent(tx, { id: eventId, integratorId: principal.integratorId, type: WEBHOOK_TEST_EVENT_TYPE, body: eventBody(eventId, WEBHOOK_TEST_EVENT_TYPE, now, object), createdAt: now });
      await insertDeliveries(tx, { ids: [deliveryId], endpointIds: [endpoint.id], eventId, dueAt: now, retryUntil: now });
      claimed = await claimNow(tx, deps, deliveryId);
    },
    async () => {
      await attemptNow(deps, claimed);
      return { statusCode: 200, body: { ...(await getDelivery(deps, principal, deliveryId)) } };
    },
  );
}
