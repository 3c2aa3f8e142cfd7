/**
 * One database interface over two engines: embedded PGlite (the default: one process, on disk or in
 * memory) and a PostgreSQL server through node-postgres (when a connection URL is given). The rest of
 * the service sees only `Database`, so both run the same SQL on the same code path.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, realpathSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { defaultLogger } from '../log.js';

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
  const directory = dataDir.startsWith('file://') ? dataDir.slice('file://'.length) : /^[a-z][a-z0-9+.-]*:\/\//i.test(dataDir) ? undefined : dataDir;
  const unlock = directory === undefined ? () => {} : lockDataDir(directory);
  let pglite: InstanceType<typeof PGlite>;
  try {
    pglite = await PGlite.create(dataDir === 'memory://' ? undefined : dataDir);
  } catch (error) {
    unlock();
    throw error;
  }
  return {
    engine: 'pglite',
    query: (sql, params) => pglite.query(sql, params) as never,
    transaction: (work) => pglite.transaction((tx) => work({ query: (sql, params) => tx.query(sql, params) as never })),
    listen: async (channel, onPayload) => {
      const unsubscribe = await pglite.listen(channel, onPayload);
      return () => unsubscribe();
    },
    close: async () => {
      try {
        await pglite.close();
      } finally {
        unlock();
      }
    },
  };
}

/** Thrown when a PGlite data directory is open in another process (PGlite is single-process). */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly holder: { pid: number; host: string; since: string },
    readonly lockFile: string,
  ) {
    const where =
      holder.host !== hostname() ? `process ${holder.pid} on ${holder.host}` : holder.pid === process.pid ? 'this process' : `process ${holder.pid}`;
    super(
      `The PGlite data directory ${dataDir} is in use by ${where} (since ${holder.since}). ` +
        'PGlite allows one process at a time, so this one would write where that one never reads: stop that process ' +
        '(e.g. stop "paylink serve", run "paylink keys create", start it again), or share one PostgreSQL database ' +
        `between processes (--database-url). If that process is gone, delete ${lockFile}.`,
    );
  }
}

/** The lock file of a PGlite data directory: `{pid, host, since, token}` of the process holding it. */
const LOCK_FILE = 'paylink.lock';
/** Data directories this process holds (real paths): a second open in the same process is refused too. */
const heldHere = new Set<string>();

interface LockHolder {
  pid: number;
  host: string;
  since: string;
  token: string;
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) && typeof holder.host === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** True unless the holder is certainly gone: a dead pid on this host (or this pid, from an earlier process). */
function holderAlive(holder: LockHolder, directory: string): boolean {
  if (holder.host !== hostname()) return true; // another machine or container: its pids are not ours to check
  if (holder.pid === process.pid) return heldHere.has(directory);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/**
 * Takes the data directory's lock file, or throws {@link DataDirInUseError}. The lock is created
 * whole and at once (a hard link to a complete file), so a reader never sees half of one; a lock
 * whose process is dead is taken over. Returns the release, which also runs if the process exits
 * without closing the database (a crash or kill -9 leaves a lock that the next open takes over).
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const directory = realpathSync(dataDir);
  const lockFile = path.join(directory, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: randomBytes(12).toString('hex') };
  if (heldHere.has(directory)) throw new DataDirInUseError(directory, mine, lockFile);

  const draft = `${lockFile}.${mine.token}`;
  writeFileSync(draft, `${JSON.stringify(mine)}\n`, { mode: 0o644 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, lockFile);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
      }
      const holder = readHolder(lockFile);
      if (holder && holderAlive(holder, directory)) throw new DataDirInUseError(directory, holder, lockFile);
      // Stale (or unreadable): move it aside, and make sure what moved is what was judged stale; another
      // process may have taken it over in between, and then its lock goes back.
      const aside = `${lockFile}.stale-${mine.token}`;
      try {
        renameSync(lockFile, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = readHolder(aside);
      if (holder && moved && moved.token !== holder.token) {
        try {
          linkSync(aside, lockFile);
        } catch {
          // Someone holds it again: the next attempt reads who.
        }
      }
      unlinkSync(aside);
    }
  } finally {
    unlinkSync(draft);
  }
  heldHere.add(directory);

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldHere.delete(directory);
    process.off('exit', release);
    // Only our own lock: never one that another process took over after declaring ours stale.
    if (readHolder(lockFile)?.token === mine.token) {
      try {
        unlinkSync(lockFile);
      } catch {
        // Already gone.
      }
    }
  };
  process.on('exit', release);
  return release;
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
              defaultLogger.error('listen_handler_failed', 'a LISTEN reconnect handler failed', { error });
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
