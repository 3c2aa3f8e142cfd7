/**
 * Retention of sessions: a session that was never paid is deleted
 * `PAYLINK_SESSION_RETENTION_DAYS` (default 30) after it expired. "Never paid" means it received no
 * transfer at all, late ones included: a transfer is in the ledger, and nothing the ledger refers to,
 * directly or through a transfer, is ever deleted.
 */
import type { Database } from '../../db/index.js';
import { deleteNeverPaidExpired } from './record-repository.js';

/** Deletes the never-paid sessions that expired before `expiredBefore`, in batches; returns how many. */
export async function deleteNeverPaidSessions(db: Database, expiredBefore: Date, batch = 500): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await db.transaction((tx) => deleteNeverPaidExpired(tx, expiredBefore, batch));
    deleted += count;
    if (count < batch) return deleted;
  }
}
