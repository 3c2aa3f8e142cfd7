/**
 * The one logger of every process (the service, the proxy, the CLI, the demo): one line per event,
 * each with a `code` (what happened, machine-readable: `internal_error`, `body_aborted`,
 * `too_many_connections`, …) and, for a request, its `requestId` (the `X-Request-Id` the client sent or
 * the server made, and answered).
 *
 * Two formats of the same events. `json`: one JSON object a line (`time`, `level`, `code`, `message`,
 * then the fields; an error's class, message and stack in `error`, never a multi-line stack trace), what
 * a service manager, a container runtime or a log collector reads. `pretty`: a readable line (time,
 * level, code, message, fields), the stack below it, for a person at a terminal. `PAYLINK_LOG_FORMAT`
 * (`json` or `pretty`) chooses; without it, `pretty` when stdout is a terminal and `json` otherwise
 * (a pipe, a file, systemd's journal, `docker logs`). Lines go to stderr, except the start banner of a
 * command (`startupLogger`), which goes to stdout as it always has; the format is the same on both.
 *
 * What a line never holds: request data. No bodies, no SQL parameters or query text, no customer
 * address, phone or email, no API key, no raw path (a route pattern such as `/v1/checkout/:slug` instead).
 * An error is reduced to its class, its SQLSTATE or Node code, its message with every quoted part
 * blanked (PostgreSQL quotes the offending value: `invalid input syntax for type uuid: "…"`) and its stack
 * frames; the properties drivers hang on errors (`params`, `query`, `detail`, `where`) are never read.
 *
 * Runtime-neutral (the proxy runs in workers too): `process.stderr` where there is one, else
 * `console.error`, in JSON.
 */

/** How bad it is. */
export type LogLevel = 'error' | 'warn' | 'info';

/** How lines are written: JSON objects, or readable text for a terminal. */
export type LogFormat = 'json' | 'pretty';

/** Context of a line: names and numbers, never request data. */
export interface LogFields {
  requestId?: string | undefined;
  method?: string | undefined;
  /** The route pattern, never the raw path. */
  route?: string | undefined;
  status?: number | undefined;
  /** The error behind the line, reduced by `describeError` into the line's `error` field. */
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

/** Where the lines go: one string (no newline) per call. A sink given to `createLogger` gets JSON. */
export type LogSink = (line: string) => void;

/** One event as the logger holds it before formatting. */
type LogRecord = Record<string, unknown> & { time: string; level: LogLevel; code: string; message: string };

/** A `PAYLINK_LOG_FORMAT` that is neither `json` nor `pretty`. */
export class LogFormatError extends Error {
  override name = 'LogFormatError';
}

interface ProcessLike {
  env?: Record<string, string | undefined>;
  stdout?: { isTTY?: boolean; write(text: string): unknown };
  stderr?: { write(text: string): unknown };
}

const processLike = (): ProcessLike | undefined => (globalThis as { process?: ProcessLike }).process;

/**
 * The format lines are written in: `PAYLINK_LOG_FORMAT` (`json` or `pretty`, any case) when set, else
 * `pretty` when stdout is a terminal and `json` when it is not. Throws `LogFormatError` on another value
 * (the commands refuse to start with it; the logger itself then writes JSON).
 */
export function resolveLogFormat(
  env: Record<string, string | undefined> = processLike()?.env ?? {},
  stdoutIsTerminal = processLike()?.stdout?.isTTY === true,
): LogFormat {
  const asked = env.PAYLINK_LOG_FORMAT?.trim().toLowerCase();
  if (asked === 'json' || asked === 'pretty') return asked;
  if (asked) throw new LogFormatError(`PAYLINK_LOG_FORMAT must be json or pretty; got ${env.PAYLINK_LOG_FORMAT}`);
  return stdoutIsTerminal ? 'pretty' : 'json';
}

/** The process's format, read once at its first line (a bad setting falls back to JSON). */
let processFormat: LogFormat | undefined;
function currentFormat(): LogFormat {
  if (processFormat === undefined) {
    try {
      processFormat = resolveLogFormat();
    } catch {
      processFormat = 'json';
    }
  }
  return processFormat;
}

/** A sink on one of the process's streams, in the process's format. */
function streamSink(stream: 'stdout' | 'stderr'): (record: LogRecord) => void {
  return (record) => {
    const target = processLike()?.[stream];
    if (!target) {
      console.error(JSON.stringify(record));
      return;
    }
    target.write(`${currentFormat() === 'pretty' ? prettyLine(record) : JSON.stringify(record)}\n`);
  };
}

/** Field names the pretty format writes in its own places, not as `name=value`. */
const PLACED = new Set(['time', 'level', 'code', 'message', 'error']);

/** A record as a person at a terminal reads it: `12:00:01 WARN rates_stale: message  field=value`, the stack below. */
export function prettyLine(record: LogRecord): string {
  const time = record.time.slice(11, 19);
  const fields = Object.entries(record)
    .filter(([name]) => !PLACED.has(name))
    .map(([name, value]) => `${name}=${typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : String(value)}`);
  let line = `${time} ${record.level.toUpperCase().padEnd(5)} ${record.code}: ${record.message}${fields.length ? `  ${fields.join(' ')}` : ''}`;
  const error = record.error as DescribedError | undefined;
  if (error) line += `\n  ${(error.stack ?? `${error.type}: ${error.message ?? ''}`).split('\n').join('\n  ')}`;
  return line;
}

/**
 * Builds a logger. With a `sink`, every line reaches it as JSON (tests parse them); without one, lines
 * go to stderr in the process's format (`resolveLogFormat`). `now` is the clock of the `time` field and
 * of throttling.
 */
export function createLogger(sink?: LogSink, now: () => number = Date.now): Logger {
  return loggerOn(sink ? (record) => sink(JSON.stringify(record)) : streamSink('stderr'), now);
}

function loggerOn(emit: (record: LogRecord) => void, now: () => number): Logger {
  const folded = new Map<string, { until: number; count: number }>();

  const write = (level: LogLevel, code: string, message: string, fields?: LogFields, extra?: Record<string, unknown>) => {
    const line: LogRecord = { time: new Date(now()).toISOString(), level, code, message };
    if (fields) {
      for (const name of Object.keys(fields)) {
        const value = fields[name];
        if (value === undefined || name in line) continue;
        if (name === 'error') line.error = describeError(value);
        else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') line[name] = value;
      }
    }
    if (extra) Object.assign(line, extra);
    try {
      emit(line);
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

/** The process's logger (stderr): what every server and command uses unless given another. */
export const defaultLogger: Logger = createLogger();

/**
 * The start banner of a command (where it listens, its store, its chain): the same events and format
 * as `defaultLogger`, on stdout, where a command's start lines have always gone.
 */
export const startupLogger: Logger = loggerOn(streamSink('stdout'), Date.now);

/** An error as a log line holds it, in its `error` field. */
export interface DescribedError {
  /** The error's class (`TypeError`, `DatabaseError`, …). */
  type: string;
  /** PostgreSQL's SQLSTATE, e.g. `22021`. */
  sqlState?: string;
  /** Node's error code, e.g. `ECONNRESET`. */
  code?: string;
  /** The message, its quoted parts blanked, at most 300 characters. */
  message?: string;
  /** `Class: message` and up to 12 frames, one a line: the only place a stack is written. */
  stack?: string;
}

/** What a line says of an error: never the values it was about (see the module comment). */
export function describeError(error: unknown): DescribedError {
  if (!(error instanceof Error)) return { type: typeof error };
  const described: DescribedError = { type: error.name || 'Error' };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // PostgreSQL's SQLSTATE (five characters, at least one a digit), or Node's (`ECONNRESET`, `ERR_…`).
    if (/^[0-9A-Z]{5}$/.test(code) && /\d/.test(code)) described.sqlState = code;
    else if (/^(E[A-Z]+|ERR_[A-Z_]+)$/.test(code)) described.code = code;
  }
  described.message = blankQuoted(error.message).slice(0, 300);
  // The stack's first line repeats the message unblanked: only its frames are kept.
  const frames = (error.stack ?? '')
    .split('\n')
    .map((frame) => frame.trim())
    .filter((frame) => frame.startsWith('at '))
    .slice(0, 12);
  if (frames.length) described.stack = [`${described.type}: ${described.message}`, ...frames.map((frame) => `    ${frame}`)].join('\n');
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
