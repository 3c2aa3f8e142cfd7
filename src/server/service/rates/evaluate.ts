/**
 * How the rate book (./book.ts) judges one code at one moment: the fresh sources' values, their quorum
 * within the spread (./quorum.ts), the peg, and a wild move held (./moves.ts); the value quoted, or
 * why none is, and until when that holds.
 */
import { type Ratio } from '../../../core/money.js';
import { keptDecimal, type QuotedRate } from './moves.js';
import { agreeingSources, within, type Agreement } from './quorum.js';
import { type RateSettings, type RateSourceName } from './settings.js';
import { distanceOf, percent, type PerUsdRate, type RateBasis, type Unquoted, type UnquotedReason } from './quotes.js';

/** A source's last usable value of a code, and when it was fetched (null: the table). */
export interface Kept {
  value: Ratio;
  at: number | null;
}

/** What a code is now, and until when that holds (`until`: the first freshness that ends). */
export interface Evaluation {
  code: string;
  fresh: { source: RateSourceName; value: Ratio; at: number | null }[];
  agreement: Agreement<RateSourceName> | undefined;
  /** True when the value is (or would be) its peg's: no fresh source rates the asset. */
  parByPeg: boolean;
  quoted: PerUsdRate | undefined;
  unquoted: Unquoted | undefined;
  until: number;
  generation: number;
  evaluatedAt: number;
}

const ONE: Ratio = { num: 1n, den: 1n };

/** What `evaluateCode` reads of the book. */
export interface EvaluationInputs {
  settings: RateSettings;
  /** The book's generation: an evaluation holds until a refresh or a move changes it. */
  generation: number;
  /** The code's pair (`USD/NGN`). */
  pair: string;
  /** Each source's last usable value of the code. */
  kept: ReadonlyMap<RateSourceName, Kept> | undefined;
  isFresh(kept: Kept): boolean;
  /** Another code at the same moment (the peg's currency). */
  evaluate(code: string): Evaluation;
  /** The value last quoted and the move held (fetched books only). */
  last: QuotedRate | undefined;
  spread: Ratio;
  maxMove: Ratio;
  pegTolerance: Ratio;
}

/** What `code` is at `now` (ms): quoted with what it was made of, or why not, and until when. */
export function evaluateCode(code: string, now: number, inputs: EvaluationInputs): Evaluation {
  const base = { code, generation: inputs.generation, evaluatedAt: now, until: Infinity, parByPeg: false, agreement: undefined, fresh: [] };
  const pair = inputs.pair;
  const unquoted = (reason: UnquotedReason, message: string): Unquoted => ({ reason, pair, message });
  if (code === 'USD') return { ...base, quoted: { value: ONE, at: null, sources: [] }, unquoted: undefined };

  const kept = inputs.kept;
  const fresh: Evaluation['fresh'] = [];
  let until = Infinity;
  for (const source of inputs.settings.sources) {
    const entry = kept?.get(source);
    if (!entry || !inputs.isFresh(entry)) continue;
    fresh.push({ source, value: entry.value, at: entry.at });
    if (entry.at !== null) until = Math.min(until, entry.at + inputs.settings.maxAgeMs);
  }
  const pegCurrency = inputs.settings.pegs[code];
  const peg = pegCurrency !== undefined && pegCurrency !== code ? inputs.evaluate(pegCurrency) : undefined;
  if (peg) until = Math.min(until, peg.until);

  if (fresh.length === 0) {
    if (peg) {
      // No source rates the asset: at par with its peg's currency, whatever that is now.
      const quoted = peg.quoted && { ...peg.quoted, peg: `${code}=${pegCurrency}`, basis: undefined };
      return { ...base, until, parByPeg: true, quoted: quoted || undefined, unquoted: quoted ? undefined : peg.unquoted };
    }
    const maxAge = inputs.settings.maxAgeMs / 1000;
    return { ...base, until, quoted: undefined, unquoted: unquoted('stale', `no rate source gave a usable ${pair} in the last ${maxAge} s`) };
  }

  const last = inputs.last;
  const agreement = agreeingSources(
    fresh.map(({ source, value }) => ({ source, value })),
    inputs.spread,
    last?.value ?? peg?.quoted?.value,
  );
  const result = { ...base, until, fresh, agreement };
  if (agreement.undecided || agreement.agreed.length < inputs.settings.quorum) {
    const agreeing = agreement.undecided ? 'none' : `${agreement.agreed.length}`;
    return {
      ...result,
      quoted: undefined,
      unquoted: unquoted(
        'no_quorum',
        `${inputs.settings.quorum} rate sources must agree on ${pair} within ${percent(inputs.spread)}; ${agreeing} of the ${fresh.length} that answered do`,
      ),
    };
  }
  const value = agreement.value!;
  if (peg) {
    if (!peg.quoted) return { ...result, quoted: undefined, unquoted: peg.unquoted };
    if (!within(value, peg.quoted.value, inputs.pegTolerance)) {
      const off = percent(distanceOf(value, peg.quoted.value));
      return {
        ...result,
        quoted: undefined,
        unquoted: unquoted('depeg', `${code} is ${off} off its peg to ${pegCurrency} (tolerance ${percent(inputs.pegTolerance)})`),
      };
    }
  }
  if (last && (last.held || !within(value, last.value, inputs.maxMove))) {
    const moved = percent(distanceOf(last.held?.value ?? value, last.value));
    const since = last.held ? ` since ${last.held.since.toISOString()}` : '';
    return {
      ...result,
      quoted: undefined,
      unquoted: unquoted(
        'held',
        `${pair} moved ${moved} from its last quoted rate and is held${since}: it is quoted again once the move has lasted ${inputs.settings.confirmMs / 1000} s, or when an operator runs "paylink rates accept ${pair}"`,
      ),
    };
  }
  const used = fresh.filter((entry) => agreement.agreed.includes(entry.source));
  const ages = used.map((entry) => entry.at).filter((at): at is number => at !== null);
  const basis: RateBasis = {
    pair,
    perUsd: keptDecimal(value),
    quorum: inputs.settings.quorum,
    sources: fresh.map((entry) => ({
      source: entry.source,
      perUsd: keptDecimal(entry.value),
      at: entry.at === null ? null : new Date(entry.at).toISOString(),
      used: agreement.agreed.includes(entry.source),
    })),
  };
  return { ...result, quoted: { value, at: ages.length ? Math.min(...ages) : null, sources: agreement.agreed, basis }, unquoted: undefined };
}
