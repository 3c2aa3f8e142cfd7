/**
 * Open event streams per client: a route marked `stream` holds a slot from the moment it is let through
 * until its answer settles (the stream ends, fails, is cancelled or its client goes; at once for any
 * other answer, e.g. a 404). Past the cap: 429 `too_many_streams` with `Retry-After` (the checkout
 * element polls meanwhile), and the request never reaches the service.
 *
 * Room for issue 15: a cap on all streams together belongs in `createStreamCounter` (a second count).
 */
import type { Guard } from '../exchange.js';
import { errorOut } from '../messages.js';

/** What a client refused for too many open streams is told to wait. */
const STREAM_RETRY_AFTER_SECONDS = '5';

/** Per-key count of open streams. */
export interface StreamCounter {
  /** A one-shot release, or `undefined` at the cap. */
  acquire(key: string): (() => void) | undefined;
  /** Streams open now, over all keys (for tests and metrics). */
  readonly open: number;
}

/** Counts open streams per client key, refusing past `maxPerClient` (a `RangeError` below 1). */
export function createStreamCounter(maxPerClient: number): StreamCounter {
  if (!(maxPerClient >= 1)) throw new RangeError('maxEventStreams must be >= 1 or false');
  const byKey = new Map<string, number>();
  let open = 0;
  return {
    acquire(key) {
      const count = byKey.get(key) ?? 0;
      if (count >= maxPerClient) return undefined;
      byKey.set(key, count + 1);
      open++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open--;
        const left = (byKey.get(key) ?? 1) - 1;
        if (left > 0) byKey.set(key, left);
        else byKey.delete(key);
      };
    },
    get open() {
      return open;
    },
  };
}

/** Takes a slot for stream routes; other routes pass untouched. */
export function streamsGuard(counter: StreamCounter): Guard {
  return (exchange) => {
    if (!exchange.route?.stream) return undefined;
    const key = exchange.clientKey();
    if (key === undefined) return undefined;
    const release = counter.acquire(key);
    if (!release) {
      return errorOut(429, 'too_many_streams', `Too many open event streams; retry in ${STREAM_RETRY_AFTER_SECONDS} s`, {
        'retry-after': STREAM_RETRY_AFTER_SECONDS,
      });
    }
    exchange.onSettled(release);
    return undefined;
  };
}
