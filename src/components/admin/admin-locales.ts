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

/** The tables registered so far, by lower-case language code. */
export function adminTables(): Record<string, AdminTable> {
  return ((globalThis as { [REGISTRY]?: Record<string, AdminTable> })[REGISTRY] ??= {});
}

/** Registers `table` for `language` (`fr`) and tells the admins on the page to render with it. */
export function registerAdminTable(language: string, table: AdminTable): void {
  adminTables()[language] = table;
  globalThis.dispatchEvent?.(new Event(TRANSLATIONS_EVENT));
}
