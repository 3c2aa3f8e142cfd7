/**
 * The SQL of `balances` and `ledger_entries`: nothing else in the service reads or writes them.
 * A balance is one row per (integrator, asset, network) with `available` (withdrawable) and
 * `pending` (reserved by withdrawals in flight, and on a real chain the payments credited but not
 * final yet); every change of it is a ledger entry written in the same transaction, so for each
 * account the sums of the entries' deltas equal the balance, always.
 *
 * Concurrency: each change locks the balance row (its UPDATE, or a withdrawals' reservation's
 * `FOR NO KEY UPDATE`), so on PostgreSQL concurrent changes of one account queue behind each other and
 * each reads the row as the one before left it (READ COMMITTED re-reads a locked row); on PGlite
 * transactions are serialized anyway. The table's `CHECK (pending >= 0)` and `CHECK (available >= -owed)` are the
 * backstop: no path can leave a balance below zero, but for a reversal of final funds that were withdrawn
 * already (`mayOwe`), which leaves the balance owing them (`owed`, a negative `available`) until later
 * payments repay it.
 */
import { randomUUID } from 'node:crypto';
import { ASSET_IDS, compareDecimal, formatFixed, toDecimalString, type AssetId } from '../../../core/money.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import type { Balance } from '../../../core/schemas.js';
import type { Queryable, SqlParam } from '../../db/index.js';

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
  | 'withdrawal_release'
  /** A refund was made: available → pending (before its address may even be known). */
  | 'refund_reserve'
  /** Its payout went out: pending → gone. */
  | 'refund_payout'
  /** Its payout failed, or the merchant cancelled it: pending → available. */
  | 'refund_release';

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
  /** The refund a `refund_*` entry is about (with its payout's `withdrawalId` once it has one). */
  refundId?: string | undefined;
  /**
   * A reversal of final funds (a reorganization past finality took back a credit that was available):
   * may take `available` below zero when those funds were withdrawn already, leaving the balance owing
   * the rest (`owed`) until later payments repay it. No other change may.
   */
  mayOwe?: boolean;
}

/** Six-decimal (`CRYPTO_DIGITS`) rendering of a NUMERIC from the database. */
export function assetAmount(value: string | number): string {
  return formatFixed(toDecimalString(String(value)) ?? '0', CRYPTO_DIGITS);
}

async function ensureAccount(tx: Queryable, integratorId: string, assetId: AssetId, blockchainId: string): Promise<void> {
  await tx.query('INSERT INTO balances (integrator_id, asset_id, blockchain_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
    integratorId,
    assetId,
    blockchainId,
  ]);
}

/** Writes the entries of `changes`, in one statement. */
async function writeEntries(tx: Queryable, changes: readonly LedgerChange[]): Promise<void> {
  const column = <K extends keyof LedgerChange>(key: K) => changes.map((change) => change[key] ?? null);
  await tx.query(
    `INSERT INTO ledger_entries (id, integrator_id, asset_id, blockchain_id, kind, available_delta, pending_delta, transfer_id, withdrawal_id, refund_id)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::numeric[], $8::uuid[], $9::uuid[], $10::uuid[])`,
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
      column('refundId'),
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
    // `owed` is what the balance is short by after the change (below zero): set by a reversal that may
    // owe, and otherwise only ever lowered, so the CHECK (available >= -owed) refuses any other change
    // that would take the balance lower.
    await tx.query(
      `UPDATE balances b SET available = b.available + d.a, pending = b.pending + d.p,
         owed = CASE WHEN $6::boolean THEN greatest(0, -(b.available + d.a)) ELSE least(b.owed, greatest(0, -(b.available + d.a))) END, updated_at = now()
       FROM (SELECT (SELECT sum(x) FROM unnest($4::numeric[]) AS x) AS a, (SELECT sum(x) FROM unnest($5::numeric[]) AS x) AS p) d
       WHERE b.integrator_id = $1 AND b.asset_id = $2 AND b.blockchain_id = $3`,
      [
        integratorId,
        assetId,
        blockchainId,
        group.map((change) => change.availableDelta),
        group.map((change) => change.pendingDelta),
        group.some((change) => change.mayOwe === true),
      ],
    );
  }
  await writeEntries(tx, changes);
}

/**
 * Applies `change` only when the balance covers it (its `available` stays ≥ 0): in one UPDATE whose
 * condition reads the row it locks (READ COMMITTED re-reads a row it waited for), so two changes of
 * one account can never both spend the same funds. Resolves false, having changed nothing, when it
 * does not fit. Must run inside a transaction.
 */
export async function applyCoveredLedgerChange(tx: Queryable, change: LedgerChange): Promise<boolean> {
  await ensureAccount(tx, change.integratorId, change.assetId, change.blockchainId);
  const { rows } = await tx.query(
    `UPDATE balances SET available = available + $4::numeric, pending = pending + $5::numeric, updated_at = now()
     WHERE integrator_id = $1 AND asset_id = $2 AND blockchain_id = $3 AND available + $4::numeric >= 0 AND pending + $5::numeric >= 0
     RETURNING 1`,
    [change.integratorId, change.assetId, change.blockchainId, change.availableDelta, change.pendingDelta],
  );
  if (rows.length === 0) return false;
  await writeEntries(tx, [change]);
  return true;
}

/** The balance that funds are reserved from: one account (integrator, asset, network). */
export interface ReservedAccount {
  integratorId: string;
  assetId: AssetId;
  /** The network the funds must be on: a withdrawal pays out on the network it names. */
  blockchainId: string;
}

/**
 * The part of ONE statement (its CTEs, for a `WITH RECURSIVE`) that reserves funds (available →
 * pending) for several requests on one account, in their order, each if and only if what is still
 * available covers it, and writes each one's `withdrawal_reserve` ledger entry.
 *
 * `requests` names a relation of the caller's statement with the columns `n` (the order, from 1 up,
 * no gaps), `amount`, `withdrawal_id` (what the funds are reserved for, written in the same
 * statement), `entry_id` (a new id for its ledger entry) and `eligible` (false for a request the
 * caller refuses before the balance is looked at). The CTEs define `reserved`: the rows of `requests`
 * whose funds the walk covers, and `ledger_reserve_entries`: the `withdrawal_id` of each whose entry was
 * written, which happens only when the balance's UPDATE did (`ledger_reserve`). The caller writes its
 * own rows from `ledger_reserve_entries`, not from `reserved`, so nothing it writes can exist without
 * its debit, whatever a later edit does to the order of the parts.
 *
 * The balance row is locked first (`FOR NO KEY UPDATE`, as an UPDATE locks it) and read as committed
 * then (READ COMMITTED re-reads a locked row), the requests are walked against it in order (a request
 * that does not fit is refused and a later, smaller one may still fit, as if they had come one by
 * one), and the row is updated once with their sum. No client round trip happens while the lock is
 * held, so requests for one balance queue in the database only for the time of a statement, and two
 * requests can never both spend the same funds. The table's CHECK (`available >= 0`) stays the backstop.
 */
export function reserveInOrderSql(param: SqlParam, account: ReservedAccount, requests: string): string {
  const integrator = `${param(account.integratorId)}::uuid`;
  const asset = param(account.assetId);
  const network = param(account.blockchainId);
  const same = `integrator_id = ${integrator} AND asset_id = ${asset} AND blockchain_id = ${network}`;
  return `ledger_account AS (
      SELECT available FROM balances WHERE ${same} FOR NO KEY UPDATE
    ), ledger_walk (n, remaining, covered) AS (
      SELECT 0::bigint, (SELECT available FROM ledger_account)::numeric, false
      UNION ALL
      SELECT r.n, CASE WHEN fits.covered THEN w.remaining - r.amount ELSE w.remaining END, fits.covered
      FROM ledger_walk w JOIN ${requests} r ON r.n = w.n + 1
      CROSS JOIN LATERAL (SELECT r.eligible AND coalesce(r.amount <= w.remaining, false) AS covered) fits
    ), reserved AS (
      SELECT r.* FROM ${requests} r JOIN ledger_walk w ON w.n = r.n WHERE w.covered
    ), ledger_reserve AS (
      UPDATE balances SET available = available - total.amount, pending = pending + total.amount, updated_at = now()
      FROM (SELECT sum(amount) AS amount FROM reserved HAVING count(*) > 0) total
      WHERE ${same}
      RETURNING 1
    ), ledger_reserve_entries AS (
      INSERT INTO ledger_entries (id, integrator_id, asset_id, blockchain_id, kind, available_delta, pending_delta, withdrawal_id)
      SELECT entry_id, ${integrator}, ${asset}, ${network}, 'withdrawal_reserve', -amount, amount, withdrawal_id FROM reserved
      WHERE EXISTS (SELECT 1 FROM ledger_reserve)
      RETURNING withdrawal_id
    )`;
}

/**
 * `GET /v1/balance`: every asset on every network in `networks` (zero when the integrator never held
 * it there), then any other network the integrator still holds funds on (one no longer configured).
 */
export async function getBalances(db: Queryable, integratorId: string, networks: ReadonlyArray<{ id: string; assets: readonly AssetId[] }>): Promise<Balance> {
  // A balance that owes (a reversal of funds withdrawn already) shows 0 available and what it owes.
  const { rows } = await db.query<{ asset_id: AssetId; blockchain_id: string; available: string; pending: string; owed: string }>(
    `SELECT asset_id, blockchain_id, greatest(available, 0) AS available, pending, greatest(-available, 0) AS owed
     FROM balances WHERE integrator_id = $1 ORDER BY blockchain_id, asset_id`,
    [integratorId],
  );
  const key = (assetId: string, blockchainId: string) => `${blockchainId}:${assetId}`;
  const held = new Map(rows.map((row) => [key(row.asset_id, row.blockchain_id), row]));
  const item = (assetId: AssetId, blockchainId: string) => {
    const row = held.get(key(assetId, blockchainId));
    held.delete(key(assetId, blockchainId));
    const owed = row && compareDecimal(row.owed, '0') > 0 ? { owed: assetAmount(row.owed) } : {};
    return { assetId, blockchainId, available: assetAmount(row?.available ?? '0'), pending: assetAmount(row?.pending ?? '0'), ...owed };
  };
  const items = networks.flatMap((network) => ASSET_IDS.filter((assetId) => network.assets.includes(assetId)).map((assetId) => item(assetId, network.id)));
  for (const row of [...held.values()]) {
    if (compareDecimal(row.available, '0') > 0 || compareDecimal(row.pending, '0') > 0 || compareDecimal(row.owed, '0') > 0)
      items.push(item(row.asset_id, row.blockchain_id));
  }
  return { items };
}

/** The balances on `blockchainId` that owe (a reversal of final funds that were withdrawn already), and how much. */
export async function owingBalances(
  db: Queryable,
  blockchainId: string,
): Promise<Array<{ integratorId: string; assetId: AssetId; blockchainId: string; owed: string }>> {
  const { rows } = await db.query<{ integrator_id: string; asset_id: AssetId; owed: string }>(
    'SELECT integrator_id, asset_id, (-available)::text AS owed FROM balances WHERE blockchain_id = $1 AND available < 0 ORDER BY integrator_id, asset_id',
    [blockchainId],
  );
  return rows.map((row) => ({ integratorId: row.integrator_id, assetId: row.asset_id, blockchainId, owed: assetAmount(row.owed) }));
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
  // Signed: a balance that owes is below zero, and so is the sum of its entries.
  const signed = (value: string) => (String(value).startsWith('-') ? `-${assetAmount(String(value).slice(1))}` : assetAmount(value));
  return rows.map((row) => ({
    assetId: row.asset_id,
    blockchainId: row.blockchain_id,
    available: signed(row.available),
    pending: signed(row.pending),
    ledgerAvailable: signed(row.la ?? '0'),
    ledgerPending: signed(row.lp ?? '0'),
  }));
}
