// Server rendering from the installed package, as Next.js (React) and Nuxt (Vue) do it: the element
// modules import on the server, and the element is written into the HTML with its attributes.
import 'paylink/checkout';
import { createElement } from 'react';
import { renderToString as renderReact } from 'react-dom/server';
import { PaylinkCheckout } from 'paylink/react';
import { createSSRApp } from 'vue';
import { renderToString as renderVue } from 'vue/server-renderer';

const react = renderReact(createElement(PaylinkCheckout, { slug: 'abc', apiBase: '/paylink', onPaylinkReady() {} }));
const app = createSSRApp({ data: () => ({ slug: 'abc' }), template: '<paylink-checkout :slug="slug" api-base="/paylink" @paylink-ready="() => {}" />' });
app.config.compilerOptions.isCustomElement = (tag) => tag.startsWith('paylink-');
const vue = await renderVue(app);
console.log(JSON.stringify({ react, vue }));
