/**
 * Keeps zod out of the script-tag bundles. In those builds only, `src/core/schemas.ts` is replaced by
 * a module of the same exports in which every zod schema is a `leanParser` (`src/core/lean-parse.ts`)
 * over the JSON Schema that `z.toJSONSchema` writes for its output, so the browser client's
 * `Schema.parse(data)` calls stay as they are, and the zod schemas remain the one source of each
 * shape. Parsers the bundle never calls are dropped by tree-shaking (each is a pure call).
 *
 * `src/core/public-parse.ts` (the client's hand-written parsers of the public checkout responses) becomes
 * the lean parsers of the same schemas there, so a bundle parses each shape with one piece of code.
 *
 * `src/internal/zod-jitless.ts` becomes empty there (it only configures zod), and any other import of
 * `zod` fails the build, so a new zod use in browser code is found at build time, not in the bytes.
 * The npm package (`lib/`, built by `scripts/build-lib.ts`) keeps zod as it is.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'vite';
import type { ZodType } from 'zod';
import { leanParser, typed, type LeanParser, type LeanSchema } from '../src/core/lean-parse.js';

const SCHEMAS_MODULE = /[\\/]src[\\/]core[\\/]schemas\.ts$/;
const PUBLIC_PARSE_MODULE = /[\\/]src[\\/]core[\\/]public-parse\.ts$/;
const SCHEMAS = fileURLToPath(new URL('../src/core/schemas.ts', import.meta.url));
const JITLESS_MODULE = /[\\/]src[\\/]internal[\\/]zod-jitless\.ts$/;
const LEAN_PARSE = fileURLToPath(new URL('../src/core/lean-parse.ts', import.meta.url));

/** JSON Schema keywords `leanParser` reads; the rest (descriptions, formats, `$schema`) is dropped. */
const KEPT = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'default', 'pattern']);
const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems'];
const SAFE = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

/** The JSON Schema of one zod schema cut down to what `leanParser` checks. */
export function leanSchema(json: Record<string, unknown>): LeanSchema {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === 'properties') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, Record<string, unknown>>).map(([name, field]) => [name, leanSchema(field)]));
    } else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) {
      out[key] = leanSchema(value as Record<string, unknown>);
    } else if (key === 'anyOf') {
      out[key] = (value as Record<string, unknown>[]).map(leanSchema);
    } else if (key === 'additionalProperties') {
      // `false` on every zod object: unknown keys are dropped, which leanParser does anyway.
    } else if (KEPT.has(key)) {
      out[key] = value;
    } else if (BOUNDS.includes(key) && !(json.type === 'integer' && SAFE.includes(value as number))) {
      out[key] = value;
    } else if (key === '$ref' || key === '$defs' || key === 'allOf' || key === 'oneOf' || key === 'not') {
      throw new Error(`lean-schemas: JSON Schema keyword ${key} is not supported by leanParser`);
    }
  }
  // Most objects require every property: leanParser reads a list of the others, the properties that
  // may be missing (`optional`), written only where there are some.
  const required = (out.required as string[] | undefined) ?? [];
  delete out.required;
  const optional = Object.keys((out.properties as object | undefined) ?? {}).filter((name) => !required.includes(name));
  if (optional.length) out.optional = optional;
  // What `properties` and `items` imply (an object, an array) goes unsaid, and so does the type of an
  // enum or a constant, whose values say it.
  const values = 'const' in out ? [out.const] : (out.enum as unknown[] | undefined);
  if (
    (out.type === 'object' && out.properties) ||
    (out.type === 'array' && out.items) ||
    values?.every((value) => typed(out.type as LeanSchema['type'], value))
  )
    delete out.type;
  return out as LeanSchema;
}

interface ZodInternals {
  _zod: { def: { type: string; format?: string; checks?: { _zod: { def: { check: string } } }[] } };
}

/**
 * The JSON Schema of one zod schema's output, keeping only what zod enforces: a `pattern` or `enum`
 * that a plain `z.string()` carries in its `.meta()` documents the field, zod does not check it.
 */
async function outputJsonSchema(schema: ZodType): Promise<Record<string, unknown>> {
  const { z } = await import('zod');
  return z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const { def } = (zodSchema as unknown as ZodInternals)._zod;
      if (def.type !== 'string') return;
      const checksFormat = def.format !== undefined || (def.checks ?? []).some((check) => check._zod.def.check === 'string_format');
      if (!checksFormat) delete jsonSchema.pattern;
      delete jsonSchema.enum;
    },
  }) as Record<string, unknown>;
}

/** The lean parser of one zod schema, as the script-tag bundles build it. */
export async function leanParserOf<T>(schema: ZodType<T>): Promise<LeanParser<T>> {
  return leanParser<T>(leanSchema(await outputJsonSchema(schema)));
}

/** A part of a schema written as its own constant once it appears this often and is at least this long. */
const SHARED_MIN = { count: 2, length: 8 };

/**
 * The JavaScript source of `values` (JSON values), each part that recurs across them written once as a
 * constant (`$0`, `$1`, …) and named wherever it appears: most responses repeat a checkout session or a
 * link inside their lists, and the parsers only read their schemas. A part whose JSON is a key of `named`
 * is written as the name given there (a constant the module imports).
 */
export function sharedLiterals(values: unknown[], named: ReadonlyMap<string, string> = new Map()): { constants: string[]; expressions: string[] } {
  const counts = new Map<string, number>();
  const count = (value: unknown): void => {
    if (typeof value != 'object' || value === null) return;
    const json = JSON.stringify(value);
    counts.set(json, (counts.get(json) ?? 0) + 1);
    for (const child of Object.values(value)) count(child);
  };
  values.forEach(count);
  const names = new Map(named);
  const constants: string[] = [];
  const write = (value: unknown): string => {
    if (typeof value != 'object' || value === null) return JSON.stringify(value);
    const json = JSON.stringify(value);
    const known = names.get(json);
    if (known) return known;
    const source = Array.isArray(value)
      ? `[${value.map(write).join(',')}]`
      : `{${Object.entries(value)
          .map(([key, child]) => `${JSON.stringify(key)}:${write(child)}`)
          .join(',')}}`;
    if ((counts.get(json) ?? 0) < SHARED_MIN.count || json.length < SHARED_MIN.length) return source;
    const name = `$${constants.length}`;
    names.set(json, name);
    constants.push(`const ${name} = ${source};`);
    return name;
  };
  return { constants, expressions: values.map(write) };
}

/**
 * The lists `src/core/schemas.ts` imports from the rules (`SESSION_STATUSES`, `WEBHOOK_EVENT_TYPES`, …), by
 * their JSON: an enum of the same values is written as the list's name, so a bundle that carries the list
 * for its own use (the admin's status filters) carries it once. zod writes an enum's values in the list's order.
 */
async function listsOfSchemas(): Promise<Map<string, { name: string; path: string }>> {
  const lists = new Map<string, { name: string; path: string }>();
  // The schemas' module and its files by resource (`core/schemas/*.ts`), whichever imports the list.
  const dir = SCHEMAS.replace(/\.ts$/, '');
  const files = [
    SCHEMAS,
    ...(existsSync(dir)
      ? readdirSync(dir)
          .filter((name) => name.endsWith('.ts'))
          .map((name) => `${dir}/${name}`)
      : []),
  ];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const [, names, from] of source.matchAll(/^import \{([^}]*)\} from '(\.[^']+)\.js';$/gm)) {
      if (!from!.includes('rules/')) continue;
      const path = fileURLToPath(new URL(`${from}.ts`, pathToFileURL(file)));
      const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
      for (const name of names!.split(',').map((part) => part.trim())) {
        const value = module[name];
        if (Array.isArray(value) && value.every((item) => typeof item == 'string')) lists.set(JSON.stringify(value), { name, path });
      }
    }
  }
  return lists;
}

/** The source of the module that stands in for `src/core/schemas.ts` in a script-tag bundle. */
export async function leanSchemasModule(): Promise<string> {
  const { z } = await import('zod');
  const schemas = Object.entries((await import('../src/core/schemas.js')) as Record<string, unknown>).filter(
    (entry): entry is [string, ZodType] => entry[1] instanceof z.ZodType,
  );
  const lean = await Promise.all(schemas.map(async ([, schema]) => leanSchema(await outputJsonSchema(schema))));
  const lists = await listsOfSchemas();
  const { constants, expressions } = sharedLiterals(lean, new Map([...lists].map(([json, { name }]) => [json, name])));
  const used = [...lists.values()].filter(({ name }) => [...constants, ...expressions].some((source) => new RegExp(`\\b${name}\\b`).test(source)));
  return [
    `import { leanParser } from ${JSON.stringify(LEAN_PARSE)};`,
    ...used.map(({ name, path }) => `import { ${name} } from ${JSON.stringify(path)};`),
    ...constants,
    ...schemas.map(([name], index) => `export const ${name} = /* @__PURE__ */ leanParser(${expressions[index]});`),
  ].join('\n');
}

/**
 * The source of the module that stands in for `src/core/public-parse.ts` in a script-tag bundle: each
 * `parseX` is the lean parser of schema `X`. The hand-written parsers keep zod and the JSON Schemas out
 * of a page that loads the client's checkout resource alone; a bundle that carries the lean parsers
 * anyway (the admin's) would otherwise parse the same responses twice over, in two pieces of code.
 */
export async function leanPublicParseModule(): Promise<string> {
  const { z } = await import('zod');
  const schemas = (await import('../src/core/schemas.js')) as Record<string, unknown>;
  const parsers = Object.keys(await import('../src/core/public-parse.js')).map((parser) => {
    const schema = parser.replace(/^parse/, '');
    if (!(schemas[schema] instanceof z.ZodType)) throw new Error(`lean-schemas: public-parse's ${parser} has no schema ${schema} in schemas.ts`);
    return [parser, schema] as const;
  });
  return [
    `import { ${parsers.map(([, schema]) => schema).join(', ')} } from ${JSON.stringify(SCHEMAS)};`,
    ...parsers.map(([parser, schema]) => `export const ${parser} = (data) => ${schema}.parse(data);`),
  ].join('\n');
}

/** The Vite/Rolldown plugin of the script-tag bundles (see the module comment). */
export function leanSchemasPlugin(): Plugin {
  let module: Promise<string> | undefined;
  return {
    name: 'paylink:lean-schemas',
    enforce: 'pre',
    resolveId(source, importer) {
      if ((source === 'zod' || source.startsWith('zod/')) && importer && !JITLESS_MODULE.test(importer) && !SCHEMAS_MODULE.test(importer)) {
        throw new Error(`${importer} imports ${source}: the script-tag bundles parse with src/core/lean-parse.ts, not zod`);
      }
      return null;
    },
    async load(id) {
      if (JITLESS_MODULE.test(id)) return 'export {};';
      if (SCHEMAS_MODULE.test(id)) return (module ??= leanSchemasModule());
      if (PUBLIC_PARSE_MODULE.test(id)) return leanPublicParseModule();
      return null;
    },
  };
}
