/**
 * What every room of the service shares: its dependencies (storage, the chain, configuration, the
 * clock), the Hono environment, and validation at the edge (a JSON body or a query parsed with its
 * zod schema before the handler runs, every refusal the one 400 shape).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { isDateRange, parseDateBound } from '../../core/rules/dates.js';
import type { FieldError, PageMeta } from '../../core/schemas.js';
import type { ChainAdapter } from '../chain/types.js';
import type { Database } from '../db/index.js';
import type { ClientAddressResolver } from '../limits/client-address.js';
import { clientAddressOf } from '../limits/node-server.js';
import type { PublicWriteLimitOptions, StreamLimitOptions } from '../limits/options.js';
import type { Logger } from '../log.js';
import type { RenderMetrics } from '../metrics/endpoint.js';
import { isJson } from '../limits/body.js';
import { ApiError, fromZodError } from './errors.js';
import { parseJsonKeepingDigits } from './exact-json.js';
import type { IdempotencyState } from './idempotency/middleware.js';
import type { Principal } from './keys/repository.js';

export interface ServiceDeps {
  db: Database;
  chain: ChainAdapter;
  /** The spec's `{paylink_url}`: a link's `url` is `${publicUrl}/${slug}`. */
  publicUrl: string;
  /** The clock; tests move it to expire quotes and close donations. */
  now: () => Date;
  /** Where log lines go (`server/log.ts`); default stderr. */
  log?: Logger | undefined;
  /**
   * Who a request's client is, for the per-client limits (default: the socket's peer, where the Node
   * server passes one; `serve.ts` passes its server's, which follows `trustProxy`).
   */
  clientAddress?: ClientAddressResolver | undefined;
  /** Caps on event streams and limits on public writes (defaults in `server/limits/options.ts`). */
  limits?: (StreamLimitOptions & PublicWriteLimitOptions) | undefined;
  /**
   * `/metrics` (`server/metrics/`): the middleware that counts every request, the exposition, and the
   * token that serves it on this port (without one, `/metrics` here is a 404).
   */
  metrics?: { middleware: MiddlewareHandler; render: RenderMetrics; token: string | undefined } | undefined;
  /** True once the instance is stopping: `/readyz` answers 503 `draining` so a load balancer sends no more. */
  draining?: (() => boolean) | undefined;
}

export interface AppEnv {
  /**
   * What `@hono/node-server` passes as the env; absent under `app.request()` and other runtimes. A host
   * that calls `app.fetch` in its own process (the demo, in front of its own proxy) may state the
   * client it resolved itself as `clientAddress`: only code in the process can set it, never a request.
   */
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse; clientAddress?: string | undefined };
  Variables: {
    /** This request's id (`X-Request-Id`, see `server/log.ts`), set first thing. */
    requestId: string;
    /** The caller of a keyed route (set by `requireKey`, ./keys/auth.ts). */
    principal: Principal;
    /** The `Idempotency-Key` of a route that takes one (set by `idempotency()`, ./idempotency/middleware.ts). */
    idempotency: IdempotencyState;
  };
}

/**
 * The client of a request, for per-client limits: the one an in-process host stated, else its socket's
 * peer, or the `X-Forwarded-For` entry `resolver` trusts. Undefined when there is no socket to ask
 * (`app.request()`, other runtimes): such a request is counted in the totals only.
 */
export function clientOf(c: Context<AppEnv>, resolver: ClientAddressResolver): string | undefined {
  const env = c.env as AppEnv['Bindings'] | undefined;
  if (env?.clientAddress !== undefined) return env.clientAddress;
  return env?.incoming ? clientAddressOf(env.incoming, resolver) : undefined;
}

/**
 * Reads a JSON object body. An empty body is `{}` (whatever its type); anything else must be labelled
 * JSON (`application/json`, or `…+json`), else 415: a `text/plain` or form body is never parsed as JSON,
 * so a page on another site can't post one without a CORS preflight. A missing, malformed or non-object
 * body is a 400 that says so. A number a double would round reaches the rules as the text of its digits
 * (./exact-json.ts), so `10.000000000000000000000000000001` is refused as its string is, not rounded to 10.
 */
export async function readJsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  if (!isJson(c.req.header('content-type') ?? null)) {
    throw new ApiError(415, 'unsupported_media_type', 'The request body must be JSON, sent with Content-Type: application/json');
  }
  let body: unknown;
  try {
    body = parseJsonKeepingDigits(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, 'invalid_body', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** Validates `value` with `schema`, turning its issues into the one 400 shape. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, prefix);
  return result.data;
}

/** Validation at the edge: the JSON body (see `readJsonBody`) parsed with `schema`, for the handler as `c.req.valid('json')`. */
export function jsonBody<S extends z.ZodType>(schema: S): MiddlewareHandler<AppEnv, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }> {
  return async (c, next) => {
    c.req.addValidatedData('json', parseWith(schema, await readJsonBody(c)) as object);
    await next();
  };
}

/** Validation at the edge: the query parsed with `schema`, for the handler as `c.req.valid('query')`. */
export function queryOf<S extends z.ZodType>(schema: S): MiddlewareHandler<AppEnv, string, { in: { query: z.input<S> }; out: { query: z.output<S> } }> {
  return async (c, next) => {
    c.req.addValidatedData('query', parseWith(schema, c.req.query()) as object);
    await next();
  };
}

/** The creation-time bounds of a list's `startDate`/`endDate` filter: from inclusive, and before (exclusive) or until (inclusive). */
export interface CreationRange {
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
  createdUntil?: Date | undefined;
}

const dateMessage = (path: string) => `${path} must be an ISO 8601 date (2025-01-31) or date-time (2025-01-31T12:00:00Z) between 1970 and 9999`;

/**
 * Reads a list's `startDate`/`endDate` (each a date, a whole UTC day, or a date-time; both inclusive,
 * on the creation time), adding a field error to `errors` for each that is not one or a range that is empty.
 */
export function creationRange(query: { startDate?: string | undefined; endDate?: string | undefined }, errors: FieldError[]): CreationRange {
  const start = query.startDate === undefined ? undefined : parseDateBound(query.startDate, 'start');
  const end = query.endDate === undefined ? undefined : parseDateBound(query.endDate, 'end');
  if (start === null) errors.push({ path: 'startDate', message: dateMessage('startDate') });
  if (end === null) errors.push({ path: 'endDate', message: dateMessage('endDate') });
  if (start && end && !isDateRange(start, end)) errors.push({ path: 'endDate', message: 'endDate must not be before startDate' });
  return {
    createdFrom: start?.at,
    createdBefore: end?.exclusive ? end.at : undefined,
    createdUntil: end && !end.exclusive ? end.at : undefined,
  };
}

/** The page metadata of one page of `itemCount` items out of `totalItems`. */
export function pageMeta(totalItems: number, itemCount: number, page: { page: number; limit: number }): PageMeta {
  return {
    totalItems,
    itemCount,
    itemsPerPage: page.limit,
    totalPages: Math.ceil(totalItems / page.limit),
    currentPage: page.page,
  };
}
