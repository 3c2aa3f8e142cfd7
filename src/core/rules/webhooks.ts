/**
 * The rules of webhooks: the events a service announces, the states of a delivery, and
 * what an endpoint's `url`, `events` and `description` may be. The service runs `checkWebhookEndpoint`
 * on every create and update (after zod has checked the types); the admin's Webhooks view runs the
 * same on the form it is about to send. Whether an endpoint's host is private (loopback, RFC 1918,
 * link-local, cloud metadata) needs DNS, so that check is the service's (`server/service/webhooks/ssrf.ts`).
 * Isomorphic: no DOM, no Node, no zod.
 */
import { MAX_LENGTH } from './limits.js';
import { checkText } from './text.js';
import { RuleErrors, type RuleError } from './types.js';

/**
 * Every event an endpoint can subscribe to, in the order the admin lists them: the one list of event
 * types (the API's enum, the admin's choices, docs/api.md's table are checked against it).
 */
export const WEBHOOK_EVENT_TYPES = [
  'checkout.session.paid',
  'checkout.session.underpaid',
  'checkout.session.expired',
  'checkout.session.finalized',
  'checkout.session.resolved',
  'payment.late',
  'order.paid',
  'payment.reversed',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
  'withdrawal.succeeded',
  'withdrawal.failed',
  'reconciliation.mismatch',
] as const;

/** One event type an endpoint can subscribe to. */
export type WebhookEventTypeName = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event types whose object is a checkout session (`CheckoutSessionRecord`): `checkout.session.*` and `payment.*`. */
export type SessionEventType = Extract<WebhookEventTypeName, `checkout.session.${string}` | `payment.${string}`>;

/** The event types whose object is a refund (`Refund`): `refund.*`. */
export type RefundEventType = Extract<WebhookEventTypeName, `refund.${string}`>;

/** The event types whose object is a withdrawal (`Withdrawal`): `withdrawal.*`. */
export type WithdrawalEventType = Extract<WebhookEventTypeName, `withdrawal.${string}`>;

/**
 * The type of the event `POST /v1/webhook-endpoint/{id}/test` sends: never subscribed to, never about
 * real money (its `data.object` names the endpoint), so a receiver that ignores unknown types ignores it.
 */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

/**
 * A delivery's states: `pending` (waiting for its first attempt or its next retry), `delivered` (an
 * endpoint answered 2xx within 10 s), `failed` (retries ran out after 3 days, or the endpoint was
 * refused as private; a manual retry makes it `pending` again).
 */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** The start of every endpoint secret. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** True when `value` is an event type an endpoint can subscribe to. */
export function isWebhookEventType(value: string): value is WebhookEventTypeName {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** An endpoint's create or update body, with its types already checked. */
export interface WebhookEndpointInput {
  url?: string | undefined;
  events?: readonly string[] | undefined;
  description?: string | undefined;
}

/** What the rules accept: each field as stored, present when the input had it. */
export interface WebhookEndpointFields {
  url?: string;
  events?: WebhookEventTypeName[];
  description?: string;
}

/** Options of {@link checkWebhookEndpoint}. */
export interface WebhookEndpointRuleOptions {
  /**
   * Allow `http:` URLs. The service allows them only where private endpoints are allowed
   * (`PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`): a delivery carries the customer's details, which
   * must not cross the internet in clear.
   */
  allowHttp: boolean;
  /** A create needs `url`; an update changes only what it names. */
  requireUrl: boolean;
}

/**
 * Reads an endpoint URL: absolute, `https:` (or `http:` when allowed), with a host, without
 * credentials (`user:pass@`, which would show in the admin and in logs) or a fragment. Returns the
 * URL as stored (the WHATWG serialisation), or null with an error on `path`.
 */
export function checkWebhookUrl(value: string, path: string, allowHttp: boolean, errors: RuleErrors): string | null {
  const text = value.trim();
  if (text === '') return errors.fail(path, 'webhook.urlRequired');
  if (checkText(text, path, { max: MAX_LENGTH.url }, errors) === null) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return errors.fail(path, 'webhook.urlInvalid');
  }
  if (url.protocol === 'http:' && !allowHttp) return errors.fail(path, 'webhook.urlHttps');
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') return errors.fail(path, 'webhook.urlInvalid');
  if (url.username !== '' || url.password !== '' || url.hash !== '') return errors.fail(path, 'webhook.urlInvalid');
  return url.href;
}

/** Checks an endpoint's create or update body. `fields` holds what may be stored when `errors` is empty. */
export function checkWebhookEndpoint(input: WebhookEndpointInput, options: WebhookEndpointRuleOptions): { fields: WebhookEndpointFields; errors: RuleError[] } {
  const errors = new RuleErrors();
  const fields: WebhookEndpointFields = {};
  if (input.url !== undefined || options.requireUrl) {
    const url = checkWebhookUrl(input.url ?? '', 'url', options.allowHttp, errors);
    if (url !== null) fields.url = url;
  }
  if (input.events !== undefined) {
    const events: WebhookEventTypeName[] = [];
    if (input.events.length === 0) errors.fail('events', 'webhook.eventsRequired');
    input.events.forEach((name, index) => {
      const type = name.trim();
      if (!isWebhookEventType(type)) errors.fail(`events.${index}`, 'webhook.eventUnknown', { events: WEBHOOK_EVENT_TYPES.join(', ') });
      else if (!events.includes(type)) events.push(type);
    });
    // Stored in the order of WEBHOOK_EVENT_TYPES, so two bodies naming the same events store the same list.
    fields.events = WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type));
  }
  if (input.description !== undefined) {
    const description = checkText(input.description, 'description', { max: MAX_LENGTH.webhookDescription }, errors, { trim: true });
    if (description !== null) fields.description = description;
  }
  return { fields, errors: errors.list };
}
