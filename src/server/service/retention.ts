/**
 * Retention: never-paid sessions are deleted `PAYLINK_SESSION_RETENTION_DAYS` (default 30)
 * after they expired (../sessions/retention.ts says which), and webhook events older than the same
 * window with nothing left to deliver go too (they carry the customers' details of the sessions they
 * describe). A background job on every instance; batches skip rows another instance holds.
 */
import type { Database } from '../db/index.js';
import { defaultLogger, type Logger } from '../log.js';
import { deleteNeverPaidSessions } from './sessions/index.js';
import { deleteEventsBefore } from './webhooks/index.js';

/** Days a never-paid session is kept after it expired. */
export const DEFAULT_RETENTION_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Reads `PAYLINK_SESSION_RETENTION_DAYS`: a whole number of days ≥ 1, or the default when unset. */
export function readRetentionDays(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_RETENTION_DAYS;
  const days = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(days) || days < 1)
    throw new Error(`PAYLINK_SESSION_RETENTION_DAYS must be a whole number of days (at least 1), not "${value}"`);
  return days;
}

/** Deletes what the window has passed at `now`; resolves with how many sessions and webhook events went. */
export async function applyRetention(db: Database, now: Date, retentionDays: number): Promise<{ sessions: number; webhookEvents: number }> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  const sessions = await deleteNeverPaidSessions(db, before);
  let webhookEvents = 0;
  for (let count = 500; count === 500; webhookEvents += count) count = await db.transaction((tx) => deleteEventsBefore(tx, before, 500));
  return { sessions, webhookEvents };
}

/** Runs `applyRetention` every `intervalMs` (and once soon after start); returns the stop function. */
export function startRetentionSweep(
  deps: { db: Database; now: () => Date; log?: Logger | undefined },
  retentionDays: number,
  intervalMs: number,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = running
      .then(() => applyRetention(deps.db, deps.now(), retentionDays))
      .catch((error) =>
        (deps.log ?? defaultLogger).error('retention_sweep_failed', 'the retention sweep failed; it runs again at its next interval', { error }),
      );
  };
  const first = setTimeout(run, Math.min(intervalMs, 60_000));
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
