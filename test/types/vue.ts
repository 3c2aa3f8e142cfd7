// Vue's GlobalComponents carry the elements' props: a typed h() call and a props check.
import { h, type GlobalComponents } from 'vue';
import '../../src/frameworks/vue.js';

type CheckoutProps = InstanceType<GlobalComponents['paylink-checkout']>['$props'];

export const props: CheckoutProps = { slug: 'AbCdEf1234', locale: 'fr', theme: 'dark' };
export const vnode = h('paylink-checkout', { slug: 'AbCdEf1234' });
// @ts-expect-error theme is light or dark
export const bad: CheckoutProps = { slug: 'x', theme: 'blue' };
