/**
 * One delivery attempt: `POST url` with the event's body, signed now
 * (`Paylink-Signature: t=…,v1=…` by `signWebhookPayload` of `paylink/webhooks`), with
 * `Paylink-Event-Id`. A 2xx within `timeoutMs` is delivered; anything else (another status, a
 * redirect: redirects are not followed, an error, silence) is a failed attempt with a reason.
 *
 * Sent with `node:http(s)` rather than `fetch`, for the SSRF guard: the connection is pinned to the
 * addresses `guardedLookup` checked (fetch resolves names itself, after any check). One connection
 * per attempt (no keep-alive pool), so no socket outlives its check. The reason of a failure names
 * the status or the error, never the request or the response body.
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
  eventId: string;
  body: string;
}

const USER_AGENT = 'Paylink-Webhooks/1.0';

/** What the common connection failures mean, in words that name no address. */
const CONNECTION_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
};

/**
 * A short reason for a failed connection. Node's messages name the address it connected to
 * (`connect ECONNREFUSED 10.0.0.5:443`), which would show a key holder what the service's DNS
 * answered; a reason names the error's code (`CERT_HAS_EXPIRED`, `ERR_TLS_CERT_ALTNAME_INVALID`: TLS's
 * codes say enough) and a fixed sentence instead.
 */
function describe(error: NodeJS.ErrnoException): string {
  if (error instanceof PrivateAddressError) return `Refused: ${error.message}`;
  if (error.code && CONNECTION_FAILURES[error.code]) return `${error.code}: ${CONNECTION_FAILURES[error.code]}`;
  return error.code ? `${error.code}: the connection failed` : 'The connection failed';
}

/** Sends one attempt at `at` (the signature's time); resolves with what happened, never rejects. */
export async function sendAttempt(outgoing: Outgoing, settings: WebhookSettings, at: Date): Promise<WebhookAttempt> {
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
  if (literal !== null && !settings.allowPrivate && isPrivateAddress(literal)) return done(null, `Refused: ${new PrivateAddressError(target.hostname).message}`);

  const signature = await signWebhookPayload(outgoing.secret, outgoing.body, Math.floor(at.getTime() / 1000));
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
    let request: ClientRequest;
    try {
      request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        headers,
        agent: false,
        lookup: guardedLookup(settings.resolveHost, settings.allowPrivate),
      });
    } catch (error) {
      return settle(null, describe(error as NodeJS.ErrnoException));
    }
    // The whole exchange, answer and its body, gets `timeoutMs`; then the socket goes.
    const deadline = setTimeout(() => {
      settle(null, `No answer within ${settings.timeoutMs / 1000} s`);
      request.destroy();
    }, settings.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('error', (error) => settle(null, describe(error)));
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
