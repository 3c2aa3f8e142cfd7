/**
 * The wire format of the Paylink service, as zod schemas. The server validates requests and
 * builds responses with these; the headless client parses every response with the same ones,
 * and `GET /v1/openapi.json` is generated from them. Isomorphic: no DOM, no Node.
 *
 * Request schemas check types and sizes only; what a value must mean (an amount, a currency, an
 * address, a future date…) is the rules' to say (`core/rules/`), with messages the elements can
 * translate. Every limit and pattern comes from `core/rules/limits.ts`, and the patterns the rules
 * enforce are declared here as documentation (`.meta`) so the OpenAPI document states them.
 * Response schemas are tolerant (the client must not break on a format it does not know); their
 * formats are documentation only.
 */
import { z } from 'zod';
import type { FieldError as FieldErrorShape } from './errors.js';
import { ASSET_IDS } from './money.js';
import { LINK_TYPES } from './rules/link.js';
import { MAX_ORDER_TTL_MS, ORDER_STATUSES, ORDER_TTL_MS } from './rules/order.js';
import {
  DECIMAL_PATTERN,
  DEFAULT_PAGE_SIZE,
  IDEMPOTENCY_KEY_PATTERN,
  MAX_AMOUNT,
  MAX_COUNT,
  MAX_LENGTH,
  MIN_LENGTH,
  TX_HASH_PATTERN,
} from './rules/limits.js';
import { REFUND_STATUSES } from './rules/refund.js';
import { SESSION_STATUSES } from './rules/session.js';
import { hasForbiddenCharacters, LINE_TEXT_PATTERN, MULTILINE_TEXT_PATTERN, type TextKind } from './rules/text.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from './rules/webhooks.js';
import { WITHDRAWAL_STATUSES } from './rules/withdrawal.js';

// ---------------------------------------------------------------------------------------------
// Shared pieces

/**
 * Every string of a request is built here, so a rule about request text applies to all of them at
 * once: at most `max` UTF-16 code units, and none of the characters `core/rules/text.ts` refuses (NUL
 * and the other control characters; in a one-line field, line breaks and tabs too), with its pattern
 * stated in the OpenAPI document. A field's own `pattern`, where it has a stricter one, replaces it there.
 */
export function textSchema(max: number, kind: TextKind = 'line') {
  return z
    .string()
    .max(max)
    .refine((value) => !hasForbiddenCharacters(value, kind), {
      message:
        kind === 'line'
          ? 'Must not contain control characters (such as NUL, tabs, line breaks or bidirectional overrides)'
          : 'Must not contain control characters (such as NUL)',
    })
    .meta({ pattern: kind === 'line' ? LINE_TEXT_PATTERN : MULTILINE_TEXT_PATTERN });
}

/** A response field documented as `format` (uuid, date-time, uri, email), without making the client stricter. */
const formatted = (format: string) => z.string().meta({ format });

/** A decimal amount on the wire, e.g. `"12.50"`. Never a float. */
export const DecimalString = z.string().regex(DECIMAL_PATTERN, 'Expected a decimal amount such as "12.50"');

/** ISO 8601 timestamp in UTC with milliseconds. */
export const Timestamp = formatted('date-time');

/** An id the service made (a UUID). */
const Id = formatted('uuid');

export const LinkType = z.enum(LINK_TYPES);
export type LinkType = z.infer<typeof LinkType>;

export const AssetIdSchema = z.enum(ASSET_IDS);

export const CartItem = z.object({
  name: z.string(),
  quantity: z.number().int(),
  unitAmount: DecimalString,
  description: z.string().optional(),
  imageUrl: formatted('uri').optional(),
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

/** Page metadata of every list. */
export const PageMeta = z.object({
  totalItems: z.number().int(),
  itemCount: z.number().int(),
  itemsPerPage: z.number().int(),
  totalPages: z.number().int(),
  currentPage: z.number().int(),
});
export type PageMeta = z.infer<typeof PageMeta>;

// ---------------------------------------------------------------------------------------------
// Payment links

/**
 * A payment link as the service returns it. The client is tolerant of the spec's quirks:
 * a missing `linkType` reads as `Standard`, and `fiatAmount` may arrive as a number.
 */
export const PaymentLink = z.object({
  id: Id,
  slug: z.string(),
  url: formatted('uri'),
  title: z.string(),
  description: z.string(),
  linkType: LinkType.default('Standard'),
  userId: Id,
  integratorId: Id,
  fiatAmount: z
    .union([z.string(), z.number()])
    .transform((v) => String(v))
    .pipe(z.string().meta({ pattern: DECIMAL_PATTERN.source, description: 'A decimal string with the price currency\'s digits' })),
  fiatCurrency: z.array(z.string()),
  prepayOptions: PrepayOptions,
  postpayAction: PostpayAction,
  cart: z.object({ items: z.array(CartItem) }),
  isActive: z.boolean(),
  visitedCount: z.number().int(),
  paymentCount: z.number().int(),
  closesAt: Timestamp.nullable().optional(),
  minAmount: DecimalString.nullable().optional(),
  maxAmount: DecimalString.nullable().optional(),
  suggestedAmounts: z.array(DecimalString).optional(),
  /** A donation's goal in its price currency; null when it has none. Donation links only. */
  goalAmount: DecimalString.nullable().optional(),
  /** What its paid (and overpaid) donations raised, in the price currency, as each was quoted. Donation links only. */
  raised: DecimalString.optional(),
  /** How many paid donations `raised` counts. Donation links only. */
  donorCount: z.number().int().optional(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: Timestamp.nullable(),
  __type: z.literal('PaymentLink').optional(),
});
export type PaymentLink = z.infer<typeof PaymentLink>;

export const PaymentLinkList = z.object({ items: z.array(PaymentLink), meta: PageMeta });
export type PaymentLinkList = z.infer<typeof PaymentLinkList>;

/**
 * An amount in a request: a number or a decimal string. Only its size is checked here;
 * `core/rules/amount.ts` reads it (and refuses negatives, exponents, extra digits), as documented.
 */
const amountInput = z.union([
  z.number().meta({ minimum: 0, maximum: Number(MAX_AMOUNT) }),
  textSchema(MAX_LENGTH.amountText).meta({ pattern: `^\\s*${DECIMAL_PATTERN.source.slice(1, -1)}\\s*$` }),
]);

/** One code or a list of codes (ISO 4217), as the spec's examples disagree. */
const currencyInput = (list: z.ZodArray<z.ZodString>) => z.union([textSchema(MAX_LENGTH.currencyCode), list]);
const currencyCodes = z.array(textSchema(MAX_LENGTH.currencyCode)).max(MAX_COUNT.fiatCurrencies);

/** An absolute http(s) URL, or '' for none (`core/rules/link.ts` checks the scheme). */
const urlInput = textSchema(MAX_LENGTH.url).meta({ format: 'uri' });

/** Body of `POST /v1/payment-link` (with its tolerances). */
export const CreatePaymentLinkInput = z.object({
  title: textSchema(MAX_LENGTH.title).trim().min(1, 'Title is required'),
  description: textSchema(MAX_LENGTH.description, 'multiline'),
  action: z.object({
    successMessage: textSchema(MAX_LENGTH.successMessage, 'multiline').optional(),
    redirect: z.boolean().optional(),
    showConfirmationPage: z.boolean().optional(),
    redirectURL: urlInput.optional(),
    redirectUrl: urlInput.optional(),
    isActive: z.boolean().optional(),
  }),
  options: z.object({ collectAddress: z.boolean().optional(), collectPhone: z.boolean().optional() }),
  cart: z.object({
    items: z
      .array(
        z.object({
          name: textSchema(MAX_LENGTH.itemName).trim().min(1, 'Item name is required'),
          quantity: z.number().int('Quantity must be a whole number').min(1).max(MAX_COUNT.quantity),
          unitAmount: amountInput,
          description: textSchema(MAX_LENGTH.itemDescription, 'multiline').optional(),
          imageUrl: urlInput.optional(),
        }),
      )
      .max(MAX_COUNT.cartItems),
    fiatCurrency: currencyInput(currencyCodes).optional(),
    fiatAmount: amountInput.optional(),
  }),
  fiatCurrency: currencyInput(currencyCodes.min(1)).optional(),
  fiatAmount: amountInput.optional(),
  linkType: textSchema(MAX_LENGTH.linkType).meta({ description: '`Standard` or `Donation`, in any case' }).optional(),
  closesAt: textSchema(MAX_LENGTH.dateText).meta({ format: 'date-time' }).nullable().optional(),
  minAmount: amountInput.nullable().optional(),
  maxAmount: amountInput.nullable().optional(),
  suggestedAmounts: z.array(amountInput).max(MAX_COUNT.suggestedAmounts).optional(),
  goalAmount: amountInput
    .meta({ description: 'A donation’s goal, in its price currency (greater than 0); `null` removes it. Donation links only' })
    .nullable()
    .optional(),
});
export type CreatePaymentLinkInput = z.input<typeof CreatePaymentLinkInput>;

/** Body of `PATCH /v1/payment-link`: every field optional, the link named by `id`. */
export const UpdatePaymentLinkInput = CreatePaymentLinkInput.partial().extend({
  id: textSchema(MAX_LENGTH.id).meta({ format: 'uuid' }).optional(),
  action: CreatePaymentLinkInput.shape.action.partial().optional(),
  options: CreatePaymentLinkInput.shape.options.partial().optional(),
  cart: CreatePaymentLinkInput.shape.cart.partial().optional(),
  isActive: z.boolean().optional(),
});
export type UpdatePaymentLinkInput = z.input<typeof UpdatePaymentLinkInput>;

/** `page` and `limit` of every list. */
const paging = {
  page: z.coerce.number().int().min(1).max(MAX_COUNT.page).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_COUNT.pageSize).default(DEFAULT_PAGE_SIZE),
};

/** Query of `GET /v1/payment-link`. */
export const ListPaymentLinksQuery = z.object({
  ...paging,
  linkType: textSchema(MAX_LENGTH.linkType).meta({ description: '`Standard` or `Donation`, in any case' }).optional(),
  isActive: z.enum(['true', 'false']).optional(),
  q: textSchema(MAX_LENGTH.search).optional(),
});

// ---------------------------------------------------------------------------------------------
// Public checkout API

/**
 * What a browser wallet needs to add a network it does not know (EIP-3085 `wallet_addEthereumChain`):
 * the checkout passes it on as is, so that no bundle carries a table of networks.
 */
export const AddNetwork = z.object({
  /** `0x`-prefixed hexadecimal chain id. */
  chainId: z.string(),
  chainName: z.string(),
  nativeCurrency: z.object({ name: z.string(), symbol: z.string(), decimals: z.number().int() }),
  rpcUrls: z.array(z.string()),
  blockExplorerUrls: z.array(z.string()).optional(),
});

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
  explorerUrl: formatted('uri').nullable(),
  /** What a wallet needs to add the network; null where no public node is known (and on the sandbox). */
  addNetwork: AddNetwork.nullable(),
});
export type CheckoutAsset = z.infer<typeof CheckoutAsset>;

export const LinkState = z.enum(['open', 'inactive', 'closed']);
export type LinkState = z.infer<typeof LinkState>;

/** What `GET /v1/checkout/{slug}` returns: a link without owner ids or counts. */
export const PublicLink = z.object({
  id: Id,
  slug: z.string(),
  url: formatted('uri'),
  title: z.string(),
  description: z.string(),
  linkType: LinkType,
  fiatAmount: z.string(),
  fiatCurrency: z.array(z.string()),
  prepayOptions: PrepayOptions,
  cart: z.object({ items: z.array(CartItem) }),
  isActive: z.boolean(),
  closesAt: Timestamp.nullable(),
  minAmount: DecimalString.nullable(),
  maxAmount: DecimalString.nullable(),
  suggestedAmounts: z.array(DecimalString),
  /** A donation's goal, in the price currency; null when it has none (and on a Standard link). */
  goalAmount: DecimalString.nullable(),
  /**
   * What the link's paid and overpaid donations raised, in the price currency, as each was quoted
   * (underpaid, expired and reversed ones never count); null on a Standard link.
   */
  raised: DecimalString.nullable(),
  /** How many donations `raised` counts; null on a Standard link. */
  donorCount: z.number().int().nullable(),
  state: LinkState,
  assets: z.array(CheckoutAsset),
  sandbox: z.boolean(),
  /** The merchant's display name (`paylink keys create --name`), for the checkout's header; null when none was given. */
  merchantName: z.string().nullable(),
});
export type PublicLink = z.infer<typeof PublicLink>;

export const RecordVisitInput = z.object({ visitId: textSchema(MAX_LENGTH.visitId).min(MIN_LENGTH.visitId).optional() });
export const VisitResult = z.object({ counted: z.boolean(), visitId: z.string() });
export type VisitResult = z.infer<typeof VisitResult>;

/**
 * `confirming`: a transfer has been seen on chain and waits for its confirmations before it counts
 * (real chains only; the sandbox credits at once). `reversed`: the payment was credited, then taken
 * back by a reorg before its block was final (real chains only): its funds left the balance, and the
 * session is closed (anything paid to it later is a late payment).
 */
export const SessionStatus = z.enum(SESSION_STATUSES).meta({
  description:
    '`awaiting_payment` → `confirming` (real chains: a transfer waits for its confirmations) → `paid` | `underpaid` | `overpaid`; an open session → `expired` when its quote runs out; `reversed` (real chains): the payment was credited, then taken back by a reorg before its block was final, and its funds left the balance (a `payment.reversed` webhook says so).',
});
export type SessionStatus = z.infer<typeof SessionStatus>;

export const StartSessionInput = z.object({
  assetId: textSchema(MAX_LENGTH.assetId).meta({ description: 'An asset the link can be paid in (`USDT`, `CNGN`), in any case' }),
  blockchainId: textSchema(MAX_LENGTH.blockchainId)
    .meta({ description: "The network to pay on, by id or alias, in any case: one of the view's `assets` pairs; required when the asset is on more than one network" })
    .optional(),
  fiatCurrency: textSchema(MAX_LENGTH.currencyCode).optional(),
  fiatAmount: amountInput.optional(),
  customer: z
    .object({
      address: textSchema(MAX_LENGTH.customerAddress, 'multiline').optional(),
      phone: textSchema(MAX_LENGTH.phone)
        .meta({ description: 'An international number (+ and 7 to 15 digits; spaces, dots, dashes and brackets are ignored)' })
        .optional(),
      email: textSchema(MAX_LENGTH.email).meta({ format: 'email' }).optional(),
    })
    .optional(),
  /**
   * What the page says the payment is for (the element's `client-reference`). Anyone can change a
   * page, so it is stored as the session's `clientReference`, never as its `reference`: only an order
   * the merchant's server created names the merchant's order.
   */
  reference: textSchema(MAX_LENGTH.reference)
    .meta({
      description:
        'What the page says the payment is for (up to 200 characters). Stored as the session’s `clientReference`, never as its `reference`: anyone can change a page, so only an order created with the API key (`POST /v1/order`) names the merchant’s order',
    })
    .optional(),
  /** A donor's name, shown on the fundraiser's page only with `showPublicly`. Donation links only. */
  donorName: textSchema(MAX_LENGTH.donorName)
    .meta({ description: 'The donor’s name (up to 60 characters), shown on the link’s page only with `showPublicly`. Donation links only' })
    .optional(),
  /** A donor's message. Donation links only. */
  message: textSchema(MAX_LENGTH.donorMessage)
    .meta({ description: 'The donor’s message (up to 280 characters, one line), shown only with `showPublicly`. Donation links only' })
    .optional(),
  /** The donor chose to be listed (name, message, amount) on the link's page once the gift is paid; default false. */
  showPublicly: z
    .boolean()
    .meta({ description: 'List the gift (name, message, amount) on the link’s page once it is paid; default false. Donation links only' })
    .optional(),
  /** Up to 20 string pairs the merchant attaches; returned on the keyed session read and in webhooks. */
  metadata: z
    .record(textSchema(MAX_LENGTH.metadataKey).min(MIN_LENGTH.metadataKey), textSchema(MAX_LENGTH.metadataValue, 'multiline'))
    .refine((value) => Object.keys(value).length <= MAX_COUNT.metadataEntries, `metadata holds at most ${MAX_COUNT.metadataEntries} keys`)
    .meta({ maxProperties: MAX_COUNT.metadataEntries })
    .optional(),
});
export type StartSessionInput = z.input<typeof StartSessionInput>;

/** Query of `GET /v1/checkout/{slug}/donors`. */
export const ListPublicDonorsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_COUNT.publicDonors).default(10),
});

/** A paid donation whose donor chose to be shown, as the fundraiser's page lists it: nothing else of the customer. */
export const PublicDonor = z.object({
  /** The donor's name; null when they gave none. */
  name: z.string().nullable(),
  /** The donor's message; null when they left none. */
  message: z.string().nullable(),
  /** What they gave, in the currency they gave in (`currency`), as quoted. */
  amount: DecimalString,
  currency: z.string(),
  paidAt: Timestamp,
});
export type PublicDonor = z.infer<typeof PublicDonor>;

/** `GET /v1/checkout/{slug}/donors`: the latest public donors, newest first. */
export const PublicDonorList = z.object({ items: z.array(PublicDonor) });
export type PublicDonorList = z.infer<typeof PublicDonorList>;

/**
 * The exchange rate a session was quoted with: `cryptoAmount` is `fiatAmount × rate` rounded up to the
 * asset's decimals. Null on sessions quoted before rates were recorded.
 */
export const QuoteRate = z.object({
  /** Asset units per one unit of `fiatCurrency`: a decimal string, 20 significant digits (24 decimals at least), cut toward zero. */
  rate: DecimalString.nullable(),
  /** The sources behind the rate: `static`, `coingecko`, `coinbase`, `+`-joined when several were combined by their median, and a `peg:ASSET=CURRENCY` that priced the asset. */
  rateSource: z.string().nullable(),
  /** When the oldest figure behind the rate was fetched (for the static table, the quote's own time). */
  rateAt: Timestamp.nullable(),
});

/** A checkout session (a quote and the payment made against it). */
export const CheckoutSession = z.object({
  id: Id,
  /** The payment link's slug; null for a session of an order. */
  slug: z.string().nullable(),
  /** The order it pays (`GET /v1/checkout/orders/{id}`); null for a session of a payment link. */
  orderId: Id.nullable(),
  status: SessionStatus,
  fiatAmount: DecimalString,
  fiatCurrency: z.string(),
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  networkName: z.string(),
  cryptoAmount: DecimalString,
  ...QuoteRate.shape,
  paidAmount: DecimalString,
  remainingAmount: DecimalString,
  payAddress: z.string(),
  txHash: z.string().nullable(),
  /**
   * The network `txHash` is on: the last transfer counted toward the session. The deposit address is
   * the same on every configured network, and a transfer on any of them pays the session, so this may
   * differ from `blockchainId` (the network quoted). Null until a transfer counts.
   */
  paidBlockchainId: z.string().nullable(),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  sandbox: z.boolean(),
  postpayAction: PostpayAction.nullable(),
  /** The asset's chain facts, as in `CheckoutAsset` (null on the sandbox). */
  chainId: z.number().int().nullable(),
  tokenAddress: z.string().nullable(),
  tokenDecimals: z.number().int().nullable(),
  explorerUrl: formatted('uri').nullable(),
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
  txHash: textSchema(66)
    .regex(TX_HASH_PATTERN, 'txHash must be 0x followed by 64 hexadecimal characters')
    .meta({ pattern: TX_HASH_PATTERN.source })
    .optional(),
});

// ---------------------------------------------------------------------------------------------
// Money out

export const WithdrawalStatus = z.enum(WITHDRAWAL_STATUSES);
export type WithdrawalStatus = z.infer<typeof WithdrawalStatus>;

export const CreateWithdrawalInput = z.object({
  amount: amountInput,
  address: textSchema(MAX_LENGTH.address).meta({
    pattern: '^\\s*0x[0-9a-fA-F]{40}\\s*$',
    description: 'An EVM address; a mixed-case address must pass its EIP-55 checksum',
  }),
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

export const WithdrawalList = z.object({ items: z.array(Withdrawal), meta: PageMeta });
export type WithdrawalList = z.infer<typeof WithdrawalList>;

/** A `startDate`/`endDate` filter: an ISO 8601 date (a whole UTC day) or date-time, inclusive. */
const dateFilter = textSchema(MAX_LENGTH.dateText).meta({ description: 'An ISO 8601 date (2025-01-31, a whole UTC day) or date-time; inclusive' });

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
  code: z.enum(['reconciliation_mismatch', 'hot_wallet_low', 'chain_finality_violated']),
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
export const BalanceItem = z.object({ assetId: AssetIdSchema, blockchainId: z.string(), available: DecimalString, pending: DecimalString, owed: DecimalString.optional() });
export const Balance = z.object({ items: z.array(BalanceItem) });
export type Balance = z.infer<typeof Balance>;

// ---------------------------------------------------------------------------------------------
// Prices: what a quote was made of, and the rates as they stand (`GET /v1/rates`)

/** One source's value in a quote's basis. */
export const RateBasisSource = z.object({
  /** `coingecko`, `coinbase`, `kraken`, `exchangerate` or `static`. */
  source: z.string(),
  /** Units of the code per US dollar, as the source said it. */
  perUsd: DecimalString,
  /** When it was fetched; null for the static table. */
  at: Timestamp.nullable(),
  /** In the agreeing quorum (true) or dropped as an outlier (false). */
  used: z.boolean(),
});

/**
 * What one code of a session's pair was priced with: the agreeing sources' median (`perUsd`, units
 * per US dollar), the quorum it needed, and every fresh source's value then.
 */
export const RateBasis = z.object({
  /** `USD/NGN` for a currency (naira per dollar), `USDT/USD` for an asset. */
  pair: z.string(),
  perUsd: DecimalString,
  quorum: z.number().int(),
  sources: z.array(RateBasisSource),
});
export type RateBasis = z.infer<typeof RateBasis>;

/** Why a pair is not quoted: no fresh rate, sources that don't agree, a move held, an asset off its peg. */
export const RateUnquotedReason = z.enum(['stale', 'no_quorum', 'held', 'depeg']);

/** One source's latest word on one code. */
export const RateSourceState = z.object({
  source: z.string(),
  /** Its last usable value (units per US dollar) and when it was fetched (null for the table); null when it has none. */
  perUsd: DecimalString.nullable(),
  at: Timestamp.nullable(),
  /**
   * `agrees` (in the agreeing set), `outlier` (outside it), `disputed` (the sources disagree and nothing
   * tells which is right), `failed` (the source did not answer), `invalid` (its answer for this code was
   * not usable), `stale` (older than the max age, or never given).
   */
  status: z.enum(['agrees', 'outlier', 'disputed', 'failed', 'invalid', 'stale']),
  /** What was wrong (`out_of_range`, `not_a_number`, `http_status`, `redirect`, `timeout`, …); null otherwise. */
  problem: z.string().nullable(),
});

/** One code against the US dollar, as every pair that uses it is priced with it. */
export const RateMarket = z.object({
  /** `USD/NGN` (naira per dollar), `USDT/USD` (the asset against the dollar). */
  pair: z.string(),
  /** The value quoted now, units per US dollar; null when it is not quoted. */
  perUsd: DecimalString.nullable(),
  /** Why it is not quoted (null when it is), and in a sentence. */
  reason: RateUnquotedReason.nullable(),
  message: z.string().nullable(),
  /** (max − min) / median of every fresh source value, a fraction; null without one. */
  spread: DecimalString.nullable(),
  sources: z.array(RateSourceState),
});

/**
 * `GET /v1/rates`: the rates as they stand, per code against the US dollar (a pair a session is priced
 * in, `USDT/NGN`, is quoted when both of its codes are; `GET /readyz` lists those that are not).
 */
export const RatesView = z.object({
  /** How many sources must agree, and within which spread of their median (a fraction). */
  quorum: z.number().int(),
  maxSpread: DecimalString,
  markets: z.array(RateMarket),
});
export type RatesView = z.infer<typeof RatesView>;

// ---------------------------------------------------------------------------------------------
// The merchant's payments: keyed reads of checkout sessions, with what the customer entered

/** How a payment that went wrong was settled: `merchant`, the merchant accepted it as paid. */
export const Resolution = z.enum(['merchant']);

/**
 * What was given back of a payment: the refunds not failed or cancelled (awaiting an address, on their
 * way, or paid out), in the asset the customer paid in (`assetId` of its sessions).
 */
const refundFields = { refundedAmount: DecimalString };

/** A transfer paid into a session, as the keyed session read lists it. */
export const SessionTransfer = z.object({
  txHash: z.string(),
  /** The network it was paid on: any configured network pays the session, whichever was quoted. */
  blockchainId: z.string(),
  amount: DecimalString,
  /** When it was credited (after its confirmations on a real chain); null while it still waits for them. */
  confirmedAt: Timestamp.nullable(),
  /** It arrived after the session expired or was already paid: credited to the balance, not counted toward the session. */
  late: z.boolean(),
});
export type SessionTransfer = z.infer<typeof SessionTransfer>;

/** What the customer typed at checkout; null where the link did not ask or the customer left it empty. */
export const CustomerDetails = z.object({
  address: z.string().nullable(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
});
export type CustomerDetails = z.infer<typeof CustomerDetails>;

/**
 * A checkout session as its merchant sees it (`GET /v1/checkout-session/{id}`, the list's items, and
 * `data.object` of the `checkout.session.*` and `payment.late` webhooks): the amounts, every transfer,
 * the merchant's `reference` and `metadata`, and the customer's details. Never on a keyless route.
 * A transaction's explorer page is `${explorerUrl}/tx/${txHash}`, with the `explorerUrl` of the
 * session's network (`GET /v1/withdrawal/networks`; null on the sandbox).
 */
export const CheckoutSessionRecord = z.object({
  id: Id,
  /** The payment link it pays; null for a session of an order. */
  linkId: Id.nullable(),
  /** The link's slug and title now (a renamed link shows its new title); null for a session of an order. */
  slug: z.string().nullable(),
  linkTitle: z.string().nullable(),
  /** The order it pays (`GET /v1/order/{id}`); null for a session of a payment link. */
  orderId: Id.nullable(),
  status: SessionStatus,
  fiatAmount: DecimalString,
  fiatCurrency: z.string(),
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  networkName: z.string(),
  cryptoAmount: DecimalString,
  ...QuoteRate.shape,
  /** What the rate was made of, per code of the pair priced by a market (none for USD or a peg); null on sessions quoted before it was recorded. */
  rateBasis: z.array(RateBasis).nullable(),
  /** Received before expiry and counted toward `cryptoAmount`. */
  paidAmount: DecimalString,
  /** Received after expiry or after settlement (credited, not counted). */
  lateAmount: DecimalString,
  /** Credited, then taken back by a reorg before it was final (status `reversed` when it was the payment). */
  reversedAmount: DecimalString,
  payAddress: z.string(),
  /** The network of the last transfer counted toward the session (see `CheckoutSession.paidBlockchainId`); null until one counts. */
  paidBlockchainId: z.string().nullable(),
  /** Every transfer to `payAddress` on any configured network, oldest first. */
  transfers: z.array(SessionTransfer),
  /** The merchant's order id: the order's `reference` (`POST /v1/order`); null for a payment link's session. */
  reference: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  /**
   * What the page said the payment was for (a keyless start's `reference`, the element's
   * `client-reference`); null when it said nothing. Anyone can change a page: never ship on it.
   */
  clientReference: z.string().nullable(),
  customer: CustomerDetails,
  /** A donation's donor: the name and message they gave (null when none), and whether they chose to be listed on the link's page. */
  donorName: z.string().nullable(),
  message: z.string().nullable(),
  showPublicly: z.boolean(),
  /** When the merchant hid the donor from the link's page (`POST /v1/checkout-session/{id}/hide-donor`); null while not. */
  donorHiddenAt: Timestamp.nullable(),
  createdAt: Timestamp,
  /** When the session became `paid` or `overpaid`; null otherwise. */
  paidAt: Timestamp.nullable(),
  /**
   * When the money of a `paid` or `overpaid` session became final (every transfer counted toward it is
   * in a final block, its funds available): the `checkout.session.finalized` webhook. Null until then,
   * and on a session not settled. On the sandbox, whose money is available at once, it is the time it
   * was paid: its `checkout.session.paid` already carries it, and no other event follows.
   */
  finalizedAt: Timestamp.nullable(),
  expiresAt: Timestamp,
  ...refundFields,
  /** `merchant` once the merchant accepted it as paid (`POST /v1/checkout-session/{id}/resolve`), with when; null otherwise. */
  resolution: Resolution.nullable(),
  resolvedAt: Timestamp.nullable(),
  /** The merchant's `reason` when it resolved the session (for its records); null otherwise. */
  resolutionReason: z.string().nullable(),
});
export type CheckoutSessionRecord = z.infer<typeof CheckoutSessionRecord>;

export const CheckoutSessionRecordList = z.object({ items: z.array(CheckoutSessionRecord), meta: PageMeta });
export type CheckoutSessionRecordList = z.infer<typeof CheckoutSessionRecordList>;

/** Query of `GET /v1/checkout-session`: filters on the session's creation time (inclusive), its link, status and reference. */
export const ListCheckoutSessionsQuery = z.object({
  ...paging,
  linkId: textSchema(MAX_LENGTH.id).meta({ format: 'uuid', description: 'Only the sessions of this link' }).optional(),
  status: SessionStatus.optional(),
  reference: textSchema(MAX_LENGTH.reference).meta({ description: 'Only the sessions with exactly this reference (the merchant’s order id)' }).optional(),
  startDate: dateFilter.optional(),
  endDate: dateFilter.optional(),
});

// ---------------------------------------------------------------------------------------------
// Orders a shop creates (`POST /v1/order`, `core/rules/order.ts`)

/** `open` until paid in full (`paid`), cancelled by the merchant (`cancelled`) or past `expiresAt` (`expired`). */
export const OrderStatus = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatus>;

/** What a paid order's checkout does: the merchant's message, its confirmation page, or a redirect. */
const orderPostpayInput = z.object({
  successMessage: textSchema(MAX_LENGTH.successMessage, 'multiline').optional(),
  redirectUrl: urlInput.meta({ description: 'Where the paid customer is sent: an absolute http(s) URL, or empty for none' }).optional(),
  showConfirmationPage: z.boolean().meta({ description: 'Show the payment’s confirmation (default true)' }).optional(),
});

/** Body of `POST /v1/order`. Amounts follow the price currency's digits; `cart.items` total `fiatAmount`. */
export const CreateOrderInput = z.object({
  fiatAmount: amountInput.meta({ description: 'The price, in `fiatCurrency` (defaults to the cart’s total; with items, must equal it)' }).optional(),
  fiatCurrency: textSchema(MAX_LENGTH.currencyCode).meta({ description: 'The ISO 4217 code of the price, such as `USD`' }),
  reference: textSchema(MAX_LENGTH.reference).meta({
    description: 'Your id of the order (1 to 200 characters): its sessions and webhooks carry it. While an order for it is open, another is 409',
  }),
  title: textSchema(MAX_LENGTH.title).optional(),
  description: textSchema(MAX_LENGTH.description, 'multiline').optional(),
  cart: z.object({ items: CreatePaymentLinkInput.shape.cart.shape.items }).optional(),
  metadata: StartSessionInput.shape.metadata,
  prepayOptions: z.object({ collectAddress: z.boolean().optional(), collectPhone: z.boolean().optional() }).optional(),
  postpayAction: orderPostpayInput.optional(),
  expiresAt: textSchema(MAX_LENGTH.dateText)
    .meta({
      format: 'date-time',
      description: `Until when it can be paid: in the future, at most ${MAX_ORDER_TTL_MS / 86_400_000} days away (default ${ORDER_TTL_MS / 3_600_000} hours)`,
    })
    .nullable()
    .optional(),
});
export type CreateOrderInput = z.input<typeof CreateOrderInput>;

/**
 * An order as its merchant sees it (`GET /v1/order/{id}`, the list's items, and `data.object` of
 * `order.paid`). `url` is its hosted checkout page (`{paylink_url}/order/<id>`).
 */
export const Order = z.object({
  id: Id,
  status: OrderStatus,
  url: formatted('uri'),
  reference: z.string(),
  title: z.string(),
  description: z.string(),
  fiatAmount: DecimalString,
  fiatCurrency: z.string(),
  cart: z.object({ items: z.array(CartItem) }),
  metadata: z.record(z.string(), z.string()),
  prepayOptions: PrepayOptions,
  postpayAction: PostpayAction,
  /** The session that paid it (`GET /v1/checkout-session/{id}`); null until paid. */
  paidSessionId: Id.nullable(),
  paidAt: Timestamp.nullable(),
  cancelledAt: Timestamp.nullable(),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  ...refundFields,
  /** `merchant` when the merchant accepted an underpaid or late payment of it as its payment; null otherwise. */
  resolution: Resolution.nullable(),
});
export type Order = z.infer<typeof Order>;

export const OrderList = z.object({ items: z.array(Order), meta: PageMeta });
export type OrderList = z.infer<typeof OrderList>;

/** Query of `GET /v1/order`: newest first, by status, exact reference and creation time (inclusive). */
export const ListOrdersQuery = z.object({
  ...paging,
  status: OrderStatus.optional(),
  reference: textSchema(MAX_LENGTH.reference).meta({ description: 'Only the orders with exactly this reference' }).optional(),
  startDate: dateFilter.optional(),
  endDate: dateFilter.optional(),
});

/**
 * Where an order stands for a customer: `open` (payable), `paid`, or `closed` (it expired, or the
 * merchant cancelled it: either way it can no longer be paid).
 */
export const OrderState = z.enum(['open', 'paid', 'closed']);
export type OrderState = z.infer<typeof OrderState>;

/**
 * What `GET /v1/checkout/orders/{id}` returns (keyless): what the customer pays and in what. Never the
 * order's reference, metadata or customer.
 */
export const PublicOrder = z.object({
  id: Id,
  url: formatted('uri'),
  title: z.string(),
  description: z.string(),
  fiatAmount: DecimalString,
  fiatCurrency: z.string(),
  cart: z.object({ items: z.array(CartItem) }),
  prepayOptions: PrepayOptions,
  state: OrderState,
  expiresAt: Timestamp,
  assets: z.array(CheckoutAsset),
  sandbox: z.boolean(),
  /** The merchant's display name, for the checkout's header; null when none was given. */
  merchantName: z.string().nullable(),
});
export type PublicOrder = z.infer<typeof PublicOrder>;

/**
 * Body of `POST /v1/checkout/orders/{id}/sessions` (keyless). The amount is the order's: a
 * `fiatAmount` or `fiatCurrency` other than the order's is refused. A `reference` is what the page
 * says, stored as the session's `clientReference`; the session carries the order's own `reference`
 * and `metadata`.
 */
export const StartOrderSessionInput = z.object({
  assetId: StartSessionInput.shape.assetId,
  blockchainId: textSchema(MAX_LENGTH.blockchainId).meta({ description: 'The network to pay on (id or alias), when the asset is on more than one' }).optional(),
  customer: StartSessionInput.shape.customer,
  fiatAmount: amountInput.meta({ description: 'Optional; if sent, must be the order’s own amount' }).optional(),
  fiatCurrency: textSchema(MAX_LENGTH.currencyCode).meta({ description: 'Optional; if sent, must be the order’s own currency' }).optional(),
  reference: StartSessionInput.shape.reference,
});
export type StartOrderSessionInput = z.input<typeof StartOrderSessionInput>;

// ---------------------------------------------------------------------------------------------
// Refunds and resolutions (`core/rules/refund.ts`)

/** `awaiting_address` → `pending` → `processing` → `success` | `failed`; `cancelled` while awaiting an address. */
export const RefundStatus = z.enum(REFUND_STATUSES);
export type RefundStatus = z.infer<typeof RefundStatus>;

const payoutAddressInput = textSchema(MAX_LENGTH.address).meta({
  pattern: '^\\s*0x[0-9a-fA-F]{40}\\s*$',
  description: 'An EVM address; a mixed-case address must pass its EIP-55 checksum',
});

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
    .meta({ description: 'Where to pay it, on the network the session was paid on. Without it the refund awaits the customer’s address: send them its `claimUrl`' })
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

export const RefundList = z.object({ items: z.array(Refund), meta: PageMeta });
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

// ---------------------------------------------------------------------------------------------
// Webhooks

/** An event type an endpoint can subscribe to (`core/rules/webhooks.ts`). */
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** A URL the service posts events to. Its secret is never part of it (see `WebhookEndpointCreated`). */
export const WebhookEndpoint = z.object({
  id: Id,
  url: formatted('uri'),
  description: z.string(),
  /** The events it receives. */
  events: z.array(WebhookEventType),
  /** An inactive endpoint receives nothing (events meanwhile are not queued for it). */
  isActive: z.boolean(),
  /** After a secret roll: until when the secret it replaced still signs every delivery beside the new one; null when none does. */
  previousSecretExpiresAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** What `POST /v1/webhook-endpoint` returns: the endpoint and its signing secret, shown this once. */
export const WebhookEndpointCreated = WebhookEndpoint.extend({
  /** `whsec_…`: verify deliveries with it (`verifyWebhook` of `paylink/webhooks`). Store it now: no call returns it again. */
  secret: z.string(),
});
export type WebhookEndpointCreated = z.infer<typeof WebhookEndpointCreated>;

export const WebhookEndpointList = z.object({ items: z.array(WebhookEndpoint), meta: PageMeta });
export type WebhookEndpointList = z.infer<typeof WebhookEndpointList>;

/** What `DELETE /v1/webhook-endpoint/{id}` returns. */
export const WebhookEndpointDeleted = z.object({ id: Id, deleted: z.literal(true) });
export type WebhookEndpointDeleted = z.infer<typeof WebhookEndpointDeleted>;

const webhookUrlInput = textSchema(MAX_LENGTH.url).meta({
  format: 'uri',
  description: 'Where events are posted: an https:// URL on a public address (http:// and non-public addresses only when the service runs with PAYLINK_WEBHOOK_ALLOW_PRIVATE=1)',
});
const webhookEventsInput = z
  .array(textSchema(MAX_LENGTH.webhookEventType).meta({ enum: [...WEBHOOK_EVENT_TYPES] }))
  .max(MAX_COUNT.webhookEvents)
  .meta({ description: 'The events to receive; every event when left out' });

/** Body of `POST /v1/webhook-endpoint`. */
export const CreateWebhookEndpointInput = z.object({
  url: webhookUrlInput,
  events: webhookEventsInput.optional(),
  description: textSchema(MAX_LENGTH.webhookDescription).optional(),
});
export type CreateWebhookEndpointInput = z.input<typeof CreateWebhookEndpointInput>;

/** Body of `PATCH /v1/webhook-endpoint`: the endpoint named by `id`, every other field optional. */
export const UpdateWebhookEndpointInput = z.object({
  id: textSchema(MAX_LENGTH.id).meta({ format: 'uuid' }),
  url: webhookUrlInput.optional(),
  events: webhookEventsInput.optional(),
  description: textSchema(MAX_LENGTH.webhookDescription).optional(),
  isActive: z.boolean().optional(),
});
export type UpdateWebhookEndpointInput = z.input<typeof UpdateWebhookEndpointInput>;

/** The longest a rolled secret may keep signing beside its successor, in hours (a week). */
export const MAX_SECRET_OVERLAP_HOURS = 168;

/** Body of `POST /v1/webhook-endpoint/{id}/roll-secret`. */
export const RollWebhookSecretInput = z.object({
  expiresInHours: z
    .number()
    .int()
    .min(0)
    .max(MAX_SECRET_OVERLAP_HOURS)
    .meta({ description: `How long the current secret keeps signing deliveries beside the new one, in hours: 0 stops it now; default 24, at most ${MAX_SECRET_OVERLAP_HOURS}` })
    .optional(),
});
export type RollWebhookSecretInput = z.input<typeof RollWebhookSecretInput>;

/** Query of `GET /v1/webhook-endpoint`. */
export const ListWebhookEndpointsQuery = z.object({ ...paging });

export const WebhookDeliveryStatus = z.enum(WEBHOOK_DELIVERY_STATUSES);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

/** One attempt to deliver an event. */
export const WebhookAttempt = z.object({
  at: Timestamp,
  /** The endpoint's HTTP status; null when no answer came (refused, timed out, private address). */
  statusCode: z.number().int().nullable(),
  /** Why the attempt failed (`HTTP 500`, `timed out after 10 s`, …); null when it was delivered. */
  error: z.string().nullable(),
  durationMs: z.number().int(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

/**
 * One event on its way to one endpoint, and its log. Every attempt of a delivery sends the same
 * event (`eventId`, the `Paylink-Event-Id` header) with a fresh signature.
 */
export const WebhookDelivery = z.object({
  id: Id,
  endpointId: Id,
  /** `evt_…` */
  eventId: z.string(),
  /** One of `WebhookEventType`, or `webhook.test`. */
  eventType: z.string(),
  status: WebhookDeliveryStatus,
  /** Attempts made so far. */
  attemptCount: z.number().int(),
  /** The attempts, oldest first (the latest 50 when there were more). */
  attempts: z.array(WebhookAttempt),
  /** When the next attempt is due (`pending` only); null otherwise. */
  nextAttemptAt: Timestamp.nullable(),
  deliveredAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = z.object({ items: z.array(WebhookDelivery), meta: PageMeta });
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;

/** Query of `GET /v1/webhook-endpoint/{id}/deliveries`, newest first. */
export const ListWebhookDeliveriesQuery = z.object({ ...paging, status: WebhookDeliveryStatus.optional() });

/** `data.object` of a `webhook.test` event (`POST /v1/webhook-endpoint/{id}/test`): the endpoint, about no money. */
export const WebhookTestObject = z.object({ id: Id, object: z.literal('webhook_endpoint'), url: z.string(), message: z.string() });
export type WebhookTestObject = z.infer<typeof WebhookTestObject>;

/**
 * `data.object` of a `reconciliation.mismatch` event: a deposit address of one of the merchant's
 * sessions holds, at a final block, another amount of the session's asset than the books say it
 * received (what was credited there, minus what was swept out of it). Sent once when the difference is
 * found; the operator investigates (docs/operations.md, Reconciliation).
 */
export const ReconciliationMismatch = z.object({
  object: z.literal('reconciliation_mismatch'),
  /** The network the balance was read on. */
  blockchainId: z.string(),
  /** The deposit address. */
  address: z.string(),
  /** The session it served (`GET /v1/checkout-session/{id}`). */
  sessionId: Id,
  assetId: AssetIdSchema,
  /** What the books say it holds, and what the chain holds: exact decimals with all of the token's digits. */
  expected: z.string(),
  actual: z.string(),
  /** The final block the balance was read at. */
  block: z.number().int(),
  /** What the trace found: `unexplained` (no transfer explains the rise), `deficit` (less than the books), `not_credited` (a transfer the settlement did not take), `untraced`. */
  reason: z.string(),
  since: Timestamp,
});
export type ReconciliationMismatch = z.infer<typeof ReconciliationMismatch>;

/**
 * The body of every delivery: `data.object` is the session (a `CheckoutSessionRecord`: the
 * `checkout.session.*` and `payment.late` events), the order (an `Order`: `order.paid`) or the
 * withdrawal (a `Withdrawal`: `withdrawal.*`), the refund (a `Refund`: `refund.*`) as
 * the matching GET returned it when the event happened, a `ReconciliationMismatch` (`reconciliation.mismatch`),
 * or the endpoint for `webhook.test`.
 * `paylink/webhooks`' `verifyWebhook` returns it once the signature checks out.
 */
export const WebhookEvent = z.object({
  /** `evt_…`, the same on every delivery of this event (the `Paylink-Event-Id` header). */
  id: z.string(),
  type: z.string().meta({ description: 'One of `WebhookEventType`, or `webhook.test`' }),
  createdAt: Timestamp,
  data: z.object({ object: z.union([CheckoutSessionRecord, Order, Withdrawal, Refund, ReconciliationMismatch, WebhookTestObject]) }),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

// ---------------------------------------------------------------------------------------------
// Errors

/** A field error of the error body: its type is `core/errors.ts`'s, which this schema must match. */
export const FieldError = z.object({ path: z.string(), message: z.string() }) satisfies z.ZodType<FieldErrorShape>;
export type FieldError = FieldErrorShape;

/** The one error shape of every non-2xx response. */
export const ErrorBody = z.object({
  status: z.literal('error'),
  statusCode: z.number().int(),
  code: z.string(),
  message: z.string(),
  errors: z.array(FieldError).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
