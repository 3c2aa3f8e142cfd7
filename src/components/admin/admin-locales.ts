/**
 * The registry of `<paylink-admin>`'s translation tables other than English, by language (`fr`). It
 * lives on `globalThis` under a global symbol, so a table registered by another script finds it:
 * `dist/paylink.js` carries English only, and `dist/paylink-admin.fr.js` registers the French table
 * whether it runs before the element's script or after it. A registration is announced with a
 * `paylink-admin-translations` event on `globalThis`, on which every connected admin renders again.
 * Isomorphic: no DOM needed (without `dispatchEvent` nothing is announced).
 */
import type en from './translations/en.js';

/** A translation table of the admin: a text for each English key. */
export type AdminTable = typeof en;

/** The event a registration dispatches on `globalThis`. */
export const TRANSLATIONS_EVENT = 'paylink-admin-translations';

const REGISTRY = Symbol.for('paylink.admin.translations');

/** A registered table and the layout of the English table it was packed against (`withLayout`). */
interface Registered {
  table: AdminTable;
  layout: string | undefined;
}

/**
 * The layouts of this bundle's packed tables. A script-tag bundle finds a text by its slot, so a French
 * file of another version (a page mixing two releases, or one alias refreshed before the other) would
 * show the wrong text in every slot: a table is only used by a bundle whose English has the same layout
 * (a fingerprint of its keys, written by the build). The readable tables of the sources have none.
 */
const layouts = new WeakMap<object, string>();

/** `table`, marked with the `layout` of the English keys it was packed against (the build writes the call). */
export function withLayout<T extends object>(table: T, layout: string): T {
  layouts.set(table, layout);
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
  const fits = tables.find((entry) => entry.layout === mine);
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
  return fits?.table;
}

/** Registers `table` for `language` (`fr`) and tells the admins on the page to render with it. */
export function registerAdminTable(language: string, table: AdminTable): void {
  (registry()[language] ??= []).unshift({ table, layout: layouts.get(table) });
  globalThis.dispatchEvent?.(new Event(TRANSLATIONS_EVENT));
}
