/**
 * lit-html as the script-tag bundles use it: `html` templates put on the page with `render()`, and
 * nothing else: no directive, no LitElement, no SVG or MathML templates, no compiled templates. There,
 * these parts of lit-html are dead code that no minifier can see is dead, because they hang off values
 * and parts rather than off imports:
 *
 * - the directive resolver, which every value goes through: with no directive it returns the value;
 * - the element part, behind bindings in an element's tag (`<div ${…}>`), which only directives use
 *   (such a binding is still recognised, so later values stay in their places; it does nothing);
 * - the parts' API for directives: `parentNode`, `startNode`, `endNode`, `setConnected`, `tagName`;
 * - what only async directives use: whether a part is connected, and the disconnection hooks;
 * - MathML and SVG templates (`mathml\`…\``, `svg\`…\``: an `<svg>` inside an `html` template is
 *   plain HTML and stays);
 * - templates a compiler wrote ahead of time (a `_$litType$` that is an object, not a number).
 *
 * This plugin takes them out of lit-html's module: 0.27 kB of the checkout's 15,000-byte gzip
 * budget for the first four, 0.15 kB more for the others (in each bundle). Where they are not dead it
 * refuses to build: a bundle that imports a lit directive, LitElement, `svg` or `mathml` is an error,
 * not a silent misrender. Each part goes only if the installed lit-html's code reads exactly as below;
 * otherwise it stays (the budget check says if that matters).
 * Every script-tag bundle uses it: the admin sets an attribute or leaves it out with its own `ifDefined`
 * (`value ?? nothing`, no directive) and a bar's width through a `.style` property binding (the CSSOM,
 * which a strict Content-Security-Policy allows, where a `style` attribute is refused).
 */
import type { Plugin } from 'vite';

const LIT_HTML_MODULE = /[\\/]node_modules[\\/]lit-html[\\/]lit-html\.js$/;
/** Modules whose presence means the parts above are not dead. */
const NEEDS_FULL_LIT = /[\\/]node_modules[\\/](lit-html[\\/](directive|async-directive|directive-helpers|static)\.js|lit-html[\\/]directives[\\/]|lit-element[\\/]|lit[\\/](directive|async-directive|static-html)\.js|lit[\\/]directives[\\/])/;
/** An import of lit's `mathml` or `svg` tag in our own sources. */
const TRIMMED_TAG_IMPORT = /import\s*\{[^}]*\b(mathml|svg)\b[^}]*\}\s*from\s*['"](lit|lit-html)(\/[\w.-]+)?['"]/;

/** What goes, as `[what lit-html 3.3's module says, what it says instead]`, by part. All of a part's edits apply, or none. */
export const LIT_STATIC_EDITS: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  'directive resolver': [
    [
      'function M(t,i,s=t,e){if(i===E)return i;let h=void 0!==e?s._$Co?.[e]:s._$Cl;const o=a(i)?void 0:i._$litDirective$;return h?.constructor!==o&&(h?._$AO?.(!1),void 0===o?h=void 0:(h=new o(t),h._$AT(t,s,e)),void 0!==e?(s._$Co??=[])[e]=h:s._$Cl=h),void 0!==h&&(i=M(t,h._$AS(t,i.values),h,e)),i}',
      'function M(t,i){return i}',
    ],
  ],
  'element part': [[':6===r.type&&(i=new Z(h,this,t))', ':0']],
  "parts' directive API": [
    ['get parentNode(){return this._$AM.parentNode}', ''],
    [
      'get parentNode(){let t=this._$AA.parentNode;const i=this._$AM;return void 0!==i&&11===t?.nodeType&&(t=i.parentNode),t}get startNode(){return this._$AA}get endNode(){return this._$AB}',
      '',
    ],
    ['setConnected(t){void 0===this._$AM&&(this._$Cv=t,this._$AP?.(t))}', ''],
    ['get tagName(){return this.element.tagName}', ''],
  ],
  MathML: [
    ['l=2===i?"<svg>":3===i?"<math>":""', 'l=2===i?"<svg>":""'],
    ['(2===i?"</svg>":3===i?"</math>":"")', '(2===i?"</svg>":"")'],
    ['2===i||3===i', '2===i'],
  ],
  // After MathML's edits: the same places, for SVG templates.
  SVG: [
    ['l=2===i?"<svg>":""', 'l=""'],
    ['+(2===i?"</svg>":"")', ''],
    [
      'if(this.el=S.createElement(f,e),P.currentNode=this.el.content,2===i){const t=this.el.content.firstChild;t.replaceWith(...t.childNodes)}',
      'this.el=S.createElement(f,e),P.currentNode=this.el.content;',
    ],
  ],
  // What only async directives read or set: whether a part is connected (`_$AU`, `isConnected`), and the
  // disconnection hooks (`_$AN`, `_$AP`). After the directive API's edits.
  'connection tracking': [
    ['this._$AV=[],this._$AN=void 0,', 'this._$AV=[],'],
    ['get _$AU(){return this._$AM._$AU}u(t){', 'u(t){'],
    [
      'class k{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(t,i,s,e){this.type=2,this._$AH=A,this._$AN=void 0,this._$AA=t,this._$AB=i,this._$AM=s,this.options=e,this._$Cv=e?.isConnected??!0}',
      'class k{constructor(t,i,s,e){this.type=2,this._$AH=A,this._$AA=t,this._$AB=i,this._$AM=s,this.options=e}',
    ],
    ['_$AR(t=this._$AA.nextSibling,s){for(this._$AP?.(!1,!0,s);', '_$AR(t=this._$AA.nextSibling){for(;'],
    ['class H{get _$AU(){return this._$AM._$AU}constructor(t,i,s,e,h){this.type=1,this._$AH=A,this._$AN=void 0,', 'class H{constructor(t,i,s,e,h){this.type=1,this._$AH=A,'],
  ],
  // Templates a compiler wrote ahead of time (`_$litType$` an object): the sources write `html` templates.
  'compiled templates': [
    [
      '$(t){const{values:i,_$litType$:s}=t,e="number"==typeof s?this._$AC(t):(void 0===s.el&&(s.el=S.createElement(V(s.h,s.h[0]),this.options)),s);',
      '$(t){const{values:i}=t,e=this._$AC(t);',
    ],
  ],
};

/** Applies every part of `LIT_STATIC_EDITS` whose code is all there; returns the code and the parts taken out. */
export function trimLitHtml(source: string): { code: string; removed: string[] } {
  let code = source;
  const removed: string[] = [];
  for (const [part, edits] of Object.entries(LIT_STATIC_EDITS)) {
    if (!edits.every(([from]) => code.split(from).length == 2)) continue;
    for (const [from, to] of edits) code = code.replace(from, () => to);
    removed.push(part);
  }
  return { code, removed };
}

/** The plugin of the checkout's bundle (see the module comment). */
export function litStaticPlugin(): Plugin {
  return {
    name: 'paylink:lit-static',
    transform(source, id) {
      if (NEEDS_FULL_LIT.test(id)) this.error(`${id} needs all of lit-html, which this bundle trims (scripts/lit-static.ts)`);
      if (!/[\\/]node_modules[\\/]/.test(id) && TRIMMED_TAG_IMPORT.test(source)) this.error(`${id} uses SVG or MathML templates, which this bundle trims (scripts/lit-static.ts)`);
      if (!LIT_HTML_MODULE.test(id)) return null;
      const { code } = trimLitHtml(source);
      return code === source ? null : { code, map: null };
    },
  };
}
