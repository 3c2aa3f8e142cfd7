/**
 * The API's route table (`core/routes.ts`) against everything that lists routes: the service's served
 * `/v1` routes, the OpenAPI document's paths and the proxy's admin and checkout areas must each be
 * exactly the table, so a route can be neither added nor dropped in one of them alone.
 * (`GET /v1/openapi.json` serves the document and is not an operation of it.) And how the service
 * mounts the table (`server/service/operations.ts`): one handler per operation id, each behind what its
 * entry implies, no route shadowing another whatever the table's order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { z } from 'zod';
import { API_ROUTES, colonPath, type ApiRoute } from '../../src/core/routes.js';
import { createSandboxChain } from '../../src/server/chain/sandbox/index.js';
import type { Database } from '../../src/server/db/index.js';
import { createPaylinkProxy } from '../../src/server/proxy/index.js';
import { createRouter, PROXY_AREAS } from '../../src/server/proxy/routes.js';
import { createLogger } from '../../src/server/log.js';
import { createApp, KEYED_PREFIXES, serviceOperations } from '../../src/server/service/app.js';
import type { AppEnv } from '../../src/server/service/context.js';
import { ApiError } from '../../src/server/service/errors.js';
import { createLinkCache } from '../../src/server/service/links/index.js';
import { withMoneyDefaults } from '../../src/server/service/money-deps.js';
import { openApiDocument } from '../../src/server/service/openapi.js';
import { mountOperations, type ServiceOperations } from '../../src/server/service/operations.js';

const TABLE = API_ROUTES as readonly ApiRoute[];
const key = (method: string, path: string) => `${method.toUpperCase()} ${colonPath(path)}`;
const tableSet = (routes: readonly ApiRoute[] = TABLE) => new Set(routes.map((route) => key(route.method, route.path)));
const sorted = (set: Set<string>) => [...set].sort();

/** Building the app touches no database: one that throws on use proves it. */
const db = new Proxy({} as Database, {
  get: (_, name) => () => {
    throw new Error(`building the app used the database (${String(name)})`);
  },
});

describe('the route table', () => {
  it('names each operation once, each method and path once, all under /v1', () => {
    assert.ok(TABLE.length >= 30);
    assert.equal(new Set(TABLE.map((route) => route.operationId)).size, TABLE.length);
    assert.equal(tableSet().size, TABLE.length);
    for (const route of TABLE) assert.match(route.path, /^\/v1\/[a-z0-9{}/-]+$/, route.operationId);
  });

  it('is exactly the service’s served /v1 routes: every entry has a handler and no handler lacks an entry', () => {
    const app = createApp({ db, chain: createSandboxChain(), publicUrl: 'http://127.0.0.1/pay', now: () => new Date() });
    const served = new Set(
      app.routes
        .filter((route) => route.method !== 'ALL' && route.path.startsWith('/v1/') && route.path !== '/v1/openapi.json')
        .map((route) => key(route.method, route.path)),
    );
    assert.deepEqual(sorted(served), sorted(tableSet()));
  });

  it('is exactly the OpenAPI document’s operations, with the table’s ids, summaries and security', () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, { operationId: string; summary: string; security: unknown[] }>> };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
    assert.deepEqual(sorted(new Set(operations.map(({ method, path }) => key(method, path)))), sorted(tableSet()));
    const byKey = new Map(TABLE.map((route) => [key(route.method, route.path), route]));
    for (const { method, path, operation } of operations) {
      const route = byKey.get(key(method, path))!;
      assert.equal(operation.operationId, route.operationId);
      assert.equal(operation.summary, route.summary);
      assert.equal(operation.security.length, route.auth === 'key' ? 1 : 0, route.operationId);
    }
  });
});

/** An app that mounts `routes` with `operations`, by default handlers that answer their operation id. */
function mountedApp(routes: readonly ApiRoute[], operations?: Record<string, unknown>) {
  const app = new Hono<AppEnv>();
  app.onError((error, c) => (error instanceof ApiError ? c.json(error.toJSON(), error.statusCode as 400) : c.text(String(error), 500)));
  const answering = Object.fromEntries(routes.map((route) => [route.operationId, (c: { text(text: string): Response }) => c.text(route.operationId)]));
  mountOperations(app, (operations ?? answering) as unknown as ServiceOperations, routes);
  return app;
}

/** A path of `route` with each parameter filled by a value no literal segment of the table has. */
const concrete = (route: ApiRoute) => route.path.replace(/\{\w+\}/g, 'x1');

describe('the service mounts the route table', () => {
  const deps = { db, chain: createSandboxChain(), publicUrl: 'http://127.0.0.1/pay', now: () => new Date() };

  it('has one handler per operation id: every entry has a handler and no handler lacks an entry', () => {
    const operations = serviceOperations(withMoneyDefaults(deps), createLinkCache(db));
    assert.deepEqual(Object.keys(operations).sort(), TABLE.map((route) => route.operationId).sort());
  });

  it('refuses to mount handlers that disagree with the table, naming each missing and unknown one', () => {
    const routes = TABLE.filter((route) => route.operationId === 'getBalance' || route.operationId === 'getOrder');
    const handler = (c: { text(text: string): Response }) => c.text('');
    assert.throws(() => mountedApp(routes, { getBalance: handler, getOrderz: handler }), /no handler for \[getOrder\], no table entry for \[getOrderz\]/);
    assert.doesNotThrow(() => mountedApp(routes, { getBalance: handler, getOrder: handler }));
  });

  it('lets no route shadow another: each operation’s path reaches that operation, whatever the table’s order', async () => {
    // Without schemas: only which handler answers matters here.
    const bare = TABLE.map(({ query: _query, body: _body, ...route }) => route as ApiRoute);
    for (const routes of [bare, [...bare].reverse()]) {
      const app = mountedApp(routes);
      for (const route of routes) {
        const response = await app.request(concrete(route), { method: route.method });
        assert.equal(await response.text(), route.operationId, `${route.method} ${concrete(route)}`);
      }
    }
    // The literal segment that a parameter of the same shape would take: `networks` is not a withdrawal id.
    assert.ok(TABLE.some((route) => route.path === '/v1/withdrawal/networks') && TABLE.some((route) => route.path === '/v1/withdrawal/{id}'));
  });

  it('puts every key operation behind the key check, and no public one', async () => {
    const app = createApp({ ...deps, log: createLogger(() => {}) });
    for (const route of TABLE) {
      const response = await app.request(concrete(route), { method: route.method });
      const { code } = (await response.json()) as { code: string };
      assert.equal(code === 'missing_api_key', route.auth === 'key', `${route.operationId}: ${response.status} ${code}`);
    }
    // By prefix, as the contract has it: every call under a keyed resource needs a key, paths the table lacks too.
    for (const path of ['/v1/payment-link/x1', '/v1/order/x1/refund', '/v1/balance/x1']) assert.equal((await app.request(path)).status, 401, path);
  });

  it('validates the entry’s query and body at the edge, unless the handler reads its body itself', async () => {
    const routes: ApiRoute[] = [
      { operationId: 'createThing', method: 'POST', path: '/v1/thing', auth: 'public', summary: 'x', body: z.object({ name: z.string() }) },
      { operationId: 'listThings', method: 'GET', path: '/v1/thing', auth: 'public', summary: 'x', query: z.object({ page: z.coerce.number().int() }) },
      { operationId: 'startThing', method: 'POST', path: '/v1/thing/{id}/start', auth: 'public', summary: 'x', body: z.object({ name: z.string() }) },
    ];
    const app = mountedApp(routes, {
      createThing: (c: { req: { valid(target: 'json'): { name: string } }; text(text: string): Response }) => c.text(c.req.valid('json').name),
      listThings: (c: { req: { valid(target: 'query'): { page: number } }; text(text: string): Response }) => c.text(String(c.req.valid('query').page + 1)),
      startThing: { bodyInHandler: true, handler: (c: { text(text: string): Response }) => c.text('unread') },
    });
    const post = (path: string, body: unknown) =>
      app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(await (await post('/v1/thing', { name: 'lamp' })).text(), 'lamp');
    const refused = await post('/v1/thing', { name: 7 });
    assert.equal(refused.status, 400);
    assert.deepEqual(
      ((await refused.json()) as { errors: { path: string }[] }).errors.map((error) => error.path),
      ['name'],
    );
    assert.equal(await (await app.request('/v1/thing?page=2')).text(), '3');
    assert.equal((await app.request('/v1/thing?page=two')).status, 400);
    assert.equal(await (await post('/v1/thing/t1/start', { name: 7 })).text(), 'unread', 'a handler that reads its body gets it unchecked');
  });

  it('derives the keyed prefixes from the table: each key operation under one, no public operation under any', () => {
    const under = (path: string) => KEYED_PREFIXES.filter((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    for (const route of TABLE) assert.equal(under(route.path).length, route.auth === 'key' ? 1 : 0, route.operationId);
    for (const prefix of KEYED_PREFIXES)
      assert.ok(
        TABLE.some((route) => route.auth === 'key' && under(route.path).includes(prefix)),
        prefix,
      );
  });
});

describe('the proxy and the route table', () => {
  const admin = PROXY_AREAS.find((area) => area.name === 'admin')!;
  const checkout = PROXY_AREAS.find((area) => area.name === 'checkout')!;
  /** What an area allows, as the service routes it reaches (HEAD is GET's). */
  const allowedUpstream = (area: typeof admin) => {
    const upstream = (area.target as { upstream: string }).upstream;
    return new Set(area.routes.flatMap((route) => route.methods.filter((method) => method !== 'HEAD').map((method) => key(method, upstream + route.path))));
  };

  it('admin allows exactly the table’s keyed operations, checkout exactly its public ones', () => {
    assert.deepEqual(sorted(allowedUpstream(admin)), sorted(tableSet(TABLE.filter((route) => route.auth === 'key'))));
    assert.deepEqual(sorted(allowedUpstream(checkout)), sorted(tableSet(TABLE.filter((route) => route.auth === 'public'))));
    assert.ok(
      TABLE.filter((route) => route.auth === 'public').every((route) => route.path.startsWith('/v1/checkout/')),
      'every public operation is under /v1/checkout',
    );
  });

  it('routes each table operation to a route of its area, event streams marked', () => {
    const router = createRouter('/paylink', PROXY_AREAS);
    for (const route of TABLE) {
      const [area, prefix] = route.auth === 'key' ? [admin, '/v1'] : [checkout, '/v1/checkout'];
      const concrete = route.path.slice(prefix.length).replace(/\{\w+\}/g, 'x1');
      const match = router.route(area, concrete, route.method);
      assert.ok('route' in match, `${route.method} ${route.path}`);
      assert.equal(match.route.stream ?? false, route.stream ?? false, route.operationId);
    }
  });

  it('answers 404 to a path the table lacks, and never asks the service', async () => {
    const asked: string[] = [];
    const proxy = createPaylinkProxy({
      upstream: 'http://upstream.test',
      apiKey: 'pk_test_route_table_0123456789abcdef',
      adminToken: 'admin-token-route-table-0123456789abcdef',
      rateLimit: false,
      fetch: async (input: string | URL | Request) => {
        asked.push(input instanceof Request ? input.url : String(input));
        return new Response('{}', { headers: { 'content-type': 'application/json' } });
      },
    });
    const headers = { authorization: 'Bearer admin-token-route-table-0123456789abcdef' };
    // Each of these a wildcard once let through: near a table path, never one.
    for (const path of [
      '/admin/payment-link/l1',
      '/admin/order/o1/refund',
      '/admin/withdrawal/w1/retry',
      '/admin/keys',
      '/checkout/abc/other',
      '/checkout/sessions/s1/x',
      '/checkout/orders/o1/x',
    ]) {
      const response = await proxy(new Request(`http://shop.test/paylink${path}`, { headers }));
      assert.equal(response.status, 404, path);
    }
    assert.deepEqual(asked, []);
    const ok = await proxy(new Request('http://shop.test/paylink/admin/order/o1', { headers }));
    assert.equal(ok.status, 200);
    assert.deepEqual(asked, ['http://upstream.test/v1/order/o1']);
  });
});
