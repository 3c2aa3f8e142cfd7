/**
 * The elements' private CSS custom properties (`--_space`, `--_accent`: each style's resolved copy of a
 * public `--paylink-*` token, `src/internal/tokens.ts`) take short names in the script-tag bundles
 * (`--_0`, `--_1`, …): they live in the elements' shadow roots, where no page style reaches, and the
 * styles write them some 200 times in `dist/paylink.js` (0.1 kB gzipped). The public `--paylink-*`
 * properties, which pages set, keep theirs.
 *
 * A name is renamed in the whole chunk at once, wherever it is written (a style, a property set from
 * code), so every use still meets its declaration. A name the code could build at run time
 * (`` `--_${name}` ``, `'--_' + name`) would miss its new name, so the build refuses a `--_` that is
 * not followed by a whole name.
 */
import type { Plugin } from 'vite';

/** A private custom property's name, whole: `--_` then letters, digits and dashes. */
const PRIVATE_VAR = /--_[A-Za-z][\w-]*/g;
/** Any name after `--_`, those of the short form (`--_0`) too. */
const ANY_VAR = /--_[\w-]+/g;
/** `--_` not followed by a name: a name built at run time. */
const BUILT_NAME = /--_(?![\w-])/;

/** `code` with each private custom property renamed, the most used first to the shortest name; throws where a name is built at run time. */
export function shortenPrivateVars(code: string, file = 'the bundle'): string {
  const built = BUILT_NAME.exec(code);
  if (built)
    throw new Error(
      `css-private-vars: ${file} builds a private custom property's name at run time: ${JSON.stringify(code.slice(built.index - 20, built.index + 20))}`,
    );
  const counts = new Map<string, number>();
  for (const [name] of code.matchAll(PRIVATE_VAR)) counts.set(name, (counts.get(name) ?? 0) + 1);
  const taken = new Set(Array.from(code.matchAll(ANY_VAR), ([name]) => name));
  const names = new Map<string, string>();
  let next = 0;
  for (const [name] of [...counts].sort((a, b) => b[1] - a[1])) {
    let short: string;
    // A short name no property of the chunk has already (`--_0` is never a written name: it starts with a digit).
    do short = `--_${(next++).toString(36)}`;
    while (taken.has(short));
    names.set(name, short.length < name.length ? short : name);
  }
  return code.replace(PRIVATE_VAR, (name) => names.get(name)!);
}

/** The Vite/Rolldown plugin of the script-tag bundles: each chunk's code through `shortenPrivateVars`. */
export function cssPrivateVarsPlugin(): Plugin {
  return {
    name: 'paylink:css-private-vars',
    apply: 'build',
    generateBundle(options, bundle) {
      // An unminified build (`scripts/build.ts` sizes one) keeps its comments, and its names.
      if (!options.minify) return;
      for (const chunk of Object.values(bundle)) if (chunk.type === 'chunk') chunk.code = shortenPrivateVars(chunk.code, chunk.fileName);
    },
  };
}
