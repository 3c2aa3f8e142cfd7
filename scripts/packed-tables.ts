/**
 * Stores the elements' translation tables packed in the script-tag bundles (`src/internal/packed-table.ts`
 * reads them): in those builds only, each `src/components/<element>/translations/<locale>.ts` is replaced
 * by a module of the same default export built from it: each locale's texts as one string, laid out in
 * the slots of a perfect hash of the keys (`perfectHash`), so that no key is written beside them; a
 * French text equal to the English one is left empty.
 * The admin's code names most of its keys literally, and `dist/paylink.js` writes those as slot numbers
 * (`scripts/key-literals.ts`): only the keys it may ask for by name (those it computes, `status_${status}`
 * or a rule's message, and those it writes as plain strings) are hashed there, into the first slots, and
 * the others follow in the order of their English texts (`literalLayout`), which gzip compresses better
 * than a hash's order (0.1 kB of `dist/paylink.js` and of `dist/paylink-admin.fr.js` each, and the seeds
 * of 140 keys instead of 414).
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
  // No key to hash: one empty slot (slot 0 is never a key's).
  if (!keys.length) return { seeds: SEED_CHARACTERS[0]!, size: 1 };
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

/**
 * Where each key of a table sits: `slots` lists the keys in slot order ('' for an empty slot). A key is
 * found by name among the first `hashed` slots (`slotOf(key, seeds, hashed)`); every key there when
 * `hashed` is the whole table.
 */
export interface TableLayout {
  seeds: string;
  hashed: number;
  slots: readonly string[];
}

/** The layout of `keys` placed by a perfect hash of them all (every key found by name). */
export function hashLayout(keys: readonly string[]): TableLayout {
  const { seeds, size } = perfectHash(keys);
  const slots: string[] = Array(size).fill('');
  for (const key of keys) slots[slotOf(key, seeds, size)] = key;
  return { seeds, hashed: size, slots };
}

/**
 * The layout of a table whose code asks for the keys of `computed` by name and for the others by slot
 * number only: a perfect hash of the computed ones, then the others in the order of their texts (a
 * similar text next to a similar one: the order gzip compresses best of those measured, in English
 * and in French alike).
 */
export function literalLayout(table: Table, computed: ReadonlySet<string>): TableLayout {
  const keys = Object.keys(table);
  const unknown = [...computed].filter((key) => !(key in table));
  if (unknown.length) throw new Error(`packed-tables: computed keys not in the table: ${unknown.join(', ')}`);
  const { seeds, hashed, slots } = hashLayout(keys.filter((key) => computed.has(key)));
  const byText = (a: string, b: string) => (table[a]! < table[b]! ? -1 : table[a]! > table[b]! ? 1 : a < b ? -1 : 1);
  return { seeds, hashed, slots: [...slots, ...keys.filter((key) => !computed.has(key)).sort(byText)] };
}

/** The packed fallback table (`en`) in `layout` (by default a perfect hash of its keys): its seeds and its texts in slot order. */
export function packFallback(table: Table, layout = hashLayout(Object.keys(table))): { seeds: string; texts: string } {
  return { seeds: layout.seeds, texts: packList(layout.slots.map((key) => (key ? table[key]! : ''))) };
}

/**
 * The packed texts of another locale's table, in the fallback's slots (`layout`: by default a perfect
 * hash of the fallback's keys); a text equal to the fallback's is left empty.
 */
export function packLocale(fallback: Table, table: Table, name = 'table', layout = hashLayout(Object.keys(fallback))): string {
  const extra = Object.keys(table).filter((key) => !(key in fallback));
  if (extra.length) throw new Error(`packed-tables: ${name} has keys the fallback table has not: ${extra.join(', ')}`);
  return packList(
    layout.slots.map((key) => {
      if (!key) return '';
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
 * `dist/paylink-admin.fr.js` must not carry the English table the element's bundle has already).
 */
export async function packedTableModule(path: string, standalone = false): Promise<string> {
  const [, element, locale] = TABLE_MODULE.exec(path)!;
  const fallbackPath = path.replace(TABLE_MODULE, (match) => match.replace(/\w+\.ts$/, 'en.ts'));
  const fallback = await tableOf(fallbackPath);
  const { KEYED_ELEMENTS, keyLayout } = await import('./key-literals.js');
  const layout = element! in KEYED_ELEMENTS ? await keyLayout(element as keyof typeof KEYED_ELEMENTS) : undefined;
  // The admin's tables may come from another script (dist/paylink-admin.fr.js): each is marked with the
  // layout of the English slots it was packed against, so that a bundle uses only a table that fits
  // it, and a locale's is unpacked by the element's bundle (the locale file carries no code to read it).
  if (element === 'admin' && layout) {
    const mark = JSON.stringify(layoutOf(layout));
    const { seeds, texts } = packFallback(fallback, layout);
    const table =
      locale === 'en'
        ? `packedEnglish(${JSON.stringify(seeds)}, ${layout.hashed}, ${JSON.stringify(texts)}, ${mark})`
        : `packedLocale(${JSON.stringify(packLocale(fallback, await tableOf(path), path, layout))}, ${mark})`;
    return `import { ${table.slice(0, table.indexOf('('))} } from ${JSON.stringify(ADMIN_LOCALES)};\nexport default /* @__PURE__ */ ${table};`;
  }
  const { seeds, texts } = packFallback(fallback, layout);
  const localeTexts = locale === 'en' ? texts : packLocale(fallback, await tableOf(path), path, layout);
  const withFallback = locale !== 'en' && !standalone;
  const args = [
    JSON.stringify(seeds),
    JSON.stringify(localeTexts),
    ...(withFallback || layout ? [withFallback ? 'fallback' : 'undefined'] : []),
    ...(layout ? [layout.hashed] : []),
  ];
  const imports = [`import { unpackTable } from ${JSON.stringify(UNPACK)};`];
  if (locale !== 'en' && !standalone) imports.push(`import fallback from ${JSON.stringify(fallbackPath)};`);
  return `${imports.join('\n')}\nexport default /* @__PURE__ */ unpackTable(${args.join(', ')});`;
}

/** A fingerprint of a layout: its seeds, its hashed slots and its keys in slot order. */
export function layoutOf({ seeds, hashed, slots }: TableLayout): string {
  return hash(`${seeds}\n${hashed}\n${slots.join('\n')}`, GROUP_SEED).toString(36);
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
