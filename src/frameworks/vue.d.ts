/**
 * `import 'paylink/vue'` (types only): makes `<paylink-checkout>` and `<paylink-admin>` typed in Vue
 * templates (Volar / vue-tsc), with `@paylink-*` events. Tell Vue's compiler they are custom elements:
 * `compilerOptions.isCustomElement: (tag) => tag.startsWith('paylink-')`.
 */
import type { DefineComponent } from 'vue';
import type {
  PaylinkAdminAttributes,
  PaylinkCheckoutAttributes,
  PaylinkErrorDetail,
  PaylinkReadyDetail,
  PaylinkSessionDetail,
  PaylinkSuccessDetail,
} from './elements.js';

type CheckoutEvents = {
  'onPaylink-ready'?: (event: CustomEvent<PaylinkReadyDetail>) => void;
  'onPaylink-session'?: (event: CustomEvent<PaylinkSessionDetail>) => void;
  'onPaylink-success'?: (event: CustomEvent<PaylinkSuccessDetail>) => void;
  'onPaylink-error'?: (event: CustomEvent<PaylinkErrorDetail>) => void;
};

declare module 'vue' {
  interface GlobalComponents {
    'paylink-checkout': DefineComponent<PaylinkCheckoutAttributes & CheckoutEvents>;
    'paylink-admin': DefineComponent<PaylinkAdminAttributes>;
  }
}
