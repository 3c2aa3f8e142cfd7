/**
 * Entry of `<paylink-admin>`: importing this module defines the element. Kept apart from the
 * checkout's entry so that storefronts loading `dist/paylink-checkout.js` never download the console.
 */
// First: zod's JIT (`new Function`) must be off before the admin's schemas are built.
import './internal/zod-jitless.js';

export { PaylinkAdmin, type AdminView } from './components/admin/paylink-admin.js';
