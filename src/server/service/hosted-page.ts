/**
 * The hosted checkout pages: each link's `url` (`{paylink_url}/<slug>`) opens `/pay/<slug>`, and each
 * order's (`{paylink_url}/order/<id>`) opens `/pay/order/<id>`: a page of its own with the checkout
 * element, so a link or an order works when shared alone (chat, email, social, a shop's redirect). It
 * carries the title and description as preview metadata (never an order's reference or metadata), and
 * the built script-tag bundle is served from `/dist/` (src/server/bundles.ts, mounted in app.ts).
 *
 * A refund's claim link (`{paylink_url}/refund/<id>#<token>`) opens `/pay/refund/<id>`: the same page
 * for every refund, which names nothing of it (the token, in the fragment, never reaches the server:
 * the page's own script, `dist/paylink-refund.js`, reads it and asks the API), in French for a browser
 * that prefers it.
 */
import type { Hono } from 'hono';
import type { AppEnv, ServiceDeps } from './context.js';
import { ApiError } from './errors.js';
import type { LinkCache } from './links/index.js';
import { readOrder } from './orders/index.js';

/** The Content-Security-Policy of hosted pages: no inline script, no eval, Trusted Types enforced. */
export const HOSTED_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: https:",
  "style-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types lit-html',
].join('; ');

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** What a hosted page shows: its preview metadata, who asks to be paid, and the checkout's own attribute. */
interface HostedPage {
  title: string;
  description: string;
  /** Who is asking to be paid ('' for nobody: a page that found nothing). */
  merchant: string;
  /** The page's public URL (`og:url`). */
  url: string;
  /** The checkout's `slug="…"` or `order="…"`. */
  checkout: { name: 'slug' | 'order'; value: string };
}

/** A hosted page: its language, title, the head's lines of its own, its script in `dist/`, and what its `main` holds (escaped by the caller). */
function pageHtml(page: { lang: string; title: string; head: string; script: string; main: string }): string {
  return `<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Paylink</title>
${page.head}<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dist/hosted.css">
<script type="module" src="/dist/${page.script}"></script>
</head>
<body>
<main>
${page.main}
</main>
</body>
</html>
`;
}

function hostedPageHtml(page: HostedPage): string {
  const { title, description, merchant, url, checkout } = page;
  return pageHtml({
    lang: 'en',
    title,
    head: `<meta name="description" content="${escapeHtml(description)}">
<meta property="og:type" content="website">
<meta property="og:title" content="${escapeHtml(title)}">
<meta property="og:description" content="${escapeHtml(description)}">
<meta property="og:url" content="${escapeHtml(url)}">
<meta name="twitter:card" content="summary">
`,
    script: 'paylink-checkout.js',
    main: `${merchant ? `<header class="merchant"><span class="mark" aria-hidden="true">${escapeHtml([...merchant][0]!.toUpperCase())}</span><h1>${escapeHtml(merchant)}</h1></header>\n` : ''}<paylink-checkout ${checkout.name}="${escapeHtml(checkout.value)}" api-base="/v1"></paylink-checkout>
<p class="powered">Secured by Paylink · crypto payments in USDT and cNGN</p>`,
  });
}

/** Runs `find`; undefined for its 404 (the page still renders, answered 404, with the checkout's own not-found screen). */
async function orNotFound<T>(find: () => Promise<T>): Promise<T | undefined> {
  try {
    return await find();
  } catch (error) {
    if (!(error instanceof ApiError) || error.statusCode !== 404) throw error;
    return undefined;
  }
}

const PAGE_HEADERS = {
  'content-security-policy': HOSTED_PAGE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** The claim page of refund `id`, in English or French (`lang`): the element reads its token from the URL's fragment. */
function refundPageHtml(id: string, lang: 'en' | 'fr'): string {
  const [title, powered] =
    lang == 'fr'
      ? ['Votre remboursement', 'Sécurisé par Paylink · paiements en USDT et cNGN']
      : ['Your refund', 'Secured by Paylink · crypto payments in USDT and cNGN'];
  return pageHtml({
    lang,
    title,
    head: '',
    script: 'paylink-refund.js',
    main: `<header class="merchant"><span class="mark" aria-hidden="true">↩</span><h1>${title}</h1></header>
<paylink-refund refund="${escapeHtml(id)}" api-base="/v1"></paylink-refund>
<p class="powered">${powered}</p>`,
  });
}

/** Whether the browser's first choice among English and French (`Accept-Language`) is French. */
function prefersFrench(acceptLanguage: string | undefined): boolean {
  const first = (acceptLanguage ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .find((tag) => tag.startsWith('fr') || tag.startsWith('en'));
  return first?.startsWith('fr') ?? false;
}

export function hostedPageRoutes(app: Hono<AppEnv>, deps: ServiceDeps, links: LinkCache): void {
  // An order's page (`{paylink_url}/order/<id>`): before `/pay/:slug`, which is one segment only anyway.
  app.get('/pay/order/:id', async (c) => {
    const id = c.req.param('id');
    const order = await orNotFound(() => readOrder(deps.db, id, deps.now()));
    const title = order ? order.title || `Order from ${order.merchant_name || 'the shop'}` : 'Order not found';
    const html = hostedPageHtml({
      title,
      description: order ? order.description || `Pay ${title} with USDT or cNGN.` : 'This order does not exist or was removed.',
      // Who is asking to be paid: the integrator's display name, else the order's own title.
      merchant: order ? order.merchant_name || order.title : '',
      url: `${deps.publicUrl}/order/${id}`,
      checkout: { name: 'order', value: id },
    });
    return c.html(html, order ? 200 : 404, PAGE_HEADERS);
  });

  // A refund's claim page: the same for any id (whether the refund exists is the token's to say).
  app.get('/pay/refund/:id', (c) =>
    c.html(refundPageHtml(c.req.param('id'), prefersFrench(c.req.header('accept-language')) ? 'fr' : 'en'), 200, {
      ...PAGE_HEADERS,
      'cache-control': 'no-store',
      vary: 'Accept-Language',
    }),
  );

  app.get('/pay/:slug', async (c) => {
    const slug = c.req.param('slug');
    const link = await orNotFound(() => links.get(slug));
    const html = hostedPageHtml({
      title: link ? link.title : 'Payment link not found',
      description: link ? link.description || `Pay ${link.title} with USDT or cNGN.` : 'This payment link does not exist or was removed.',
      // Who is asking to be paid: the integrator's display name, else the link's own title.
      merchant: link ? link.merchant_name || link.title : '',
      url: `${deps.publicUrl}/${slug}`,
      checkout: { name: 'slug', value: slug },
    });
    return c.html(html, link ? 200 : 404, PAGE_HEADERS);
  });

  app.get('/dist/hosted.css', (c) =>
    c.body(
      // Phone first: 1rem side margins inside the width (border-box, so the card's border is never
      // clipped), the merchant's name above the card, the page a shade off the card's background.
      [
        'html{color-scheme:light dark}*{box-sizing:border-box}',
        'body{margin:0;min-height:100vh;background:#f6f7fb;color:#14171f;font:16px/1.5 system-ui,sans-serif}',
        '@media (prefers-color-scheme:dark){body{background:#0b0d12;color:#f2f3f5}}',
        'main{width:min(100%,30rem);margin:0 auto;padding:1.25rem 1rem 2rem}',
        '.merchant{display:flex;align-items:center;gap:.75rem;margin:0 0 1rem;font-size:1.125rem;font-weight:600;overflow-wrap:anywhere}',
        // The page's one h1 (the checkout's steps are h2), in the header's own type.
        '.merchant h1{font:inherit;margin:0}',
        '.mark{display:grid;flex:none;place-items:center;width:2.25rem;height:2.25rem;border-radius:50%;background:#4f46e5;color:#fff;font-weight:700}',
        'paylink-checkout,paylink-refund{display:block}.powered{margin:1rem 0 0;text-align:center;font-size:.8rem;opacity:.7}',
      ].join(''),
      200,
      { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=300' },
    ),
  );
}
