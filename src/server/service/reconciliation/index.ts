/**
 * # Room: reconciliation
 *
 * Owns: the tables `deposit_sweeps` (what `paylink sweep` moved out of deposit addresses, recorded
 * before each transfer is broadcast and settled from its receipt), `reconciliation_runs` (which
 * instance reconciles a network now, and where the last run stood) and `reconciliation_mismatches`
 * (deposit addresses whose balance the books cannot explain); ./repository.ts holds all their SQL.
 * The reconciler (./reconciler.ts; one network's run in ./network-run.ts, tracing in ./trace.ts,
 * what it raises in ./mismatches.ts) proves the books of every deposit address against the chain,
 * per network, every `PAYLINK_EVM_RECONCILE_S`.
 *
 * May touch: the sessions room's books of deposit addresses (`depositAddressPage`, `receivedUpTo`,
 * `receivedTransfers`) and its scanner's crediting of a transfer found outside its rounds
 * (`createChainScanner(…).creditFound`: the only way money enters the ledger here); the alerts room
 * (`raiseAlert`, `clearAlert` of `reconciliation_mismatch`); domain events (`recordEvent`: the
 * `reconciliation.mismatch` webhook, in the transaction that raises the mismatch).
 */
export { createReconciler, startReconciler, type NetworkReconciliation, type Reconciler, type ReconcilerDeps, type ReconcilerOptions } from './reconciler.js';
export { listMismatches, recordSweepTransfer, settleSweepTransfer, type MismatchRecord, type SweepOutcome, type SweepTransfer } from './repository.js';
