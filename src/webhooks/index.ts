/**
 * `paylink/webhooks`: check that a webhook delivery comes from your Paylink service, and read its event.
 *
 * Every delivery is a `POST` whose JSON body is a {@link PaylinkWebhookEvent}, signed in the header
 * `Paylink-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` with the
 * endpoint's secret (`whsec_…`, used as it is, as UTF-8). While a secret is being rolled
 * (`POST /v1/webhook-endpoint/{id}/roll-secret`) the header carries one `v1=` per secret, the new one's
 * first: one matching is enough, so a receiver that still holds the old secret and one that holds the
 * new both pass. A timestamp further than `toleranceSeconds`
 * (default 300) from now, in either direction, is refused, so a captured delivery cannot be replayed
 * later.
 *
 * ```ts
 * const event = await verifyWebhook(await request.text(), request.headers.get('paylink-signature'), secret);
 * ```
 *
 * Verify the raw body exactly as received: parsing and re-serialising the JSON changes the bytes.
 * Web Crypto only, so it runs in Node 20+, Deno, Bun, Cloudflare Workers and browsers.
 */
import { WEBHOOK_EVENT_TYPES, type WEBHOOK_TEST_EVENT_TYPE, type WebhookEventTypeName } from '../core/rules/webhooks.js';

/**
 * The event types a Paylink service sends: the six an endpoint subscribes to, and `webhook.test`, which
 * the admin's "send test event" sends (its `data.object` names the endpoint; it is about no money).
 * A newer service may send more: answer 2xx to the ones you do not handle.
 */
export type PaylinkWebhookEventType = WebhookEventTypeName | typeof WEBHOOK_TEST_EVENT_TYPE;

/** Every event type an endpoint can subscribe to (each of {@link PaylinkWebhookEventType} but `webhook.test`), for runtime checks. */
export const PAYLINK_WEBHOOK_EVENT_TYPES: readonly WebhookEventTypeName[] = WEBHOOK_EVENT_TYPES;

/**
 * One webhook event. `data.object` is the checkout session or withdrawal the event is about, as the
 * matching `GET` returns it. Redeliveries of one event keep its `id`: use it to handle each event once.
 */
export interface PaylinkWebhookEvent<T = unknown> {
  /** `evt_…`, the same on every delivery of this event. */
  id: string;
  type: PaylinkWebhookEventType;
  /** ISO 8601 UTC time of the change. */
  createdAt: string;
  data: { object: T };
}

/** Why a delivery was refused. */
export type WebhookVerificationReason =
  /** No `Paylink-Signature` header. */
  | 'missing_signature'
  /** The header is not `t=<seconds>,v1=<64 hex>[,v1=…]`. */
  | 'malformed_signature'
  /** The timestamp is too old or in the future (beyond `toleranceSeconds`). */
  | 'timestamp_out_of_tolerance'
  /** No `v1` signature matches: another secret, or the body or timestamp changed. */
  | 'signature_mismatch'
  /** The signature is right but the body is not a Paylink event (not JSON, or not `{id, type, createdAt, data}`). */
  | 'invalid_payload';

/** Thrown by {@link verifyWebhook}: answer the delivery with a 400, and log `reason`. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** How far the signature's timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time (default: the clock). */
  now?: Date;
}

const encoder = new TextEncoder();
const HEX_SIGNATURE = /^[0-9a-f]{64}$/i;

/** A body as bytes: strings are UTF-8, exactly as they were received. */
function bodyBytes(rawBody: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof rawBody === 'string') return encoder.encode(rawBody);
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  throw new TypeError('Pass the raw request body (a string or bytes), not parsed JSON: parsing changes the bytes that were signed');
}

async function hmacSha256(secret: string, timestamp: number, body: Uint8Array): Promise<Uint8Array> {
  if (typeof secret !== 'string' || secret === '') throw new TypeError('The webhook secret is empty: pass the whsec_… secret of the endpoint');
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Compares in time that depends on the length only, never on where the first difference is. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/**
 * The `Paylink-Signature` header value of `rawBody` sent at `timestampSeconds`:
 * `t=<timestampSeconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, with one `v1=` per secret
 * when given several (while a secret is rolled: the new one first, then the one it replaces). The
 * service signs deliveries with it; tests use it to build deliveries.
 */
export async function signWebhookPayload(
  secret: string | readonly string[],
  rawBody: string | Uint8Array | ArrayBuffer,
  timestampSeconds: number,
): Promise<string> {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) throw new TypeError(`The timestamp must be whole Unix seconds, not ${timestampSeconds}`);
  const body = bodyBytes(rawBody);
  const signatures = await Promise.all(
    (typeof secret === 'string' ? [secret] : secret).map(async (one) => `v1=${toHex(await hmacSha256(one, timestampSeconds, body))}`),
  );
  if (signatures.length === 0) throw new TypeError('No webhook secret to sign with');
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

/** The timestamp and `v1` signatures of a header; other schemes (`v0=`…) are ignored. */
function parseSignatureHeader(header: string): { timestamp: number; signatures: Uint8Array[] } {
  let timestamp: number | undefined;
  const signatures: Uint8Array[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 1) throw new WebhookVerificationError('malformed_signature', 'The Paylink-Signature header is not a list of key=value pairs');
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,15}$/.test(value)) {
        throw new WebhookVerificationError('malformed_signature', 'The Paylink-Signature header needs exactly one t=<unix seconds>');
      }
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!HEX_SIGNATURE.test(value))
        throw new WebhookVerificationError('malformed_signature', 'A v1 signature of the Paylink-Signature header is not 64 hex digits');
      signatures.push(fromHex(value));
    }
  }
  if (timestamp === undefined) throw new WebhookVerificationError('malformed_signature', 'The Paylink-Signature header has no t=<unix seconds>');
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_signature', 'The Paylink-Signature header has no v1 signature');
  return { timestamp, signatures };
}

function isEvent(value: unknown): value is PaylinkWebhookEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  const data = event.data as Record<string, unknown> | null | undefined;
  return (
    typeof event.id === 'string' &&
    typeof event.type === 'string' &&
    typeof event.createdAt === 'string' &&
    typeof data === 'object' &&
    data !== null &&
    'object' in data
  );
}

/**
 * Checks a delivery and returns its event, or throws a {@link WebhookVerificationError} (its `reason`
 * says why). `rawBody` is the request body exactly as received (`await request.text()`, or the raw
 * bytes: with Express, `express.raw({ type: 'application/json' })`); `signatureHeader` is the
 * `Paylink-Signature` header; `secret` is the endpoint's `whsec_…` secret, or several of them: while
 * you move to a rolled secret, pass the new one and the old, and a delivery signed with either passes.
 */
export async function verifyWebhook<T = unknown>(
  rawBody: string | Uint8Array | ArrayBuffer,
  signatureHeader: string | null | undefined,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<PaylinkWebhookEvent<T>> {
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  if (!(toleranceSeconds >= 0)) throw new TypeError(`toleranceSeconds must be 0 or more, not ${toleranceSeconds}`);
  const body = bodyBytes(rawBody);
  if (!signatureHeader?.trim()) throw new WebhookVerificationError('missing_signature', 'The request has no Paylink-Signature header');
  const { timestamp, signatures } = parseSignatureHeader(signatureHeader);

  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `The signature's timestamp is ${Math.abs(nowSeconds - timestamp)} s ${timestamp < nowSeconds ? 'old' : 'in the future'}; at most ${toleranceSeconds} s is accepted`,
    );
  }

  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0) throw new TypeError('The webhook secret is empty: pass the whsec_… secret of the endpoint');
  // Every candidate is compared with every secret (no early exit), each in constant time.
  let matched = false;
  for (const one of secrets) {
    const expected = await hmacSha256(one, timestamp, body);
    for (const signature of signatures) matched = constantTimeEqual(signature, expected) || matched;
  }
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'No signature of the Paylink-Signature header matches this body and secret');

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not JSON');
  }
  if (!isEvent(event)) throw new WebhookVerificationError('invalid_payload', 'The body is not a Paylink event ({id, type, createdAt, data: {object}})');
  return event as PaylinkWebhookEvent<T>;
}
