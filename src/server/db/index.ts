/**
 * One database interface over two engines: embedded PGlite (the default: one process, on disk or in
 * memory) and a PostgreSQL server through node-postgres (when a connection URL is given). The rest of
 * the service sees only `Database`, so both run the same SQL on the same code path.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Something SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

export interface Database extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /**
   * Runs `work` in one transaction (READ COMMITTED), committing when it resolves and rolling back
   * when it throws. On PGlite every transaction is serialized by the engine, so this is also the
   * only safe way to run concurrent multi-statement work there.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Subscribes to `NOTIFY channel`; resolves once listening. Returns the unsubscribe function.
   * On PostgreSQL a lost listening connection is replaced (with backoff) and every channel listened
   * again; notifications sent in between are lost, so `onReconnect` is then called once per
   * subscription: re-read whatever the notifications stand for.
   */
  listen(channel: string, onPayload: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** node-postgres connection string. When set, the PostgreSQL server is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` (the default) keeps everything in memory. */
  dataDir?: string | undefined;
  /** Pool size for PostgreSQL. */
  maxConnections?: number | undefined;
}

/** Opens the database named by the options and applies every pending migration. */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const db = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.maxConnections ?? 20)
    : await openPglite(options.dataDir ?? 'memory://');
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create(dataDir === 'memory://' ? undefined : dataDir);
  return {
    engine: 'pglite',
    query: (sql, params) => pglite.query(sql, params) as never,
    transaction: (work) => pglite.transaction((tx) => work({ query: (sql, params) => tx.query(sql, params) as never })),
    listen: async (channel, onPayload) => {
      const unsubscribe = await pglite.listen(channel, onPayload);
      return () => unsubscribe();
    },
    close: () => pglite.close(),
  };
}

/** Backoff of the listener's reconnection: from the first delay, doubling, up to the last. */
const LISTEN_RETRY_FIRST_MS = 100;
const LISTEN_RETRY_MAX_MS = 5000;

interface Subscription {
  onPayload: (payload: string) => void;
  onReconnect: (() => void) | undefined;
}

async function openPostgres(connectionString: string, max: number): Promise<Database> {
  const { default: pg } = await import('pg');
  type Client = import('pg').PoolClient;
  const pool = new pg.Pool({ connectionString, max });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  // A checked-out client has no such listener from the pool: whoever holds it must listen for
  // 'error' (see `transaction` and the listener below), or a dropped connection is an uncaught error.
  pool.on('error', () => {});
  await pool.query('select 1');

  // The one LISTEN connection of this instance, checked out for good, and its subscriptions.
  const handlers = new Map<string, Set<Subscription>>();
  let listener: Client | null = null;
  let ready: Promise<Client> | null = null;
  let missed = false; // a listener was lost: notifications may have been missed since
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryDelay = LISTEN_RETRY_FIRST_MS;

  /** Forgets a broken listener (destroying its connection) and schedules its replacement. */
  const dropListener = (client: Client, error: Error) => {
    if (listener !== client) return; // already dropped (a lost connection reports 'error' and 'end')
    listener = null;
    ready = null;
    missed = true;
    client.release(error);
    scheduleRetry();
  };

  const scheduleRetry = () => {
    if (closed || retryTimer) return;
    const delay = retryDelay;
    retryDelay = Math.min(retryDelay * 2, LISTEN_RETRY_MAX_MS);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      // With no subscription left, the next `listen` connects.
      if (closed || listener || handlers.size === 0) return;
      connectListener().catch(() => scheduleRetry());
    }, delay);
    retryTimer.unref();
  };

  /** The listener, connecting it (and LISTENing every subscribed channel) when there is none. */
  const connectListener = (): Promise<Client> => {
    if (ready) return ready;
    const attempt = (async () => {
      const client = await pool.connect();
      if (closed) {
        client.release();
        throw new Error('The database is closed');
      }
      listener = client;
      client.on('error', (error) => dropListener(client, error));
      client.on('end', () => dropListener(client, new Error('The listening connection ended')));
      client.on('notification', (message) => {
        if (listener !== client) return;
        for (const subscription of handlers.get(message.channel) ?? []) subscription.onPayload(message.payload ?? '');
      });
      try {
        for (const channel of [...handlers.keys()]) await client.query(`LISTEN ${quoteIdent(channel)}`);
      } catch (error) {
        dropListener(client, error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
      if (listener !== client) throw new Error('The listening connection was lost');
      retryDelay = LISTEN_RETRY_FIRST_MS;
      if (missed) {
        missed = false;
        for (const set of handlers.values())
          for (const subscription of set) {
            try {
              subscription.onReconnect?.();
            } catch (error) {
              console.error('[paylink] a LISTEN reconnect handler failed', error);
            }
          }
      }
      return client;
    })();
    ready = attempt;
    attempt.catch(() => {
      if (ready === attempt) ready = null;
    });
    return attempt;
  };

  return {
    engine: 'postgres',
    query: (sql, params) => pool.query(sql, params as unknown[]) as never,
    transaction: async (work) => {
      const client = await pool.connect();
      // The connection can drop while the client is checked out: remember why (the pending or next
      // query rejects) and destroy the client instead of returning it to the pool.
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken ??= error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await work({ query: (sql, params) => client.query(sql, params as unknown[]) as never });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (!broken)
          await client.query('ROLLBACK').catch((rollbackError: Error) => {
            broken ??= rollbackError;
          });
        throw error;
      } finally {
        // The pool puts its own 'error' listener back on release, in this same tick.
        client.release(broken);
        client.off('error', onError);
      }
    },
    listen: async (channel, onPayload, onReconnect) => {
      if (closed) throw new Error('The database is closed');
      const subscription: Subscription = { onPayload, onReconnect };
      let set = handlers.get(channel);
      const isNew = !set;
      if (!set) handlers.set(channel, (set = new Set()));
      set.add(subscription);
      try {
        const client = await connectListener();
        // A no-op when connecting just listened to it already.
        if (isNew) await client.query(`LISTEN ${quoteIdent(channel)}`);
      } catch (error) {
        set.delete(subscription);
        if (set.size === 0 && handlers.get(channel) === set) handlers.delete(channel);
        throw error;
      }
      return async () => {
        set.delete(subscription);
        if (set.size === 0 && handlers.get(channel) === set) {
          handlers.delete(channel);
          await listener?.query(`UNLISTEN ${quoteIdent(channel)}`).catch(() => {});
        }
      };
    },
    close: async () => {
      closed = true;
      clearTimeout(retryTimer);
      retryTimer = undefined;
      const client = listener;
      listener = null;
      ready = null;
      client?.release();
      await pool.end();
    },
  };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Applies the SQL files of `migrations/` in name order, each once, each in its own transaction.
 * An advisory lock keeps two instances starting at once on one PostgreSQL from racing.
 */
export async function migrate(db: Database): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith('.sql')).sort();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(72707271)');
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await tx.query<{ name: string }>('SELECT name FROM schema_migrations');
    const done = new Set(rows.map((row) => row.name));
    for (const name of files) {
      if (done.has(name)) continue;
      const sql = await readFile(path.join(MIGRATIONS_DIR, name), 'utf8');
      await execScript(tx, sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      applied.push(name);
    }
  });
  return applied;
}

/** Runs a multi-statement script; statements are split on lines that end with `;`. */
async function execScript(tx: Queryable, sql: string): Promise<void> {
  const statements = sql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
  for (const statement of statements) await tx.query(statement);
}
