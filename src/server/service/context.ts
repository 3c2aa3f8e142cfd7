/**
 * What every room of the service shares: its dependencies (storage, the chain, configuration, the
 * clock), the Hono environment, and validation at the edge (a JSON body or a query parsed with its
 * zod schema before the handler runs, every refusal the one 400 shape).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import type { PageMeta } from '../../core/schemas.js';
import type { ChainAdapter } from '../chain/types.js';
import type { Database } from '../db/index.js';
import { ApiError, fromZodError } from './errors.js';
import type { IdempotencyState } from './idempotency/middleware.js';
import type { Principal } from './keys/repository.js';

export interface ServiceDeps {
  db: Database;
  chain: ChainAdapter;
  /** The spec's `{paylink_url}`: a link's `url` is `${publicUrl}/${slug}`. */
  publicUrl: string;
  /** The clock; tests move it to expire quotes and close donations. */
  now: () => Date;
}

export interface AppEnv {
  Variables: {
    /** The caller of a keyed route (set by `requireKey`, ./keys/auth.ts). */
    principal: Principal;
    /** The `Idempotency-Key` of a route that takes one (set by `idempotency()`, ./idempotency/middleware.ts). */
    idempotency: IdempotencyState;
  };
}

/** Reads a JSON object body. A missing, malformed or non-object body is a 400 that says so. */
export async function readJsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError(400, 'invalid_body', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** Validates `value` with `schema`, turning its issues into the one 400 shape. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, prefix);
  return result.data;
}

/**
 * Validation at the edge: the JSON body parsed with `schema`, for the handler as `c.req.valid('json')`.
 * The body is read whatever its content type says (the spec's clients send JSON without one).
 */
export function jsonBody<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<AppEnv, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }> {
  return async (c, next) => {
    c.req.addValidatedData('json', parseWith(schema, await readJsonBody(c)) as object);
    await next();
  };
}

/** Validation at the edge: the query parsed with `schema`, for the handler as `c.req.valid('query')`. */
export function queryOf<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<AppEnv, string, { in: { query: z.input<S> }; out: { query: z.output<S> } }> {
  return async (c, next) => {
    c.req.addValidatedData('query', parseWith(schema, c.req.query()) as object);
    await next();
  };
}

/** The spec's page metadata (§2.5) of one page of `itemCount` items out of `totalItems`. */
export function pageMeta(totalItems: number, itemCount: number, page: { page: number; limit: number }): PageMeta {
  return {
    totalItems,
    itemCount,
    itemsPerPage: page.limit,
    totalPages: Math.ceil(totalItems / page.limit),
    currentPage: page.page,
  };
}
