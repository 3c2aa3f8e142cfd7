/**
 * # Room: ledger
 *
 * Owns: the tables `balances` and `ledger_entries` (./repository.ts holds all their SQL) and
 * `GET /v1/balance` (./routes.ts).
 *
 * May touch: nothing of other rooms. Money moves only through this room, always inside the caller's
 * transaction: `applyLedgerChange`/`applyLedgerChanges` (a payment credited, payouts finished or released),
 * `applyCoveredLedgerChange` (a refund's reservation: only when the available balance covers it) and
 * `reserveInOrderSql` (withdrawals' reservations: its part of one statement with the withdrawals room's INSERT).
 *
 * Rules: every change of a balance is a ledger entry in the same transaction, so the sum of the
 * entries equals the balance, always; the table's CHECKs keep every balance ≥ 0 whatever a caller does,
 * but for a reversal of final funds that were withdrawn already (`mayOwe`): the balance then owes them
 * (`owed`) until later payments repay it, and nothing can be withdrawn meanwhile.
 */
export {
  applyCoveredLedgerChange,
  applyLedgerChange,
  applyLedgerChanges,
  assetAmount,
  getBalances,
  owingBalances,
  reconcile,
  reserveInOrderSql,
  type LedgerChange,
  type LedgerKind,
  type ReservedAccount,
} from './repository.js';
export { balanceOperations } from './routes.js';
