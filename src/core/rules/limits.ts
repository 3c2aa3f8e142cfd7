/**
 * The one definition of every limit and pattern of the API: the zod request schemas
 * (`core/schemas.ts`), and through them the OpenAPI document, read their `maxLength`, `pattern` and
 * bounds from here, and so do the rules the elements run. Change a limit here and the service, the
 * document and the forms change together. Isomorphic: no DOM, no Node, no zod.
 */

/** Largest amount anything may carry (a price, a donation, a withdrawal, a transfer): well inside NUMERIC(30, 6). */
export const MAX_AMOUNT = '1000000000000';

/**
 * Decimal digits of every crypto amount the service keeps (the ledger's NUMERIC(30, 6)): what a
 * withdrawal or a transfer may carry, what a quote is rounded to, and every asset's `ASSET_DIGITS`.
 */
export const CRYPTO_DIGITS = 6;

/**
 * Longest customer address, phone and email. Also in `MAX_LENGTH`; named on their own because the checkout
 * element runs `checkCustomer` in every customer's browser: a bundler inlines these numbers, where
 * reading them from `MAX_LENGTH` ships the whole table (0.3 kB of the checkout's 15 kB).
 */
export const MAX_ADDRESS_LENGTH = 500;
/** Longest email (RFC 5321's path limit). See `MAX_ADDRESS_LENGTH`. */
export const MAX_EMAIL_LENGTH = 254;
/** Longest phone number as typed (spaces, dots, dashes and brackets included). See `MAX_ADDRESS_LENGTH`. */
export const MAX_PHONE_LENGTH = 40;
/** Longest amount sent as text (`"12.50"`), and so typed in the checkout. See `MAX_ADDRESS_LENGTH`. */
export const MAX_AMOUNT_TEXT_LENGTH = 40;
/** Longest name a donor gives (shown on the fundraiser's page when they choose). See `MAX_ADDRESS_LENGTH`. */
export const MAX_DONOR_NAME_LENGTH = 60;
/** Longest message a donor leaves. See `MAX_ADDRESS_LENGTH`. */
export const MAX_DONOR_MESSAGE_LENGTH = 280;

/** Longest text of each request field, in UTF-16 code units (what `String.length` and JSON Schema's `maxLength` count). */
export const MAX_LENGTH = {
  title: 200,
  description: 5000,
  successMessage: 2000,
  url: 2048,
  itemName: 200,
  itemDescription: 1000,
  /** A link kind as typed (`Standard`, `DONATION`). */
  linkType: 20,
  /** A currency code as typed (`NGN`, ` usd `). */
  currencyCode: 8,
  /** An amount sent as a string (`"12.50"`). */
  amountText: MAX_AMOUNT_TEXT_LENGTH,
  /** An ISO 8601 date or date-time. */
  dateText: 40,
  search: 200,
  customerAddress: MAX_ADDRESS_LENGTH,
  donorName: MAX_DONOR_NAME_LENGTH,
  donorMessage: MAX_DONOR_MESSAGE_LENGTH,
  phone: MAX_PHONE_LENGTH,
  email: MAX_EMAIL_LENGTH,
  reference: 200,
  metadataKey: 40,
  metadataValue: 500,
  webhookDescription: 500,
  refundReason: 500,
  /** An event type as typed (`checkout.session.paid`). */
  webhookEventType: 64,
  visitId: 100,
  assetId: 16,
  blockchainId: 64,
  /** An EVM address as typed: 42 characters, with room for surrounding spaces. */
  address: 64,
  idempotencyKey: 255,
  /** A link id, a session id or a withdrawal id in a path or a body. */
  id: 64,
} as const;

/** Smallest text of the fields that have one. */
export const MIN_LENGTH = { visitId: 8, idempotencyKey: 1, metadataKey: 1 } as const;

/** Counts and numeric bounds. */
export const MAX_COUNT = {
  cartItems: 100,
  quantity: 10_000,
  suggestedAmounts: 8,
  metadataEntries: 20,
  /** Event types named in one webhook endpoint body (there are 7; repeats are dropped). */
  webhookEvents: 20,
  fiatCurrencies: 40,
  page: 1_000_000,
  pageSize: 100,
  /** Donors one read of a fundraiser's public list gives (`GET /v1/checkout/{slug}/donors?limit=`). */
  publicDonors: 50,
} as const;

/** Page size of every list when `limit` is not given. */
export const DEFAULT_PAGE_SIZE = 20;

/** How long a checkout session's quote holds. */
export const QUOTE_TTL_MS = 15 * 60 * 1000;

/** A UUID (any version), as every id of the service is. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is a UUID: anything else can't name a row, so it is a 404 without a query. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** A link's slug: what `/v1/checkout/{slug}` and `/pay/{slug}` accept. */
export const SLUG_PATTERN = /^[A-Za-z0-9]{1,64}$/;

/** A transaction hash: `0x` and 64 hexadecimal characters. */
export const TX_HASH_PATTERN = /^0x[0-9a-fA-F]{64}$/;

/** An `Idempotency-Key`: visible ASCII only. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]+$/;

/** A decimal amount on the wire (`"12.50"`): what responses carry and what requests may send as text. */
export const DECIMAL_PATTERN = /^\d+(\.\d+)?$/;
