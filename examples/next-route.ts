/**
 * Mounting the proxy as a Next.js route handler: save as `app/paylink/[...path]/route.ts`.
 * Next.js calls the exported functions with a Web `Request`, which is what the proxy takes.
 *
 * In your app: `import { createPaylinkProxy } from 'paylink/proxy';`
 */
import { createPaylinkProxy } from '../src/server/proxy/index.js';

let proxy: ReturnType<typeof createPaylinkProxy> | undefined;

/** Built on first use, so `next build` doesn't need the key. */
function paylink(request: Request): Promise<Response> {
  proxy ??= createPaylinkProxy({
    upstream: process.env.PAYLINK_URL!,
    apiKey: process.env.PAYLINK_API_KEY!,
    adminToken: process.env.PAYLINK_ADMIN_TOKEN,
    allowedOrigins: (process.env.PAYLINK_ALLOWED_ORIGINS ?? '').split(',').filter(Boolean),
  });
  // Behind Vercel's edge the client address is in x-forwarded-for (set by the platform, so trusted).
  return proxy(request, { clientIp: request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() });
}

export const GET = paylink;
export const POST = paylink;
export const PATCH = paylink;
/** Deleting a webhook endpoint from the admin. */
export const DELETE = paylink;
export const OPTIONS = paylink;
/** Event streams must not be cached or statically rendered. */
export const dynamic = 'force-dynamic';
