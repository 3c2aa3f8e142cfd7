/**
 * The translation tables as the script-tag bundles store them (`scripts/packed-tables.ts` writes them
 * at build time from the readable `translations/*.ts`): the keys once, as one string, and each locale's
 * texts as one string in key order, where a text equal to the fallback's is left empty. Written as
 * object literals, every key would ship once per locale and every text would pay its quotes and
 * comma; this way the French table of `<paylink-admin>` costs what its words cost.
 * Isomorphic: no DOM, no Node.
 */

/**
 * Splits a packed list: its first character is the separator of the rest (chosen at build time among
 * characters no text contains), so that no character is ever forbidden in a text.
 */
function unpackList(packed: string): string[] {
  return packed.slice(1).split(packed[0]!);
}

/**
 * A table from its packed form: `base` is either the packed keys (the fallback table, whose `texts`
 * are all there) or the fallback table itself (another locale, whose empty texts are the fallback's).
 */
export function unpackTable(base: string | Record<string, string>, texts: string): Record<string, string> {
  const values = unpackList(texts);
  const fallback = typeof base == 'string' ? undefined : base;
  const table: Record<string, string> = {};
  (fallback ? Object.keys(fallback) : unpackList(base as string)).forEach((key, index) => (table[key] = values[index] || (fallback?.[key] ?? '')));
  return table;
}
