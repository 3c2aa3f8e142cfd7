/**
 * What a payout that waits tells: the operator, in log lines that do not flood (one per wait a minute,
 * or once per reason), and the merchant, in its withdrawal's `stalledReason`, written only when it
 * changes.
 *
 * Reasons (`StalledReason`): `hot_wallet_gas` (the hot wallet cannot pay the gas), `hot_wallet_token`
 * (it holds fewer tokens than the payout sends), `node_unavailable` (no node answered while the payout
 * was prepared, sent or followed), `chain_halted` (payouts on the network are halted). A payout that
 * moves on (a node took it, its receipt was read, it finished) says nothing any more.
 */
import type { StalledReason } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import type { LogFields, Logger } from '../../log.js';
import { HOLDING_REASONS, setStalledReasons } from '../withdrawals/index.js';
import type { StoredTransaction } from './repository.js';

/**
 * When each wait was last logged, by logger (one service's, so two services in one process, as in
 * tests, do not silence each other) and key: one line a minute, not one a round, while a node is down.
 */
const loggedBy = new WeakMap<Logger, Map<string, number>>();

/** How often one wait (one key) is logged while it lasts, in ms. */
const WAIT_LINE_MS = 60_000;

/** Logs a wait under `key` at most once every `WAIT_LINE_MS` (a node that stays down, a store that keeps failing). */
export function logWait(logger: Logger, key: string, level: 'warn' | 'error', code: string, message: string, fields: LogFields): void {
  const now = Date.now();
  let logged = loggedBy.get(logger);
  if (!logged) loggedBy.set(logger, (logged = new Map()));
  if ((logged.get(key) ?? 0) > now - WAIT_LINE_MS) return;
  if (logged.size > 1_000) logged.clear();
  logged.set(key, now);
  logger[level](code, message, fields);
}

/** How long a payout may wait for certainty before the wait is logged as an error: someone must look. */
export const WAIT_ALARM_MS = 30 * 60_000;

/** Waits already logged, by code and transaction: since when, the reason as last told, and whether it was raised to an error. */
const noticed = new Map<string, { since: number; reason: string; alarmed: boolean }>();

/**
 * Logs a payout transaction's wait for certainty (by `code` and hash): the first time this process
 * sees it, again when its reason changes (block numbers aside), and once at error level when it has
 * waited `WAIT_ALARM_MS`.
 */
export function notice(logger: Logger, level: 'warn' | 'info', code: string, row: StoredTransaction, message: string, reason: string): void {
  const key = `${code} ${row.tx_hash}`;
  const shape = reason.replace(/\d+/g, '#');
  const now = Date.now();
  const seen = noticed.get(key);
  const fields = { blockchainId: row.blockchain_id, withdrawalId: row.withdrawal_id ?? undefined, txHash: row.tx_hash, nonce: row.nonce, reason };
  if (!seen || seen.reason !== shape) {
    if (noticed.size > 10_000) noticed.clear();
    noticed.set(key, { since: seen?.since ?? now, reason: shape, alarmed: seen?.alarmed ?? false });
    logger[level](code, message, fields);
    return;
  }
  if (level === 'warn' && !seen.alarmed && now - seen.since >= WAIT_ALARM_MS) {
    seen.alarmed = true;
    logger.error(code, `${message} (waiting for ${Math.round((now - seen.since) / 60_000)} minutes)`, fields);
  }
}

/** Whether a reason is about the hot wallet (its gas money or its tokens). */
export const aboutHotWallet = (reason: StalledReason | null | undefined): boolean => reason === 'hot_wallet_gas' || reason === 'hot_wallet_token';

/**
 * What one round learns of why its withdrawals wait, written at its end in one statement (`flush`),
 * each only where it differs from what was recorded (the rows carry it). The last word on a withdrawal
 * in a round stands.
 */
export class Stalls {
  readonly #changes = new Map<string, { was: StalledReason | null; reason: StalledReason | null }>();
  /** Networks where a payout began or stopped waiting for the hot wallet: held against what it owes at once. */
  readonly hotWallet = new Set<string>();

  /** Withdrawal `id` (recorded as `was`) waits for `reason`, or (null) no longer waits. */
  set(id: string | null, was: StalledReason | null | undefined, reason: StalledReason | null): void {
    if (!id) return;
    const earlier = this.#changes.get(id);
    this.#changes.set(id, { was: earlier?.was ?? was ?? null, reason });
  }

  /** What a row's withdrawal was found waiting for (or not), by a stored transaction. */
  row(row: StoredTransaction, reason: StalledReason | null): void {
    this.set(row.withdrawal_id, row.stalled_reason, reason);
  }

  /** A withdrawal held for the hot wallet as it was released (recorded already): its network is looked at. */
  held(blockchainId: string): void {
    this.hotWallet.add(blockchainId);
  }

  /** Writes the changes; notes the networks whose hot wallet a change was about. */
  async flush(db: Queryable, now: Date): Promise<void> {
    const changes = [...this.#changes]
      .filter(([, change]) => change.was !== change.reason)
      .map(([id, change]) => ({ id, reason: change.reason, was: change.was }));
    this.#changes.clear();
    if (changes.length === 0) return;
    const changed = await setStalledReasons(db, changes, now);
    const was = new Map(changes.map((change) => [change.id, change.was]));
    for (const row of changed) if (aboutHotWallet(row.stalled_reason) || aboutHotWallet(was.get(row.id))) this.hotWallet.add(row.blockchain_id);
  }
}

export { HOLDING_REASONS };
