/**
 * What a reconciliation run found that the books do not explain, said (step 5 of ./reconciler.ts):
 * each difference raised once per address (an error line `reconciliation_mismatch` naming the
 * network, the address, what the books say and what the chain holds; a `reconciliation.mismatch`
 * webhook to the merchant whose session the address served), refreshed while it holds (said again
 * only when the amounts change), cleared (`reconciliation_matched`) once a later run finds them equal;
 * and the network's `reconciliation_mismatch` alert while any address differs.
 */
import { formatUnits, parseUnits } from 'viem';
import type { ReconciliationMismatch } from '../../../core/schemas.js';
import type { Database } from '../../db/index.js';
import type { Logger } from '../../log.js';
import { clearAlert, raiseAlert } from '../alerts/index.js';
import { recordEvent } from '../events/index.js';
import type { DepositAddressRecord } from '../money-in/index.js';
import { clearMismatchesExcept, upsertMismatch, type MismatchRecord } from './repository.js';
import type { TraceResult } from './trace.js';

/** An address held against the books at the final block. */
export interface Held {
  record: DepositAddressRecord;
  token: { address: string; decimals: number };
  expected: bigint;
  actual: bigint;
}

/** A difference found, with its session's owner (and traced, where it was, or why it could not be). */
export interface Difference extends Held {
  owner: { integratorId: string; createdAt: Date };
  trace: TraceResult | null;
  traceError?: unknown;
}

/** Where a network's mismatches are kept and said. */
export interface MismatchDeps {
  db: Database;
  logger: Logger;
  now: () => Date;
  blockchainId: string;
}

/** The object of a `reconciliation.mismatch` event. */
function mismatchObject(record: MismatchRecord, decimals: number): ReconciliationMismatch {
  const exact = (value: string) => formatUnits(parseUnits(value, decimals), decimals);
  return {
    object: 'reconciliation_mismatch',
    blockchainId: record.blockchainId,
    address: record.address,
    sessionId: record.sessionId,
    assetId: record.assetId,
    expected: exact(record.expected),
    actual: exact(record.actual),
    block: record.block,
    reason: record.reason,
    since: record.raisedAt.toISOString(),
  };
}

/**
 * Raises, refreshes and clears the mismatches of a run at final block `final` (`differences`: every
 * address still differing after tracing; any other address of the network matches), and raises or
 * clears the network's alert.
 */
export async function reportMismatches(deps: MismatchDeps, final: number, differences: readonly Difference[]): Promise<void> {
  const { db, logger, blockchainId } = deps;
  const now = deps.now();
  for (const difference of differences) {
    const { record, token } = difference;
    const expected = formatUnits(difference.trace?.expected ?? difference.expected, token.decimals);
    const actual = formatUnits(difference.trace?.actual ?? difference.actual, token.decimals);
    const reason = difference.trace?.reason ?? 'untraced';
    const fields = {
      blockchainId,
      address: record.address,
      assetId: record.assetId,
      expected,
      actual,
      block: final,
      tracedBlock: difference.trace?.tracedBlock ?? undefined,
      reason,
      sessionId: record.sessionId,
      error: difference.traceError,
    };
    const before = await db.transaction(async (tx) => {
      const mismatch = {
        blockchainId,
        address: record.address,
        sessionId: record.sessionId,
        assetId: record.assetId,
        expected,
        actual,
        block: final,
        tracedBlock: difference.trace?.tracedBlock ?? null,
        reason,
      };
      const held = await upsertMismatch(tx, mismatch, now);
      if (!held) {
        const raised = { ...mismatch, raisedAt: now };
        await recordEvent(tx, {
          type: 'reconciliation.mismatch',
          integratorId: difference.owner.integratorId,
          at: now,
          object: async () => mismatchObject(raised, token.decimals),
        });
      }
      return held;
    });
    // Said when found, and again only when the amounts change.
    const changed =
      !before ||
      parseUnits(before.expected, token.decimals) !== parseUnits(expected, token.decimals) ||
      parseUnits(before.actual, token.decimals) !== parseUnits(actual, token.decimals);
    if (changed) {
      logger.error(
        'reconciliation_mismatch',
        `a deposit address on ${blockchainId} holds ${actual} ${record.assetId} at final block ${final}, but the books say ${expected}: find where it changed (tracedBlock) and why`,
        fields,
      );
    }
  }
  for (const cleared of await clearMismatchesExcept(
    db,
    blockchainId,
    differences.map((d) => d.record.address),
  )) {
    logger.info('reconciliation_matched', `a deposit address on ${blockchainId} holds what the books say again (final block ${final})`, {
      blockchainId,
      address: cleared.address,
      assetId: cleared.assetId,
      block: final,
      since: cleared.raisedAt.toISOString(),
    });
  }
  if (differences.length === 0) {
    await clearAlert(db, blockchainId, 'reconciliation_mismatch');
    return;
  }
  const first = differences[0]!;
  await raiseAlert(
    db,
    {
      blockchainId,
      code: 'reconciliation_mismatch',
      message: `${differences.length} deposit address${differences.length === 1 ? '' : 'es'} on ${blockchainId} hold${differences.length === 1 ? 's' : ''} other amounts than the books say (final block ${final}): see the reconciliation_mismatch log lines`,
      detail: {
        block: final,
        addresses: differences.length,
        first: {
          address: first.record.address,
          assetId: first.record.assetId,
          expected: formatUnits(first.trace?.expected ?? first.expected, first.token.decimals),
          actual: formatUnits(first.actual, first.token.decimals),
        },
      },
    },
    now,
  );
}
