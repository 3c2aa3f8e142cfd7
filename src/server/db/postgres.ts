/**
 * The server engine: PostgreSQL through a node-postgres pool (when a connection URL is given), with
 * one connection held for LISTEN that is replaced, with backoff, when it drops.
 *
 * LISTEN needs a session of its own, which a pooler in transaction mode (PgBouncer, as managed
 * PostgreSQL is usually reached) does not give: it hands each statement to whichever server connection
 * is free, so a LISTEN is lost as soon as it ran and no notification ever comes back. So the first
 * subscription proves the way first (`listenMode`): it LISTENs on a probe channel, sends itself a
 * NOTIFY through the pool, and waits for it. Heard: notifications work. Not heard within
 * `PROBE_TIMEOUT_MS`: the LISTEN is undone and every subscription is polled instead, its `onReconnect`
 * ("re-read what the notifications stand for") called every `POLL_INTERVAL_MS`. `listenUrl` (a direct
 * connection to the server, `PAYLINK_DATABASE_LISTEN_URL`) gives the LISTEN a connection of its own
 * beside the pool, past the pooler; the NOTIFYs still go through the pool, to the same server.
 */
import { defaultLogger } from '../log.js';
import type { Database, ListenMode } from './types.js';

/** Backoff of the listener's reconnection: from the first delay, doubling, up to the last. */
const LISTEN_RETRY_FIRST_MS = 100;
const LISTEN_RETRY_MAX_MS = 5000;
/** How long the probe waits for its own notification before it concludes that LISTEN does not work here. */
const PROBE_TIMEOUT_MS = 2000;
/** How often a subscription is told to re-read when notifications can't be heard. */
export const POLL_INTERVAL_MS = 1000;
const PROBE_CHANNEL = 'paylink_listen_probe';

/** Options of `openPostgres`. */
export interface PostgresOptions {
  /** Loads node-postgres (default: `import('pg')`). */
  importDriver?: (() => Promise<typeof import('pg')>) | undefined;
  /** A direct connection for LISTEN, past a pooler in transaction mode (`PAYLINK_DATABASE_LISTEN_URL`). */
  listenUrl?: string | undefined;
}

interface Subscription {
  onPayload: (payload: string) => void;
  onReconnect: (() => void) | undefined;
}

/**
 * A database URL the service cannot use, said so that one line names what to change. `problem`
 * follows the name of the setting (`DATABASE_URL`, `--database-url`), which only the caller knows:
 * `DATABASE_URL is not a PostgreSQL connection URL …`. Never the URL's password.
 */
export class DatabaseSettingError extends Error {
  override name = 'DatabaseSettingError';
  /** `malformed`: the URL itself is wrong (a command exits 2, as for a bad flag); `unusable`: it could not be used as it is. */
  constructor(
    readonly problem: string,
    readonly kind: 'malformed' | 'unusable' = 'unusable',
  ) {
    super(`the database URL ${problem}`);
  }
}

/** What a connection error says of the server it tried, in words, for `DatabaseSettingError`. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the connection was reset',
};

/**
 * Checks that `connectionString` names a PostgreSQL server before anything connects: node-postgres
 * reads anything as a connection string (`notaurl` becomes the host `base`; `mysql://…` is tried as
 * PostgreSQL), so a typo would end in a DNS error about a host nobody wrote. Returns `host:port`.
 */
export function checkDatabaseUrl(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new DatabaseSettingError('is not a PostgreSQL connection URL: write it as postgres://user:password@host:5432/database', 'malformed');
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new DatabaseSettingError(
      `names a ${scheme}:// database: Paylink stores its data in PostgreSQL only (postgres://user:password@host:5432/database), or in PGlite when no database URL is given`,
      'malformed',
    );
  }
  // A socket directory (postgres:///db?host=/var/run/postgresql) is a valid place too.
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  return `${host}:${url.port || '5432'}`;
}

/**
 * Opens a pool of at most `max` connections on `connectionString` and checks that it answers.
 * `options.importDriver` loads node-postgres (tests replace it to show what a missing driver says).
 */
export async function openPostgres(connectionString: string, max = 20, options: PostgresOptions = {}): Promise<Database> {
  const server = checkDatabaseUrl(connectionString);
  let pg: (typeof import('pg'))['default'];
  try {
    ({ default: pg } = await (options.importDriver ?? (() => import('pg')))());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new DatabaseSettingError('is set, but the PostgreSQL driver is not installed: run npm install pg (or leave the database URL out to use PGlite)');
  }
  type Client = import('pg').ClientBase & { release(error?: Error | boolean): void };
  const pool = new pg.Pool({ connectionString, max });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  // A checked-out client has no such listener from the pool: whoever holds it must listen for
  // 'error' (see `transaction` and the listener below), or a dropped connection is an uncaught error.
  pool.on('error', () => {});
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => {});
    const { code, message } = error as { code?: string; message?: string };
    if (code && UNREACHABLE[code])
      throw new DatabaseSettingError(
        `points at ${server}, which could not be reached (${UNREACHABLE[code]}): check its host and port, and that PostgreSQL runs there`,
      );
    // The server answered: wrong password or user (28…), no such database (3D000). Its words name no secret.
    if (code && /^(28|3D)/.test(code)) throw new DatabaseSettingError(`was refused by the server at ${server}: ${message}`);
    throw error;
  }

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

  /**
   * A connection to LISTEN on: one of the pool's, or one of its own on `listenUrl`. Either way
   * `release()` gives it up (a broken one with the error, so the pool does not keep it).
   */
  const listenConnection = async (): Promise<Client> => {
    if (!options.listenUrl) return pool.connect();
    const client = new pg.Client({ connectionString: options.listenUrl });
    // Until the caller listens for errors: a failed connect rejects, and must not be an uncaught error too.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    return Object.assign(client, { release: () => void client.end().catch(() => {}) });
  };

  /**
   * Whether LISTEN works on this connection string (see the module comment), proven once: the probe
   * LISTENs, NOTIFYs through the pool, and waits for its own notification.
   */
  let mode: Promise<ListenMode> | undefined;
  const probe = async (): Promise<ListenMode> => {
    const client = await listenConnection();
    client.on('error', () => {});
    const token = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      const heard = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
        client.on('notification', (message) => {
          if (message.channel !== PROBE_CHANNEL || message.payload !== token) return;
          clearTimeout(timer);
          resolve(true);
        });
      });
      await client.query(`LISTEN ${PROBE_CHANNEL}`);
      await pool.query('SELECT pg_notify($1, $2)', [PROBE_CHANNEL, token]);
      const works = await heard;
      // Behind a pooler the LISTEN stays on some server connection that others will use: undone.
      await client.query('UNLISTEN *').catch(() => {});
      return works ? { notifications: 'listen', via: options.listenUrl ? 'listen-url' : 'pool' } : { notifications: 'poll', intervalMs: POLL_INTERVAL_MS };
    } finally {
      client.removeAllListeners('notification');
      client.release();
    }
  };
  const listenMode = (): Promise<ListenMode> => {
    mode ??= probe();
    mode.catch(() => (mode = undefined));
    return mode;
  };

  /** Tells every subscription to re-read what its notifications stand for (after a gap, or at each poll). */
  const resyncAll = (why: string) => {
    for (const set of handlers.values())
      for (const subscription of set) {
        try {
          subscription.onReconnect?.();
        } catch (error) {
          defaultLogger.error('listen_handler_failed', `a subscription's ${why} handler failed`, { error });
        }
      }
  };

  // Polling instead of notifications: every subscription re-reads on one timer.
  let pollTimer: NodeJS.Timeout | undefined;
  const poll = () => {
    if (pollTimer || closed) return;
    pollTimer = setInterval(() => resyncAll('polling'), POLL_INTERVAL_MS);
    pollTimer.unref();
  };

  /** The listener, connecting it (and LISTENing every subscribed channel) when there is none. */
  const connectListener = (): Promise<Client> => {
    if (ready) return ready;
    const attempt = (async () => {
      const client = await listenConnection();
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
        resyncAll('LISTEN reconnect');
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
    listenMode,
    listen: async (channel, onPayload, onReconnect) => {
      if (closed) throw new Error('The database is closed');
      const subscription: Subscription = { onPayload, onReconnect };
      const polled = (await listenMode()).notifications === 'poll';
      let set = handlers.get(channel);
      const isNew = !set;
      if (!set) handlers.set(channel, (set = new Set()));
      set.add(subscription);
      if (polled) {
        poll();
        return async () => {
          set.delete(subscription);
          if (set.size === 0 && handlers.get(channel) === set) handlers.delete(channel);
        };
      }
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
      clearInterval(pollTimer);
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
