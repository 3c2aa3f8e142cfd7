/**
 * Stores the elements' translation tables packed in the script-tag bundles (`src/internal/packed-table.ts`
 * reads them): in those builds only, each `src/components/<element>/translations/<locale>.ts` is replaced
 * by a module of the same default export built from it, the keys written once (in `en.ts`'s module) and
 * each locale's texts as one string in that order, a French text equal to the English one left empty.
 * The readable tables stay the source (and what the npm package, the tests and the types use).
 */
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'vite';

const TABLE_MODULE = /[\\/]src[\\/]components[\\/][\w-]+[\\/]translations[\\/](\w+)\.ts$/;
const UNPACK = new URL('../src/internal/packed-table.ts', import.meta.url).pathname;
/** Separators tried in turn: the first that no text of the list contains is used. */
const SEPARATORS = ['|', '^', '~', '`', '\u0001'];

type Table = Record<string, string>;

/** `items` as one string whose first character is the separator of the rest (`unpackList`). */
export function packList(items: readonly string[]): string {
  const separator = SEPARATORS.find((candidate) => items.every((item) => !item.includes(candidate)));
  if (separator === undefined) throw new Error('packed-tables: every separator appears in some text');
  return separator + items.join(separator);
}

/** The packed keys and texts of the fallback table (`en`). */
export function packFallback(table: Table): { keys: string; texts: string } {
  const keys = Object.keys(table);
  return { keys: packList(keys), texts: packList(keys.map((key) => table[key]!)) };
}

/** The packed texts of another locale's table, in the fallback's key order; a text equal to the fallback's is left empty. */
export function packLocale(fallback: Table, table: Table, name = 'table'): string {
  const extra = Object.keys(table).filter((key) => !(key in fallback));
  if (extra.length) throw new Error(`packed-tables: ${name} has keys the fallback table has not: ${extra.join(', ')}`);
  return packList(
    Object.keys(fallback).map((key) => {
      const text = table[key];
      if (text === undefined || (text === '' && fallback[key] !== '')) throw new Error(`packed-tables: ${name} has no text for ${key}`);
      return text === fallback[key] ? '' : text;
    }),
  );
}

async function tableOf(path: string): Promise<Table> {
  return ((await import(pathToFileURL(path).href)) as { default: Table }).default;
}

/** The source of the module that stands in for the translation table at `path` in a script-tag bundle. */
export async function packedTableModule(path: string): Promise<string> {
  const [, locale] = TABLE_MODULE.exec(path)!;
  const unpack = `import { unpackTable } from ${JSON.stringify(UNPACK)};`;
  if (locale === 'en') {
    const { keys, texts } = packFallback(await tableOf(path));
    return `${unpack}\nexport default /* @__PURE__ */ unpackTable(${JSON.stringify(keys)}, ${JSON.stringify(texts)});`;
  }
  const fallbackPath = path.replace(TABLE_MODULE, (match) => match.replace(/\w+\.ts$/, 'en.ts'));
  const texts = packLocale(await tableOf(fallbackPath), await tableOf(path), path);
  return `${unpack}\nimport fallback from ${JSON.stringify(fallbackPath)};\nexport default /* @__PURE__ */ unpackTable(fallback, ${JSON.stringify(texts)});`;
}

/** The Vite/Rolldown plugin of the script-tag bundles (see the module comment). */
export function packedTablesPlugin(): Plugin {
  return {
    name: 'paylink:packed-tables',
    enforce: 'pre',
    load(id) {
      return TABLE_MODULE.test(id) ? packedTableModule(id) : null;
    },
  };
}
