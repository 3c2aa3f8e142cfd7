/**
 * Test harness: a real service on a real port, on PGlite (in memory) or on a fresh database of the
 * test run's PostgreSQL server, plus a small fetch helper.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/server/db/index.js';
import { createApiKey, type CreatedKey } from '../../src/server/service/keys/index.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/server/service/serve.js';
import { checkResponse } from './openapi-responses.js';
import { openMigratedPglite } from './pglite-template.js';

export type Backend = 'pglite' | 'postgres';

/** The backends this run tests: PGlite always, PostgreSQL when the runner started one. */
export function backends(): Backend[] {
  return process.env.PAYLINK_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/** Creates an empty database on the test server and returns its URL and a drop function. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.PAYLINK_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('PAYLINK_TEST_DATABASE_URL is not set');
  const name = `paylink_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Opens a migrated database on `backend`; `close()` also drops a PostgreSQL database. */
export async function openTestDatabase(backend: Backend): Promise<{ db: Database; url?: string; close(): Promise<void> }> {
  if (backend === 'pglite') {
    const db = await openMigratedPglite();
    return { db, close: () => db.close() };
  }
  const created = await createPostgresDatabase();
  const db = await openDatabase({ databaseUrl: created.url });
  return {
    db,
    url: created.url,
    close: async () => {
      await db.close();
      await created.drop();
    },
  };
}

export interface TestService {
  backend: Backend;
  url: string;
  db: Database;
  /** The PostgreSQL database's connection string (absent on PGlite). */
  databaseUrl?: string | undefined;
  service: RunningService;
  /** A fresh integrator with its own key. */
  newKey(): Promise<CreatedKey>;
  close(): Promise<void>;
}

/**
 * The per-client limits on public writes that functional tests lift unless they set them: they start
 * dozens of sessions and visits from 127.0.0.1, which is the attack those limits stop (tested on their
 * own in test/server/attack/*.test.ts and test/hard/). Connection and stream caps stay at their defaults.
 */
const FUNCTIONAL_TEST_LIMITS: Partial<ServiceOptions> = { sessionRateLimit: false, visitRateLimit: false, maxVisitsPerClient: false };

export async function startTestService(backend: Backend, options: Omit<ServiceOptions, 'db'> = {}): Promise<TestService> {
  const database = await openTestDatabase(backend);
  // A service that refuses to start leaves its database to us: closed, or it would hold the test process open.
  const service = await startService({ ...FUNCTIONAL_TEST_LIMITS, ...options, db: database.db }).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  return {
    backend,
    url: service.url,
    db: database.db,
    databaseUrl: database.url,
    service,
    newKey: () => database.db.transaction((tx) => createApiKey(tx)),
    close: async () => {
      await service.close();
      await database.close();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** What `call` and `callFrom` take besides the method and path. */
export interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** The headers and body of one JSON request, as both `call` and `callFrom` send it. */
function jsonRequest(options: CallOptions): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return { headers, body };
}

/** A response body parsed as JSON, or its text when it is not JSON (undefined when empty). */
function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text; // Not JSON: the test sees the text.
  }
}

/** What a failed `fetch` met on its connection (`UND_ERR_SOCKET: other side closed`). */
function connectionFault(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  return `${String(cause?.code)}: ${String(cause?.message)}`;
}

/**
 * What a request sent on a kept-alive connection meets when the server closes that connection for
 * idling just then (the server's 5 s against the client's 4 s, which fetch's one-second timers and a
 * busy machine stretch): a close, or, when the server's timer ran before it read the request that had
 * already arrived (timers run before reads in Node's loop), a reset. Either way the server read none
 * of it.
 */
const IDLE_CLOSE = new Set(['UND_ERR_SOCKET: other side closed', 'ECONNRESET: read ECONNRESET']);

/**
 * Sends one JSON request and returns status, parsed body and headers. A request whose kept-alive
 * connection the server closed for idling (`IDLE_CLOSE`) is sent once more on a new one: nothing is
 * done twice (fetch retries only GETs so). Any other failure names the request and what its
 * connection met.
 */
export async function call<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const { headers, body } = jsonRequest(options);
  const send = () => fetch(baseUrl + path, { method, headers, body });
  const response = await send()
    .catch((error: unknown) => (IDLE_CLOSE.has(connectionFault(error)) ? send() : Promise.reject(error)))
    .catch((error: unknown) => {
      throw Object.assign(new Error(`${method} ${path}: ${String((error as Error).message)} (${connectionFault(error)})`), { cause: error });
    });
  const answer = { status: response.status, body: parseBody(await response.text()) as T, headers: response.headers };
  checkResponse({ method, url: baseUrl + path, status: answer.status, contentType: answer.headers.get('content-type'), body: answer.body });
  return answer;
}

/**
 * `call` from a given local address (`127.0.0.x`: the whole 127/8 range is the loopback on Linux), so
 * a test can be many clients, or an attacker apart from the customers. A new connection per call.
 */
export function callFrom<T = any>(localAddress: string, baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const { headers, body } = jsonRequest(options);
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(path, baseUrl), { method, headers, localAddress, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        const answer = { status: response.statusCode ?? 0, body: parseBody(Buffer.concat(chunks).toString('utf8')) as T, headers: responseHeaders };
        try {
          checkResponse({
            method,
            url: new URL(path, baseUrl).href,
            status: answer.status,
            contentType: responseHeaders.get('content-type'),
            body: answer.body,
          });
        } catch (error) {
          reject(error);
          return;
        }
        resolve(answer);
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** The spec's example body of a Standard link, with overrides. */
export function standardLinkBody(overrides: Record<string, unknown> = {}) {
  return {
    title: 'Test order',
    description: 'A test link',
    linkType: 'Standard',
    fiatAmount: 2000,
    fiatCurrency: ['NGN', 'USD'],
    action: { successMessage: 'Thanks!', redirect: false, showConfirmationPage: false, redirectURL: '' },
    options: { collectAddress: false, collectPhone: false },
    cart: { items: [] },
    ...overrides,
  };
}

/** A Donation link body, with overrides. */
export function donationLinkBody(overrides: Record<string, unknown> = {}) {
  return {
    title: 'Help the library',
    description: 'Books for everyone',
    linkType: 'DONATION',
    fiatCurrency: 'NGN',
    action: { successMessage: 'Thank you', redirect: false, showConfirmationPage: false, isActive: true },
    options: { collectAddress: false, collectPhone: false },
    cart: { items: [] },
    ...overrides,
  };
}
