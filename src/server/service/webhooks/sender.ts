/**
 * One delivery attempt: `POST url` with the event's body, signed now
 * (`Paylink-Signature: t=…,v1=…` by `signWebhookPayload` of `paylink/webhooks`), with
 * `Paylink-Event-Id`. A 2xx within `timeoutMs` is delivered; anything else (another status, a
 * redirect: redirects are not followed, an error, silence) is a failed attempt with a reason.
 *
 * Sent with `node:http(s)` rather than `fetch`, for the SSRF guard: the connection is pinned to the
 * addresses `guardedLookup` checked (fetch resolves names itself, after any check). One connection
 * per attempt (no keep-alive pool), so no socket outlives its check. The reason of a failure names
 * the status (or says that no connection was made), never the request, the response body or an address.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { WebhookAttempt } from '../../../core/schemas.js';
import { signWebhookPayload } from '../../../webhooks/index.js';
import { guardedLookup, isPrivateAddress, literalAddress, PrivateAddressError } from './ssrf.js';
import type { WebhookSettings } from './settings.js';

/** What a delivery attempt sends. */
export interface Outgoing {
  url: string;
  secret: string;
  /** While a rolled secret still signs: it signs too (`v1=<secret>,v1=<previous>`). */
  previousSecret?: string | null | undefined;
  eventId: string;
  body: string;
}

const USER_AGENT = 'Paylink-Webhooks/1.0';

/**
 * What the delivery log says of every attempt that got no answer for want of a connection: a name that
 * does not resolve, one that resolves to a private address, a refused or reset connection, an
 * unreachable host, a TLS failure. One sentence for all: told apart, they would let a key holder map
 * what the service's network holds (a name its DNS knows, a port that refuses rather than drops, a host
 * that speaks TLS) one endpoint URL at a time. The reason goes to the operator's log (`webhook_connect_failed`).
 */
export const COULD_NOT_CONNECT =
  'Could not connect to the endpoint (its host did not resolve to a public address, or the connection or its TLS handshake failed)';

/** Why a connection failed, for the operator's log only: the error's code (`ENOTFOUND`, `CERT_HAS_EXPIRED`…), `private_address`, or `unknown`. */
function failureCode(error: NodeJS.ErrnoException): string {
  if (error instanceof PrivateAddressError) return 'private_address';
  return typeof error.code === 'string' && /^[A-Z0-9_]{1,64}$/.test(error.code) ? error.code : 'unknown';
}

/**
 * Sends one attempt at `at` (the signature's time); resolves with what happened, never rejects. A
 * connection that fails is said in one sentence (`COULD_NOT_CONNECT`); its reason goes to `onConnectFailure`.
 */
export async function sendAttempt(
  outgoing: Outgoing,
  settings: WebhookSettings,
  at: Date,
  onConnectFailure: (code: string) => void = () => {},
): Promise<WebhookAttempt> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): WebhookAttempt => ({
    at: at.toISOString(),
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  let target: URL;
  try {
    target = new URL(outgoing.url);
  } catch {
    return done(null, 'Refused: the endpoint URL is not valid');
  }
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && settings.allowPrivate))
    return done(null, `Refused: ${target.protocol} endpoints are not posted to`);
  const literal = literalAddress(target.hostname);
  if (literal !== null && !settings.allowPrivate && isPrivateAddress(literal))
    return done(null, `Refused: ${new PrivateAddressError(target.hostname).message}`);

  const secrets = outgoing.previousSecret ? [outgoing.secret, outgoing.previousSecret] : [outgoing.secret];
  const signature = await signWebhookPayload(secrets, outgoing.body, Math.floor(at.getTime() / 1000));
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(outgoing.body)),
    'user-agent': USER_AGENT,
    'Paylink-Event-Id': outgoing.eventId,
    'Paylink-Signature': signature,
  };

  return new Promise<WebhookAttempt>((resolve) => {
    let settled = false;
    const settle = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      resolve(done(statusCode, error));
    };
    const connectFailed = (error: NodeJS.ErrnoException) => {
      if (!settled) onConnectFailure(failureCode(error));
      settle(null, COULD_NOT_CONNECT);
    };
    let request: ClientRequest;
    try {
      request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        headers,
        agent: false,
        lookup: guardedLookup(settings.resolveHost, settings.allowPrivate),
      });
    } catch (error) {
      return connectFailed(error as NodeJS.ErrnoException);
    }
    // The whole exchange, answer and its body, gets `timeoutMs`; then the socket goes.
    const deadline = setTimeout(() => {
      settle(null, `No answer within ${settings.timeoutMs / 1000} s`);
      request.destroy();
    }, settings.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('error', connectFailed);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) settle(status, null);
      else if (status >= 300 && status < 400) settle(status, `HTTP ${status}: redirects are not followed`);
      else settle(status, `HTTP ${status}`);
      // The body is not kept; it is read (and dropped) so the connection can end cleanly.
      response.resume();
      response.on('error', () => {});
    });
    request.end(outgoing.body);
  });
}
