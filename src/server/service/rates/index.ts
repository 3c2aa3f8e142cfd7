/**
 * # Room: rates
 *
 * Owns: where fiat → crypto prices come from. The sources (./sources.ts: `coingecko`, `coinbase`, and
 * `static`, the table of ./table.ts), the settings that choose them (./settings.ts, `PAYLINK_RATES_*`),
 * the book that keeps their answers in memory and refreshes them in the background (./book.ts: median,
 * max age, pegs, skipping nonsense), the exact conversions a session start makes with it
 * (./convert.ts), and the readiness answer (./readiness.ts, `GET /readyz`).
 *
 * Owns no table and touches none: a quote reads memory only. The sessions room records each session's
 * `rate`, `rateSource` and `rateAt` in its own row.
 */
export { RateBook, type PairRate, type PerUsdRate, type RateBookDeps, type RateReadiness } from './book.js';
export { compareAcross, convertFiat, quoteCrypto, rateUnavailable, type Quote } from './convert.js';
export { readinessAnswer } from './readiness.js';
export {
  COINGECKO_CURRENCIES,
  describeRateSettings,
  RATE_SOURCES,
  RateConfigError,
  resolveRateSettings,
  SOURCES_REQUIRED,
  type RateOptions,
  type RateSettings,
  type RateSourceName,
} from './settings.js';
export { coinbaseSource, coingeckoSource, createSources, parseJsonExact, RateSourceError, readRateValue, staticSource, type RateSource, type SourceReading } from './sources.js';
export { RateTableError, SANDBOX_RATES_PER_USD, staticRateTable } from './table.js';

import { RateBook } from './book.js';
import { resolveRateSettings } from './settings.js';

/** A book of the static table alone (env `PAYLINK_RATES` and `overrides` laid over it): complete at once, never stale. */
export function createStaticRateBook(assets: readonly string[], overrides?: Record<string, string | number>): RateBook {
  return new RateBook(resolveRateSettings({ sources: ['static'], overrides }), { assets });
}
