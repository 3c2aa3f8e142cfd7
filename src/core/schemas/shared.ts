/**
 * The pieces every resource's schemas are built from: request text, decimal amounts, timestamps, ids,
 * paging and date filters, the cart and its actions, and the one error body. Part of the wire format
 * (`core/schemas.ts`).
 */
import { z } from 'zod';
import type { FieldError as FieldErrorShape } from '../errors.js';
import { DECIMAL_PATTERN, DEFAULT_PAGE_SIZE, MAX_AMOUNT, MAX_COUNT, MAX_LENGTH } from '../rules/limits.js';
import { ASSET_IDS } from '../money.js';
import { LINK_TYPES } from '../rules/link.js';
import { hasForbiddenCharacters, LINE_TEXT_PATTERN, MULTILINE_TEXT_PATTERN, type TextKind } from '../rules/text.js';

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
export const formatted = (format: string) => z.string().meta({ format });

/** A decimal amount on the wire, e.g. `"12.50"`. Never a float. */
export const DecimalString = z.string().regex(DECIMAL_PATTERN, 'Expected a decimal amount such as "12.50"');

/** ISO 8601 timestamp in UTC with milliseconds. */
export const Timestamp = formatted('date-time');

/** An id the service made (a UUID). */
export const Id = formatted('uuid');

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

/** A cart as a response carries it: its items (a link's, an order's). */
export const Cart = z.object({ items: z.array(CartItem) });

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

/** One page of a list of `item`: the page's items, newest first, and its `meta`. */
export const pageOf = <Item extends z.ZodType>(item: Item) => z.object({ items: z.array(item), meta: PageMeta });

/**
 * An amount in a request: a number or a decimal string. Only its size is checked here;
 * `core/rules/amount.ts` reads it (and refuses negatives, exponents, extra digits), as documented.
 */
export const amountInput = z.union([
  z.number().meta({ minimum: 0, maximum: Number(MAX_AMOUNT) }),
  textSchema(MAX_LENGTH.amountText).meta({ pattern: `^\\s*${DECIMAL_PATTERN.source.slice(1, -1)}\\s*$` }),
]);

/** An absolute http(s) URL, or '' for none (`core/rules/link.ts` checks the scheme). */
export const urlInput = textSchema(MAX_LENGTH.url).meta({ format: 'uri' });

/** `page` and `limit` of every list. */
export const paging = {
  page: z.coerce.number().int().min(1).max(MAX_COUNT.page).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_COUNT.pageSize).default(DEFAULT_PAGE_SIZE),
};

/** A `startDate`/`endDate` filter: an ISO 8601 date (a whole UTC day) or date-time, inclusive. */
export const dateFilter = textSchema(MAX_LENGTH.dateText).meta({ description: 'An ISO 8601 date (2025-01-31, a whole UTC day) or date-time; inclusive' });

/**
 * What was given back of a payment: the refunds not failed or cancelled (awaiting an address, on their
 * way, or paid out), in the asset the customer paid in (`assetId` of its sessions).
 */
export const refundFields = { refundedAmount: DecimalString };

/** An address money is paid out to (a withdrawal's, a refund's): `core/rules/` checks it. */
export const payoutAddressInput = textSchema(MAX_LENGTH.address).meta({
  pattern: '^\\s*0x[0-9a-fA-F]{40}\\s*$',
  description: 'An EVM address; a mixed-case address must pass its EIP-55 checksum',
});

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
