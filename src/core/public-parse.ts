/**
 * Zod-free parsers for the public checkout responses (`PublicLink`, `PublicOrder`, `CheckoutSession`,
 * `VisitResult`, `PublicDonorList`). They accept exactly what the zod schemas of `schemas.ts` accept for these types
 * and return the same value (unknown keys dropped), so the client's `checkout` resource
 * (`client/checkout.ts`), which a customer's page may load, parses every response without shipping
 * zod. The `<paylink-checkout>` element does not use them: for its 15 kB budget its own calls
 * (`components/checkout/checkout-api.ts`) only check that an answer is the API's.
 * `test/core/public-parse.test.ts` feeds the same samples to both and expects agreement. In
 * `dist/paylink.js`, which carries the lean parsers of every schema for the admin anyway, the build
 * puts those in their place (`scripts/lean-schemas.ts`); the same test holds them to the same samples.
 * Isomorphic: no DOM, no Node.
 */
import { isDecimalString } from './money.js';
import { SESSION_STATUSES } from './rules/session.js';
import type { CheckoutSession, PublicDonorList, PublicLink, PublicOrder, VisitResult } from './schemas.js';

type Parse<T> = (value: unknown, path: string) => T;

/** Raised when a response does not have the promised shape; the message is the path of the first bad field. */
function fail(path: string): never {
  throw new TypeError(path);
}

const check =
  <T>(test: (value: unknown) => boolean): Parse<T> =>
  (value, path) => {
    if (!test(value)) fail(path);
    return value as T;
  };

const string = check<string>((v) => typeof v == 'string');
const boolean = check<boolean>((v) => typeof v == 'boolean');
// z.number() refuses NaN and ±Infinity; .int() refuses anything past the safe integer range.
const integer = check<number>((v) => Number.isSafeInteger(v));
const decimal = check<string>((v) => typeof v == 'string' && isDecimalString(v));
const oneOf = <T extends string>(...values: T[]) => check<T>((v) => values.includes(v as T));
const nullable =
  <T>(parse: Parse<T>): Parse<T | null> =>
  (value, path) =>
    value === null ? null : parse(value, path);
const array =
  <T>(parse: Parse<T>): Parse<T[]> =>
  (value, path) => {
    if (!Array.isArray(value)) fail(path);
    return value.map((item, index) => parse(item, `${path}.${index}`));
  };

const optional =
  <T>(parse: Parse<T>): Parse<T | undefined> =>
  (value, path) =>
    value === undefined ? value : parse(value, path);

const object =
  <T>(shape: { [K in keyof T]-?: Parse<T[K]> }): Parse<T> =>
  (value, path) => {
    if (typeof value != 'object' || value === null || Array.isArray(value)) fail(path);
    const out: Record<string, unknown> = {};
    for (const key in shape) {
      const field = shape[key]((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
      // A required key that is absent has thrown above; an absent optional key stays absent, as in zod.
      if (key in value) out[key] = field;
    }
    return out as T;
  };

const assetId = oneOf('USDT', 'CNGN');

const prepayOptions = object({ collectAddress: boolean, collectPhone: boolean });
const cart = object({
  items: array(
    object({
      name: string,
      quantity: integer,
      unitAmount: decimal,
      description: optional(string),
      imageUrl: optional(string),
    }),
  ),
});
const assets = array(
  object({
    assetId,
    blockchainId: string,
    networkName: string,
    chainId: nullable(integer),
    tokenAddress: nullable(string),
    decimals: nullable(integer),
    explorerUrl: nullable(string),
    addNetwork: nullable(
      object({
        chainId: string,
        chainName: string,
        nativeCurrency: object({ name: string, symbol: string, decimals: integer }),
        rpcUrls: array(string),
        blockExplorerUrls: optional(array(string)),
      }),
    ),
  }),
);

const publicLink = object<PublicLink>({
  id: string,
  slug: string,
  url: string,
  title: string,
  description: string,
  linkType: oneOf('Standard', 'Donation'),
  fiatAmount: string,
  fiatCurrency: array(string),
  prepayOptions,
  cart,
  isActive: boolean,
  closesAt: nullable(string),
  minAmount: nullable(decimal),
  maxAmount: nullable(decimal),
  suggestedAmounts: array(decimal),
  goalAmount: nullable(decimal),
  raised: nullable(decimal),
  donorCount: nullable(integer),
  state: oneOf('open', 'inactive', 'closed'),
  assets,
  sandbox: boolean,
  merchantName: nullable(string),
});

const publicOrder = object<PublicOrder>({
  id: string,
  url: string,
  title: string,
  description: string,
  fiatAmount: decimal,
  fiatCurrency: string,
  cart,
  prepayOptions,
  state: oneOf('open', 'paid', 'closed'),
  expiresAt: string,
  assets,
  sandbox: boolean,
  merchantName: nullable(string),
});

const checkoutSession = object<CheckoutSession>({
  id: string,
  slug: nullable(string),
  orderId: nullable(string),
  status: oneOf(...SESSION_STATUSES),
  fiatAmount: decimal,
  fiatCurrency: string,
  assetId,
  blockchainId: string,
  networkName: string,
  cryptoAmount: decimal,
  rate: nullable(decimal),
  rateSource: nullable(string),
  rateAt: nullable(string),
  paidAmount: decimal,
  remainingAmount: decimal,
  payAddress: string,
  txHash: nullable(string),
  paidBlockchainId: nullable(string),
  expiresAt: string,
  createdAt: string,
  sandbox: boolean,
  postpayAction: nullable(object({ redirect: boolean, showConfirmationPage: boolean, successMessage: string, redirectUrl: string })),
  chainId: nullable(integer),
  tokenAddress: nullable(string),
  tokenDecimals: nullable(integer),
  explorerUrl: nullable(string),
  confirmations: nullable(integer),
  requiredConfirmations: nullable(integer),
});

const visitResult = object<VisitResult>({ counted: boolean, visitId: string });

const publicDonorList = object<PublicDonorList>({
  items: array(object({ name: nullable(string), message: nullable(string), amount: decimal, currency: string, paidAt: string })),
});

/** Parses `GET /checkout/{slug}`; throws a `TypeError` naming the field on anything `PublicLink` (zod) would refuse. */
export const parsePublicLink = (data: unknown): PublicLink => publicLink(data, '');
/** Parses `GET /checkout/orders/{id}`; throws a `TypeError` naming the field on anything `PublicOrder` (zod) would refuse. */
export const parsePublicOrder = (data: unknown): PublicOrder => publicOrder(data, '');
/** Parses a checkout session; throws a `TypeError` naming the field on anything `CheckoutSession` (zod) would refuse. */
export const parseCheckoutSession = (data: unknown): CheckoutSession => checkoutSession(data, '');
/** Parses `POST /checkout/{slug}/visits`; throws a `TypeError` naming the field on anything `VisitResult` (zod) would refuse. */
export const parseVisitResult = (data: unknown): VisitResult => visitResult(data, '');
/** Parses `GET /checkout/{slug}/donors`; throws a `TypeError` naming the field on anything `PublicDonorList` (zod) would refuse. */
export const parsePublicDonorList = (data: unknown): PublicDonorList => publicDonorList(data, '');
