/**
 * The one logger of the service and the proxy: one JSON line per event on stderr, each with a `code`
 * (what happened, machine-readable: `internal_error`, `body_aborted`, `too_many_connections`, …) and,
 * for a request, its `requestId` (the `X-Request-Id` the client sent or the server made, and answered).
 *
 * What a line never holds: request data. No bodies, no SQL parameters or query text, no customer
 * address, phone or email, no API key, no raw path (a route pattern such as `/v1/checkout/:slug` instead).
 * An error is reduced to its class, its SQLSTATE, its message with every quoted part blanked (PostgreSQL
 * quotes the offending value: `invalid input syntax for type uuid: "…"`) and its stack frames; the
 * properties drivers hang on errors (`params`, `query`, `detail`, `where`) are never read.
 *
 * Runtime-neutral (the proxy runs in workers too): `process.stderr` where there is one, else `console.error`.
 */

/** How bad it is. */
export type LogLevel = 'error' | 'warn' | 'info';

/** Context of a line: names and numbers, never request data. */
export interface LogFields {
  requestId?: string | undefined;
  method?: string | undefined;
  /** The route pattern, never the raw path. */
  route?: string | undefined;
  status?: number | undefined;
  /** The error behind the line, reduced by `describeError`. */
  error?: unknown;
  [field: string]: string | number | boolean | undefined | unknown;
}

/** Writes log lines. */
export interface Logger {
  error(code: string, message: string, fields?: LogFields): void;
  warn(code: string, message: string, fields?: LogFields): void;
  info(code: string, message: string, fields?: LogFields): void;
  /**
   * At most one line per `code` every `intervalMs` (default 10 s), saying how many events it stands for:
   * what an attack triggers thousands of times a second (refused connections, refused streams) must not
   * flood the log it is trying to hide in.
   */
  throttled(level: LogLevel, code: string, message: string, fields?: LogFields, intervalMs?: number): void;
}

/** Where the lines go: one string (no newline) per call. */
export type LogSink = (line: string) => void;

const defaultSink: LogSink = (line) => {
  const stderr = (globalThis as { process?: { stderr?: { write(text: string): unknown } } }).process?.stderr;
  if (stderr) stderr.write(`${line}\n`);
  else console.error(line);
};

/** Builds a logger writing to `sink` (default: stderr). `now` is the clock of the `time` field and of throttling. */
export function createLogger(sink: LogSink = defaultSink, now: () => number = Date.now): Logger {
  const folded = new Map<string, { until: number; count: number }>();

  const write = (level: LogLevel, code: string, message: string, fields?: LogFields, extra?: Record<string, unknown>) => {
    const line: Record<string, unknown> = { time: new Date(now()).toISOString(), level, code, message };
    if (fields) {
      for (const name of Object.keys(fields)) {
        const value = fields[name];
        if (value === undefined) continue;
        if (name === 'error') Object.assign(line, describeError(value));
        else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') line[name] = value;
      }
    }
    if (extra) Object.assign(line, extra);
    try {
      sink(JSON.stringify(line));
    } catch {
      // A log that can't be written must never take a request down with it.
    }
  };

  return {
    error: (code, message, fields) => write('error', code, message, fields),
    warn: (code, message, fields) => write('warn', code, message, fields),
    info: (code, message, fields) => write('info', code, message, fields),
    throttled(level, code, message, fields, intervalMs = 10_000) {
      const at = now();
      const state = folded.get(code);
      if (state && at < state.until) {
        state.count++;
        return;
      }
      const skipped = state?.count ?? 0;
      folded.set(code, { until: at + intervalMs, count: 0 });
      write(level, code, message, fields, skipped > 0 ? { alsoSince: skipped } : undefined);
    },
  };
}

/** The process's logger (stderr): what the service and the proxy use unless given another. */
export const defaultLogger: Logger = createLogger();

/** An error as a log line holds it. */
export interface DescribedError {
  /** The error's class (`TypeError`, `DatabaseError`, …). */
  error: string;
  /** PostgreSQL's SQLSTATE, e.g. `22021`. */
  sqlState?: string;
  /** Node's error code, e.g. `ECONNRESET`. */
  errorCode?: string;
  /** The message, its quoted parts blanked, at most 300 characters. */
  errorMessage?: string;
  /** Up to 8 stack frames. */
  at?: string[];
}

/** What a line says of an error: never the values it was about (see the module comment). */
export function describeError(error: unknown): DescribedError {
  if (!(error instanceof Error)) return { error: typeof error };
  const described: DescribedError = { error: error.name || 'Error' };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // PostgreSQL's SQLSTATE (five characters, at least one a digit), or Node's (`ECONNRESET`, `ERR_…`).
    if (/^[0-9A-Z]{5}$/.test(code) && /\d/.test(code)) described.sqlState = code;
    else if (/^(E[A-Z]+|ERR_[A-Z_]+)$/.test(code)) described.errorCode = code;
  }
  described.errorMessage = blankQuoted(error.message).slice(0, 300);
  const frames = (error.stack ?? '')
    .split('\n')
    .map((frame) => frame.trim())
    .filter((frame) => frame.startsWith('at '))
    .slice(0, 8)
    .map((frame) => frame.slice(3));
  if (frames.length) described.at = frames;
  return described;
}

/** Blanks every quoted part of a message ("…", '…', `…`): drivers quote the values they choke on. */
function blankQuoted(message: string): string {
  return message.replace(/"[^"]*"|'[^']*'|`[^`]*`/g, (quoted) => `${quoted[0]}…${quoted[0]}`);
}

/** An incoming `X-Request-Id` worth keeping: 1 to 128 characters of a plain id (letters, digits, `._:/+=@-`). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/**
 * The id of a request: the client's (or its load balancer's) `X-Request-Id` when it is a plain id, else
 * a new UUID. Answered in `X-Request-Id` and written on every log line of the request, so a customer's
 * report, the proxy's line and the service's line meet.
 */
export function requestIdFrom(header: string | null | undefined): string {
  return header && SANE_REQUEST_ID.test(header) ? header : crypto.randomUUID();
}
