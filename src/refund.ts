/**
 * Script-tag entry of the refund claim page alone: `<script type="module" src=".../paylink-refund.js">`
 * defines `<paylink-refund>`. Built to `dist/paylink-refund.js` (self-contained), which only the hosted
 * claim page (`{paylink_url}/refund/<id>`) loads: nothing of it is in the checkout a storefront carries.
 */
export { PaylinkRefund } from './components/refund/paylink-refund.js';
