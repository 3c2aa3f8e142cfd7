/**
 * Checkout sessions: the public checkout API (a link, a visit, a quote, its payment) and the
 * merchant's keyed reads of sessions, with what the customer entered. Part of the wire format
 * (`core/schemas.ts`).
 */
import { z } from 'zod';
import { MAX_COUNT, MAX_LENGTH, MIN_LENGTH, TX_HASH_PATTERN } from '../rules/limits.js';
import { SESSION_STATUSES } from '../rules/session.js';
import {
  amountInput,
  AssetIdSchema,
  Cart,
  dateFilter,
  DecimalString,
  formatted,
  Id,
  LinkType,
  pageOf,
  paging,
  PostpayAction,
  PrepayOptions,
  refundFields,
  textSchema,
  Timestamp,
} from './shared.js';
import { RateBasis } from './rates.js';

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
  cart: Cart,
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
    .meta({
      description: "The network to pay on, by id or alias, in any case: one of the view's `assets` pairs; required when the asset is on more than one network",
    })
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

/** What both views of a session (`CheckoutSession`, `CheckoutSessionRecord`) say of its quote: status, amounts, asset, network, rate. */
const sessionQuote = {
  status: SessionStatus,
  fiatAmount: DecimalString,
  fiatCurrency: z.string(),
  assetId: AssetIdSchema,
  blockchainId: z.string(),
  networkName: z.string(),
  cryptoAmount: DecimalString,
  ...QuoteRate.shape,
};

/** A checkout session (a quote and the payment made against it). */
export const CheckoutSession = z.object({
  id: Id,
  /** The payment link's slug; null for a session of an order. */
  slug: z.string().nullable(),
  /** The order it pays (`GET /v1/checkout/orders/{id}`); null for a session of a payment link. */
  orderId: Id.nullable(),
  ...sessionQuote,
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
  chainId: CheckoutAsset.shape.chainId,
  tokenAddress: CheckoutAsset.shape.tokenAddress,
  tokenDecimals: CheckoutAsset.shape.decimals,
  explorerUrl: CheckoutAsset.shape.explorerUrl,
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
  txHash: textSchema(66).regex(TX_HASH_PATTERN, 'txHash must be 0x followed by 64 hexadecimal characters').meta({ pattern: TX_HASH_PATTERN.source }).optional(),
});

// ---------------------------------------------------------------------------------------------
// The merchant's payments: keyed reads of checkout sessions, with what the customer entered

/** How a payment that went wrong was settled: `merchant`, the merchant accepted it as paid. */
export const Resolution = z.enum(['merchant']);

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
  ...sessionQuote,
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

export const CheckoutSessionRecordList = pageOf(CheckoutSessionRecord);
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
