/**
 * Request bodies: read whole (they are small JSON) up to `maxBodyBytes`, 413 `body_too_large` past it
 * (by `Content-Length` before reading, or while reading), 400 `unreadable_body` when the client breaks
 * off. Where the area says `json`, a non-empty body must be `application/json` (415 otherwise), as the
 * service itself requires: refused here, a cross-site form (no preflight) posting to an admin route
 * with the merchant's cookies never reaches the service with the merchant's key.
 */
import { isJson } from '../../limits/body.js';
import type { Guard } from '../exchange.js';
import { errorOut } from '../messages.js';

/** Reads and checks the body of anything but GET and HEAD into `exchange.body`; `jsonOnly` where the area takes JSON only. */
export function bodyGuard(maxBodyBytes: number, jsonOnly: boolean): Guard {
  const tooLarge = () => errorOut(413, 'body_too_large', `The request body is larger than ${maxBodyBytes} bytes`);
  const read: Guard = async (exchange) => {
    const { incoming } = exchange;
    let body: Uint8Array | 'too_large';
    try {
      body = await incoming.readBody(maxBodyBytes);
    } catch {
      return errorOut(400, 'unreadable_body', 'The request body could not be read');
    }
    if (body === 'too_large') return tooLarge();
    if (jsonOnly && body.byteLength > 0 && !isJson(incoming.header('content-type'))) {
      return errorOut(415, 'unsupported_media_type', 'Admin requests with a body must be application/json');
    }
    exchange.body = body;
    return undefined;
  };
  // Synchronous for what has no body, so a GET costs the chain no await.
  return (exchange) => {
    const { incoming } = exchange;
    if (incoming.method === 'GET' || incoming.method === 'HEAD') return undefined;
    if (Number(incoming.header('content-length') ?? '0') > maxBodyBytes) return tooLarge();
    return read(exchange);
  };
}
