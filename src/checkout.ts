/**
 * Script-tag entry of the checkout alone: `<script type="module" src=".../paylink-checkout.js">`
 * defines `<paylink-checkout>`. Built to `dist/paylink-checkout.js` (self-contained, ≤ 15 kB gzip).
 */
export { PaylinkCheckout } from './components/checkout/paylink-checkout.js';
export type {
  CheckoutView,
  PaylinkErrorDetail,
  PaylinkReadyDetail,
  PaylinkSessionDetail,
  PaylinkSuccessDetail,
} from './components/checkout/paylink-checkout.js';
