/**
 * The admin's private class names take short names in the script-tag bundles (`.table-wrap` → `.a`): the
 * admin's styles and templates live in `<paylink-admin>`'s shadow root, where no page style reaches (pages
 * style it through `::part` and the `--paylink-*` properties, which keep their names), and its styles
 * write some 110 class names about 600 times (`dist/paylink.js`).
 *
 * A class is renamed in the admin's sources (`src/components/admin/`) where the build sees every use of
 * it: in the static text of a `class` attribute of an `html` template and as a selector in a `css`
 * template. It keeps its name where the code could reach it another way:
 * - its name is written in a string anywhere in `src/` (`class=${extra.mono ? 'mono' : ''}`,
 *   `querySelector('.x')`, a status value the service sends, which the schemas list), or in an untagged
 *   template: a class a binding computes (`class="badge ${status}"`) is only ever one of those;
 * - it is written by a template or style outside the admin (the shared tokens, the checkout's);
 * - a selector reaches it from outside the shadow root (`:host(.x)`, `:host-context(.x)`, `::slotted(.x)`);
 * - it is in `KEEP` (what the admin's tests, which also run against `dist/paylink.js`, read by class).
 * The build fails where it cannot tell: a class name glued to a binding (`class="bar-${kind}"`,
 * `` css`.${name}` ``), or a `[class…]` attribute selector in the admin's styles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { rewriteTemplates, type Kind } from './minify-literals.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The sources whose classes are renamed: the admin's. */
const ADMIN = /[\\/]src[\\/]components[\\/]admin[\\/].*\.ts$/;
/**
 * Classes the admin's browser tests, which also run against `dist/paylink.js`, read by name
 * (`td.num .cell-value`, `.visually-hidden`, `.table-wrap`, `.tab-label`).
 */
export const KEEP: readonly string[] = ['num', 'cell-value', 'visually-hidden', 'table-wrap', 'tab-label'];

/** Stands for a binding (`${…}`) in a template's text. */
const HOLE = '\0';
/** A `class` attribute's value, quoted (perhaps not closed yet: a binding follows) or not. */
const CLASS_ATTR = /\sclass=(?:"([^"]*)(?:"|$)|'([^']*)(?:'|$)|([^\s>"'`]+))/g;
/** A class selector's name (not `.5rem`: a name starts with a letter, `_` or `-` and a letter). */
const CLASS_SELECTOR = /\.(-?[A-Za-z_][\w-]*)/g;
/** What a CSS text holds that is not a selector: strings, comments, `url(…)`. */
const CSS_NOT_SELECTOR = /"[^"]*"|'[^']*'|\/\*[^]*?\*\/|url\([^)]*\)/g;
/** Selectors that reach elements outside the shadow root. */
const OUTSIDE = /(?::host-context|:host|::slotted)\(((?:[^()]|\([^()]*\))*)\)/g;

/** What one template text holds: its class names, and where each is. */
interface Found {
  name: string;
  /** Index in the text given. */
  at: number;
}

/** The whole class names of the `class` attributes in an `html` template's text `text` (after its parts `before`). */
function classTokens(text: string, before: readonly string[], last: boolean, where: string): Found[] {
  const prefix = before.length ? before.join(HOLE) + HOLE : '';
  const full = prefix + text + (last ? '' : HOLE);
  const found: Found[] = [];
  for (const match of full.matchAll(CLASS_ATTR)) {
    const value = match[1] ?? match[2] ?? match[3]!;
    const start = match.index + match[0].length - value.length - (match[0].endsWith('"') || match[0].endsWith("'") ? 1 : 0);
    for (const token of value.matchAll(/[^\s]+/g)) {
      const at = start + token.index;
      if (token[0] === HOLE) continue;
      if (token[0].includes(HOLE)) {
        if (at + token[0].length > prefix.length && at < prefix.length + text.length)
          throw new Error(`css-private-classes: ${where} builds a class name from a binding: class="${value.replaceAll(HOLE, '${…}')}"`);
        continue;
      }
      if (at >= prefix.length && at < prefix.length + text.length) found.push({ name: token[0], at: at - prefix.length });
    }
  }
  return found;
}

/** The class selectors of a `css` template's text, and those a selector reaches from outside the shadow root. */
function classSelectors(text: string, last: boolean, where: string): { found: Found[]; outside: string[] } {
  const blanked = text.replace(CSS_NOT_SELECTOR, (match) => ' '.repeat(match.length));
  if (/\[class\b/.test(blanked))
    throw new Error(
      `css-private-classes: ${where} selects by the class attribute: ${JSON.stringify(text.slice(blanked.search(/\[class\b/), blanked.search(/\[class\b/) + 30))}`,
    );
  if (/\.$/.test(blanked) && !last)
    throw new Error(`css-private-classes: ${where} builds a class selector from a binding: ${JSON.stringify(text.slice(-30))}\${…}`);
  const found: Found[] = [];
  for (const match of blanked.matchAll(CLASS_SELECTOR)) {
    if (!last && match.index + match[0].length === blanked.length)
      throw new Error(`css-private-classes: ${where} builds a class selector from a binding: ${JSON.stringify(match[0])}\${…}`);
    found.push({ name: match[1]!, at: match.index + 1 });
  }
  const outside = Array.from(blanked.matchAll(OUTSIDE), (match) => Array.from(match[1]!.matchAll(CLASS_SELECTOR), (inner) => inner[1]!)).flat();
  return { found, outside };
}

/** The sources scanned: path → text. */
export type Sources = ReadonlyMap<string, string>;

/**
 * The short names of the admin's private classes, from every browser source in `sources` (see the module
 * comment); the most written get the shortest. Throws where a class name is built from a binding.
 */
export function privateClassNames(
  sources: Sources,
  isAdmin: (path: string) => boolean = (path) => ADMIN.test(path),
  keep: readonly string[] = KEEP,
): Map<string, string> {
  const written = new Set<string>(keep);
  const counts = new Map<string, number>();
  const inAdminCss = new Set<string>();
  const inAdminHtml = new Set<string>();
  const word = (text: string) => {
    for (const [name] of text.matchAll(/-?[A-Za-z_][\w-]*/g)) written.add(name);
  };
  for (const [path, source] of sources) {
    const admin = isAdmin(path);
    rewriteTemplates(
      source,
      (text, kind: Kind, before, last) => {
        if (kind === 'css') {
          const { found, outside } = classSelectors(text, last, path);
          for (const name of outside) written.add(name);
          for (const { name } of found) {
            if (!admin) written.add(name);
            inAdminCss.add(name);
            counts.set(name, (counts.get(name) ?? 0) + 1);
          }
        } else if (kind === 'html' || kind === 'svg') {
          for (const { name } of classTokens(text, before, last, path)) {
            if (!admin) written.add(name);
            inAdminHtml.add(name);
            counts.set(name, (counts.get(name) ?? 0) + 1);
          }
        } else word(text);
        return text;
      },
      word,
    );
  }
  const renamed = [...counts]
    .filter(([name]) => inAdminCss.has(name) && inAdminHtml.has(name) && !written.has(name))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const names = new Map<string, string>();
  let next = 0;
  for (const [name] of renamed) {
    let short: string;
    // A short name that no class (renamed or kept) has already, and never one a kept name could meet.
    do short = shortName(next++);
    while (counts.has(short) || written.has(short));
    if (short.length < name.length) names.set(name, short);
  }
  return names;
}

/** `a`…`z`, then `aa`, `ab`, … (a class name starts with a letter). */
function shortName(index: number): string {
  let name = '';
  do {
    name = String.fromCharCode(97 + (index % 26)) + name;
    index = Math.floor(index / 26) - 1;
  } while (index >= 0);
  return name;
}

/** `source` (an admin module) with its classes renamed after `names`. */
export function renameClasses(source: string, names: ReadonlyMap<string, string>, where = 'the module'): string {
  const replace = (text: string, found: Found[]) => {
    let out = '';
    let from = 0;
    for (const { name, at } of found) {
      const short = names.get(name);
      if (short === undefined) continue;
      out += text.slice(from, at) + short;
      from = at + name.length;
    }
    return out + text.slice(from);
  };
  return rewriteTemplates(source, (text, kind, before, last) => {
    if (kind === 'css') return replace(text, classSelectors(text, last, where).found);
    if (kind === 'html' || kind === 'svg') return replace(text, classTokens(text, before, last, where));
    return text;
  });
}

/** Every browser source under `src/`, by path. */
function readSources(): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) sources.set(path, readFileSync(path, 'utf8'));
    }
  };
  walk(`${ROOT}src`);
  return sources;
}

/** The Vite/Rolldown plugin of the minified script-tag bundles: the admin's modules through `renameClasses`. */
export function cssPrivateClassesPlugin(): Plugin {
  let names: Map<string, string> | undefined;
  let minified = true;
  return {
    name: 'paylink:css-private-classes',
    enforce: 'pre',
    apply: 'build',
    configResolved(config) {
      // An unminified build (`scripts/build.ts` sizes one) keeps its names.
      minified = config.build.minify !== false;
    },
    transform(source, id) {
      if (!minified || !ADMIN.test(id)) return null;
      names ??= privateClassNames(readSources());
      return { code: renameClasses(source, names, id), map: null };
    },
  };
}
