/**
 * What the rate book (./book.ts) answers: a code's value and what it was made of, a pair's rate, why
 * one is not quoted, readiness, and the Rates view's per-code state; with the pair names and the
 * sentences' percentages they are told in.
 */
import { ratioToDecimal, type Ratio } from '../../../core/money.js';
import { type QuotedRate } from './moves.js';
import { type RateSourceName } from './settings.js';

/** Why a code or a pair is not quoted. */
export type UnquotedReason = 'stale' | 'no_quorum' | 'held' | 'depeg';

/** One source's value in a quote's basis. */
export interface BasisSource {
  source: RateSourceName;
  /** Units of the code per USD, as the source said it. */
  perUsd: string;
  /** When it was fetched (null for the table). */
  at: string | null;
  /** In the quorum (true) or dropped as an outlier (false). */
  used: boolean;
}

/** What one code of a quote was made of: the value, the quorum it needed, and every fresh source's value. */
export interface RateBasis {
  /** `USD/NGN` (a currency: units per dollar), `USDT/USD` (an asset). */
  pair: string;
  /** The quorum's median, units per USD. */
  perUsd: string;
  quorum: number;
  sources: BasisSource[];
}

/** A code's value now: units per USD, the sources behind it, and when the oldest was fetched (null: the table, which has no age). */
export interface PerUsdRate {
  value: Ratio;
  at: number | null;
  sources: RateSourceName[];
  /** `CNGN=NGN` when the value is its peg's. */
  peg?: string;
  /** What the value was made of (absent for USD and for a value taken from a peg). */
  basis?: RateBasis;
}

/** Why a code is not quoted now. */
export interface Unquoted {
  reason: UnquotedReason;
  /** The code's pair (`USD/NGN`) and what is wrong with it, in a sentence (no source body, ever). */
  pair: string;
  message: string;
}

/** The rate a session is quoted with. */
export interface PairRate {
  /** Asset units per one unit of the currency: a decimal string of 20 significant digits (24 decimals at least), cut toward zero. */
  rate: string;
  /** The sources behind it, `+`-joined in configured order (`coingecko+coinbase`), and its peg (`peg:CNGN=NGN`). */
  source: string;
  /** When the oldest value behind it was fetched (the quote's own time for the table). */
  at: Date;
}

/** A pair's rate and what it was made of, as a session records it. */
export interface PairQuote extends PairRate {
  /** What each code of the pair was made of (the codes priced by a market; none for USD or a peg). */
  basis: RateBasis[];
}

/** Whether every configured pair can be quoted (`reasons()` says why those that can't). */
export interface RateReadiness {
  ready: boolean;
  /** Every configured pair, `USDT/NGN`. */
  pairs: string[];
  /** The pairs that can't be quoted now, whatever the reason. */
  stale: string[];
}

/** One source's latest word on one code, for the Rates view. */
export interface SourceState {
  source: RateSourceName;
  /** Its last usable value and when it was fetched (absent when it never gave one). */
  value?: Ratio;
  at?: number | null;
  /**
   * Of a fresh value: `agrees` (in the agreeing set, which the quote is the median of once it reaches the
   * quorum), `outlier` (outside it), `disputed` (sources disagree and nothing tells which is right).
   * Without one: `failed` (the source did not answer), `invalid` (its answer for the code was not
   * usable), `stale` (older than the max age, or never given).
   */
  status: 'agrees' | 'outlier' | 'disputed' | 'stale' | 'invalid' | 'failed';
  /** What was wrong (`out_of_range`, `not_a_number`, `http_status`, `redirect`, …), or null. */
  problem: string | null;
}

/** One code as the Rates view shows it. */
export interface MarketState {
  pair: string;
  code: string;
  quoted: PerUsdRate | undefined;
  unquoted: Unquoted | undefined;
  /** (max − min) / median of every fresh usable value. */
  spread: Ratio | undefined;
  /** The asset's peg currency, if any. */
  peg: string | undefined;
  /** The value last quoted and the move held, if any. */
  last: QuotedRate | undefined;
  sources: SourceState[];
}

/**
 * The digits a rate is recorded with: 20 significant, and at least 24 after the point, so that the cut
 * costs less than a millionth of a unit on any amount a link may ask (`MAX_AMOUNT`, 10^12).
 */
export const RATE_DIGITS = 20;
export const RATE_DECIMALS = 24;

/** `USD/NGN` for a currency (units per dollar), `USDT/USD` for an asset (its price in dollars). */
export function codePair(code: string, assets: readonly string[]): string {
  return assets.includes(code) ? `${code}/USD` : `USD/${code}`;
}

/** A fraction as a percentage for a sentence (`0.02` → `2%`). */
export const percent = (fraction: Ratio) => `${ratioToDecimal({ num: fraction.num * 100n, den: fraction.den }, 3)}%`;

/** |a − b| / b. */
export function distanceOf(a: Ratio, b: Ratio): Ratio {
  const difference = a.num * b.den - b.num * a.den;
  return { num: difference < 0n ? -difference : difference, den: b.num * a.den };
}
