/**
 * # Room: rates
 *
 * Owns: where fiat → crypto prices come from. The sources (./sources.ts: `coingecko`, `coinbase`,
 * `kraken`, `exchangerate`, and `static`, the table of ./table.ts), the settings that choose them
 * (./settings.ts, `PAYLINK_RATES_*`), the book that keeps their answers in memory and refreshes them in
 * the background (./book.ts: what it answers, ./quotes.ts; each code judged by ./evaluate.ts: a quorum
 * of sources within a spread (./quorum.ts), max age, pegs, wild moves held (./moves.ts)), the exact conversions a session start makes with it (./convert.ts), the
 * readiness answer (./readiness.ts, `GET /readyz`), the Rates view (./view.ts, `GET /v1/rates`,
 * ./routes.ts) and `paylink rates accept` (./accept-command.ts).
 *
 * Owns the table `quoted_rates` (each code's last quoted value and the move held), which every
 * instance reads and writes under a lock at each refresh; a quote reads memory only. The sessions room
 * records each session's `rate`, `rateSource`, `rateAt` and `rateBasis` in its own row.
 */
export { RateBook, type RateBookDeps } from './book.js';
export {
  codePair,
  type MarketState,
  type PairQuote,
  type PairRate,
  type PerUsdRate,
  type RateBasis,
  type RateReadiness,
  type SourceState,
  type Unquoted,
  type UnquotedReason,
} from './quotes.js';
export { compareAcross, convertFiat, quoteCrypto, rateUnavailable, type Quote } from './convert.js';
export { acceptMoves, decideMove, readQuotedRates, settleMoves, type MoveEvent, type MoveRules, type QuotedRate } from './moves.js';
export { agreeingSources, spreadOf, within, type Agreement, type SourceValue } from './quorum.js';
export { readinessAnswer } from './readiness.js';
export { rateOperations } from './routes.js';
export {
  COINGECKO_CURRENCIES,
  describeRateSettings,
  KRAKEN_PAIRS,
  RATE_SOURCES,
  RateConfigError,
  resolveRateSettings,
  SOURCES_REQUIRED,
  sourceRates,
  type RateOptions,
  type RateSettings,
  type RateSourceName,
} from './settings.js';
export {
  checkPerUsd,
  coinbaseSource,
  coingeckoSource,
  createSources,
  exchangerateSource,
  krakenSource,
  parseJsonExact,
  PER_USD_BOUNDS,
  RateSourceError,
  readRateValue,
  staticSource,
  type RateSource,
  type SourceReading,
} from './sources.js';
export { RateTableError, SANDBOX_RATES_PER_USD, staticRateTable } from './table.js';
export { rateBasisOf, ratesView } from './view.js';

import { RateBook } from './book.js';
import { resolveRateSettings } from './settings.js';

/** A book of the static table alone (env `PAYLINK_RATES` and `overrides` laid over it): complete at once, never stale. */
export function createStaticRateBook(assets: readonly string[], overrides?: Record<string, string | number>): RateBook {
  return new RateBook(resolveRateSettings({ sources: ['static'], overrides }), { assets });
}
