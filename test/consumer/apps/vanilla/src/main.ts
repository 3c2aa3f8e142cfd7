// A storefront built with Vite: the checkout alone, from the package (no admin code in the bundle).
import 'paylink/checkout';
import type { PaylinkReadyDetail } from 'paylink/checkout';

const params = new URLSearchParams(location.search);
const checkout = document.createElement('paylink-checkout');
checkout.slug = params.get('slug') ?? '';
checkout.apiBase = params.get('api') ?? '/paylink';
checkout.addEventListener('paylink-ready', (event) => {
  const detail: PaylinkReadyDetail = event.detail;
  document.body.dataset.ready = detail.link.title;
});
document.querySelector<HTMLDivElement>('#app')!.append(checkout);
