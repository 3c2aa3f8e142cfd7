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
 *
 * One file a resource in `core/schemas/` (links, sessions, orders, withdrawals, refunds, rates,
 * webhooks, and the pieces they share); this module re-exports them, so importers name one place.
 */
export {
  AssetIdSchema,
  CartItem,
  DecimalString,
  ErrorBody,
  FieldError,
  LinkType,
  PageMeta,
  PostpayAction,
  PrepayOptions,
  textSchema,
  Timestamp,
} from './schemas/shared.js';
export * from './schemas/links.js';
export * from './schemas/sessions.js';
export * from './schemas/orders.js';
export * from './schemas/withdrawals.js';
export * from './schemas/refunds.js';
export * from './schemas/rates.js';
export * from './schemas/webhooks.js';
