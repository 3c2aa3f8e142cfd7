/**
 * Open event streams, per client and in total: what the service's session stream route and the proxy's
 * streams guard count by. A stream holds a slot from the moment it is let through until it ends; past a
 * cap it is refused before anything is read or forwarded: per client a 429 (`too_many_streams`: that one
 * client waits), in total a 503 (`streams_unavailable`: everyone waits), both with `Retry-After`, in the
 * one error shape (the checkout element polls meanwhile). Nobody else's stream is ever dropped to make room.
 * Runtime-neutral.
 */
import type { ErrorCode } from '../../core/errors.js';

/** Why a stream was refused: its client holds its share, or the server holds all it will. */
export type StreamRefusal = 'client' | 'total';

/** Per-client and total count of open streams. */
export interface StreamCounter {
  /**
   * Takes a slot for a stream of `key` (`undefined`: a client that can't be told apart, counted in the
   * total only). A one-shot release, or why it was refused.
   */
  acquire(key: string | undefined): (() => void) | StreamRefusal;
  /** Streams open now, over all clients. */
  readonly open: number;
}

/** What a client refused for too many open streams is told to wait, in seconds. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

/**
 * Counts open streams, refusing past `maxPerClient` for one client and past `maxTotal` in all (`false`:
 * no such cap). A `RangeError` for a cap below 1.
 */
export function createStreamCounter(maxPerClient: number | false, maxTotal: number | false = false): StreamCounter {
  if (maxPerClient !== false && !(maxPerClient >= 1)) throw new RangeError('the event streams per client cap must be >= 1 or false');
  if (maxTotal !== false && !(maxTotal >= 1)) throw new RangeError('the event streams total cap must be >= 1 or false');
  const byKey = new Map<string, number>();
  let open = 0;
  return {
    acquire(key) {
      // The client's own cap first: a client holding its share is told so (429), even when the server is full too.
      const count = key === undefined ? 0 : (byKey.get(key) ?? 0);
      if (key !== undefined && maxPerClient !== false && count >= maxPerClient) return 'client';
      if (maxTotal !== false && open >= maxTotal) return 'total';
      if (key !== undefined) byKey.set(key, count + 1);
      open++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open--;
        if (key === undefined) return;
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

/** The status, code and message of a refusal, for the one error shape. */
export function streamRefusalError(refusal: StreamRefusal): { status: 429 | 503; code: ErrorCode; message: string; retryAfter: string } {
  const retryAfter = String(STREAM_RETRY_AFTER_SECONDS);
  return refusal === 'client'
    ? { status: 429, code: 'too_many_streams', message: `Too many open event streams; retry in ${retryAfter} s`, retryAfter }
    : { status: 503, code: 'streams_unavailable', message: `The server holds all the event streams it can; retry in ${retryAfter} s`, retryAfter };
}
