/**
 * The rates as an operator reads them (`GET /v1/rates`, the admin's Rates view), and a session's quote
 * basis as its record carries it: both from the book's memory, nothing fetched.
 */
import { ratioToDecimal } from '../../../core/money.js';
import type { RateBasis, RatesView } from '../../../core/schemas.js';
import type { RateBook } from './book.js';
import { keptDecimal } from './moves.js';

/** The spread's digits: a fraction to a ten-thousandth of a percent. */
const SPREAD_DIGITS = 6;

/** `GET /v1/rates` at `now`: every code's quorum value, sources and spread, or why it is not quoted. */
export function ratesView(book: RateBook, now: Date): RatesView {
  return {
    quorum: book.settings.quorum,
    maxSpread: book.settings.maxSpread,
    markets: book.markets(now).map((market) => ({
      pair: market.pair,
      perUsd: market.quoted ? keptDecimal(market.quoted.value) : null,
      reason: market.unquoted?.reason ?? null,
      message: market.unquoted?.message ?? null,
      spread: market.spread ? ratioToDecimal(market.spread, SPREAD_DIGITS) : null,
      sources: market.sources.map((state) => ({
        source: state.source,
        perUsd: state.value ? keptDecimal(state.value) : null,
        at: state.at ? new Date(state.at).toISOString() : null,
        status: state.status,
        problem: state.problem,
      })),
    })),
  };
}

/** A session row's `rate_basis` (jsonb, parsed by one driver and text from another) as its record carries it. */
export function rateBasisOf(stored: unknown): RateBasis[] | null {
  const value: unknown = typeof stored === 'string' ? JSON.parse(stored) : stored;
  return Array.isArray(value) ? (value as RateBasis[]) : null;
}
