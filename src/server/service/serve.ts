/**
 * Runs the service on a port: opens the database (migrating it), builds the app and listens.
 * `close()` stops accepting, drains in-flight requests, then closes the database.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createSandboxChain } from '../chain/sandbox.js';
import type { ChainAdapter } from '../chain/types.js';
import { openDatabase, type Database } from '../db/index.js';
import { createApp } from './app.js';

export interface ServiceOptions {
  port?: number;
  host?: string;
  /** PGlite data directory (default in memory); ignored when `databaseUrl` is set. */
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
  /** The spec's `{paylink_url}`; defaults to `http://<host>:<port>/pay`. */
  publicUrl?: string | undefined;
  chain?: ChainAdapter;
  now?: () => Date;
  /** An already open database to use instead of opening one. */
  db?: Database;
}

export interface RunningService {
  url: string;
  port: number;
  db: Database;
  server: Server;
  app: ReturnType<typeof createApp>;
  close(): Promise<void>;
}

export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const db = options.db ?? (await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir }));
  const host = options.host ?? '127.0.0.1';
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const publicUrl = (options.publicUrl ?? process.env.PAYLINK_PUBLIC_URL ?? `${origin}/pay`).replace(/\/+$/, '');
  const app = createApp({ db, chain: options.chain ?? createSandboxChain(), publicUrl, now: options.now ?? (() => new Date()) });
  server.on('request', getRequestListener(app.fetch));

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port,
    db,
    server,
    app,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // Long-lived streams (SSE) would hold the drain forever; give requests 5 s, then cut.
          setTimeout(() => server.closeAllConnections(), 5000).unref();
        });
        if (!options.db) await db.close();
      })()),
  };
}
