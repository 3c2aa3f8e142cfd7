/**
 * # Room: orders
 *
 * Owns: the table `orders` (./repository.ts holds all its SQL), `/v1/order*` (./routes.ts: create with
 * `Idempotency-Key`, list, get, cancel, behind `X-API-KEY`), the order's rules as the API applies them
 * (./domain.ts, over `core/rules/order.ts`), its keyed and public views, its expiry, and `order.paid`.
 *
 * An order is what a shop's server creates for its own cart at its own price: only the key sets its
 * amount, currency, reference and metadata; a page can open it (`{paylink_url}/order/<id>`,
 * `<paylink-checkout order="…">`) and pay it, never change it. It is paid once.
 *
 * May touch: the links room's `payableAssets` (the assets a public view offers), the keys room's
 * `integratorSql` (the merchant's display name), idempotency (`runIdempotent`) and domain events
 * (`recordEvent`: `order.paid`). The sessions room starts an order's sessions (the keyless
 * `/v1/checkout/orders/*` routes) with `readOrder`, `toPublicOrder` and `lockOrder`, and settles them
 * with `lockOrderForPayment` and `markOrderPaid`, in its own transaction (and the refunds room resolves
 * one, `markOrderResolved`, when the merchant accepts an underpaid or late payment); it reads an order's columns
 * only through `orderSql`, and runs `expireDueOrders` in its expiry sweep. Cancelling closes the order's
 * sessions through the function the app passes in (`CloseOrderSessions`), so this room does not reach
 * into the sessions room.
 */
export {
  buildOrderDraft,
  cancelOrder,
  createOrder,
  expireDueOrders,
  getOrder,
  listOrders,
  lockOrderForPayment,
  markOrderPaid,
  markOrderResolved,
  readOrder,
  toOrder,
  toPublicOrder,
  type CloseOrderSessions,
} from './domain.js';
export { lockOrder, orderSql, type OrderRow } from './repository.js';
export { orderOperations } from './routes.js';
