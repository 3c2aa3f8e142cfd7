/**
 * What a scanner records of the transfers it reads (./scanner.ts), and what reconciliation records
 * the same way: each transfer once, its session `confirming` when it came in time; the amount a
 * transfer credits.
 */
import { randomUUID } from 'node:crypto';
import { toDecimalString } from '../../../core/money.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import { OPEN_STATUSES } from '../../../core/rules/session.js';
import type { ChainAdapter, NetworkChain, ObservedTransfer } from '../../chain/types.js';
import type { Queryable } from '../../db/index.js';
import { recordEvent } from '../events/index.js';
import { lockSessionForScan, recordSeen, setConfirmations, setSessionStatus, type WaitingTransfer } from './repository.js';

/** Most integer digits an amount may have to fit the ledger's NUMERIC(30, 6). */
const MAX_INTEGER_DIGITS = 24;

/**
 * `amount` (all of the token's digits) rounded down to the ledger's 6 decimals; null when that is
 * 0 or too large for the ledger.
 */
export function creditableAmount(amount: string): string | null {
  const exact = toDecimalString(amount);
  if (exact === null) return null;
  const [whole = '0', fraction = ''] = exact.split('.');
  if (whole.length > MAX_INTEGER_DIGITS) return null;
  const kept = fraction.slice(0, CRYPTO_DIGITS).replace(/0+$/, '');
  const value = kept ? `${whole}.${kept}` : whole;
  return /^0(\.0*)?$/.test(value) ? null : value;
}

/** A waiting (or credited) row as the chain adapter re-checks it. */
export function observedOf(row: WaitingTransfer, blockchainId: string): ObservedTransfer {
  return {
    blockchainId,
    assetId: row.asset_id,
    token: row.token_address,
    from: row.from_address,
    to: row.to_address,
    amount: row.amount,
    txHash: row.tx_hash,
    logIndex: row.log_index,
    ordinal: row.ordinal,
    blockNumber: row.block_number ?? 0,
    // A transfer back in the mempool has no block: any block it is found in counts as "moved".
    blockHash: row.block_hash ?? '0x',
    blockTime: row.block_time,
  };
}

/** The network a scanner reads: `network`, or the first. Throws on the sandbox, which has none. */
export function scannedNetwork(chain: ChainAdapter, network: string | undefined): NetworkChain {
  if (chain.kind !== 'real') throw new Error('this chain has no scanner (the sandbox credits simulated transfers at once)');
  const found = network === undefined ? chain.chains[0] : chain.chains.find((c) => c.blockchainId === network);
  if (!found) throw new Error(`no network ${network} to scan`);
  return found;
}

/** Records one transfer seen on its network, and makes its session `confirming` if it came in time. */
export async function recordTransfer(tx: Queryable, transfer: ObservedTransfer, latest: number, now: Date): Promise<boolean> {
  const session = await lockSessionForScan(tx, transfer.blockchainId, transfer.to);
  if (!session) return false;
  if (session.asset_id !== transfer.assetId) return false; // another token than the session's: not a payment of it
  const id = await recordSeen(tx, session.id, transfer, randomUUID(), now);
  if (id === null) return false;
  await setConfirmations(tx, id, Math.max(0, latest - transfer.blockNumber + 1), now);
  const inTime = transfer.blockTime.getTime() < session.expires_at.getTime();
  if (inTime && OPEN_STATUSES.has(session.status)) await setSessionStatus(tx, session.id, session.status, 'confirming', now);
  if (inTime || session.status === 'confirming') await recordEvent(tx, { type: 'session.changed', sessionId: session.id });
  return true;
}

/**
 * Records transfers to deposit addresses, in the caller's transaction `tx`, the way the scanner
 * records what it reads: each at most once (by network + transaction hash + token + recipient +
 * ordinal, whatever its log index), its session made `confirming` when it came in time; from there the
 * network's scanner follows it and credits it once at its confirmations (re-checked by its receipt),
 * then to finality. `latest` is the tip its confirmations are counted from. Resolves with how many were
 * new. For transfers found another way than the scanner's reads (reconciliation's, traced from a
 * deposit address's balance and its block's receipts): recording one the scanner saw too changes nothing.
 */
export async function recordObservedTransfers(tx: Queryable, transfers: readonly ObservedTransfer[], latest: number, now: Date): Promise<number> {
  let count = 0;
  for (const transfer of transfers) if (await recordTransfer(tx, transfer, latest, now)) count++;
  return count;
}
