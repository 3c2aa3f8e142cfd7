/**
 * `paylink/checkout` in runtimes without a DOM whose resolver names them (`workerd`, `edge-light`,
 * `worker`: Cloudflare Workers, Vercel and Next.js edge, web workers). There Lit's browser build would
 * read `document` as it loads, so these entries load no element code at all: an edge-rendered page can
 * import the package and write `<paylink-checkout>` into its HTML, and the browser's own import of
 * `paylink/checkout` defines the element.
 */

/** Stands in for `<paylink-checkout>`'s class where there is no DOM: nothing to render, nothing defined. */
export class PaylinkCheckout {}
