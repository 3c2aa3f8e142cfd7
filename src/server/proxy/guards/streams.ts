/**
 * Open event streams per client and in total: a route marked `stream` holds a slot from the moment it is
 * let through until its answer settles (the stream ends, fails, is cancelled or its client goes; at once
 * for any other answer, e.g. a 404). Past the client's cap: 429 `too_many_streams`; past the total cap:
 * 503 `streams_unavailable`; both with `Retry-After` (the checkout element polls meanwhile), and the
 * request never reaches the service. The counter is the service's too (`server/limits/stream-counter.ts`).
 */
import { createStreamCounter, streamRefusalError, type StreamCounter } from '../../limits/stream-counter.js';
import type { Logger } from '../../log.js';
import type { Guard } from '../exchange.js';
import { errorOut } from '../messages.js';

export { createStreamCounter, type StreamCounter };

/** Takes a slot for stream routes; other routes pass untouched. */
export function streamsGuard(counter: StreamCounter, log?: Logger): Guard {
  return (exchange) => {
    if (!exchange.route?.stream) return undefined;
    const key = exchange.clientKey();
    const release = counter.acquire(key);
    if (typeof release === 'string') {
      const refusal = streamRefusalError(release);
      log?.throttled('warn', refusal.code, 'event streams refused', { requestId: exchange.requestId, client: key, open: counter.open });
      return errorOut(refusal.status, refusal.code, refusal.message, { 'retry-after': refusal.retryAfter });
    }
    exchange.onSettled(release);
    return undefined;
  };
}
