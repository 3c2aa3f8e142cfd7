/**
 * The translation tables as the script-tag bundles store them (`scripts/packed-tables.ts` writes them
 * at build time from the readable `translations/*.ts`): each locale's texts as one string, and no keys
 * at all. A key finds its text by a perfect hash: the build chose one small seed per group of keys so
 * that `slotOf` sends every key of the table to a slot of its own, and laid the texts out in slot
 * order. The keys are in the code that asks for them already; a list of them beside the texts cost
 * `dist/paylink.js` 1.5 kB gzipped. In another locale a text equal to the fallback's is left empty.
 * Where the code names most keys literally (the admin's, `scripts/key-literals.ts`), only the keys it
 * computes are hashed, into the first slots; the others follow, read by number only, in an order that
 * compresses better than a hash's.
 * A key that is not in the table finds some other text: the keys are the tables' own, checked by
 * TypeScript, and the statuses behind the few computed ones (`status_${status}`) by the response parsers.
 * Isomorphic: no DOM, no Node.
 */

/** 32-bit FNV-1a of `key`, started from `seed`. */
export function hash(key: string, seed: number): number {
  for (let index = 0; index < key.length; index++) seed = Math.imul(seed ^ key.charCodeAt(index), 16777619);
  return seed >>> 0;
}

/** The slot of `key` among `size`: its group's seed (a character of `seeds`) chosen so that no two keys share one, nor slot 0. */
export function slotOf(key: string, seeds: string, size: number): number {
  return hash(key, seeds.charCodeAt(hash(key, GROUP_SEED) % seeds.length)) % size;
}

/** The seed of the hash that sorts keys into groups (FNV's offset basis). */
export const GROUP_SEED = 2166136261;

/**
 * Splits a packed list: its first character is the separator of the rest (chosen at build time among
 * characters no text contains), so that no character is ever forbidden in a text.
 */
function unpackList(packed: string): string[] {
  return packed.slice(1).split(packed[0]!);
}

/**
 * A table from its packed form: `texts` in slot order, found by key through `seeds` (among the first
 * `hashed` slots: all of them unless the build says fewer), or by slot number (`dist/paylink.js` writes
 * the admin's literal keys as their slots: `scripts/key-literals.ts`; slot 0 is never a key's, so a
 * key's number is never falsy); a text left empty is `fallback`'s (the fallback table of another
 * locale), or empty.
 */
export function unpackTable(seeds: string, texts: string, fallback?: Record<string, string>, hashed?: number): Record<string, string> {
  const values = unpackList(texts);
  return new Proxy(values, {
    get: (target, key) =>
      typeof key == 'string' ? target[/^\d/.test(key) ? +key : slotOf(key, seeds, hashed ?? target.length)] || (fallback?.[key] ?? '') : undefined,
  }) as unknown as Record<string, string>;
}
