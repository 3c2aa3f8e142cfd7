/**
 * How this instance delivers webhooks: its settings (`PAYLINK_WEBHOOK_RETRY_BASE_MS`,
 * `PAYLINK_WEBHOOK_ALLOW_PRIVATE`) and the fixed parts of the contract (10 s to answer), read once
 * at start so a wrong value stops the service with a sentence instead of delivering oddly.
 */
import { systemResolveHost, type ResolveHost } from './ssrf.js';

/** First retry after 30 s, then doubling. */
export const DEFAULT_RETRY_BASE_MS = 30_000;

/** An endpoint has 10 s to answer 2xx. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * How long a worker holds a claimed delivery before another may take it: well over the 10 s an attempt may
 * take, and short enough that the deliveries of an instance that died are sent by another within half a
 * minute (one that stops gracefully records its attempts, which releases them at once).
 */
export const DEFAULT_LEASE_MS = 25_000;

export interface WebhookSettings {
  /** Post to non-public addresses too (`PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`, on any chain); also allows `http:` URLs. */
  allowPrivate: boolean;
  /** Delay before the first retry; each further one doubles it. */
  retryBaseMs: number;
  /** How long an endpoint has to answer. */
  timeoutMs: number;
  /** How long a claim holds a delivery (an instance that dies mid-send leaves it to others after this). */
  leaseMs: number;
  /** The DNS resolver deliveries and endpoint checks use (tests inject one). */
  resolveHost: ResolveHost;
}

/** Reads `PAYLINK_WEBHOOK_RETRY_BASE_MS`: a whole number of milliseconds ≥ 1, or the default when unset. */
export function readRetryBaseMs(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_RETRY_BASE_MS;
  const ms = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(ms) || ms < 1)
    throw new Error(`PAYLINK_WEBHOOK_RETRY_BASE_MS must be a whole number of milliseconds (at least 1), not "${value}"`);
  return ms;
}

/** Reads `PAYLINK_WEBHOOK_ALLOW_PRIVATE`: `1`/`true` or `0`/`false`/unset. */
export function readAllowPrivate(value: string | undefined): boolean {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '1' || text === 'true') return true;
  if (text === '' || text === '0' || text === 'false') return false;
  throw new Error(`PAYLINK_WEBHOOK_ALLOW_PRIVATE must be 1 or 0, not "${value}"`);
}

/**
 * The settings of an instance: `overrides` first (the service's options), then the environment, then
 * the defaults. Private addresses are refused on every chain, the sandbox included, unless allowed: a
 * sandbox key is still a key anyone may hold, and the machine it runs on still has a private network.
 */
export function resolveWebhookSettings(overrides: Partial<WebhookSettings> = {}, env: Record<string, string | undefined> = process.env): WebhookSettings {
  return {
    allowPrivate: overrides.allowPrivate ?? readAllowPrivate(env.PAYLINK_WEBHOOK_ALLOW_PRIVATE),
    retryBaseMs: overrides.retryBaseMs ?? readRetryBaseMs(env.PAYLINK_WEBHOOK_RETRY_BASE_MS),
    timeoutMs: overrides.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    leaseMs: overrides.leaseMs ?? DEFAULT_LEASE_MS,
    resolveHost: overrides.resolveHost ?? systemResolveHost,
  };
}
