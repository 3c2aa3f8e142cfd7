/**
 * Payment links: what the service returns and the bodies and query that create, change and list them.
 * Part of the wire format (`core/schemas.ts`).
 */
import { z } from 'zod';
import { DECIMAL_PATTERN, MAX_COUNT, MAX_LENGTH } from '../rules/limits.js';
import {
  amountInput,
  Cart,
  DecimalString,
  formatted,
  Id,
  LinkType,
  pageOf,
  paging,
  PostpayAction,
  PrepayOptions,
  textSchema,
  Timestamp,
  urlInput,
} from './shared.js';
import { LinkState } from './sessions.js';

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
    .pipe(z.string().meta({ pattern: DECIMAL_PATTERN.source, description: "A decimal string with the price currency's digits" })),
  fiatCurrency: z.array(z.string()),
  prepayOptions: PrepayOptions,
  postpayAction: PostpayAction,
  cart: Cart,
  isActive: z.boolean(),
  /**
   * Where the link stands for a customer now, by the service's clock: `inactive` when switched off,
   * `closed` when a donation's `closesAt` passed. Always sent by this service; optional for servers
   * that speak only the spec.
   */
  state: LinkState.optional(),
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

export const PaymentLinkList = pageOf(PaymentLink);
export type PaymentLinkList = z.infer<typeof PaymentLinkList>;

/** One code or a list of codes (ISO 4217), as the spec's examples disagree. */
const currencyInput = (list: z.ZodArray<z.ZodString>) => z.union([textSchema(MAX_LENGTH.currencyCode), list]);
const currencyCodes = z.array(textSchema(MAX_LENGTH.currencyCode)).max(MAX_COUNT.fiatCurrencies);

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

/** Query of `GET /v1/payment-link`. */
export const ListPaymentLinksQuery = z.object({
  ...paging,
  linkType: textSchema(MAX_LENGTH.linkType).meta({ description: '`Standard` or `Donation`, in any case' }).optional(),
  isActive: z.enum(['true', 'false']).optional(),
  q: textSchema(MAX_LENGTH.search).optional(),
});
