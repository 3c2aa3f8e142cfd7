/**
 * Refunds and resolutions (`core/rules/refund.ts`): the merchant's and the customer's views. Part of
 * the wire format (`core/schemas.ts`).
 */
import { z } from 'zod';
import { MAX_LENGTH } from '../rules/limits.js';
import { REFUND_STATUSES } from '../rules/refund.js';
import { amountInput, AssetIdSchema, DecimalString, formatted, Id, pageOf, paging, payoutAddressInput, textSchema, Timestamp } from './shared.js';
import { StalledReason } from './withdrawals.js';

/** `awaiting_address` → `pending` → `processing` → `success` | `failed`; `cancelled` while awaiting an address. */
export const RefundStatus = z.enum(REFUND_STATUSES);
export type RefundStatus = z.infer<typeof RefundStatus>;

/** Body of `POST /v1/refund`. */
export const CreateRefundInput = z.object({
  sessionId: textSchema(MAX_LENGTH.id).meta({ format: 'uuid', description: 'The checkout session (payment) to refund: one that brought money in' }),
  amount: amountInput
    .meta({
      description:
        'In the session’s asset, at most 6 decimals. Default: what the session brought in less earlier refunds; more is 422 `refund_exceeds_payment`. For an overpaid session, the excess alone may be refunded',
    })
    .optional(),
  address: payoutAddressInput
    .meta({
      description: 'Where to pay it, on the network the session was paid on. Without it the refund awaits the customer’s address: send them its `claimUrl`',
    })
    .optional(),
  reason: textSchema(MAX_LENGTH.refundReason).meta({ description: 'Why, for your records (never shown to the customer)' }).optional(),
});
export type CreateRefundInput = z.input<typeof CreateRefundInput>;

/**
 * A refund (`GET /v1/refund/{id}`, the list's items, and `data.object` of the `refund.*` webhooks). Its
 * payout goes out like a withdrawal's: `txHash`, `failureReason` and `stalledReason` mean what they mean there.
 */
export const Refund = z.object({
  id: Id,
  /** The session (payment) it refunds, and that session's order (null for a payment link's session). */
  sessionId: Id,
  orderId: Id.nullable(),
  assetId: AssetIdSchema,
  /** The network the session was paid on: the refund is paid there. */
  blockchainId: z.string(),
  amount: DecimalString,
  /** Where it is paid; null while it awaits the customer's address. */
  address: z.string().nullable(),
  status: RefundStatus,
  /**
   * While it awaits an address: the page where the customer gives one, `{paylink_url}/refund/<id>#<claim token>`.
   * The token is kept only as a digest: the link is in the answer that created the refund and in reads made
   * with the same API key while it awaits an address; null otherwise.
   */
  claimUrl: formatted('uri').nullable(),
  txHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  /** Why its payout is held up, while it is (see `Withdrawal.stalledReason`); null otherwise. */
  stalledReason: StalledReason.nullable(),
  reason: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Refund = z.infer<typeof Refund>;

export const RefundList = pageOf(Refund);
export type RefundList = z.infer<typeof RefundList>;

/** Query of `GET /v1/refund`: newest first, by status, by session or by order. */
export const ListRefundsQuery = z.object({
  ...paging,
  status: RefundStatus.optional(),
  sessionId: textSchema(MAX_LENGTH.id).meta({ format: 'uuid', description: 'Only the refunds of this session' }).optional(),
  orderId: textSchema(MAX_LENGTH.id).meta({ format: 'uuid', description: 'Only the refunds of this order’s sessions' }).optional(),
});

/** Body of `POST /v1/checkout-session/{id}/resolve`. */
export const ResolveSessionInput = z.object({
  reason: textSchema(MAX_LENGTH.refundReason).meta({ description: 'Why, for your records' }).optional(),
});
export type ResolveSessionInput = z.input<typeof ResolveSessionInput>;

/**
 * What the customer's claim page reads (`GET /v1/checkout/refunds/{id}` with the claim token): what is
 * given back, by whom, on which network, and where it stands. Never the merchant's reason, reference or
 * the session's customer details.
 */
export const PublicRefund = z.object({
  id: Id,
  status: RefundStatus,
  amount: DecimalString,
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  networkName: z.string(),
  /** The chain id of the network (null on the sandbox): a wallet shows which network it is. */
  chainId: z.number().int().nullable(),
  /** What was paid for: the payment link's or the order's title. */
  title: z.string(),
  /** The merchant's display name; null when none was given. */
  merchantName: z.string().nullable(),
  /** Where it is paid; null until the customer gave an address. */
  address: z.string().nullable(),
  txHash: z.string().nullable(),
  /** The network's block explorer (a transaction is `${explorerUrl}/tx/${txHash}`); null when none is known. */
  explorerUrl: formatted('uri').nullable(),
  sandbox: z.boolean(),
  createdAt: Timestamp,
});
export type PublicRefund = z.infer<typeof PublicRefund>;

/** Body of `POST /v1/checkout/refunds/{id}/address` (with the claim token in `Paylink-Claim`). */
export const ClaimRefundInput = z.object({ address: payoutAddressInput.meta({ description: 'Where the customer wants the refund: set once' }) });
export type ClaimRefundInput = z.input<typeof ClaimRefundInput>;
