/**
 * The wire format of the Paylink service, as zod schemas. The server validates requests and
 * builds responses with these; the headless client parses every response with the same ones,
 * and `GET /v1/openapi.json` is generated from them. Isomorphic: no DOM, no Node.
 */
import { z } from 'zod';
import { ASSET_IDS } from './money.js';

// ---------------------------------------------------------------------------------------------
// Shared pieces

/** A decimal amount on the wire, e.g. `"12.50"`. Never a float. */
export const DecimalString = z.string().regex(/^\d+(\.\d+)?$/, 'Expected a decimal amount such as "12.50"');

/** ISO 8601 timestamp in UTC with milliseconds. */
export const Timestamp = z.string();

export const LinkType = z.enum(['Standard', 'Donation']);
export type LinkType = z.infer<typeof LinkType>;

export const AssetIdSchema = z.enum(ASSET_IDS);

export const CartItem = z.object({
  name: z.string(),
  quantity: z.number().int(),
  unitAmount: DecimalString,
  description: z.string().optional(),
  imageUrl: z.string().optional(),
});
export type CartItem = z.infer<typeof CartItem>;

export const PrepayOptions = z.object({ collectAddress: z.boolean(), collectPhone: z.boolean() });
export type PrepayOptions = z.infer<typeof PrepayOptions>;

export const PostpayAction = z.object({
  redirect: z.boolean(),
  showConfirmationPage: z.boolean(),
  successMessage: z.string(),
  redirectUrl: z.string(),
});
export type PostpayAction = z.infer<typeof PostpayAction>;

/** Page metadata of every list (spec §2.5). */
export const PageMeta = z.object({
  totalItems: z.number().int(),
  itemCount: z.number().int(),
  itemsPerPage: z.number().int(),
  totalPages: z.number().int(),
  currentPage: z.number().int(),
});
export type PageMeta = z.infer<typeof PageMeta>;

// ---------------------------------------------------------------------------------------------
// Payment links (spec §2.1, DESIGN §4)

/**
 * A payment link as the service returns it. The client is tolerant of the spec's quirks:
 * a missing `linkType` reads as `Standard`, and `fiatAmount` may arrive as a number.
 */
export const PaymentLink = z.object({
  id: z.string(),
  slug: z.string(),
  url: z.string(),
  title: z.string(),
  description: z.string(),
  linkType: LinkType.default('Standard'),
  userId: z.string(),
  integratorId: z.string(),
  fiatAmount: z.union([z.string(), z.number()]).transform((v) => String(v)),
  fiatCurrency: z.array(z.string()),
  prepayOptions: PrepayOptions,
  postpayAction: PostpayAction,
  cart: z.object({ items: z.array(CartItem) }),
  isActive: z.boolean(),
  visitedCount: z.number().int(),
  paymentCount: z.number().int(),
  closesAt: z.string().nullable().optional(),
  minAmount: DecimalString.nullable().optional(),
  maxAmount: DecimalString.nullable().optional(),
  suggestedAmounts: z.array(DecimalString).optional(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: z.string().nullable(),
  __type: z.literal('PaymentLink').optional(),
});
export type PaymentLink = z.infer<typeof PaymentLink>;

export const PaymentLinkList = z.object({ items: z.array(PaymentLink), meta: PageMeta });
export type PaymentLinkList = z.infer<typeof PaymentLinkList>;

const amountInput = z.union([z.number(), z.string()]);

/** Body of `POST /v1/payment-link` (spec §2.2 with DESIGN §4 tolerance). */
export const CreatePaymentLinkInput = z.object({
  title: z.string().trim().min(1, 'Title is required').max(200),
  description: z.string().max(5000),
  action: z.object({
    successMessage: z.string().max(2000).optional(),
    redirect: z.boolean().optional(),
    showConfirmationPage: z.boolean().optional(),
    redirectURL: z.string().max(2048).optional(),
    redirectUrl: z.string().max(2048).optional(),
    isActive: z.boolean().optional(),
  }),
  options: z.object({ collectAddress: z.boolean().optional(), collectPhone: z.boolean().optional() }),
  cart: z.object({
    items: z
      .array(
        z.object({
          name: z.string().trim().min(1, 'Item name is required').max(200),
          quantity: z.number().int('Quantity must be a whole number').min(1).max(10000),
          unitAmount: amountInput,
          description: z.string().max(1000).optional(),
          imageUrl: z.string().max(2048).optional(),
        }),
      )
      .max(100),
    fiatCurrency: z.union([z.string(), z.array(z.string())]).optional(),
    fiatAmount: amountInput.optional(),
  }),
  fiatCurrency: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  fiatAmount: amountInput.optional(),
  linkType: z.string().optional(),
  closesAt: z.string().nullable().optional(),
  minAmount: amountInput.nullable().optional(),
  maxAmount: amountInput.nullable().optional(),
  suggestedAmounts: z.array(amountInput).max(8).optional(),
});
export type CreatePaymentLinkInput = z.input<typeof CreatePaymentLinkInput>;

/** Body of `PATCH /v1/payment-link`: every field optional, the link named by `id`. */
export const UpdatePaymentLinkInput = CreatePaymentLinkInput.partial().extend({
  id: z.string().optional(),
  action: CreatePaymentLinkInput.shape.action.partial().optional(),
  options: CreatePaymentLinkInput.shape.options.partial().optional(),
  cart: CreatePaymentLinkInput.shape.cart.partial().optional(),
  isActive: z.boolean().optional(),
});
export type UpdatePaymentLinkInput = z.input<typeof UpdatePaymentLinkInput>;

/** Query of `GET /v1/payment-link`. */
export const ListPaymentLinksQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  linkType: z.string().optional(),
  isActive: z.enum(['true', 'false']).optional(),
  q: z.string().max(200).optional(),
});

// ---------------------------------------------------------------------------------------------
// Public checkout API (DESIGN §4)

/**
 * An asset the checkout can be paid in, on one network. The chain fields let a wallet pay without
 * the customer typing anything (EIP-681 QR, EIP-1193 `transfer`); they are null where the chain has
 * no real token (the sandbox).
 */
export const CheckoutAsset = z.object({
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  networkName: z.string(),
  /** EIP-155 chain id of the network. */
  chainId: z.number().int().nullable(),
  /** The asset's ERC-20 contract, EIP-55 spelt. */
  tokenAddress: z.string().nullable(),
  /** The contract's `decimals()`. */
  decimals: z.number().int().nullable(),
  /** Block explorer base, without a trailing slash: a transaction is `${explorerUrl}/tx/${hash}`. */
  explorerUrl: z.string().nullable(),
});
export type CheckoutAsset = z.infer<typeof CheckoutAsset>;

export const LinkState = z.enum(['open', 'inactive', 'closed']);
export type LinkState = z.infer<typeof LinkState>;

/** What `GET /v1/checkout/{slug}` returns: a link without owner ids or counts. */
export const PublicLink = z.object({
  id: z.string(),
  slug: z.string(),
  url: z.string(),
  title: z.string(),
  description: z.string(),
  linkType: LinkType,
  fiatAmount: z.string(),
  fiatCurrency: z.array(z.string()),
  prepayOptions: PrepayOptions,
  cart: z.object({ items: z.array(CartItem) }),
  isActive: z.boolean(),
  closesAt: z.string().nullable(),
  minAmount: DecimalString.nullable(),
  maxAmount: DecimalString.nullable(),
  suggestedAmounts: z.array(DecimalString),
  state: LinkState,
  assets: z.array(CheckoutAsset),
  sandbox: z.boolean(),
  /** The merchant's display name (`paylink keys create --name`), for the checkout's header; null when none was given. */
  merchantName: z.string().nullable(),
});
export type PublicLink = z.infer<typeof PublicLink>;

export const RecordVisitInput = z.object({ visitId: z.string().min(8).max(100).optional() });
export const VisitResult = z.object({ counted: z.boolean(), visitId: z.string() });
export type VisitResult = z.infer<typeof VisitResult>;

/**
 * `confirming`: a transfer has been seen on chain and waits for its confirmations before it counts
 * (real chains only; the sandbox credits at once).
 */
export const SessionStatus = z.enum(['awaiting_payment', 'confirming', 'paid', 'underpaid', 'overpaid', 'expired']);
export type SessionStatus = z.infer<typeof SessionStatus>;

export const StartSessionInput = z.object({
  assetId: z.string(),
  fiatCurrency: z.string().optional(),
  fiatAmount: amountInput.optional(),
  customer: z
    .object({
      address: z.string().max(500).optional(),
      phone: z.string().max(40).optional(),
      email: z.string().max(254).optional(),
    })
    .optional(),
  /** The merchant's order id (DESIGN §6, §8). */
  reference: z.string().max(200).optional(),
  /** Up to 20 string pairs the merchant attaches; returned on the keyed session read and in webhooks. */
  metadata: z
    .record(z.string().min(1).max(40), z.string().max(500))
    .refine((value) => Object.keys(value).length <= 20, 'metadata holds at most 20 keys')
    .optional(),
});
export type StartSessionInput = z.input<typeof StartSessionInput>;

/** A checkout session (a quote and the payment made against it). */
export const CheckoutSession = z.object({
  id: z.string(),
  slug: z.string(),
  status: SessionStatus,
  fiatAmount: DecimalString,
  fiatCurrency: z.string(),
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  networkName: z.string(),
  cryptoAmount: DecimalString,
  paidAmount: DecimalString,
  remainingAmount: DecimalString,
  payAddress: z.string(),
  txHash: z.string().nullable(),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  sandbox: z.boolean(),
  postpayAction: PostpayAction.nullable(),
  /** The asset's chain facts, as in `CheckoutAsset` (null on the sandbox). */
  chainId: z.number().int().nullable(),
  tokenAddress: z.string().nullable(),
  tokenDecimals: z.number().int().nullable(),
  explorerUrl: z.string().nullable(),
  /** While `confirming`: confirmations of the transfer seen so far and how many it needs; null otherwise. */
  confirmations: z.number().int().nullable(),
  requiredConfirmations: z.number().int().nullable(),
});
export type CheckoutSession = z.infer<typeof CheckoutSession>;

/**
 * Body of `POST /v1/checkout/sessions/{id}/simulate-payment` (sandbox only). `amount` defaults to
 * what is left to pay; `txHash` names the simulated transfer, so sending the same hash twice
 * records one transfer (a random hash is used when it is absent).
 */
export const SimulatePaymentInput = z.object({
  amount: amountInput.optional(),
  txHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'txHash must be 0x followed by 64 hexadecimal characters').optional(),
});

// ---------------------------------------------------------------------------------------------
// Money out (spec §2.3–2.4, §4.5–4.6; DESIGN §4)

export const WithdrawalStatus = z.enum(['pending', 'processing', 'success', 'failed']);
export type WithdrawalStatus = z.infer<typeof WithdrawalStatus>;

export const CreateWithdrawalInput = z.object({
  amount: amountInput,
  address: z.string(),
  blockchainId: z.string(),
  assetId: z.string(),
});
export type CreateWithdrawalInput = z.input<typeof CreateWithdrawalInput>;

export const WithdrawalCreated = z.object({
  message: z.string(),
  status: z.literal('success'),
  statusCode: z.literal(200),
  id: z.string(),
});
export type WithdrawalCreated = z.infer<typeof WithdrawalCreated>;

export const Withdrawal = z.object({
  id: z.string(),
  amount: DecimalString,
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  address: z.string(),
  status: WithdrawalStatus,
  txHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Withdrawal = z.infer<typeof Withdrawal>;

export const WithdrawalList = z.object({ items: z.array(Withdrawal), meta: PageMeta });
export type WithdrawalList = z.infer<typeof WithdrawalList>;

export const ListWithdrawalsQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  status: WithdrawalStatus.optional(),
  startDate: z.string().optional(),
  endDate: z.string().optional(),
});

export const BalanceItem = z.object({ assetId: AssetIdSchema, available: DecimalString, pending: DecimalString });
export const Balance = z.object({ items: z.array(BalanceItem) });
export type Balance = z.infer<typeof Balance>;

// ---------------------------------------------------------------------------------------------
// Errors (DESIGN §4)

export const FieldError = z.object({ path: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** The one error shape of every non-2xx response. */
export const ErrorBody = z.object({
  status: z.literal('error'),
  statusCode: z.number().int(),
  code: z.string(),
  message: z.string(),
  errors: z.array(FieldError).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
