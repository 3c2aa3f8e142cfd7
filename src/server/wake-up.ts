/**
 * The sleep of a worker's loop that a nudge ends early: the payout worker, the webhook worker and
 * the chain scanners look for work, sleep until their next look, and are woken sooner by a NOTIFY of
 * new work, a freed slot, or `stop()`.
 *
 * @example
 * const alarm = createWakeUp();
 * const loop = (async () => {
 *   while (running) {
 *     alarm.reset(); // a nudge during the round is not lost: `woken` tells
 *     const handled = await round();
 *     if (handled > 0 || alarm.woken) continue;
 *     await alarm.sleep(pollMs);
 *   }
 * })();
 * // elsewhere: alarm.wake() on new work; on stop: running = false; alarm.wake(); await loop;
 */

/** A sleep that `wake()` ends early, and a record of whether it was woken since the last `reset()`. */
export interface WakeUp {
  /** Resolves after `ms`, or at the next `wake()`, whichever comes first. */
  sleep(ms: number): Promise<void>;
  /** Ends the sleep under way, if any, and marks the loop woken (`woken`). */
  wake(): void;
  /** True once `wake()` was called since the last `reset()` (or since creation). */
  readonly woken: boolean;
  /** Forgets earlier wakes: call it before a round looks for work. */
  reset(): void;
}

/** A new wake-up for one loop. */
export function createWakeUp(): WakeUp {
  let woken = false;
  let ring: (() => void) | null = null;
  return {
    sleep(ms) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          ring = null;
          resolve();
        }, ms);
        ring = () => {
          clearTimeout(timer);
          ring = null;
          resolve();
        };
      });
    },
    wake() {
      woken = true;
      ring?.();
    },
    get woken() {
      return woken;
    },
    reset() {
      woken = false;
    },
  };
}
