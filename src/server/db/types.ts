/**
 * What the rest of the service sees of the database, whichever engine runs it: `Database` and the
 * `Queryable` a transaction hands out. Both engines (`pglite.ts`, `postgres.ts`) implement it, so they
 * run the same SQL on the same code path.
 */

/** Something SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

/**
 * Adds a parameter to a statement being built and returns its placeholder (`$4`): how several rooms
 * write their parts of one statement, each its own tables' SQL (`statementParams()` makes one).
 */
export type SqlParam = (value: unknown) => string;

/**
 * How changes announced with NOTIFY reach this process: LISTEN on the pool's own server connection, or
 * on the direct connection of `PAYLINK_DATABASE_LISTEN_URL`; or, where LISTEN can't work (a pooler in
 * transaction mode), polling: each subscription re-reads every `intervalMs`.
 */
export type ListenMode = { notifications: 'listen'; via: 'pool' | 'listen-url' } | { notifications: 'poll'; intervalMs: number };

/** An open database: PGlite or a PostgreSQL pool, behind the same methods. */
export interface Database extends Queryable {
  /** Which engine answers. */
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
  /**
   * PostgreSQL: whether notifications can be heard here (found out once, by a LISTEN that notifies
   * itself; `listen` asks it too). Absent on PGlite, whose notifications never leave the process.
   */
  listenMode?(): Promise<ListenMode>;
  close(): Promise<void>;
}
