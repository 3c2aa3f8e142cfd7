/**
 * What a session start converts with the book, exactly (bigint ratios, `core/money.ts`): the crypto
 * quote of a fiat amount, a Standard price in another of its link's currencies, and a donation against
 * bounds set in another currency. Each reads the book at one instant and answers `undefined` when a rate
 * it needs can't be quoted; `rateUnavailable` is the 503 a session start then answers, saying why.
 */
import { ASSET_DIGITS, divideRatio, fiatDigits, compareRatio, fromUnits, multiplyRatio, multiplyUp, ratioOf, toUnits } from '../../../core/money.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import { ApiError } from '../errors.js';
import type { RateBook } from './book.js';
import type { PairQuote } from './quotes.js';

/** A session's quote: the crypto amount and the rate it was made with. */
export interface Quote extends PairQuote {
  cryptoAmount: string;
}

/**
 * `fiatAmount` of `fiatCurrency` in `assetId`: `fiatAmount × rate`, the recorded rate itself, rounded
 * UP to the asset's decimals (the merchant never receives less than the price, and anyone can redo the
 * sum from the session's `rate`).
 */
export function quoteCrypto(book: RateBook, fiatAmount: string, fiatCurrency: string, assetId: string, now: Date): Quote | undefined {
  const pair = book.quotePair(assetId, fiatCurrency, now);
  return pair && { ...pair, cryptoAmount: multiplyUp(fiatAmount, ratioOf(pair.rate), ASSET_DIGITS[assetId] ?? CRYPTO_DIGITS) };
}

/** A fiat amount in another fiat currency, rounded up to that currency's minor digits. */
export function convertFiat(book: RateBook, amount: string, from: string, to: string, now: Date): string | undefined {
  const digits = fiatDigits(to);
  if (from === to) return fromUnits(toUnits(amount, digits), digits);
  const fromRate = book.perUsd(from, now);
  const toRate = book.perUsd(to, now);
  if (!fromRate || !toRate) return undefined;
  return multiplyUp(amount, divideRatio(toRate.value, fromRate.value), digits);
}

/** Compares `a` of currency `ca` with `b` of currency `cb` exactly: -1, 0 or 1; undefined without fresh rates. */
export function compareAcross(book: RateBook, a: string, ca: string, b: string, cb: string, now: Date): number | undefined {
  if (ca === cb) return compareRatio(ratioOf(a), ratioOf(b));
  const ra = book.perUsd(ca, now);
  const rb = book.perUsd(cb, now);
  if (!ra || !rb) return undefined;
  // a / ra  vs  b / rb   ⇔   a × rb  vs  b × ra
  return compareRatio(multiplyRatio(ratioOf(a), rb.value), multiplyRatio(ratioOf(b), ra.value));
}

/**
 * The 503 of a session start whose pair can't be quoted: the message and `errors[0]` (`path` the pair
 * at fault, `USD/NGN`; `message` its reason, `held: …`) say why: no fresh rate (`stale`), sources that
 * don't agree (`no_quorum`), a move held (`held`) or an asset off its peg (`depeg`). The checkout shows
 * its own words for the code; `Retry-After` is the time to the next refresh. `otherCurrency` is a
 * second currency the start needed (a Standard price or donation bounds set in another one).
 */
export function rateUnavailable(book: RateBook, fiatCurrency: string, assetId: string, now?: Date, otherCurrency?: string): ApiError {
  const why =
    book.whyNotPair(assetId, fiatCurrency, now) ??
    (otherCurrency === undefined ? undefined : book.whyNot(otherCurrency, now)) ??
    ({
      reason: 'stale',
      pair: `${assetId}/${fiatCurrency}`,
      message: `no rate source gave a usable one in the last ${book.settings.maxAgeMs / 1000} s`,
    } as const);
  return new ApiError(
    503,
    'rate_unavailable',
    `No current exchange rate for ${assetId} in ${fiatCurrency} (${why.reason}): ${why.message}. Try again later`,
    [{ path: why.pair, message: `${why.reason}: ${why.message}` }],
    { 'retry-after': String(Math.max(1, Math.ceil(book.settings.refreshMs / 1000))) },
  );
}
