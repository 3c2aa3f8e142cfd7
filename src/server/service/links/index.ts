/**
 * # Room: links
 *
 * Owns: the tables `payment_links`, `integrator_link_counts`, `link_visits` and `link_fundraising` (./repository.ts
 * holds all their SQL; ./fundraising.ts counts a link's payments and gifts), its `/v1/payment-link*` operations (./routes.ts), the link's rules as the API applies them
 * (./domain.ts, over `core/rules/link.ts`), its keyed and public views, visits, and the per-instance
 * cache of links by slug (./cache.ts).
 *
 * May touch: the keys room's integrator row (`nextLinkSeq`, and the `integratorSql` read fragments)
 * and domain events (`recordEvent`: `link.changed`); idempotency (`runIdempotent`, for a create's
 * `Idempotency-Key`). The sessions room serves the public checkout
 * routes with this room's `getLinkBySlug`, `toPublicLink`, `linkState` and `recordVisit`, counts a
 * settled payment (and a fundraiser's gift) with `countPayment` in its own transaction (`uncountPayment` when a reorg took it back), and reads a link's columns only
 * through `linkSql`.
 */
export {
  buildDraft,
  createLink,
  createLinkOnce,
  getLink,
  getLinkBySlug,
  linkState,
  listLinks,
  payableAssets,
  recordVisit,
  toPaymentLink,
  toPublicLink,
  type LinkDraft,
  type LinkRow,
} from './domain.js';
export { linkSql } from './repository.js';
export { countPayment, uncountPayment, type Gift } from './fundraising.js';
export { createLinkCache, type LinkCache } from './cache.js';
export { paymentLinkOperations } from './routes.js';
