/**
 * Orders a shop creates (`POST /v1/order`, `core/rules/order.ts`), and what the checkout shows of
 * them. Part of the wire format (`core/schemas.ts`).
 */
import { z } from 'zod';
import { MAX_LENGTH } from '../rules/limits.js';
import { MAX_ORDER_TTL_MS, ORDER_STATUSES, ORDER_TTL_MS } from '../rules/order.js';
import {
  amountInput,
  Cart,
  dateFilter,
  DecimalString,
  formatted,
  Id,
  pageOf,
  paging,
  PostpayAction,
  PrepayOptions,
  refundFields,
  textSchema,
  Timestamp,
  urlInput,
} from './shared.js';
import { CreatePaymentLinkInput } from './links.js';
import { CheckoutAsset, Resolution, StartSessionInput } from './sessions.js';

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
  cart: Cart,
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

export const OrderList = pageOf(Order);
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
  cart: Cart,
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
