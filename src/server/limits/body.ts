/**
 * Request-body rules the service and the proxy share: the largest body either reads, and what counts
 * as JSON. The proxy refuses a non-JSON admin body (415) before the key is added; the service answers
 * 415 to the same bodies on every route that takes one, so both sides must agree on the test.
 */

/** The largest request body, in bytes, the service reads and the proxy forwards by default (256 KiB). */
export const MAX_BODY_BYTES = 256 * 1024;

/** `application/json`, `application/merchant+json`, with parameters. */
export function isJson(type: string | null): boolean {
  return !!type && /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(type.trim());
}
