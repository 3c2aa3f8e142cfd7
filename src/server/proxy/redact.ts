/**
 * What of an upstream answer may go back to a browser: the headers that are neither hop-by-hop,
 * recomputed, cookies nor CORS (the proxy sets its own), and nothing that contains the API key, in
 * headers, byte bodies or live streams (replaced by `[redacted]`).
 *
 * Boundary: the one place answers are cleaned; the forwarder calls it on every upstream answer.
 */
import { concat, headerRecord } from './messages.js';

/** What the key is replaced with in bodies. */
export const REDACTED = '[redacted]';

/** Response headers never passed back: hop-by-hop, recomputed, cookies, and CORS (the proxy sets its own). */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'set-cookie',
  'x-api-key',
  'proxy-authenticate',
  'upgrade',
  'trailer',
]);

const encoder = new TextEncoder();

/** Cleans answers of one secret. */
export interface Redactor {
  /** The bytes with every occurrence of the secret replaced (the same array when there is none). */
  bytes(input: Uint8Array): Uint8Array;
  /** The headers that may go back, from `[name, value, …]` pairs, joined per name as `Headers` would. */
  headers(raw: readonly string[]): Record<string, string>;
  /** A stream redactor that holds back only a tail that could be the start of the secret. */
  stream(): TransformStream<Uint8Array, Uint8Array>;
}

/** A redactor for `secret` (the API key); a `TypeError` for an empty one. */
export function createRedactor(secret: string): Redactor {
  if (!secret) throw new TypeError('createRedactor needs a non-empty secret');
  const needle = encoder.encode(secret);
  const replacement = encoder.encode(REDACTED);
  const lowerSecret = secret.toLowerCase();

  function indexOf(haystack: Uint8Array, from: number): number {
    const first = needle[0]!;
    for (let i = haystack.indexOf(first, from); i !== -1 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
      let j = 1;
      while (j < needle.length && haystack[i + j] === needle[j]) j++;
      if (j === needle.length) return i;
    }
    return -1;
  }

  function bytes(input: Uint8Array): Uint8Array {
    let at = indexOf(input, 0);
    if (at === -1) return input;
    const parts: Uint8Array[] = [];
    let start = 0;
    while (at !== -1) {
      parts.push(input.subarray(start, at), replacement);
      start = at + needle.length;
      at = indexOf(input, start);
    }
    parts.push(input.subarray(start));
    return concat(parts);
  }

  /** Length of the longest end of `input` that is a proper beginning of the key (it may continue in the next chunk). */
  function partialTail(input: Uint8Array): number {
    for (let length = Math.min(needle.length - 1, input.length); length > 0; length--) {
      let j = 0;
      while (j < length && input[input.length - length + j] === needle[j]) j++;
      if (j === length) return length;
    }
    return 0;
  }

  return {
    bytes,
    headers(raw) {
      const out = headerRecord();
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i]!.toLowerCase();
        if (DROPPED_RESPONSE_HEADERS.has(name) || name.startsWith('access-control-')) continue;
        const value = raw[i + 1]!;
        const previous = out[name];
        out[name] = previous === undefined ? value : `${previous}, ${value}`;
      }
      for (const name of Object.keys(out)) {
        if (out[name]!.toLowerCase().includes(lowerSecret)) delete out[name];
      }
      return out;
    },
    stream() {
      // An event ends in a blank line, never part of a key, so each event is passed on at once.
      let pending: Uint8Array = new Uint8Array(0);
      return new TransformStream({
        transform(chunk, controller) {
          const joined = bytes(pending.length ? concat([pending, chunk]) : chunk);
          const hold = partialTail(joined);
          pending = joined.slice(joined.length - hold);
          if (joined.length - hold > 0) controller.enqueue(joined.subarray(0, joined.length - hold));
        },
        flush(controller) {
          if (pending.length) controller.enqueue(pending);
        },
      });
    },
  };
}
