/**
 * Stores the elements' translation tables packed in the script-tag bundles (`src/internal/packed-table.ts`
 * reads them): in those builds only, each `src/components/<element>/translations/<locale>.ts` is replaced
 * by a module of the same default export built from it: each locale's texts as one string, laid out in
 * the slots of a perfect hash of the keys (`perfectHash`), so that no key is written beside them; a
 * French text equal to the English one is left empty.
 * The readable tables stay the source (and what the npm package, the tests and the types use).
 */
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'vite';
import { GROUP_SEED, hash, slotOf } from '../src/internal/packed-table.js';

const TABLE_MODULE = /[\\/]src[\\/]components[\\/]([\w-]+)[\\/]translations[\\/](\w+)\.ts$/;
const UNPACK = new URL('../src/internal/packed-table.ts', import.meta.url).pathname;
const ADMIN_LOCALES = new URL('../src/components/admin/admin-locales.ts', import.meta.url).pathname;
/** Separators tried in turn: the first that no text of the list contains is used. */
const SEPARATORS = ['|', '^', '~', '`', '\u0001'];
/** The characters a seed may be: printable, and written as they are in any JavaScript string literal. */
const SEED_CHARACTERS = [...Array(94)].map((_, index) => String.fromCharCode(33 + index)).filter((char) => !`"'\`\\$`.includes(char));

type Table = Record<string, string>;

/** `items` as one string whose first character is the separator of the rest (`unpackList`). */
export function packList(items: readonly string[]): string {
  const separator = SEPARATORS.find((candidate) => items.every((item) => !item.includes(candidate)));
  if (separator === undefined) throw new Error('packed-tables: every separator appears in some text');
  return separator + items.join(separator);
}

/** A perfect hash of `keys`: `slotOf(key, seeds, size)` gives each key a slot of its own, never 0. */
export interface PerfectHash {
  seeds: string;
  size: number;
}

/**
 * One seed per group of keys (hash and displace): the largest groups first, each takes the first seed
 * character that sends all its keys to free slots. Of the sizes and group counts that work, the one that
 * costs least (a seed character, or an empty slot's separator, at a quarter of that: measured) wins.
 */
export function perfectHash(keys: readonly string[]): PerfectHash {
  const memo = keys.join('\n');
  const known = perfectHashes.get(memo);
  if (known) return known;
  let best: (PerfectHash & { cost: number }) | undefined;
  for (let size = keys.length + 1; size <= Math.ceil(keys.length * 1.6); size++) {
    for (let groups = Math.ceil(keys.length / 6); groups <= keys.length; groups++) {
      const cost = groups + (size - keys.length) / 4;
      if (best && cost >= best.cost) break;
      const seeds = seedsFor(keys, size, groups);
      if (seeds !== undefined) best = { seeds, size, cost };
    }
  }
  if (!best) throw new Error('packed-tables: no perfect hash of the keys found');
  const found = { seeds: best.seeds, size: best.size };
  perfectHashes.set(memo, found);
  return found;
}

/** The hashes found so far, by their keys (each table module of a locale asks for its fallback's). */
const perfectHashes = new Map<string, PerfectHash>();

function seedsFor(keys: readonly string[], size: number, groups: number): string | undefined {
  const members: string[][] = Array.from({ length: groups }, () => []);
  for (const key of keys) members[hash(key, GROUP_SEED) % groups]!.push(key);
  const seeds: string[] = Array(groups).fill(SEED_CHARACTERS[0]);
  // Slot 0 stays empty: a key written as its slot number (scripts/key-literals.ts) is then never falsy.
  const taken = new Set<number>([0]);
  for (const group of [...members.keys()].sort((a, b) => members[b]!.length - members[a]!.length)) {
    if (!members[group]!.length) break;
    const fits = SEED_CHARACTERS.find((seed) => {
      const slots = members[group]!.map((key) => hash(key, seed.charCodeAt(0)) % size);
      return new Set(slots).size === slots.length && slots.every((slot) => !taken.has(slot));
    });
    if (fits === undefined) return undefined;
    seeds[group] = fits;
    for (const key of members[group]!) taken.add(hash(key, fits.charCodeAt(0)) % size);
  }
  return seeds.join('');
}

/** `table`'s texts in the slots of `layout` (an empty slot holds ''). */
function inSlots(table: Table, { seeds, size }: PerfectHash, text: (key: string) => string): string[] {
  const slots: string[] = Array(size).fill('');
  for (const key of Object.keys(table)) slots[slotOf(key, seeds, size)] = text(key);
  return slots;
}

/** The packed fallback table (`en`): its perfect hash and its texts in slot order. */
export function packFallback(table: Table): { seeds: string; texts: string } {
  const layout = perfectHash(Object.keys(table));
  return { seeds: layout.seeds, texts: packList(inSlots(table, layout, (key) => table[key]!)) };
}

/** The packed texts of another locale's table, in the fallback's slots; a text equal to the fallback's is left empty. */
export function packLocale(fallback: Table, table: Table, name = 'table'): string {
  const extra = Object.keys(table).filter((key) => !(key in fallback));
  if (extra.length) throw new Error(`packed-tables: ${name} has keys the fallback table has not: ${extra.join(', ')}`);
  return packList(
    inSlots(fallback, perfectHash(Object.keys(fallback)), (key) => {
      const text = table[key];
      if (text === undefined || (text === '' && fallback[key] !== '')) throw new Error(`packed-tables: ${name} has no text for ${key}`);
      return text === fallback[key] ? '' : text;
    }),
  );
}

async function tableOf(path: string): Promise<Table> {
  return ((await import(pathToFileURL(path).href)) as { default: Table }).default;
}

/**
 * The source of the module that stands in for the translation table at `path` in a script-tag bundle.
 * `standalone`: another locale's table does not import its fallback (a locale file such as
 * `dist/paylink-admin.fr.js` must not carry the English table the element's bundle has already; the
 * admin falls back to English itself).
 */
export async function packedTableModule(path: string, standalone = false): Promise<string> {
  const [, element, locale] = TABLE_MODULE.exec(path)!;
  const fallbackPath = path.replace(TABLE_MODULE, (match) => match.replace(/\w+\.ts$/, 'en.ts'));
  const fallback = await tableOf(fallbackPath);
  const { seeds, texts } = packFallback(fallback);
  const localeTexts = locale === 'en' ? texts : packLocale(fallback, await tableOf(path), path);
  const args = [JSON.stringify(seeds), JSON.stringify(localeTexts), ...(locale === 'en' || standalone ? [] : ['fallback'])];
  let table = `/* @__PURE__ */ unpackTable(${args.join(', ')})`;
  const imports = [`import { unpackTable } from ${JSON.stringify(UNPACK)};`];
  if (locale !== 'en' && !standalone) imports.push(`import fallback from ${JSON.stringify(fallbackPath)};`);
  // The admin's tables may come from another script (dist/paylink-admin.fr.js): each is marked with the
  // layout of the English slots it was packed against, so that a bundle uses only a table that fits it.
  if (element === 'admin') {
    imports.push(`import { withLayout } from ${JSON.stringify(ADMIN_LOCALES)};`);
    table = `/* @__PURE__ */ withLayout(${table}, ${JSON.stringify(layoutOf(fallback, seeds))})`;
  }
  return `${imports.join('\n')}\nexport default ${table};`;
}

/** A fingerprint of the English table's slots: its keys, in order, and the perfect hash that places them. */
export function layoutOf(fallback: Table, seeds: string): string {
  return hash(`${seeds}\n${Object.keys(fallback).join('\n')}`, GROUP_SEED).toString(36);
}

/** The Vite/Rolldown plugin of the script-tag bundles (see the module comment; `standalone`: see `packedTableModule`). */
export function packedTablesPlugin(standalone = false): Plugin {
  return {
    name: 'paylink:packed-tables',
    enforce: 'pre',
    load(id) {
      return TABLE_MODULE.test(id) ? packedTableModule(id, standalone) : null;
    },
  };
}
