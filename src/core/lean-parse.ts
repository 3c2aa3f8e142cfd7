/**
 * Zod-free response parsing for the script-tag bundle. The build (`scripts/lean-schemas.ts`) turns
 * each wire schema of `schemas.ts` into its JSON Schema (the output side, as `z.toJSONSchema` writes
 * it) and this module checks a response against it, so `dist/paylink.js` parses every response
 * without the ~25 kB gzip of zod while the zod schemas stay the one source of each shape.
 *
 * What it checks is what zod checks of a response: types, required fields, enums and constants,
 * nullable and union branches, number and length bounds, and the patterns zod enforces; it fills a
 * missing field that has a default and drops unknown keys, as zod's objects do. Two things it leaves
 * to the service, which checked them when it stored the value: zod's custom refinements (such as the
 * control-character rule of free text) and transforms (a link's `fiatAmount` sent as a number).
 * `test/core/lean-parse.test.ts` feeds the same samples to both and expects agreement.
 * Isomorphic: no DOM, no Node, no `new Function`.
 */

type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

/** The subset of JSON Schema that `scripts/lean-schemas.ts` keeps. */
export interface LeanSchema {
  /** One type, or a list of them (`["string", "null"]` for a nullable string); absent: what `properties` (an object) or `items` (an array) implies, else any. */
  type?: JsonType | JsonType[];
  properties?: Record<string, LeanSchema>;
  /** The keys of `properties` an object may lack; absent: none (most objects: nothing written). */
  optional?: string[];
  /** A schema for the values of a record; `false`/absent: unknown keys are dropped. */
  additionalProperties?: LeanSchema | boolean;
  items?: LeanSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: LeanSchema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

/** What the client calls: the same `.parse` as a zod schema, throwing `TypeError(path)` on a mismatch. */
export interface LeanParser<T = unknown> {
  parse(data: unknown): T;
}

function fail(path: string): never {
  throw new TypeError(path || '(root)');
}

/** Whether `value` is of `type` (any value when `type` is absent). */
export function typed(type: LeanSchema['type'], value: unknown): boolean {
  if (Array.isArray(type)) return type.some((one) => typed(one, value));
  switch (type) {
    case undefined:
      return true;
    case 'object':
      return typeof value == 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      return typeof value == type;
  }
}

function check(schema: LeanSchema, value: unknown, path: string): unknown {
  if (value === undefined && 'default' in schema) return schema.default;
  if (schema.anyOf) {
    for (const branch of schema.anyOf) {
      try {
        return check(branch, value, path);
      } catch {
        // try the next branch, as a zod union does
      }
    }
    fail(path);
  }
  // The build leaves out what `properties` and `items` imply, and an enum's or a constant's type (scripts/lean-schemas.ts).
  if (!typed(schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined), value)) fail(path);
  if ('const' in schema && value !== schema.const) fail(path);
  if (schema.enum && !schema.enum.includes(value)) fail(path);
  if (schema.pattern && !new RegExp(schema.pattern).test(value as string)) fail(path);
  if (typeof value == 'number') {
    const { minimum = -Infinity, maximum = Infinity, exclusiveMinimum = -Infinity, exclusiveMaximum = Infinity } = schema;
    if (value < minimum || value > maximum || value <= exclusiveMinimum || value >= exclusiveMaximum) fail(path);
  }
  const length = typeof value == 'string' || Array.isArray(value) ? value.length : -1;
  if (length >= 0 && (length < (schema.minLength ?? schema.minItems ?? 0) || length > (schema.maxLength ?? schema.maxItems ?? Infinity))) fail(path);
  if (Array.isArray(value)) return schema.items ? value.map((item, index) => check(schema.items!, item, `${path}.${index}`)) : value;
  if (schema.type == 'object' || schema.properties || typeof schema.additionalProperties == 'object') {
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const { properties = {}, optional, additionalProperties } = schema;
    for (const key in properties) {
      const field = properties[key]!;
      if (key in input || 'default' in field) out[key] = check(field, input[key], `${path}.${key}`);
      else if (!optional?.includes(key)) fail(`${path}.${key}`);
    }
    if (typeof additionalProperties == 'object') {
      for (const key of Object.keys(input)) if (!(key in properties)) out[key] = check(additionalProperties, input[key], `${path}.${key}`);
    }
    return out;
  }
  return value;
}

/** A parser for `schema`; the type parameter is the zod schema's output type it stands for. */
export function leanParser<T>(schema: LeanSchema): LeanParser<T> {
  return { parse: (data) => check(schema, data, '') as T };
}
