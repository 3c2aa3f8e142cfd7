/**
 * Browser entry of the `paylink` package: defines the elements and re-exports the headless client.
 * Built to `dist/paylink.js` (both elements, self-contained).
 */

// First: zod's JIT (`new Function`) must be off before any schema is built (see the module).
import './internal/zod-jitless.js';

// The checkout element.
export * from './checkout.js';
export { createCheckoutApi, TERMINAL_STATUSES } from './client/checkout.js';
export type { CheckoutApi, CheckoutApiOptions, WatchOptions } from './client/checkout.js';
export * from './client/errors.js';

// The admin element and the full headless client.
export * from './admin.js';
export { createPaylinkClient } from './client/index.js';
export type { PaylinkClient, PaylinkClientOptions } from './client/index.js';
