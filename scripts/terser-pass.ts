/**
 * A second minifying pass over the script-tag bundles, after Rolldown's own (Oxc): Terser's compressor
 * finds what Oxc's leaves (it inlines and joins further over two passes), and it shortens lit-html's
 * internal member names (`_$AH`, `_$AM`, … four characters each, written some 200 times in
 * `dist/paylink.js`): every part of lit-html that uses them is in the same bundle, and no page, other
 * bundle or directive reads them by name (`_$litType$`, `_$litPart$` and lit's public API keep theirs).
 * Measured on one tree: 0.09 kB of the checkout's 15,000 bytes gzipped, 0.54 kB of `dist/paylink.js`.
 * Only the minified builds take it (`scripts/build.ts` also builds each bundle unminified, to size it).
 * One transform Terser calls unsafe is taken, because it is safe here: a `function` expression that
 * reads no `this` becomes an arrow (`unsafe_arrows`), which only code that calls such a function with
 * `new` or reads its `prototype` could tell; the bundles' constructors are all classes. No assumption
 * that getters are pure, nothing else of the `unsafe` family.
 */
import { minify } from 'terser';
import type { Plugin } from 'vite';

/** lit-html's internal members, the only property names renamed. */
export const LIT_INTERNAL = /^_\$[A-Z][A-Za-z]$/;

/** Minifies `code` again (see the module comment). */
export async function terserPass(code: string): Promise<string> {
  const result = await minify(code, {
    module: true,
    ecma: 2020,
    compress: { passes: 2, hoist_funs: true, unsafe_arrows: true },
    mangle: { properties: { regex: LIT_INTERNAL } },
    format: { comments: false },
  });
  if (result.code === undefined) throw new Error('terser-pass: Terser gave no code');
  return result.code;
}

/** The Vite/Rolldown plugin of the minified script-tag bundles: each chunk's final code through `terserPass`. */
export function terserPassPlugin(): Plugin {
  return {
    name: 'paylink:terser-pass',
    apply: 'build',
    async generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) if (chunk.type === 'chunk') chunk.code = await terserPass(chunk.code);
    },
  };
}
