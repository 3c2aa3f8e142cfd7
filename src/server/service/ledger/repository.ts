/**
 * The SQL of `balances` and `ledger_entries`: nothing else in the service reads or writes them.
 * A balance is one row per (integrator, asset, network) with `available` (withdrawable) and
 * `pending` (reserved by withdrawals in flight, and on a real chain the payments credited but not
 * final yet); every change of it is a ledger entry written in the same transaction, so for each
 * account the sums of the entries' deltas equal the balance, always.
 *
 * Concurrency: each change is one `UPDATE … RETURNING` on the balance row. The UPDATE takes the
 * row lock, so on PostgreSQL concurrent changes of one account queue behind each other and each
 * re-checks its condition against the committed row (READ COMMITTED); on PGlite transactions are
 * serialized anyway. The table's `CHECK (available >= 0)` and `CHECK (pending >= 0)` are the
 * backstop: no path can leave a balance below zero.
 */
import { randomUUID } from 'node:crypto';
import { ASSET_IDS, compareDecimal, formatFixed, toDecimalString, type AssetId } from '../../../core/money.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import type { Balance } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';

/** Why a balance changed. */
export type LedgerKind =
  /** A customer's transfer counted toward a checkout session (real chains: into `pending` until final). */
  | 'payment'
  /** A transfer that arrived after its session expired: the funds are the merchant's, but it is not a link payment. */
  | 'late_payment'
  /** A credited transfer's block is final: pending → available. */
  | 'payment_final'
  /** A reorg took a credited transfer back before it was final: pending → gone. */
  | 'payment_reversal'
  /** A withdrawal was requested: available → pending. */
  | 'withdrawal_reserve'
  /** Its payout went out: pending → gone. */
  | 'withdrawal_payout'
  /** Its payout failed: pending → available. */
  | 'withdrawal_release';

export interface LedgerChange {
  integratorId: string;
  assetId: AssetId;
  /** The network the funds are on. */
  blockchainId: string;
  kind: LedgerKind;
  /** Signed decimal strings. */
  availableDelta: string;
  pendingDelta: string;
  transferId?: string;
  withdrawalId?: string;
}

/** Six-decimal (`CRYPTO_DIGITS`) rendering of a NUMERIC from the database. */
export function assetAmount(value: string | number): string {
  return formatFixed(toDecimalString(String(value)) ?? '0', CRYPTO_DIGITS);
}

async function ensureAccount(tx: Queryable, integratorId: string, assetId: AssetId, blockchainId: string): Promise<void> {
  await tx.query('INSERT INTO balances (integrator_id, asset_id, blockchain_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [integratorId, assetId, blockchainId]);
}

/** Writes the entries of `changes`, in one statement. */
async function writeEntries(tx: Queryable, changes: readonly LedgerChange[]): Promise<void> {
  const column = <K extends keyof LedgerChange>(key: K) => changes.map((change) => change[key] ?? null);
  await tx.query(
    `INSERT INTO ledger_entries (id, integrator_id, asset_id, blockchain_id, kind, available_delta, pending_delta, transfer_id, withdrawal_id)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::numeric[], $8::uuid[], $9::uuid[])`,
    [
      changes.map(() => randomUUID()),
      column('integratorId'),
      column('assetId'),
      column('blockchainId'),
      column('kind'),
      column('availableDelta'),
      column('pendingDelta'),
      column('transferId'),
      column('withdrawalId'),
    ],
  );
}

/**
 * Applies a change to a balance and records it. Must run inside a transaction. A change that
 * would take either side below zero fails on the table's CHECK, rolling the transaction back.
 */
export async function applyLedgerChange(tx: Queryable, change: LedgerChange): Promise<void> {
  await applyLedgerChanges(tx, [change]);
}

/**
 * Applies several changes (a batch of payouts finished at once) and records each as its own entry:
 * one UPDATE per balance, with the sum of its changes, the balances in a fixed order (so two
 * transactions changing the same ones lock them in the same order), and one INSERT for every entry.
 * Must run inside a transaction; a balance that would go below zero fails on the table's CHECK,
 * rolling the transaction back.
 */
export async function applyLedgerChanges(tx: Queryable, changes: readonly LedgerChange[]): Promise<void> {
  if (changes.length === 0) return;
  const accounts = new Map<string, LedgerChange[]>();
  for (const change of changes) {
    const key = `${change.integratorId} ${change.assetId} ${change.blockchainId}`;
    accounts.set(key, [...(accounts.get(key) ?? []), change]);
  }
  for (const key of [...accounts.keys()].sort()) {
    const group = accounts.get(key)!;
    const { integratorId, assetId, blockchainId } = group[0]!;
    await ensureAccount(tx, integratorId, assetId, blockchainId);
    await tx.query(
      `UPDATE balances SET available = available + (SELECT sum(d) FROM unnest($4::numeric[]) AS d),
         pending = pending + (SELECT sum(d) FROM unnest($5::numeric[]) AS d), updated_at = now()
       WHERE integrator_id = $1 AND asset_id = $2 AND blockchain_id = $3`,
      [integratorId, assetId, blockchainId, group.map((change) => change.availableDelta), group.map((change) => change.pendingDelta)],
    );
  }
  await writeEntries(tx, changes);
}

/** The funds a new withdrawal reserves. */
export interface Reservation {
  integratorId: string;
  assetId: AssetId;
  /** The network the funds must be on: a withdrawal pays out on the network it names. */
  blockchainId: string;
  amount: string;
}

/** Adds a parameter to the statement being built and returns its placeholder (`$4`). */
export type SqlParam = (value: unknown) => string;

/**
 * Reserves funds (available → pending) if, and only if, the available balance covers them, records
 * what they are reserved for, and writes the `withdrawal_reserve` ledger entry, all in ONE
 * statement: the conditional UPDATE is the check and the row lock at once (two withdrawals can never
 * both spend the same funds), and a single round trip keeps the lock short under contention.
 * `record` is the owner's statement for the reserved-for row (the withdrawals room's INSERT): it
 * selects FROM the CTE it is given (one row when the balance covered the amount, none otherwise) and
 * RETURNs the row's `id`. Returns false, having changed nothing, when the balance is short.
 */
export async function reserveFunds(tx: Queryable, reservation: Reservation, record: (param: SqlParam, reserved: string) => string): Promise<boolean> {
  const params: unknown[] = [];
  const param: SqlParam = (value) => {
    params.push(value);
    return `$${params.length}`;
  };
  const integrator = param(reservation.integratorId);
  const asset = param(reservation.assetId);
  const network = param(reservation.blockchainId);
  const amount = `${param(reservation.amount)}::numeric`;
  const recorded = record(param, 'reserved');
  const { rows } = await tx.query(
    `WITH reserved AS (
       UPDATE balances SET available = available - ${amount}, pending = pending + ${amount}, updated_at = now()
       WHERE integrator_id = ${integrator} AND asset_id = ${asset} AND blockchain_id = ${network} AND available >= ${amount}
       RETURNING integrator_id
     ), recorded AS (${recorded})
     INSERT INTO ledger_entries (id, integrator_id, asset_id, blockchain_id, kind, available_delta, pending_delta, withdrawal_id)
     SELECT ${param(randomUUID())}, ${integrator}, ${asset}, ${network}, 'withdrawal_reserve', -(${amount}), ${amount}, id FROM recorded
     RETURNING 1`,
    params,
  );
  return rows.length === 1;
}

/**
 * `GET /v1/balance`: every asset on every network in `networks` (zero when the integrator never held
 * it there), then any other network the integrator still holds funds on (one no longer configured).
 */
export async function getBalances(db: Queryable, integratorId: string, networks: ReadonlyArray<{ id: string; assets: readonly AssetId[] }>): Promise<Balance> {
  const { rows } = await db.query<{ asset_id: AssetId; blockchain_id: string; available: string; pending: string }>(
    'SELECT asset_id, blockchain_id, available, pending FROM balances WHERE integrator_id = $1 ORDER BY blockchain_id, asset_id',
    [integratorId],
  );
  const key = (assetId: string, blockchainId: string) => `${blockchainId}:${assetId}`;
  const held = new Map(rows.map((row) => [key(row.asset_id, row.blockchain_id), row]));
  const item = (assetId: AssetId, blockchainId: string) => {
    const row = held.get(key(assetId, blockchainId));
    held.delete(key(assetId, blockchainId));
    return { assetId, blockchainId, available: assetAmount(row?.available ?? '0'), pending: assetAmount(row?.pending ?? '0') };
  };
  const items = networks.flatMap((network) => ASSET_IDS.filter((assetId) => network.assets.includes(assetId)).map((assetId) => item(assetId, network.id)));
  for (const row of [...held.values()]) {
    if (compareDecimal(row.available, '0') > 0 || compareDecimal(row.pending, '0') > 0) items.push(item(row.asset_id, row.blockchain_id));
  }
  return { items };
}

/**
 * Sums of the ledger next to the balances, per asset and network, for audits and tests: in a
 * healthy database `available === ledgerAvailable` and `pending === ledgerPending` for every row.
 */
export async function reconcile(
  db: Queryable,
  integratorId: string,
): Promise<Array<{ assetId: AssetId; blockchainId: string; available: string; pending: string; ledgerAvailable: string; ledgerPending: string }>> {
  const { rows } = await db.query<{ asset_id: AssetId; blockchain_id: string; available: string; pending: string; la: string | null; lp: string | null }>(
    `SELECT b.asset_id, b.blockchain_id, b.available, b.pending,
            (SELECT sum(available_delta) FROM ledger_entries e WHERE e.integrator_id = b.integrator_id AND e.asset_id = b.asset_id AND e.blockchain_id = b.blockchain_id) AS la,
            (SELECT sum(pending_delta) FROM ledger_entries e WHERE e.integrator_id = b.integrator_id AND e.asset_id = b.asset_id AND e.blockchain_id = b.blockchain_id) AS lp
     FROM balances b WHERE b.integrator_id = $1 ORDER BY b.blockchain_id, b.asset_id`,
    [integratorId],
  );
  return rows.map((row) => ({
    assetId: row.asset_id,
    blockchainId: row.blockchain_id,
    available: assetAmount(row.available),
    pending: assetAmount(row.pending),
    ledgerAvailable: assetAmount(row.la ?? '0'),
    ledgerPending: assetAmount(row.lp ?? '0'),
  }));
}
