/**
 * The hosted checkout page: each link's `url` (`{paylink_url}/<slug>`) opens `/pay/<slug>`, a
 * page of its own with the checkout element, so a link works when shared alone (chat, email,
 * social). It carries the link's title and description as preview metadata, and the built
 * script-tag bundle is served from `/dist/` (src/server/bundles.ts, mounted in app.ts).
 */
import type { Hono } from 'hono';
import type { AppEnv, ServiceDeps } from './context.js';
import { ApiError } from './errors.js';
import type { LinkCache } from './links/index.js';

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

export function hostedPageRoutes(app: Hono<AppEnv>, deps: ServiceDeps, links: LinkCache): void {
  app.get('/pay/:slug', async (c) => {
    let title = 'Payment link not found';
    let description = 'This payment link does not exist or was removed.';
    let status: 200 | 404 = 200;
    const slug = c.req.param('slug');
    try {
      const link = await links.get(slug);
      title = link.title;
      description = link.description || `Pay ${link.title} with USDT or cNGN.`;
    } catch (error) {
      if (!(error instanceof ApiError) || error.statusCode !== 404) throw error;
      status = 404;
    }
    const url = `${deps.publicUrl}/${slug}`;
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Paylink</title>
<meta name="description" content="${escapeHtml(description)}">
<meta property="og:type" content="website">
<meta property="og:title" content="${escapeHtml(title)}">
<meta property="og:description" content="${escapeHtml(description)}">
<meta property="og:url" content="${escapeHtml(url)}">
<meta name="twitter:card" content="summary">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dist/hosted.css">
<script type="module" src="/dist/paylink-checkout.js"></script>
</head>
<body>
<main>
<paylink-checkout slug="${escapeHtml(slug)}" api-base="/v1"></paylink-checkout>
<p class="powered">Secured by Paylink · crypto payments in USDT and cNGN</p>
</main>
</body>
</html>
`;
    return c.html(html, status, { 'content-security-policy': HOSTED_PAGE_CSP, 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' });
  });

  app.get('/dist/hosted.css', (c) =>
    c.body(
      `html{color-scheme:light dark}body{margin:0;min-height:100vh;display:grid;place-items:start center;background:Canvas;color:CanvasText;font:16px/1.5 system-ui,sans-serif}main{width:min(100%,28rem);padding:2rem 1rem}paylink-checkout{display:block}.powered{text-align:center;font-size:.8rem;opacity:.7}`,
      200,
      { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=300' },
    ),
  );

}
