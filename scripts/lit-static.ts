/**
 * lit-html as the script-tag bundles use it: `html` templates (an `<svg>` inside one is HTML's own)
 * put on the page with `render()`, and nothing else: no directive, no LitElement, no `svg` or `mathml`
 * templates. There, these parts of lit-html are dead code that no minifier can see is dead, because
 * they hang off values and parts rather than off imports:
 *
 * - the directive resolver, which every value goes through: with no directive it returns the value
 *   (so each value is used as it is);
 * - the element part, behind bindings in an element's tag (`<div ${…}>`), which only directives use
 *   (such a binding is still recognised, so later values stay in their places; it does nothing);
 * - the parts' API for directives: `parentNode`, `startNode`, `endNode`, `setConnected`, `tagName`;
 * - the parts' connection tracking (`_$AU`, `_$AP`, `_$AN`), which only async directives read, and
 *   what only directives read of a part: its kind (`type`) and its parent (`_$AM`);
 * - compiled templates (`{_$litType$: {h, parts}}`, what lit's template compiler emits);
 * - bindings in the text of `<script>`, `<style>`, `<textarea>` and `<title>` (a textarea's text is
 *   bound as `.value`);
 * - event listeners given as objects (`{handleEvent}`) or with options (`{capture, once, passive}`),
 *   and a host other than the element as their `this`: every `@event=${…}` binds a function;
 * - `render()`'s options (`renderBefore`, `creationScope`, `host`), and each part's copy of them: each
 *   element renders into its shadow root, `render(template, root)`;
 * - MathML templates (`mathml\`…\``), and SVG templates (`svg\`…\``);
 * - what only matters beside another lit on the page: `nothing` and `noChange` shared with other
 *   copies by `Symbol.for` (a bundle's templates only ever reach its own lit, whose checks its own
 *   `Symbol()`s keep: the admin's `nothing` is that one),
 *   and the words of the error a forged template throws (it still throws).
 *
 * This plugin takes them out of lit-html's module: 0.5 kB of the checkout's 15,000-byte gzip budget,
 * as much in each other bundle. Where they are not dead it refuses to build: a bundle that imports a
 * lit directive, LitElement, `svg` or `mathml`, binds the text of a raw-text element, binds a listener
 * that is not a function (an object literal) or calls `render()` with options is an error, not a
 * silent misrender. Each part goes only if the installed lit-html's code reads exactly as below;
 * otherwise it stays (the budget check says if that matters).
 * Every script-tag bundle uses it: the admin sets an attribute or leaves it out with its own
 * `ifDefined` (`value ?? nothing`, no directive) and a bar's width through a `.style` property binding
 * (the CSSOM, which a strict Content-Security-Policy allows, where a `style` attribute is refused).
 */
import ts from 'typescript';
import type { Plugin } from 'vite';

const LIT_HTML_MODULE = /[\\/]node_modules[\\/]lit-html[\\/]lit-html\.js$/;
/** Modules whose presence means the parts above are not dead. */
const NEEDS_FULL_LIT =
  /[\\/]node_modules[\\/](lit-html[\\/](directive|async-directive|directive-helpers|static)\.js|lit-html[\\/]directives[\\/]|lit-element[\\/]|lit[\\/](directive|async-directive|static-html)\.js|lit[\\/]directives[\\/])/;
/** A binding (`\0`: where a template's value goes) in the text of a raw-text element (`<textarea>${…}`). */
const RAW_TEXT_BINDING = /<(script|style|textarea|title)\b[^>]*>[^<]*\0/i;

/** True when a tagged template of `source` (an `html\`…\``) binds the text of a raw-text element; comments and plain strings are not templates. */
export function bindsRawText(source: string, id = 'module.js'): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (ts.isTaggedTemplateExpression(node) && ts.isTemplateExpression(node.template)) {
      const { head, templateSpans } = node.template;
      if (RAW_TEXT_BINDING.test([head, ...templateSpans.map((span) => span.literal)].map((part) => part.rawText ?? part.text).join('\0'))) found = true;
    }
    if (!found) ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(id, source, ts.ScriptTarget.Latest, false, /\.tsx?$/.test(id) ? ts.ScriptKind.TS : ts.ScriptKind.JS));
  return found;
}
/** A listener binding that is not a function (`@click=${{ handleEvent }}`) in our own sources. */
const OBJECT_LISTENER = /\s@[\w-]+=\$\{\s*[{[]/;
/** A call of lit's `render()` with a third argument (its options) in our own sources. */
const RENDER_OPTIONS = /\brender\((?:[^()]|\([^()]*\))*,(?:[^()]|\([^()]*\))*,/;
/** An import of lit's `mathml` or `svg` tag in our own sources. */
const TAG_IMPORT = /import\s*\{[^}]*\b(mathml|svg)\b[^}]*\}\s*from\s*['"](lit|lit-html)(\/[\w.-]+)?['"]/;

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
  // After MathML's: its edits leave the SVG tests these read.
  SVG: [
    ['l=2===i?"<svg>":""', 'l=""'],
    ['+(2===i?"</svg>":"")', ''],
    [
      'if(this.el=S.createElement(f,e),P.currentNode=this.el.content,2===i){const t=this.el.content.firstChild;t.replaceWith(...t.childNodes)}',
      'this.el=S.createElement(f,e),P.currentNode=this.el.content;',
    ],
  ],
  'shared sentinels and messages': [
    ['Symbol.for("lit-noChange")', 'Symbol()'],
    ['Symbol.for("lit-nothing")', 'Symbol()'],
    ['throw Error("invalid template strings array")', 'throw Error()'],
  ],
  'raw-text bindings': [
    [
      'if(y.test(r.tagName)){const t=r.textContent.split(o),i=t.length-1;if(i>0){r.textContent=s?s.emptyScript:"";for(let s=0;s<i;s++)r.append(t[s],c()),P.nextNode(),d.push({type:2,index:++l});r.append(t[i],c())}}',
      '',
    ],
  ],
  'listener objects and options': [
    ['e=t===A&&s!==A||t.capture!==s.capture||t.once!==s.once||t.passive!==s.passive,h=t!==A&&(s===A||e)', 'e=t===A&&s!==A,h=t!==A&&s===A'],
    [
      'handleEvent(t){"function"==typeof this._$AH?this._$AH.call(this.options?.host??this.element,t):this._$AH.handleEvent(t)}',
      'handleEvent(t){this._$AH.call(this.options?.host??this.element,t)}',
    ],
  ],
  // After the directive resolver's: each value is the value.
  'directive calls': [
    ['_$AI(t,i=this){t=M(this,t,i),', '_$AI(t,i=this){'],
    ['if(void 0===h)t=M(this,t,i,0),o=', 'if(void 0===h)o='],
    ['r=M(this,e[s+n],i,n),', 'r=e[s+n],'],
    ['if((t=M(this,t,i,0)??A)===E)return;', 'if((t??=A)===E)return;'],
  ],
  'compiled templates': [['e="number"==typeof s?this._$AC(t):(void 0===s.el&&(s.el=S.createElement(V(s.h,s.h[0]),this.options)),s);', 'e=this._$AC(t);']],
  // With render()'s options, the listeners' host goes too: a listener's `this` is its element.
  'render options': [
    ['this._$AH.call(this.options?.host??this.element,t)', 'this._$AH.call(this.element,t)'],
    [
      'const D=(t,i,s)=>{const e=s?.renderBefore??i;let h=e._$litPart$;if(void 0===h){const t=s?.renderBefore??null;e._$litPart$=h=new k(i.insertBefore(c(),t),t,void 0,s??{})}return h._$AI(t),h}',
      'const D=(t,i)=>{let h=i._$litPart$;if(void 0===h){i._$litPart$=h=new k(i.insertBefore(c(),null),null,void 0,{})}return h._$AI(t),h}',
    ],
    ['e=(t?.creationScope??l).importNode(i,!0)', 'e=l.importNode(i,!0)'],
  ],
  // After the directive API's: its edits leave these getters beside the members they follow.
  'connection tracking': [
    ['get _$AU(){return this._$AM._$AU}u(t)', 'u(t)'],
    ['class H{get _$AU(){return this._$AM._$AU}', 'class H{'],
    ['get _$AU(){return this._$AM._$AU}_$AI(t){M(this,t)}', '_$AI(t){M(this,t)}'],
    ['get _$AU(){return this._$AM?._$AU??this._$Cv}', ''],
    [',this._$Cv=e?.isConnected??!0', ''],
    ['for(this._$AP?.(!1,!0,s);', 'for(;'],
    ['this._$AV=[],this._$AN=void 0,', 'this._$AV=[],'],
    ['this.type=2,this._$AH=A,this._$AN=void 0,', 'this.type=2,this._$AH=A,'],
    ['this.type=1,this._$AH=A,this._$AN=void 0,', 'this.type=1,this._$AH=A,'],
    ['this.type=6,this._$AN=void 0,', 'this.type=6,'],
  ],
  // After the connection tracking's: its edits leave these constructors as they read here.
  'part kinds and parents': [
    ['this._$AV=[],this._$AD=t,this._$AM=i}', 'this._$AV=[],this._$AD=t}'],
    ['this.type=2,this._$AH=A,this._$AA=t,this._$AB=i,this._$AM=s,this.options=e}', 'this._$AH=A,this._$AA=t,this._$AB=i,this.options=e}'],
    ['this.type=1,this._$AH=A,this.element=t,this.name=i,this._$AM=e,this.options=h,', 'this._$AH=A,this.element=t,this.name=i,this.options=h,'],
    ['class I extends H{constructor(){super(...arguments),this.type=3}', 'class I extends H{'],
    ['class L extends H{constructor(){super(...arguments),this.type=4}', 'class L extends H{'],
    ['class z extends H{constructor(t,i,s,e,h){super(t,i,s,e,h),this.type=5}', 'class z extends H{'],
  ],
  // After the render options' and the part kinds': their edits leave these as they read here.
  "parts' options": [
    ['this._$AH=A,this._$AA=t,this._$AB=i,this.options=e}', 'this._$AH=A,this._$AA=t,this._$AB=i}'],
    ['s=t.u(this.options);', 's=t.u();'],
    ['new k(this.O(c()),this.O(c()),this,this.options)', 'new k(this.O(c()),this.O(c()),this)'],
    ['this.element=t,this.name=i,this.options=h,', 'this.element=t,this.name=i,'],
  ],
};

/** The parts a bundle that calls `render()` with options keeps (`{ host }`: its listeners' `this` is the element class, `PaylinkElement`). */
export const RENDER_OPTION_PARTS: readonly string[] = ['render options', "parts' options"];

/** How a bundle uses lit-html beyond plain templates. */
export interface LitStaticOptions {
  /** It calls `render()` with options (the admin's and the refund page's `PaylinkElement` passes `{ host: this }`). */
  renderOptions?: boolean;
}

/**
 * Applies every part of `LIT_STATIC_EDITS` whose code is all there (but `RENDER_OPTION_PARTS` for a
 * bundle that uses render options); returns the code and the parts taken out.
 */
export function trimLitHtml(source: string, options: LitStaticOptions = {}): { code: string; removed: string[] } {
  let code = source;
  const removed: string[] = [];
  for (const [part, edits] of Object.entries(LIT_STATIC_EDITS)) {
    if (options.renderOptions && RENDER_OPTION_PARTS.includes(part)) continue;
    if (!edits.every(([from]) => code.split(from).length == 2)) continue;
    for (const [from, to] of edits) code = code.replace(from, () => to);
    removed.push(part);
  }
  return { code, removed };
}

/** The plugin of the script-tag bundles (see the module comment). */
export function litStaticPlugin(options: LitStaticOptions = {}): Plugin {
  return {
    name: 'paylink:lit-static',
    transform(source, id) {
      if (NEEDS_FULL_LIT.test(id)) this.error(`${id} needs all of lit-html, which this bundle trims (scripts/lit-static.ts)`);
      if (!/[\\/]node_modules[\\/]/.test(id)) {
        const tag = TAG_IMPORT.exec(source)?.[1];
        if (tag) this.error(`${id} uses ${tag == 'svg' ? 'SVG' : 'MathML'} templates, which this bundle trims (scripts/lit-static.ts)`);
        if (bindsRawText(source, id)) this.error(`${id} binds the text of a raw-text element, which this bundle trims (scripts/lit-static.ts)`);
        if (OBJECT_LISTENER.test(source)) this.error(`${id} binds a listener object, which this bundle trims (scripts/lit-static.ts)`);
        if (!options.renderOptions && /\bfrom\s*['"]lit(-html)?(\/html\.js)?['"]/.test(source) && RENDER_OPTIONS.test(source))
          this.error(`${id} calls render() with options, which this bundle trims (scripts/lit-static.ts)`);
      }
      if (!LIT_HTML_MODULE.test(id)) return null;
      const { code } = trimLitHtml(source, options);
      return code === source ? null : { code, map: null };
    },
  };
}
