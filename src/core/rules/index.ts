/**
 * The rules of Paylink, written once: pure functions that take what a person typed or a
 * request carried and return field errors with message keys (`{path, key, params}`). The service maps
 * the keys to the API's English (`server/service/messages.ts`), the elements to their translations;
 * the zod request schemas (`core/schemas.ts`), and so the OpenAPI document, take their limits and
 * patterns from `limits.ts`. Isomorphic: no DOM, no Node, no zod, so every element can import them.
 *
 * | module | rules |
 * |---|---|
 * | `limits.ts` | `MAX_AMOUNT`, text lengths, counts, the UUID / slug / tx-hash / Idempotency-Key patterns |
 * | `text.ts`, `dates.ts` | free text and ISO dates (the NUL-byte and impossible-date refusals go here) |
 * | `amount.ts` | every amount of every request |
 * | `link.ts` | payment links: `resolveLinkDraft`, `isHttpUrl` |
 * | `withdrawal.ts`, `networks.ts` | withdrawals, EVM addresses, configured networks |
 * | `customer.ts` | what a customer types: address, phone (the service's rule), email |
 * | `session.ts` | checkout session statuses (open, settled, terminal) |
 * | `session-tags.ts` | a session's or an order's `reference` and `metadata` |
 * | `order.ts` | orders a shop creates: `resolveOrderDraft`, the order statuses, the default and longest life |
 * | `webhooks.ts` | webhook event types, delivery states, an endpoint's `url`, `events`, `description` |
 * | `refund.ts` | refund statuses, a refund's `amount` and `address`, the claim header |
 */
export * from './types.js';
export * from './limits.js';
export * from './text.js';
export * from './dates.js';
export * from './amount.js';
export * from './link.js';
export * from './networks.js';
export * from './withdrawal.js';
export * from './customer.js';
export * from './session.js';
export * from './session-tags.js';
export * from './order.js';
export * from './webhooks.js';
export * from './refund.js';
