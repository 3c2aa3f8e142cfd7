/**
 * Every limit against abuse (slow or flooding clients), its option name, its environment variable
 * and its default, in one place for the service (`startService`), the proxy (`createPaylinkProxy`,
 * `paylink proxy`) and the demo.
 * An option given in code wins over the environment, which wins over the default. The defaults are
 * sized for one small server (1 CPU, 1 GB, a file limit of 1 024) and a single attacking address.
 *
 * | option | env | default | |
 * |---|---|---|---|
 * | `headersTimeoutMs` | `PAYLINK_HEADERS_TIMEOUT_MS` | 10 000 | time to send the request headers (408 after) |
 * | `bodyTimeoutMs` | `PAYLINK_BODY_TIMEOUT_MS` | 30 000 | time to send the whole request, body included (an event stream's answer is not limited) |
 * | `connectionsCheckIntervalMs` | `PAYLINK_CONNECTIONS_CHECK_MS` | 1 000 | how often Node enforces those two (its own default, 30 s, would let 10 s become 40) |
 * | `maxConnectionsPerClient` | `PAYLINK_MAX_CONNECTIONS_PER_CLIENT` | 128 | open connections of one client address |
 * | `maxConnectionsTotal` | `PAYLINK_MAX_CONNECTIONS_TOTAL` | 4 096 | open connections in all (at most the process's file limit − 256) |
 * | `maxEventStreamsPerClient` | `PAYLINK_MAX_EVENT_STREAMS_PER_CLIENT` | 8 (proxy 4) | open event streams of one client |
 * | `maxEventStreamsTotal` | `PAYLINK_MAX_EVENT_STREAMS_TOTAL` | 1 000 | open event streams in all |
 * | `sessionRateLimit` | `PAYLINK_SESSION_RATE_LIMIT` | 0.2/s, burst 20 | `POST /v1/checkout/{slug}/sessions` per client |
 * | `visitRateLimit` | `PAYLINK_VISIT_RATE_LIMIT` | 1/s, burst 30 | `POST /v1/checkout/{slug}/visits` per client |
 * | `maxVisitsPerClient` | `PAYLINK_MAX_VISITS_PER_CLIENT` | 5 | visits one client adds to a link's `visitedCount` per 30 minutes |
 * | `trustProxy` | `PAYLINK_TRUST_PROXY` | none | whose `X-Forwarded-For` names the client (`client-address.ts`) |
 * | `maxBodyBytes` (proxy) | | 262 144 (256 KiB) | largest request body; the service's own limit, 413 past it |
 * | `sseHeartbeatMs` (service) | | 15 000 | interval of an event stream's heartbeat and of the re-read that backs up NOTIFY |
 *
 * Every cap takes `false` (env `off`) for none. Rate limits are `perSecond[:burst]` in the environment,
 * like the proxy's `PAYLINK_RATE_LIMIT`. Runtime-neutral: the environment is passed in.
 */
import { isDecimalString } from '../../core/money.js';
import type { RateLimitOptions } from './rate-limit.js';
import { parseTrustProxy, type TrustProxy } from './client-address.js';

/** Limits of a Node server: they act on connections, before there is a request. */
export interface ConnectionLimitOptions {
  /** Time a client has to send its request headers, in ms (a 408 and the connection closed after). Default 10 000. */
  headersTimeoutMs?: number | undefined;
  /** Time a client has to send its whole request, body included, in ms. Default 30 000. An event stream's answer is not limited. */
  bodyTimeoutMs?: number | undefined;
  /** How often Node enforces the two timeouts, in ms. Default 1 000. */
  connectionsCheckIntervalMs?: number | undefined;
  /** Open connections one client address may hold; `false` for no cap. Default 128. */
  maxConnectionsPerClient?: number | false | undefined;
  /** Open connections in all; `false` for no cap. Default 4 096 (and never more than the process's file limit − 256). */
  maxConnectionsTotal?: number | false | undefined;
  /** Whose `X-Forwarded-For` names the client (see `client-address.ts`). Default: nobody's. */
  trustProxy?: TrustProxy;
}

/** Caps on open event streams. */
export interface StreamLimitOptions {
  /** Open event streams one client may hold; `false` for no cap. Default 8 on the service, 4 on the proxy. */
  maxEventStreamsPerClient?: number | false | undefined;
  /** Open event streams in all; `false` for no cap. Default 1 000. */
  maxEventStreamsTotal?: number | false | undefined;
}

/** Limits on the public writes of the checkout API (the service's). */
export interface PublicWriteLimitOptions {
  /** Checkout sessions one client may start (`POST /v1/checkout/{slug}/sessions`); `false` for none. Default 0.2/s, burst 20. */
  sessionRateLimit?: RateLimitOptions | false | undefined;
  /** Visits one client may record (`POST /v1/checkout/{slug}/visits`); `false` for none. Default 1/s, burst 30. */
  visitRateLimit?: RateLimitOptions | false | undefined;
  /** Visits one client may add to one link's `visitedCount` per 30 minutes (more are answered `counted: false`). Default 5. */
  maxVisitsPerClient?: number | false | undefined;
}

/** Every connection limit, resolved. */
export interface ConnectionLimits {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  connectionsCheckIntervalMs: number;
  maxConnectionsPerClient: number | false;
  maxConnectionsTotal: number | false;
  trustProxy: TrustProxy;
}

/** Every stream cap, resolved. */
export interface StreamLimits {
  maxEventStreamsPerClient: number | false;
  maxEventStreamsTotal: number | false;
}

/** Every public write limit, resolved. */
export interface PublicWriteLimits {
  sessionRateLimit: RateLimitOptions | false;
  visitRateLimit: RateLimitOptions | false;
  maxVisitsPerClient: number | false;
}

/** The defaults (see the module comment). */
export const LIMIT_DEFAULTS = {
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  connectionsCheckIntervalMs: 1_000,
  maxConnectionsPerClient: 128,
  maxConnectionsTotal: 4_096,
  maxEventStreamsPerClient: 8,
  proxyMaxEventStreamsPerClient: 4,
  maxEventStreamsTotal: 1_000,
  sessionRateLimit: { perSecond: 0.2, burst: 20 },
  visitRateLimit: { perSecond: 1, burst: 30 },
  maxVisitsPerClient: 5,
  maxBodyBytes: 256 * 1024,
  sseHeartbeatMs: 15_000,
} as const;

/** A limit's value that can't be read, with the sentence that says why. */
export class LimitConfigError extends Error {
  override name = 'LimitConfigError';
}

/** The environment, as `process.env` has it. */
export type Env = Readonly<Record<string, string | undefined>>;

const OFF = /^(off|false|none)$/i;

/** A whole number of ms or a count ≥ `min` from the environment; `false` for `off` when `allowOff`. */
function envNumber(env: Env, name: string, allowOff: boolean, min = 1): number | false | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  if (allowOff && (OFF.test(text) || text === '0')) return false;
  if (!/^\d+$/.test(text) || Number(text) < min) {
    throw new LimitConfigError(`${name} must be a whole number of at least ${min}${allowOff ? ', or "off"' : ''}; got ${text}`);
  }
  return Number(text);
}

/**
 * Reads a rate limit as the environment writes it: `perSecond[:burst]` (`10:60`, `0.2:20`), or `off`.
 * Without a burst, six seconds' worth (at least 1). `undefined` when unset.
 */
export function parseRateLimit(value: string | undefined, name: string): RateLimitOptions | false | undefined {
  const text = value?.trim().toLowerCase();
  if (!text) return undefined;
  if (OFF.test(text) || text === '0') return false;
  const [rate = '', burst, ...more] = text.split(':');
  if (!isDecimalString(rate) || !(Number(rate) > 0) || (burst !== undefined && !/^\d+$/.test(burst)) || more.length > 0) {
    throw new LimitConfigError(`${name} must be "off" or requests per second with an optional burst, e.g. "10:60"; got ${value}`);
  }
  const perSecond = Number(rate);
  return { perSecond, burst: burst ? Math.max(1, Number(burst)) : Math.max(1, Math.ceil(perSecond * 6)) };
}

function checkCap(name: string, value: number | false): number | false {
  if (value !== false && !(Number.isInteger(value) && value >= 1)) throw new RangeError(`${name} must be a whole number >= 1, or false`);
  return value;
}

function checkMs(name: string, value: number): number {
  if (!(Number.isInteger(value) && value >= 0)) throw new RangeError(`${name} must be a whole number of ms >= 0`);
  return value;
}

/** The connection limits: `options` first, then `env`, then the defaults. */
export function resolveConnectionLimits(options: ConnectionLimitOptions = {}, env: Env = {}): ConnectionLimits {
  const headersTimeoutMs = checkMs(
    'headersTimeoutMs',
    options.headersTimeoutMs ?? numberOr(envNumber(env, 'PAYLINK_HEADERS_TIMEOUT_MS', true), LIMIT_DEFAULTS.headersTimeoutMs),
  );
  const bodyTimeoutMs = checkMs(
    'bodyTimeoutMs',
    options.bodyTimeoutMs ?? numberOr(envNumber(env, 'PAYLINK_BODY_TIMEOUT_MS', true), LIMIT_DEFAULTS.bodyTimeoutMs),
  );
  if (headersTimeoutMs > 0 && bodyTimeoutMs > 0 && headersTimeoutMs > bodyTimeoutMs) {
    throw new LimitConfigError(`the headers timeout (${headersTimeoutMs} ms) can't be longer than the body timeout (${bodyTimeoutMs} ms), which includes it`);
  }
  return {
    headersTimeoutMs,
    bodyTimeoutMs,
    connectionsCheckIntervalMs: checkMs(
      'connectionsCheckIntervalMs',
      options.connectionsCheckIntervalMs ?? numberOr(envNumber(env, 'PAYLINK_CONNECTIONS_CHECK_MS', false), LIMIT_DEFAULTS.connectionsCheckIntervalMs),
    ),
    maxConnectionsPerClient: checkCap(
      'maxConnectionsPerClient',
      options.maxConnectionsPerClient ?? envNumber(env, 'PAYLINK_MAX_CONNECTIONS_PER_CLIENT', true) ?? LIMIT_DEFAULTS.maxConnectionsPerClient,
    ),
    maxConnectionsTotal: checkCap(
      'maxConnectionsTotal',
      options.maxConnectionsTotal ?? envNumber(env, 'PAYLINK_MAX_CONNECTIONS_TOTAL', true) ?? LIMIT_DEFAULTS.maxConnectionsTotal,
    ),
    trustProxy: options.trustProxy !== undefined ? options.trustProxy : trustFromEnv(env),
  };
}

/** The stream caps: `options` first, then `env`, then the defaults (`perClientDefault`: 8 on the service, 4 on the proxy). */
export function resolveStreamLimits(
  options: StreamLimitOptions = {},
  env: Env = {},
  perClientDefault: number = LIMIT_DEFAULTS.maxEventStreamsPerClient,
): StreamLimits {
  return {
    maxEventStreamsPerClient: checkCap(
      'maxEventStreamsPerClient',
      options.maxEventStreamsPerClient ?? envNumber(env, 'PAYLINK_MAX_EVENT_STREAMS_PER_CLIENT', true) ?? perClientDefault,
    ),
    maxEventStreamsTotal: checkCap(
      'maxEventStreamsTotal',
      options.maxEventStreamsTotal ?? envNumber(env, 'PAYLINK_MAX_EVENT_STREAMS_TOTAL', true) ?? LIMIT_DEFAULTS.maxEventStreamsTotal,
    ),
  };
}

/** The public write limits: `options` first, then `env`, then the defaults. */
export function resolvePublicWriteLimits(options: PublicWriteLimitOptions = {}, env: Env = {}): PublicWriteLimits {
  return {
    sessionRateLimit: options.sessionRateLimit ??
      parseRateLimit(env.PAYLINK_SESSION_RATE_LIMIT, 'PAYLINK_SESSION_RATE_LIMIT') ?? { ...LIMIT_DEFAULTS.sessionRateLimit },
    visitRateLimit: options.visitRateLimit ?? parseRateLimit(env.PAYLINK_VISIT_RATE_LIMIT, 'PAYLINK_VISIT_RATE_LIMIT') ?? { ...LIMIT_DEFAULTS.visitRateLimit },
    maxVisitsPerClient: checkCap(
      'maxVisitsPerClient',
      options.maxVisitsPerClient ?? envNumber(env, 'PAYLINK_MAX_VISITS_PER_CLIENT', true) ?? LIMIT_DEFAULTS.maxVisitsPerClient,
    ),
  };
}

/** `PAYLINK_TRUST_PROXY`, with its mistakes as a `LimitConfigError`. */
export function trustFromEnv(env: Env): TrustProxy {
  try {
    return parseTrustProxy(env.PAYLINK_TRUST_PROXY);
  } catch (error) {
    throw new LimitConfigError((error as Error).message);
  }
}

function numberOr(value: number | false | undefined, fallback: number): number {
  return value === false ? 0 : (value ?? fallback);
}
