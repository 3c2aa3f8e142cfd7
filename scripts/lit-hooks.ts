/**
 * lit-html ends its module by announcing itself to two page-wide hooks: `litHtmlPolyfillSupport`,
 * which the ShadyDOM polyfill installs in browsers without shadow roots, and `litHtmlVersions`, a list
 * that Lit's development build reads to warn when a page loads two copies. Neither applies to the
 * script-tag bundles: they need native shadow roots, constructable style sheets and ES2022 (no
 * browser that needs ShadyDOM runs them), and they are production builds. The statement costs 50
 * bytes of the checkout's 15,000-byte gzip budget, so this plugin drops it from the bundles. A lit-html
 * whose code reads otherwise is left as it is (the build's budget check says if that matters).
 */
import type { Plugin } from 'vite';

const LIT_HTML_MODULE = /[\\/]node_modules[\\/]lit-html[\\/]lit-html\.js$/;
/** `,B=t.litHtmlPolyfillSupport;B?.(S,k),(t.litHtmlVersions??=[]).push("3.3.3");` in lit-html's minified module. */
const ANNOUNCEMENT = /,([\w$]+)=([\w$]+)\.litHtmlPolyfillSupport;\1\?\.\([\w$]+,[\w$]+\),\(\2\.litHtmlVersions\?\?=\[\]\)\.push\("[\d.]+"\);/;

/** A Vite/Rolldown plugin that takes lit-html's polyfill and version announcement out of a bundle. */
export function litHooksPlugin(): Plugin {
  return {
    name: 'paylink:lit-hooks',
    transform(source, id) {
      if (!LIT_HTML_MODULE.test(id)) return null;
      const code = source.replace(ANNOUNCEMENT, ';');
      return code === source ? null : { code, map: null };
    },
  };
}
