/**
 * Prices: what a quote was made of, and the rates as they stand (`GET /v1/rates`). Part of the wire
 * format (`core/schemas.ts`).
 */
import { z } from 'zod';
import { DecimalString, Timestamp } from './shared.js';

/** One source's value in a quote's basis. */
export const RateBasisSource = z.object({
  /** `coingecko`, `coinbase`, `kraken`, `exchangerate` or `static`. */
  source: z.string(),
  /** Units of the code per US dollar, as the source said it. */
  perUsd: DecimalString,
  /** When it was fetched; null for the static table. */
  at: Timestamp.nullable(),
  /** In the agreeing quorum (true) or dropped as an outlier (false). */
  used: z.boolean(),
});

/**
 * What one code of a session's pair was priced with: the agreeing sources' median (`perUsd`, units
 * per US dollar), the quorum it needed, and every fresh source's value then.
 */
export const RateBasis = z.object({
  /** `USD/NGN` for a currency (naira per dollar), `USDT/USD` for an asset. */
  pair: z.string(),
  perUsd: DecimalString,
  quorum: z.number().int(),
  sources: z.array(RateBasisSource),
});
export type RateBasis = z.infer<typeof RateBasis>;

/** Why a pair is not quoted: no fresh rate, sources that don't agree, a move held, an asset off its peg. */
export const RateUnquotedReason = z.enum(['stale', 'no_quorum', 'held', 'depeg']);

/** One source's latest word on one code. */
export const RateSourceState = z.object({
  source: z.string(),
  /** Its last usable value (units per US dollar) and when it was fetched (null for the table); null when it has none. */
  perUsd: DecimalString.nullable(),
  at: Timestamp.nullable(),
  /**
   * `agrees` (in the agreeing set), `outlier` (outside it), `disputed` (the sources disagree and nothing
   * tells which is right), `failed` (the source did not answer), `invalid` (its answer for this code was
   * not usable), `stale` (older than the max age, or never given).
   */
  status: z.enum(['agrees', 'outlier', 'disputed', 'failed', 'invalid', 'stale']),
  /** What was wrong (`out_of_range`, `not_a_number`, `http_status`, `redirect`, `timeout`, …); null otherwise. */
  problem: z.string().nullable(),
});

/** One code against the US dollar, as every pair that uses it is priced with it. */
export const RateMarket = z.object({
  /** `USD/NGN` (naira per dollar), `USDT/USD` (the asset against the dollar). */
  pair: z.string(),
  /** The value quoted now, units per US dollar; null when it is not quoted. */
  perUsd: DecimalString.nullable(),
  /** Why it is not quoted (null when it is), and in a sentence. */
  reason: RateUnquotedReason.nullable(),
  message: z.string().nullable(),
  /** (max − min) / median of every fresh source value, a fraction; null without one. */
  spread: DecimalString.nullable(),
  sources: z.array(RateSourceState),
});

/**
 * `GET /v1/rates`: the rates as they stand, per code against the US dollar (a pair a session is priced
 * in, `USDT/NGN`, is quoted when both of its codes are; `GET /readyz` lists those that are not).
 */
export const RatesView = z.object({
  /** How many sources must agree, and within which spread of their median (a fraction). */
  quorum: z.number().int(),
  maxSpread: DecimalString,
  markets: z.array(RateMarket),
});
export type RatesView = z.infer<typeof RatesView>;
