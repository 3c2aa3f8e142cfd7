// Vue's GlobalComponents carry the elements' props and events (Vue names the listener of
// `@paylink-success` `onPaylinkSuccess`). Templates are checked by vue-tsc in test/consumer; here the
// same types are checked through h() and the props type.
import { h, type GlobalComponents } from 'vue';
import '../../src/frameworks/vue.js';

type CheckoutProps = InstanceType<GlobalComponents['paylink-checkout']>['$props'];
type AdminProps = InstanceType<GlobalComponents['paylink-admin']>['$props'];

export const props: CheckoutProps = {
  slug: 'AbCdEf1234',
  apiBase: '/paylink',
  locale: 'fr',
  theme: 'dark',
  clientReference: 'cart-42',
  metadata: { cart: 'c_9' },
  onPaylinkSuccess: (event) => console.log(event.detail.session.status),
  onPaylinkReady: (event) => console.log(event.detail.link.title),
};
export const adminProps: AdminProps = { apiBase: '/paylink', onPaylinkLinkSaved: (event) => console.log(event.detail.created) };
export const vnode = h('paylink-checkout', { slug: 'AbCdEf1234' });
export const orderProps: CheckoutProps = { order: '0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b' };
// @ts-expect-error theme is light or dark
export const bad: CheckoutProps = { slug: 'x', theme: 'blue' };
// @ts-expect-error a misspelt event
export const misspelt: CheckoutProps = { slug: 'x', onPaylinkSucess: () => {} };
// @ts-expect-error the detail of paylink-success has no `link`
export const wrongDetail: CheckoutProps = { slug: 'x', onPaylinkSuccess: (event) => console.log(event.detail.link) };
// @ts-expect-error metadata holds strings only
export const numberMetadata: CheckoutProps = { slug: 'x', metadata: { items: 3 } };
