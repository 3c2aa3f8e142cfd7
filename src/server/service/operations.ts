/**
 * The service's `/v1` operations, mounted from the route table (`core/routes.ts`). Each room exports its
 * handlers keyed by operation id (a `RoomOperations` map, so a misspelt or unknown id is a compile
 * error); `createApp` joins the rooms' maps into one that must name every operation of the table
 * (`ServiceOperations`, checked at compile time, and by `mountOperations` at run time) and mounts it.
 *
 * Each entry is mounted at its method and path with, in this order: the room's own middleware (an
 * `Idempotency-Key`, a rate limit that must refuse before the body is read); the entry's `query` and
 * `body` validated at the edge (the one 400 shape of `context.ts`); then the handler, which reads them
 * typed as `c.req.valid('query' | 'json')` and its path parameters as `c.req.param(…)`. The `X-API-KEY`
 * check of the `key` operations runs before all of it, by prefix (`KEYED_PREFIXES` in `app.ts`, the
 * first segments of the table's `key` paths), so any path under a keyed prefix, unknown ones included,
 * is a 401 without a key.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { API_ROUTES, colonPath, type ApiRoute, type ColonPath, type OperationId, type RouteOf } from '../../core/routes.js';
import { type AppEnv, jsonBody, queryOf } from './context.js';

/** What the edge validated of an entry, as the handler reads it (`json` for its body, `query` for its query). */
type ValidatedOf<R> = (R extends { readonly body: infer B extends z.ZodType } ? { json: z.output<B> } : {}) &
  (R extends { readonly query: infer Q extends z.ZodType } ? { query: z.output<Q> } : {});

/** The Hono context of operation `Id`: its path parameters and its validated query and body, typed. */
export type OperationContext<Id extends OperationId> = Context<AppEnv, ColonPath<RouteOf<Id>['path']>, { out: ValidatedOf<RouteOf<Id>> }>;

/** The handler of operation `Id`: it answers (it never calls `next`). */
export type OperationHandler<Id extends OperationId> = (c: OperationContext<Id>) => Response | Promise<Response>;

/** A handler with middleware of the room's own, run before the edge validation. */
export interface OperationWithMiddleware<Id extends OperationId> {
  readonly use?: readonly MiddlewareHandler<AppEnv>[];
  /**
   * The handler reads and checks the entry's `body` itself (`readJsonBody`, `parseWith`) after finding
   * what its path names, so an unknown slug or order is a 404 whatever the body says: the edge
   * validates no body, and `c.req.valid('json')` is not there to read.
   */
  readonly bodyInHandler?: true;
  readonly handler: OperationHandler<Id>;
}

/** How a room serves operation `Id`: a handler, alone or with its own middleware. */
export type Operation<Id extends OperationId> = OperationHandler<Id> | OperationWithMiddleware<Id>;

/** A room's operations: some of the table's, each by its id (write the map `satisfies RoomOperations`). */
export type RoomOperations = { readonly [Id in OperationId]?: Operation<Id> };

/** Every operation of the table, each by its id: what `mountOperations` mounts. */
export type ServiceOperations = { readonly [Id in OperationId]: Operation<Id> };

/** `A | B` → `A & B`: the rooms' maps, joined, as one type. */
type Joined<Union> = (Union extends unknown ? (all: Union) => void : never) extends (all: infer All) => void ? All : never;

/** The rooms' maps as one; an operation two rooms claim is refused (a later spread would silently win). */
export function joinRooms<const Rooms extends readonly RoomOperations[]>(...rooms: Rooms): Joined<Rooms[number]> {
  const joined: Record<string, unknown> = {};
  for (const room of rooms)
    for (const [id, operation] of Object.entries(room)) {
      if (id in joined) throw new Error(`Two rooms serve the operation ${id}`);
      joined[id] = operation;
    }
  return joined as Joined<Rooms[number]>;
}

/**
 * The order to mount `routes` in: at the first segment where two paths differ in kind, the literal one
 * first, so `/v1/withdrawal/networks` is matched before `/v1/withdrawal/{id}` would take `networks` for an
 * id, whatever the table's order (Hono runs the first route that matches). Otherwise the table's order.
 */
export function mountOrder<R extends Pick<ApiRoute, 'path'>>(routes: readonly R[]): R[] {
  const shape = (path: string) =>
    path
      .split('/')
      .map((segment) => (segment.startsWith('{') ? '1' : '0'))
      .join('');
  return routes
    .map((route, index) => ({ route, index, shape: shape(route.path) }))
    .sort((a, b) => (a.shape < b.shape ? -1 : a.shape > b.shape ? 1 : a.index - b.index))
    .map(({ route }) => route);
}

/**
 * Mounts every entry of `routes` (the API's table but in tests) on `app` with the handler of its
 * operation id, behind what the entry implies (see the module comment). Throws when an entry has no
 * handler or a handler has no entry.
 */
export function mountOperations(app: Hono<AppEnv>, operations: ServiceOperations, routes: readonly ApiRoute[] = API_ROUTES): void {
  const byId = operations as Readonly<Record<string, Operation<OperationId>>>;
  const ids = new Set(routes.map((route) => route.operationId));
  const missing = [...ids].filter((id) => !Object.hasOwn(byId, id));
  const unknown = Object.keys(byId).filter((id) => !ids.has(id));
  if (missing.length || unknown.length)
    throw new Error(`The route table and the handlers disagree: no handler for [${missing.join(', ')}], no table entry for [${unknown.join(', ')}]`);
  for (const route of mountOrder(routes)) {
    const operation = byId[route.operationId]!;
    const { use = [], handler, bodyInHandler } = typeof operation === 'function' ? { handler: operation } : operation;
    const chain = [
      ...use,
      ...(route.query ? [queryOf(route.query)] : []),
      ...(route.body && !bodyInHandler ? [jsonBody(route.body)] : []),
      handler,
    ] as MiddlewareHandler<AppEnv>[];
    app.on(route.method, colonPath(route.path), ...(chain as [MiddlewareHandler<AppEnv>]));
  }
}
