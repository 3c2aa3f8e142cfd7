/**
 * # Room: money in
 *
 * Owns: what reaches a deposit address and how it is credited. Settlement (./settlement.ts:
 * `settleTransfer(tx, …)` takes the caller's transaction; the sandbox's simulated payments and the
 * scanner's credits both go through it); on a real chain, the scanner (./scanner.ts: one round;
 * ./loop.ts runs one per network; ./transfers.ts records what it reads; ./follow.ts follows what it
 * recorded to its confirmations and credits it once, then to finality), finality (./finality.ts:
 * pending funds made available, or a credit a reorganization took back reversed), the chain's identity
 * at start (./identity.ts), what a reorganization past finality took back (./resume.ts, `paylink chain
 * resume`), and what the books say each deposit address received (./deposit-books.ts). The tables
 * `incoming_transfers`, `chain_cursors` and `chain_networks` (./repository.ts holds all their SQL).
 *
 * May touch, in its own transactions: the sessions room (a session's status `confirming` and its
 * settlement, through the functions its index lists for money in; `checkout_sessions` and
 * `chain_transfers` stay its own, and their SQL in its repository), the ledger (`applyLedgerChange`),
 * the links room (`countPayment`, `uncountPayment`), the orders room (`lockOrderForPayment`,
 * `markOrderPaid`), domain events (`recordEvent`, the session webhooks through `announceSession`),
 * and the alerts room (`raiseAlert`, `payoutsHalted`: a final block that changed halts payouts on
 * its network).
 *
 * Reconciliation (../reconciliation/) reads the deposit books and credits a transfer the scanner
 * missed through the scanner's own steps (`creditFound` of `createChainScanner`).
 */
export { closeOrderSessions, settleIncomingTransfer, settleTransfer, units, type SettleOptions } from './settlement.js';
export { createChainScanner, type ChainScanner, type ChainScannerOptions, type ScannerDeps } from './scanner.js';
export { startChainScanner } from './loop.js';
export { creditableAmount, recordObservedTransfers } from './transfers.js';
export { ChainIdentityError, verifyChainIdentity } from './identity.js';
export { recordCurrentCheckpoint, ResumeError, reverseVanishedCredits, type ReversalReport } from './resume.js';
export { finalizeCredit, reverseCredit } from './finality.js';
export { depositIndexesWithTransfers } from './repository.js';
export { depositAddressPage, depositSessionsOf, receivedTransfers, receivedUpTo, type DepositAddressRecord, type ReceivedTransfer } from './deposit-books.js';
