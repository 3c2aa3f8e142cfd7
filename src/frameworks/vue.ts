/**
 * `paylink/vue` (types only): `<paylink-checkout>` and `<paylink-admin>` typed in Vue templates
 * (Volar / vue-tsc): props, and `@paylink-success` and the other events with their `detail` types
 * (Vue names the listener of `@paylink-success` `onPaylinkSuccess`). A misspelt event is an error
 * under `vueCompilerOptions.strictTemplates` (or `checkUnknownEvents`); a wrong detail type always is.
 *
 * Tell Vue's compiler they are custom elements:
 * `vue({ template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('paylink-') } } })`,
 * and import `paylink/checkout` (or `paylink/admin`) once to define them.
 */
import type { DefineComponent } from 'vue';
import type {
  CamelAttributes,
  PascalListeners,
  PaylinkAdminAttributes,
  PaylinkAdminEventMap,
  PaylinkCheckoutAttributes,
  PaylinkCheckoutEventMap,
  PaylinkCheckoutProperties,
} from './elements.js';

export type * from './elements.js';

declare module 'vue' {
  interface GlobalComponents {
    'paylink-checkout': DefineComponent<CamelAttributes<PaylinkCheckoutAttributes> & PaylinkCheckoutProperties & PascalListeners<PaylinkCheckoutEventMap>>;
    'paylink-admin': DefineComponent<CamelAttributes<PaylinkAdminAttributes> & PascalListeners<PaylinkAdminEventMap>>;
  }
}
