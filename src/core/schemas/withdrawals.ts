/**
 * Money out: withdrawals, the networks they can use (with their alerts) and the balance. Part of the
 * wire format (`core/schemas.ts`).
 */
import { z } from 'zod';
import { IDEMPOTENCY_KEY_PATTERN, MAX_LENGTH, MIN_LENGTH } from '../rules/limits.js';
import { NETWORK_ALERT_CODES } from '../rules/networks.js';
import { WITHDRAWAL_STATUSES } from '../rules/withdrawal.js';
import { amountInput, AssetIdSchema, dateFilter, DecimalString, formatted, Id, pageOf, paging, payoutAddressInput, textSchema, Timestamp } from './shared.js';

export const WithdrawalStatus = z.enum(WITHDRAWAL_STATUSES);
export type WithdrawalStatus = z.infer<typeof WithdrawalStatus>;

export const CreateWithdrawalInput = z.object({
  amount: amountInput,
  address: payoutAddressInput,
  blockchainId: textSchema(MAX_LENGTH.blockchainId).meta({ description: 'A network of `GET /v1/withdrawal/networks`, by id or alias, in any case' }),
  assetId: textSchema(MAX_LENGTH.assetId).meta({ description: '`USDT` or `CNGN`, in any case' }),
});
export type CreateWithdrawalInput = z.input<typeof CreateWithdrawalInput>;

export const WithdrawalCreated = z.object({
  message: z.string(),
  status: z.literal('success'),
  statusCode: z.literal(200),
  id: Id,
});
export type WithdrawalCreated = z.infer<typeof WithdrawalCreated>;

/** Why a payout is held up (see `Withdrawal.stalledReason`). */
export const StalledReason = z.enum(['hot_wallet_gas', 'hot_wallet_token', 'node_unavailable', 'chain_halted']);
export type StalledReason = z.infer<typeof StalledReason>;

export const Withdrawal = z.object({
  id: Id,
  amount: DecimalString,
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  address: z.string(),
  status: WithdrawalStatus,
  txHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  /**
   * What the recipient received once the payout succeeded, according to the token's Transfer logs in
   * the transaction's receipt: less than `amount` when the token charges a fee on transfers. Null
   * until then.
   */
  receivedAmount: DecimalString.nullable(),
  /**
   * Why a withdrawal that is not finished is held up, while it is: the hot wallet lacks gas
   * (`hot_wallet_gas`) or tokens (`hot_wallet_token`), no node answers (`node_unavailable`), or payouts
   * on its network are halted until an operator resumes them (`chain_halted`). Null otherwise.
   */
  stalledReason: StalledReason.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Withdrawal = z.infer<typeof Withdrawal>;

export const WithdrawalList = pageOf(Withdrawal);
export type WithdrawalList = z.infer<typeof WithdrawalList>;

export const ListWithdrawalsQuery = z.object({
  ...paging,
  status: WithdrawalStatus.optional(),
  startDate: dateFilter.optional(),
  endDate: dateFilter.optional(),
});

/**
 * Something wrong with a network that an operator must look at: `reconciliation_mismatch` (a deposit
 * address holds what the books can't explain), `hot_wallet_low` (not enough tokens or gas for what the
 * payouts owe), `chain_finality_violated` (a block held as final changed: payouts halted).
 */
export const NetworkAlert = z.object({
  code: z.enum(NETWORK_ALERT_CODES),
  message: z.string(),
  since: Timestamp,
});
export type NetworkAlert = z.infer<typeof NetworkAlert>;

/** A network withdrawals can use, as configured (`GET /v1/withdrawal/networks`). */
export const WithdrawalNetwork = z.object({
  id: z.string(),
  name: z.string(),
  aliases: z.array(z.string()),
  assets: z.array(AssetIdSchema),
  chainId: z.number().int().nullable(),
  explorerUrl: formatted('uri').nullable(),
  /** What the operator must be told about the network until it is mended (none while all is well). */
  alerts: z.array(NetworkAlert),
});
export type WithdrawalNetwork = z.infer<typeof WithdrawalNetwork>;

export const WithdrawalNetworkList = z.object({ items: z.array(WithdrawalNetwork) });
export type WithdrawalNetworkList = z.infer<typeof WithdrawalNetworkList>;

/** The `Idempotency-Key` header of `POST /v1/withdrawal`. */
export const IdempotencyKeyHeader = z
  .string()
  .min(MIN_LENGTH.idempotencyKey)
  .max(MAX_LENGTH.idempotencyKey)
  .regex(IDEMPOTENCY_KEY_PATTERN, 'Idempotency-Key must be 1 to 255 visible ASCII characters');

/**
 * One asset on one network: `available` can be withdrawn; `pending` is reserved by withdrawals in
 * flight and, on a real chain, holds payments credited but not yet final. `owed`, only when there is
 * a debt: a payment taken back after it was final (a reorganization past finality) whose funds had
 * been withdrawn already; `available` is then 0, and later payments repay the debt before anything
 * can be withdrawn.
 */
export const BalanceItem = z.object({
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  available: DecimalString,
  pending: DecimalString,
  owed: DecimalString.optional(),
});
export const Balance = z.object({ items: z.array(BalanceItem) });
export type Balance = z.infer<typeof Balance>;
