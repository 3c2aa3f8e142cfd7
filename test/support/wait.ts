/**
 * Waiting in tests: on a condition, never on the clock alone. `until` checks its condition every few
 * milliseconds and gives up after a bound no busy machine reaches by accident, naming what it waited for
 * (and, with `explain`, what it saw instead). `eventually` is the same wait with the arguments in the
 * order the money tests write them.
 */
import assert from 'node:assert/strict';

/** Resolves after `ms`: only as the pause between two looks at a condition, or to let time pass on purpose. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface UntilOptions {
  /** The pause between two looks, in ms (default 10). */
  everyMs?: number;
  /** What was there instead, for the failure's message (read once, when the wait fails). */
  explain?: () => string | Promise<string>;
}

/**
 * Resolves once `condition()` holds (it may be async, and may throw to give up early), checking every
 * `everyMs`; rejects after `timeoutMs` with `what`, and `explain()`'s text if given.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000, options: UntilOptions = {}): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) {
      const explain = options.explain;
      const seen = explain ? await (async () => explain())().catch((error: unknown) => `(could not be read: ${String(error)})`) : '';
      assert.fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}${seen ? `:\n${seen}` : ''}`);
    }
    await sleep(options.everyMs ?? 10);
  }
}

/** `until(check, what, timeoutMs)`, looking every 20 ms. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5000, what = 'condition', explain?: () => Promise<string>): Promise<void> {
  await until(check, what, timeoutMs, { everyMs: 20, ...(explain ? { explain } : {}) });
}
