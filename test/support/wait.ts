/**
 * Waiting in tests: on a condition, never on the clock alone. `until` checks its condition every few
 * milliseconds and gives up after a bound no busy machine reaches by accident, naming what it waited for
 * (and, with `explain`, what it saw instead).
 */

/** Resolves after `ms`: only as the pause between two looks at a condition, or to let time pass on purpose. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once `condition()` holds (it may be async, and may throw to give up early), checking every
 * `everyMs`; rejects after `timeoutMs` with `what`, and `explain()`'s text if given.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
  options: { everyMs?: number; explain?: () => string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${options.explain ? `:\n${options.explain()}` : ''}`);
    await sleep(options.everyMs ?? 10);
  }
}
