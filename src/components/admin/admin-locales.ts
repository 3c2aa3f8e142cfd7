/**
 * The registry of `<paylink-admin>`'s translation tables other than English, by language (`fr`). It
 * lives on `globalThis` under a global symbol, so a table registered by another script finds it:
 * `dist/paylink.js` carries English only, and `dist/paylink-admin.fr.js` registers the French table
 * whether it runs before the element's script or after it. A registration is announced with a
 * `paylink-admin-translations` event on `globalThis`, on which every connected admin renders again.
 * The French file registers its texts still packed (`packedLocale`): the element's bundle, which has
 * the code to read a packed table, unpacks them in its English table's slots (`packedEnglish`).
 * Isomorphic: no DOM needed (without `dispatchEvent` nothing is announced).
 */
import { unpackTable } from '../../internal/packed-table.js';
import type en from './translations/en.js';

/** A translation table of the admin: a text for each English key. */
export type AdminTable = typeof en;

/** The event a registration dispatches on `globalThis`. */
export const TRANSLATIONS_EVENT = 'paylink-admin-translations';

const REGISTRY = Symbol.for('paylink.admin.translations');

/** A registered table and the layout of the English table it was packed against. */
interface Registered {
  table: AdminTable;
  layout: string | undefined;
}

/** Where a table registered packed (`packedLocale`) keeps its texts: a global symbol, the same in every bundle. */
const PACKED = Symbol.for('paylink.admin.packed');

/**
 * The layouts of this bundle's packed tables, and how the English one unpacks a locale packed in its
 * slots. A script-tag bundle finds a text by its slot, so a French file of another version (a page
 * mixing two releases, or one alias refreshed before the other) would show the wrong text in every
 * slot: a table is only used by a bundle whose English has the same layout (a fingerprint of its keys
 * and slots, written by the build). The readable tables of the sources have none.
 */
const layouts = new WeakMap<object, { layout: string; unpack?: (texts: string) => AdminTable }>();

/**
 * The English table of `dist/paylink.js` (the build writes the call): `texts` packed by `seeds` among
 * the first `hashed` slots (`unpackTable`), marked with their `layout`.
 */
export function packedEnglish(seeds: string, hashed: number, texts: string, layout: string): AdminTable {
  const unpack = (locale: string) => unpackTable(seeds, locale, undefined, hashed) as AdminTable;
  const table = unpack(texts);
  layouts.set(table, { layout, unpack });
  return table;
}

/**
 * A locale's table in `dist/paylink-admin.fr.js` (the build writes the call): its `texts` packed in the
 * slots of the English table of `layout`, which unpacks them (`adminTable`).
 */
export function packedLocale(texts: string, layout: string): AdminTable {
  const table = { [PACKED]: texts } as unknown as AdminTable;
  layouts.set(table, { layout });
  return table;
}

const warned = new Set<string>();

function registry(): Record<string, Registered[]> {
  return ((globalThis as { [REGISTRY]?: Record<string, Registered[]> })[REGISTRY] ??= {});
}

/**
 * The table registered for `language` (lower case) that fits `english`, this bundle's English table;
 * `undefined` (English texts) if none does, with a warning when a table of another layout is there,
 * and one when Paylink ships the language's texts in a file of their own (`dist/paylink-admin.fr.js`)
 * that the page has not loaded by the time it has (its `load` event): an admin asked for French that
 * shows English says why, once.
 */
export function adminTable(language: string, english: AdminTable): AdminTable | undefined {
  const mine = layouts.get(english);
  const tables = registry()[language] ?? [];
  const fits = tables.find((entry) => entry.layout === mine?.layout);
  // Each warning once per language: the missing file, and a file of another version.
  const once = language + !tables.length;
  if (!fits && !warned.has(once) && (tables.length || language == 'fr')) {
    warned.add(once);
    if (tables.length) console.warn(`<paylink-admin>: the "${language}" texts are from another version of Paylink; showing English`);
    else {
      const check = () => registry()[language] || console.warn(`<paylink-admin>: locale "${language}" needs paylink-admin.${language}.js; showing English`);
      globalThis.document?.readyState == 'complete' ? setTimeout(check) : globalThis.addEventListener?.('load', check, { once: true });
    }
  }
  const packed = (fits?.table as { [PACKED]?: string } | undefined)?.[PACKED];
  return packed === undefined ? fits?.table : mine!.unpack!(packed);
}

/** Registers `table` for `language` (`fr`) and tells the admins on the page to render with it. */
export function registerAdminTable(language: string, table: AdminTable): void {
  (registry()[language] ??= []).unshift({ table, layout: layouts.get(table)?.layout });
  globalThis.dispatchEvent?.(new Event(TRANSLATIONS_EVENT));
}
