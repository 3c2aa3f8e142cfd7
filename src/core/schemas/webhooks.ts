/**
 * Webhooks: endpoints, their deliveries and attempts, and the events they carry. Part of the wire
 * format (`core/schemas.ts`).
 */
import { z } from 'zod';
import { MAX_COUNT, MAX_LENGTH } from '../rules/limits.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../rules/webhooks.js';
import { AssetIdSchema, formatted, Id, pageOf, paging, textSchema, Timestamp } from './shared.js';
import { CheckoutSessionRecord } from './sessions.js';
import { Withdrawal } from './withdrawals.js';
import { Order } from './orders.js';
import { Refund } from './refunds.js';

/** An event type an endpoint can subscribe to (`core/rules/webhooks.ts`). */
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** A URL the service posts events to. Its secret is never part of it (see `WebhookEndpointCreated`). */
export const WebhookEndpoint = z.object({
  id: Id,
  url: formatted('uri'),
  description: z.string(),
  /** The events it receives. */
  events: z.array(WebhookEventType),
  /** An inactive endpoint receives nothing (events meanwhile are not queued for it). */
  isActive: z.boolean(),
  /** After a secret roll: until when the secret it replaced still signs every delivery beside the new one; null when none does. */
  previousSecretExpiresAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** What `POST /v1/webhook-endpoint` returns: the endpoint and its signing secret, shown this once. */
export const WebhookEndpointCreated = WebhookEndpoint.extend({
  /** `whsec_…`: verify deliveries with it (`verifyWebhook` of `paylink/webhooks`). Store it now: no call returns it again. */
  secret: z.string(),
});
export type WebhookEndpointCreated = z.infer<typeof WebhookEndpointCreated>;

export const WebhookEndpointList = pageOf(WebhookEndpoint);
export type WebhookEndpointList = z.infer<typeof WebhookEndpointList>;

/** What `DELETE /v1/webhook-endpoint/{id}` returns. */
export const WebhookEndpointDeleted = z.object({ id: Id, deleted: z.literal(true) });
export type WebhookEndpointDeleted = z.infer<typeof WebhookEndpointDeleted>;

const webhookUrlInput = textSchema(MAX_LENGTH.url).meta({
  format: 'uri',
  description:
    'Where events are posted: an https:// URL on a public address (http:// and non-public addresses only when the service runs with PAYLINK_WEBHOOK_ALLOW_PRIVATE=1)',
});
const webhookEventsInput = z
  .array(textSchema(MAX_LENGTH.webhookEventType).meta({ enum: [...WEBHOOK_EVENT_TYPES] }))
  .max(MAX_COUNT.webhookEvents)
  .meta({ description: 'The events to receive; every event when left out' });

/** Body of `POST /v1/webhook-endpoint`. */
export const CreateWebhookEndpointInput = z.object({
  url: webhookUrlInput,
  events: webhookEventsInput.optional(),
  description: textSchema(MAX_LENGTH.webhookDescription).optional(),
});
export type CreateWebhookEndpointInput = z.input<typeof CreateWebhookEndpointInput>;

/** Body of `PATCH /v1/webhook-endpoint`: the endpoint named by `id`, every other field optional. */
export const UpdateWebhookEndpointInput = z.object({
  id: textSchema(MAX_LENGTH.id).meta({ format: 'uuid' }),
  url: webhookUrlInput.optional(),
  events: webhookEventsInput.optional(),
  description: textSchema(MAX_LENGTH.webhookDescription).optional(),
  isActive: z.boolean().optional(),
});
export type UpdateWebhookEndpointInput = z.input<typeof UpdateWebhookEndpointInput>;

/** The longest a rolled secret may keep signing beside its successor, in hours (a week). */
export const MAX_SECRET_OVERLAP_HOURS = 168;

/** Body of `POST /v1/webhook-endpoint/{id}/roll-secret`. */
export const RollWebhookSecretInput = z.object({
  expiresInHours: z
    .number()
    .int()
    .min(0)
    .max(MAX_SECRET_OVERLAP_HOURS)
    .meta({
      description: `How long the current secret keeps signing deliveries beside the new one, in hours: 0 stops it now; default 24, at most ${MAX_SECRET_OVERLAP_HOURS}`,
    })
    .optional(),
});
export type RollWebhookSecretInput = z.input<typeof RollWebhookSecretInput>;

/** Query of `GET /v1/webhook-endpoint`. */
export const ListWebhookEndpointsQuery = z.object({ ...paging });

export const WebhookDeliveryStatus = z.enum(WEBHOOK_DELIVERY_STATUSES);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

/** One attempt to deliver an event. */
export const WebhookAttempt = z.object({
  at: Timestamp,
  /** The endpoint's HTTP status; null when no answer came (refused, timed out, private address). */
  statusCode: z.number().int().nullable(),
  /** Why the attempt failed (`HTTP 500`, `timed out after 10 s`, …); null when it was delivered. */
  error: z.string().nullable(),
  durationMs: z.number().int(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

/**
 * One event on its way to one endpoint, and its log. Every attempt of a delivery sends the same
 * event (`eventId`, the `Paylink-Event-Id` header) with a fresh signature.
 */
export const WebhookDelivery = z.object({
  id: Id,
  endpointId: Id,
  /** `evt_…` */
  eventId: z.string(),
  /** One of `WebhookEventType`, or `webhook.test`. */
  eventType: z.string(),
  status: WebhookDeliveryStatus,
  /** Attempts made so far. */
  attemptCount: z.number().int(),
  /** The attempts, oldest first (the latest 50 when there were more). */
  attempts: z.array(WebhookAttempt),
  /** When the next attempt is due (`pending` only); null otherwise. */
  nextAttemptAt: Timestamp.nullable(),
  deliveredAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = pageOf(WebhookDelivery);
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;

/** Query of `GET /v1/webhook-endpoint/{id}/deliveries`, newest first. */
export const ListWebhookDeliveriesQuery = z.object({ ...paging, status: WebhookDeliveryStatus.optional() });

/** `data.object` of a `webhook.test` event (`POST /v1/webhook-endpoint/{id}/test`): the endpoint, about no money. */
export const WebhookTestObject = z.object({ id: Id, object: z.literal('webhook_endpoint'), url: z.string(), message: z.string() });
export type WebhookTestObject = z.infer<typeof WebhookTestObject>;

/**
 * `data.object` of a `reconciliation.mismatch` event: a deposit address of one of the merchant's
 * sessions holds, at a final block, another amount of the session's asset than the books say it
 * received (what was credited there, minus what was swept out of it). Sent once when the difference is
 * found; the operator investigates (docs/operations.md, Reconciliation).
 */
export const ReconciliationMismatch = z.object({
  object: z.literal('reconciliation_mismatch'),
  /** The network the balance was read on. */
  blockchainId: z.string(),
  /** The deposit address. */
  address: z.string(),
  /** The session it served (`GET /v1/checkout-session/{id}`). */
  sessionId: Id,
  assetId: AssetIdSchema,
  /** What the books say it holds, and what the chain holds: exact decimals with all of the token's digits. */
  expected: z.string(),
  actual: z.string(),
  /** The final block the balance was read at. */
  block: z.number().int(),
  /** What the trace found: `unexplained` (no transfer explains the rise), `deficit` (less than the books), `not_credited` (a transfer the settlement did not take), `untraced`. */
  reason: z.string(),
  since: Timestamp,
});
export type ReconciliationMismatch = z.infer<typeof ReconciliationMismatch>;

/**
 * The body of every delivery: `data.object` is the session (a `CheckoutSessionRecord`: the
 * `checkout.session.*` and `payment.late` events), the order (an `Order`: `order.paid`) or the
 * withdrawal (a `Withdrawal`: `withdrawal.*`), the refund (a `Refund`: `refund.*`) as
 * the matching GET returned it when the event happened, a `ReconciliationMismatch` (`reconciliation.mismatch`),
 * or the endpoint for `webhook.test`.
 * `paylink/webhooks`' `verifyWebhook` returns it once the signature checks out.
 */
export const WebhookEvent = z.object({
  /** `evt_…`, the same on every delivery of this event (the `Paylink-Event-Id` header). */
  id: z.string(),
  type: z.string().meta({ description: 'One of `WebhookEventType`, or `webhook.test`' }),
  createdAt: Timestamp,
  data: z.object({ object: z.union([CheckoutSessionRecord, Order, Withdrawal, Refund, ReconciliationMismatch, WebhookTestObject]) }),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;
