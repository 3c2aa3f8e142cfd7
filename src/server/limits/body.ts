/**
 * What counts as a JSON request body, for the service and the proxy alike: the proxy refuses a non-JSON
 * admin body (415) before the key is added, the service answers 415 to the same bodies on every route
 * that takes one, so both must agree on the test.
 */

/** `application/json`, `application/merchant+json`, with parameters. */
export function isJson(type: string | null): boolean {
  return !!type && /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(type.trim());
}
