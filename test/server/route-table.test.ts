/**
 * The API's route table (`core/routes.ts`) against everything that lists routes: the service's served
 * `/v1` routes, the OpenAPI document's paths and the proxy's admin and checkout areas must each be
 * exactly the table, so a route can be neither added nor dropped in one of them alone.
 * (`GET /v1/openapi.json` serves the document and is not an operation of it.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_ROUTES, colonPath, type ApiRoute } from '../../src/core/routes.js';
import { createSandboxChain } from '../../src/server/chain/sandbox.js';
import type { Database } from '../../src/server/db/index.js';
import { createPaylinkProxy } from '../../src/server/proxy/index.js';
import { createRouter, PROXY_AREAS } from '../../src/server/proxy/routes.js';
import { createApp } from '../../src/server/service/app.js';
import { openApiDocument } from '../../src/server/service/openapi.js';

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
      app.routes.filter((route) => route.method !== 'ALL' && route.path.startsWith('/v1/') && route.path !== '/v1/openapi.json').map((route) => key(route.method, route.path)),
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
    assert.ok(TABLE.filter((route) => route.auth === 'public').every((route) => route.path.startsWith('/v1/checkout/')), 'every public operation is under /v1/checkout');
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
    for (const path of ['/admin/payment-link/l1', '/admin/order/o1/refund', '/admin/withdrawal/w1/retry', '/admin/keys', '/checkout/abc/other', '/checkout/sessions/s1/x', '/checkout/orders/o1/x']) {
      const response = await proxy(new Request(`http://shop.test/paylink${path}`, { headers }));
      assert.equal(response.status, 404, path);
    }
    assert.deepEqual(asked, []);
    const ok = await proxy(new Request('http://shop.test/paylink/admin/order/o1', { headers }));
    assert.equal(ok.status, 200);
    assert.deepEqual(asked, ['http://upstream.test/v1/order/o1']);
  });
});
