// A merchant back end in plain Node ESM: the headless client creates a payment link and lists links,
// straight against the service with the API key (server-side only).
import { createPaylinkClient } from 'paylink/client';
import { signWebhookPayload, verifyWebhook } from 'paylink/webhooks';

const paylink = createPaylinkClient({ baseUrl: process.env.PAYLINK_URL, apiKey: process.env.PAYLINK_API_KEY });
const link = await paylink.links.create({
  title: 'Consumer test order',
  description: 'Two mugs',
  linkType: 'Standard',
  fiatAmount: '25.00',
  fiatCurrency: 'USD',
  action: { successMessage: 'Thank you!', redirect: false, showConfirmationPage: true },
  options: { collectAddress: false, collectPhone: false },
  cart: { items: [] },
});
const list = await paylink.links.list({ limit: 10 });

// And a webhook delivery checked the way a merchant's endpoint does.
const body = JSON.stringify({ id: 'evt_1', type: 'checkout.session.paid', createdAt: new Date().toISOString(), data: { object: { id: 'cs_1' } } });
const event = await verifyWebhook(body, await signWebhookPayload('whsec_consumer', body, Math.floor(Date.now() / 1000)), 'whsec_consumer');

console.log(JSON.stringify({ slug: link.slug, url: link.url, listed: list.items.map((item) => item.slug), total: list.meta.totalItems, event: event.type }));
