/**
 * `paylink` in runtimes without a DOM (see `./checkout.ts`): the headless client as the browser entry
 * re-exports it, and the elements' classes as stand-ins.
 */
// First, as in the browser entry: edge runtimes refuse `new Function`, which zod's JIT would probe.
import '../internal/zod-jitless.js';

export { PaylinkCheckout } from './checkout.js';
export { PaylinkAdmin } from './admin.js';
export { createCheckoutApi, TERMINAL_STATUSES } from '../client/checkout.js';
export * from '../client/errors.js';
export { createPaylinkClient } from '../client/index.js';
