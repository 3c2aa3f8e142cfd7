/**
 * The rate book: what the sources said last, kept in memory, so that quoting a session costs no
 * database or network work. A background refresh reads every source every `refreshMs`; a quote reads
 * the book.
 *
 * **One pivot.** Every source's answer is kept as units per US dollar of each code, so sources that
 * rate different codes combine: an asset's rate in a currency is `perUsd(asset) / perUsd(currency)`,
 * crossed through USD (Coinbase gives per-USD figures outright; CoinGecko gives a coin's price in each
 * currency, crossed the same way, see ./sources.ts). USD itself is exactly 1. Each code is judged on
 * its own (`USD/NGN`, `USDT/USD`), and a pair is quoted when both of its codes are.
 *
 * **No single source sets a price.** Per code, each source's last usable value and when it was
 * fetched are kept. A code is quoted when `quorum` sources with a value fresher than `maxAgeMs` agree:
 * every one within `maxSpread` of their median (./quorum.ts), which is the value quoted, dated by the
 * oldest of them. The others are outliers, dropped and named in the log (`rate_source_outlier`);
 * without a quorum the code is not quoted (`rate_no_quorum`). A value no currency has (outside
 * 10^-12 to 10^12 per USD) is dropped before anything else (./sources.ts), so it can't outvote anyone.
 *
 * **Wild moves are held.** A quorum value further than `maxMove` from the code's last quoted value is
 * not quoted until the move has lasted `confirmMs` or an operator accepts it (./moves.ts: the rows
 * live in the database, so that every instance agrees; `rate_move_held`).
 *
 * **Pegs.** An asset no fresh source rates is priced at par with its peg's currency
 * (`PAYLINK_RATES_PEGS=CNGN=NGN`); an asset in its own peg's currency is exactly 1. An asset the
 * sources do rate is not quoted while it strays further than `pegTolerance` from its peg (`rate_depeg`).
 *
 * **Failures.** A reading that fails (error, timeout, HTTP status, redirect, not the documented
 * shape) is skipped, and the source's last values count until they are stale; a value that is
 * missing, zero, negative or not a number is skipped, and the source no longer counts for that code
 * until it answers a usable one. Each condition is
 * logged once when it starts, with a code, the source and the currency, never the body, and once
 * when it ends.
 *
 * **Readiness.** Every configured pair (assets × `currencies`) can be quoted, or it can't (stale, no
 * quorum, held, off its peg); `/readyz` answers it, and the log says when the set of pairs that can't
 * changes (`rates_stale`).
 */
import { divideRatio, ratioOf, ratioToDecimal, type Ratio } from '../../../core/money.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { decideMove, keptDecimal, readQuotedRates, settleMoves, type MoveEvent, type QuotedRate } from './moves.js';
import { agreeingSources, spreadOf, within, type Agreement } from './quorum.js';
import { sourceRates, type RateSettings, type RateSourceName } from './settings.js';
import { checkPerUsd, createSources, RateSourceError, type RateSource, type WantedCodes } from './sources.js';

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

/** What the book needs of the service. */
export interface RateBookDeps {
  /** The assets the chain settles in. */
  assets: readonly string[];
  now?: () => Date;
  log?: Logger | undefined;
  /** The sources to read (default: the settings'); tests inject failing ones. */
  sources?: RateSource[];
  /** Where the last quoted values live, shared by every instance (without one, in memory). */
  db?: Database | undefined;
}

/**
 * The digits a rate is recorded with: 20 significant, and at least 24 after the point, so that the cut
 * costs less than a millionth of a unit on any amount a link may ask (`MAX_AMOUNT`, 10^12).
 */
const RATE_DIGITS = 20;
const RATE_DECIMALS = 24;
const ONE: Ratio = { num: 1n, den: 1n };

/** `USD/NGN` for a currency (units per dollar), `USDT/USD` for an asset (its price in dollars). */
export function codePair(code: string, assets: readonly string[]): string {
  return assets.includes(code) ? `${code}/USD` : `USD/${code}`;
}

/** A fraction as a percentage for a sentence (`0.02` → `2%`). */
const percent = (fraction: Ratio) => `${ratioToDecimal({ num: fraction.num * 100n, den: fraction.den }, 3)}%`;

interface Kept {
  value: Ratio;
  at: number | null;
}

/** What a code is now, and until when that holds (`until`: the first freshness that ends). */
interface Evaluation {
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

/** Rates from memory (see the module comment). */
export class RateBook {
  readonly settings: RateSettings;
  readonly #sources: RateSource[];
  readonly #wanted: WantedCodes;
  readonly #assets: readonly string[];
  readonly #now: () => Date;
  readonly #log: Logger;
  readonly #db: Database | undefined;
  readonly #spread: Ratio;
  readonly #maxMove: Ratio;
  readonly #pegTolerance: Ratio;
  /** code → source → its last usable value. */
  readonly #kept = new Map<string, Map<RateSourceName, Kept>>();
  /** code → source → what was wrong with its last answer (cleared by a usable one). */
  readonly #invalid = new Map<string, Map<RateSourceName, string>>();
  /** source → why its last reading failed (cleared when it answers). */
  readonly #failed = new Map<RateSourceName, string>();
  /** code → its last quoted value and the move held (the database's rows, as of the last refresh). */
  #moves = new Map<string, QuotedRate>();
  /** Bumped whenever kept values or moves change: evaluations of an older generation are stale. */
  #generation = 0;
  readonly #evaluations = new Map<string, Evaluation>();
  /** What was wrong at the last refresh (`source|code|reason`, `|code|reason`): each is logged once when it starts. */
  #problems = new Set<string>();
  #stale: string[] = [];
  #aborter = new AbortController();
  #running: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(settings: RateSettings, deps: RateBookDeps) {
    this.settings = settings;
    this.#sources = deps.sources ?? createSources(settings);
    this.#assets = [...new Set(deps.assets)];
    this.#now = deps.now ?? (() => new Date());
    this.#log = deps.log ?? defaultLogger;
    this.#db = deps.db;
    this.#spread = ratioOf(settings.maxSpread);
    this.#maxMove = ratioOf(settings.maxMove);
    this.#pegTolerance = ratioOf(settings.pegTolerance);
    const currencies = new Set([...settings.currencies, ...Object.values(settings.pegs)]);
    this.#wanted = { assets: this.#assets, currencies: [...currencies] };
    // The table answers at once and for good: a book of it alone is complete before any refresh.
    for (const source of this.#sources) {
      const reading = source.readNow?.(this.#wanted);
      if (reading)
        for (const [code, value] of reading.values) {
          const checked = checkPerUsd(value);
          if (checked !== 'out_of_range') this.#keep(code, source.name, { value: checked, at: null });
        }
    }
  }

  /** True when some source must be fetched (not only the table). */
  get fetches(): boolean {
    return this.#sources.some((source) => !source.readNow);
  }

  #keep(code: string, source: RateSourceName, kept: Kept): void {
    let bySource = this.#kept.get(code);
    if (!bySource) this.#kept.set(code, (bySource = new Map()));
    bySource.set(source, kept);
  }

  #fresh(kept: Kept, now: number): boolean {
    return kept.at === null || now - kept.at <= this.settings.maxAgeMs;
  }

  /** The code's pair name (`USD/NGN`, `USDT/USD`). */
  pairOf(code: string): string {
    return codePair(code, this.#assets);
  }

  /** What `code` is at `now` (cached until a value goes stale or the book changes). */
  #evaluate(code: string, now: number): Evaluation {
    const cached = this.#evaluations.get(code);
    if (cached && cached.generation === this.#generation && now >= cached.evaluatedAt && now <= cached.until) return cached;
    const evaluation = this.#evaluateNow(code, now);
    this.#evaluations.set(code, evaluation);
    return evaluation;
  }

  #evaluateNow(code: string, now: number): Evaluation {
    const base = { code, generation: this.#generation, evaluatedAt: now, until: Infinity, parByPeg: false, agreement: undefined, fresh: [] };
    const pair = this.pairOf(code);
    const unquoted = (reason: UnquotedReason, message: string): Unquoted => ({ reason, pair, message });
    if (code === 'USD') return { ...base, quoted: { value: ONE, at: null, sources: [] }, unquoted: undefined };

    const kept = this.#kept.get(code);
    const fresh: Evaluation['fresh'] = [];
    let until = Infinity;
    for (const source of this.settings.sources) {
      const entry = kept?.get(source);
      if (!entry || !this.#fresh(entry, now)) continue;
      fresh.push({ source, value: entry.value, at: entry.at });
      if (entry.at !== null) until = Math.min(until, entry.at + this.settings.maxAgeMs);
    }
    const pegCurrency = this.settings.pegs[code];
    const peg = pegCurrency !== undefined && pegCurrency !== code ? this.#evaluate(pegCurrency, now) : undefined;
    if (peg) until = Math.min(until, peg.until);

    if (fresh.length === 0) {
      if (peg) {
        // No source rates the asset: at par with its peg's currency, whatever that is now.
        const quoted = peg.quoted && { ...peg.quoted, peg: `${code}=${pegCurrency}`, basis: undefined };
        return { ...base, until, parByPeg: true, quoted: quoted || undefined, unquoted: quoted ? undefined : peg.unquoted };
      }
      const maxAge = this.settings.maxAgeMs / 1000;
      return { ...base, until, quoted: undefined, unquoted: unquoted('stale', `no rate source gave a usable ${pair} in the last ${maxAge} s`) };
    }

    const last = this.fetches ? this.#moves.get(code) : undefined;
    const agreement = agreeingSources(
      fresh.map(({ source, value }) => ({ source, value })),
      this.#spread,
      last?.value ?? peg?.quoted?.value,
    );
    const result = { ...base, until, fresh, agreement };
    if (agreement.undecided || agreement.agreed.length < this.settings.quorum) {
      const agreeing = agreement.undecided ? 'none' : `${agreement.agreed.length}`;
      return {
        ...result,
        quoted: undefined,
        unquoted: unquoted(
          'no_quorum',
          `${this.settings.quorum} rate sources must agree on ${pair} within ${percent(this.#spread)}; ${agreeing} of the ${fresh.length} that answered do`,
        ),
      };
    }
    const value = agreement.value!;
    if (peg) {
      if (!peg.quoted) return { ...result, quoted: undefined, unquoted: peg.unquoted };
      if (!within(value, peg.quoted.value, this.#pegTolerance)) {
        const off = percent(distanceOf(value, peg.quoted.value));
        return {
          ...result,
          quoted: undefined,
          unquoted: unquoted('depeg', `${code} is ${off} off its peg to ${pegCurrency} (tolerance ${percent(this.#pegTolerance)})`),
        };
      }
    }
    if (last && (last.held || !within(value, last.value, this.#maxMove))) {
      const moved = percent(distanceOf(last.held?.value ?? value, last.value));
      const since = last.held ? ` since ${last.held.since.toISOString()}` : '';
      return {
        ...result,
        quoted: undefined,
        unquoted: unquoted(
          'held',
          `${pair} moved ${moved} from its last quoted rate and is held${since}: it is quoted again once the move has lasted ${this.settings.confirmMs / 1000} s, or when an operator runs "paylink rates accept ${pair}"`,
        ),
      };
    }
    const used = fresh.filter((entry) => agreement.agreed.includes(entry.source));
    const ages = used.map((entry) => entry.at).filter((at): at is number => at !== null);
    const basis: RateBasis = {
      pair,
      perUsd: keptDecimal(value),
      quorum: this.settings.quorum,
      sources: fresh.map((entry) => ({
        source: entry.source,
        perUsd: keptDecimal(entry.value),
        at: entry.at === null ? null : new Date(entry.at).toISOString(),
        used: agreement.agreed.includes(entry.source),
      })),
    };
    return { ...result, quoted: { value, at: ages.length ? Math.min(...ages) : null, sources: agreement.agreed, basis }, unquoted: undefined };
  }

  /** Units of `code` per USD at `now`, when it is quoted (or its peg's); undefined when it is not. */
  perUsd(code: string, now: Date = this.#now()): PerUsdRate | undefined {
    return this.#evaluate(code, now.getTime()).quoted;
  }

  /** Why `code` is not quoted at `now` (undefined when it is). */
  whyNot(code: string, now: Date = this.#now()): Unquoted | undefined {
    return this.#evaluate(code, now.getTime()).unquoted;
  }

  /** The rate of `assetId` in `currency` at `now` (asset units per currency unit), or undefined when either is not quoted (see `whyNotPair`). */
  pair(assetId: string, currency: string, now: Date = this.#now()): PairRate | undefined {
    const quote = this.quotePair(assetId, currency, now);
    return quote && { rate: quote.rate, source: quote.source, at: quote.at };
  }

  /** `pair()` with what the rate was made of: what a session records. */
  quotePair(assetId: string, currency: string, now: Date = this.#now()): PairQuote | undefined {
    const time = now.getTime();
    const asset = this.#evaluate(assetId, time);
    // Pegged to this very currency, and no source rates the asset: par, whatever the currency's own rate.
    if (asset.parByPeg && this.settings.pegs[assetId] === currency) return { rate: '1', source: `peg:${assetId}=${currency}`, at: now, basis: [] };
    const fiat = asset.quoted && this.#evaluate(currency, time).quoted;
    if (!asset.quoted || !fiat) return undefined;
    const ages = [asset.quoted.at, fiat.at].filter((at): at is number => at !== null);
    const sources = this.settings.sources.filter((source) => asset.quoted!.sources.includes(source) || fiat.sources.includes(source));
    return {
      rate: ratioToDecimal(divideRatio(asset.quoted.value, fiat.value), RATE_DIGITS, RATE_DECIMALS),
      source: [...sources, ...(asset.quoted.peg ? [`peg:${asset.quoted.peg}`] : [])].join('+'),
      at: ages.length ? new Date(Math.min(...ages)) : now,
      basis: [asset.quoted.basis, fiat.basis].filter((basis): basis is RateBasis => basis !== undefined),
    };
  }

  /** Why the pair can't be quoted at `now`: its asset's reason, else its currency's (undefined when it can). */
  whyNotPair(assetId: string, currency: string, now: Date = this.#now()): Unquoted | undefined {
    if (this.pair(assetId, currency, now)) return undefined;
    return this.whyNot(assetId, now) ?? this.whyNot(currency, now);
  }

  /** Whether every configured pair can be quoted at `now`. */
  readiness(now: Date = this.#now()): RateReadiness {
    const pairs = this.#configuredPairs().map(([asset, currency]) => `${asset}/${currency}`);
    const stale = Object.keys(this.reasons(now));
    return { ready: stale.length === 0, pairs, stale };
  }

  /** Why each configured pair that can't be quoted at `now` can't (`USDT/NGN` → `held`). */
  reasons(now: Date = this.#now()): Record<string, UnquotedReason> {
    const reasons: Record<string, UnquotedReason> = {};
    for (const [asset, currency] of this.#configuredPairs()) {
      const why = this.whyNotPair(asset, currency, now);
      if (why) reasons[`${asset}/${currency}`] = why.reason;
    }
    return reasons;
  }

  #configuredPairs() {
    return this.#assets.flatMap((asset) => this.settings.currencies.map((currency) => [asset, currency] as const));
  }

  /** Every code the book watches (the assets, then the currencies and pegs but USD), as the Rates view shows it at `now`. */
  markets(now: Date = this.#now()): MarketState[] {
    const time = now.getTime();
    const codes = [...this.#wanted.assets, ...this.#wanted.currencies.filter((code) => code !== 'USD')];
    return codes.map((code) => {
      const evaluation = this.#evaluate(code, time);
      // Sources that never rate the code are left out (Kraken has no naira).
      const rating = this.settings.sources.filter((source) => sourceRates(source, code, this.settings));
      const sources: SourceState[] = rating.map((source) => {
        const kept = this.#kept.get(code)?.get(source);
        const failed = this.#failed.get(source);
        const invalid = this.#invalid.get(code)?.get(source);
        const fresh = evaluation.fresh.some((entry) => entry.source === source);
        const agreement = evaluation.agreement;
        const status: SourceState['status'] = fresh
          ? agreement?.undecided
            ? 'disputed'
            : agreement?.agreed.includes(source)
              ? 'agrees'
              : 'outlier'
          : failed
            ? 'failed'
            : invalid
              ? 'invalid'
              : 'stale';
        return { source, ...(kept ? { value: kept.value, at: kept.at } : {}), status, problem: failed ?? invalid ?? null };
      });
      return {
        pair: this.pairOf(code),
        code,
        quoted: evaluation.quoted,
        unquoted: evaluation.unquoted,
        spread: spreadOf(evaluation.fresh.map((entry) => entry.value)),
        peg: this.settings.pegs[code],
        last: this.#moves.get(code),
        sources,
      };
    });
  }

  /** Reads every source that fetches once (a refresh under way is joined, not doubled). */
  refresh(): Promise<void> {
    this.#running ??= this.#refresh().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #refresh(): Promise<void> {
    const fetched = this.#sources.filter((source) => !source.readNow);
    // A value is as old as the question that got it: dated when asked, not when the answer came.
    const at = this.#now().getTime();
    // A timer and a controller of its own, not `AbortSignal.any([…, AbortSignal.timeout()])`: on Node
    // 20 the timeout signal inside `any` is held weakly and can be collected before it fires, and then
    // a source that never answers holds the refresh (and every later one) for good.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('The rate source did not answer in time', 'TimeoutError')), this.settings.timeoutMs);
    const stop = () => controller.abort(this.#aborter.signal.reason);
    if (this.#aborter.signal.aborted) stop();
    else this.#aborter.signal.addEventListener('abort', stop, { once: true });
    let readings;
    try {
      readings = await Promise.all(
        fetched.map((source) =>
          source.read(this.#wanted, controller.signal, at).then(
            (reading) => ({ source, reading }),
            (error: unknown) => ({ source, error }),
          ),
        ),
      );
    } finally {
      clearTimeout(timer);
      this.#aborter.signal.removeEventListener('abort', stop);
    }
    if (this.#aborter.signal.aborted) return;
    const problems = new Set<string>();
    const report = (key: string, code: string, message: string, fields: Record<string, string | number>) => {
      problems.add(key);
      if (!this.#problems.has(key)) this.#log.warn(code, message, fields);
    };

    for (const result of readings) {
      const { name } = result.source;
      if ('error' in result) {
        const error = result.error;
        const reason = error instanceof RateSourceError ? error.reason : 'unreachable';
        const status: Record<string, number> = error instanceof RateSourceError && error.httpStatus !== undefined ? { httpStatus: error.httpStatus } : {};
        this.#failed.set(name, reason);
        report(`${name}||${reason}`, 'rate_source_failed', `${error instanceof RateSourceError ? error.message : `${name} failed`}: its rates are skipped`, {
          source: name,
          reason,
          ...status,
        });
        // What was wrong with its values before still is, as far as anyone knows: not news, not recovered.
        for (const key of this.#problems) if (key.startsWith(`${name}|`) && !key.startsWith(`${name}||`)) problems.add(key);
        continue;
      }
      this.#failed.delete(name);
      const values = new Map(result.reading.values);
      const answered = new Map(result.reading.problems);
      // Crossed values (CoinGecko's) can leave the bounds though each figure was within them.
      for (const [code, value] of values) {
        if (checkPerUsd(value) === 'out_of_range') {
          values.delete(code);
          answered.set(code, 'out_of_range');
        }
      }
      for (const [currency, reason] of answered) {
        this.#setInvalid(currency, name, reason);
        // A source whose word now is nonsense (or nothing) no longer votes with what it said before;
        // one that did not answer at all keeps its last value until that is stale.
        this.#kept.get(currency)?.delete(name);
        // A code the source was never going to rate (cNGN on Coinbase) is priced by a peg, if any: not news.
        if (reason === 'missing' && this.settings.pegs[currency]) continue;
        const pair = this.pairOf(currency);
        if (reason === 'out_of_range') {
          report(`${name}|${currency}|out_of_range`, 'rate_source_outlier', `${name}'s ${pair} is outside any rate a currency has (10^-12 to 10^12 per US dollar): dropped`, {
            source: name,
            currency,
            pair,
            reason,
          });
        } else {
          report(`${name}|${currency}|${reason}`, 'rate_value_invalid', `${name} answered no usable rate for ${currency} (${reason.replace('_', ' ')}): skipped`, {
            source: name,
            currency,
            reason,
          });
        }
      }
      for (const [currency, value] of values) {
        this.#setInvalid(currency, name, undefined);
        this.#keep(currency, name, { value, at });
      }
    }
    this.#generation++;

    await this.#settle(at);

    // Per code: outliers, no quorum, off the peg, each said when it starts.
    for (const code of [...this.#wanted.assets, ...this.#wanted.currencies]) {
      if (code === 'USD') continue;
      const evaluation = this.#evaluate(code, at);
      const pair = this.pairOf(code);
      for (const source of evaluation.agreement?.outliers ?? []) {
        const agreed = evaluation.agreement!;
        report(
          `${source}|${code}|outlier`,
          'rate_source_outlier',
          `${source}'s ${pair} is more than ${percent(this.#spread)} away from the ${agreed.agreed.join(', ')} median: dropped`,
          { source, currency: code, pair, reason: 'spread', agreed: agreed.agreed.join(',') },
        );
      }
      const why = evaluation.unquoted;
      if (why?.reason === 'no_quorum') {
        report(`|${code}|no_quorum`, 'rate_no_quorum', `${why.message}: sessions in ${pair} answer 503 rate_unavailable`, {
          currency: code,
          pair,
          quorum: this.settings.quorum,
          sources: evaluation.fresh.map((entry) => entry.source).join(','),
        });
      } else if (why?.reason === 'depeg' && evaluation.fresh.length) {
        report(`|${code}|depeg`, 'rate_depeg', `${why.message}: sessions in it answer 503 rate_unavailable`, {
          currency: code,
          pair,
          peg: this.settings.pegs[code]!,
        });
      }
    }

    // What was wrong and no longer is: a source that answers again (once, whatever its failures were),
    // and a currency a source that answers rates usably again.
    const failing = (keys: Set<string>) => new Set([...keys].filter((key) => key.split('|')[1] === '').map((key) => key.split('|')[0]!));
    const [failedBefore, failedNow] = [failing(this.#problems), failing(problems)];
    for (const source of failedBefore) if (source && !failedNow.has(source)) this.#log.info('rate_source_recovered', `${source} answers again`, { source });
    for (const key of this.#problems) {
      const [source, currency, reason] = key.split('|') as [string, string, string];
      if (problems.has(key) || failedNow.has(source)) continue;
      if (!source && reason === 'no_quorum') this.#log.info('rate_quorum_restored', `${this.pairOf(currency)} has a quorum again`, { currency, pair: this.pairOf(currency) });
      else if (!source && reason === 'depeg') this.#log.info('rate_peg_restored', `${currency} is back within its peg`, { currency, pair: this.pairOf(currency) });
      else if (source && reason === 'outlier')
        this.#log.info('rate_source_recovered', `${source}'s ${this.pairOf(currency)} agrees with the other sources again`, { source, currency });
      else if (source && currency) this.#log.info('rate_source_recovered', `${source} answers a usable rate for ${currency} again`, { source, currency });
    }
    this.#problems = problems;
    this.#announce(this.#now());
  }

  #setInvalid(code: string, source: RateSourceName, problem: string | undefined): void {
    let bySource = this.#invalid.get(code);
    if (!bySource) this.#invalid.set(code, (bySource = new Map()));
    if (problem === undefined) bySource.delete(source);
    else bySource.set(source, problem);
  }

  /**
   * Decides each code's move (./moves.ts) against the rows every instance shares: what has a quorum
   * now is followed, held, or believed after it lasted; what an operator accepted since is seen here.
   */
  async #settle(at: number): Promise<void> {
    if (!this.fetches) return;
    const values = new Map<string, Ratio>();
    for (const code of [...this.#wanted.assets, ...this.#wanted.currencies]) {
      if (code === 'USD') continue;
      const { agreement } = this.#evaluate(code, at);
      if (agreement?.value && !agreement.undecided && agreement.agreed.length >= this.settings.quorum) values.set(code, agreement.value);
    }
    const now = new Date(at);
    const before = this.#moves;
    let rows: Map<string, QuotedRate>;
    let events: Map<string, MoveEvent>;
    if (this.#db) {
      try {
        ({ rows, events } = await settleMoves(this.#db, values, { maxMove: this.#maxMove, confirmMs: this.settings.confirmMs }, now));
      } catch (error) {
        // The rows stay as they were: a move beyond the allowed one is refused until they can be read.
        this.#log.error('rates_refresh_failed', 'the last quoted rates could not be read or written: moves are held until they can', { error });
        return;
      }
    } else {
      rows = new Map(before);
      events = new Map();
      for (const [code, value] of values) {
        const decision = decideMove(rows.get(code), code, value, { maxMove: this.#maxMove, confirmMs: this.settings.confirmMs }, now);
        rows.set(code, decision.row);
        events.set(code, decision.event);
      }
    }
    this.#moves = rows;
    this.#generation++;
    for (const [code, row] of rows) {
      const pair = this.pairOf(code);
      const event = events.get(code);
      const was = before.get(code);
      if (event?.kind === 'held') {
        this.#log.warn(
          'rate_move_held',
          `${pair} moved ${percent(distanceOf(event.to, event.from))} from its last quoted rate: held (503 rate_unavailable) until the move has lasted ${this.settings.confirmMs / 1000} s, or "paylink rates accept ${pair}"`,
          { currency: code, pair, from: keptDecimal(event.from), to: keptDecimal(event.to) },
        );
      } else if (event?.kind === 'persisted') {
        this.#log.info('rate_move_accepted', `${pair}'s move lasted ${this.settings.confirmMs / 1000} s: quoted at the new rate`, {
          currency: code,
          pair,
          from: keptDecimal(event.from),
          to: keptDecimal(event.to),
          by: 'persistence',
        });
      } else if (was?.held && !row.held && row.acceptedAt && row.acceptedAt.getTime() !== was.acceptedAt?.getTime() && event?.kind !== 'reverted') {
        this.#log.info('rate_move_accepted', `${pair}'s move was accepted by an operator: quoted at the new rate`, {
          currency: code,
          pair,
          to: keptDecimal(row.value),
          by: 'operator',
        });
      } else if (event?.kind === 'reverted') {
        this.#log.info('rate_move_reverted', `${pair} is back within ${percent(this.#maxMove)} of its last quoted rate: quoted again`, { currency: code, pair });
      }
    }
  }

  /** Reads the shared rows again (an operator's accept) without a refresh. */
  async reloadMoves(): Promise<void> {
    if (!this.#db || !this.fetches) return;
    this.#moves = await readQuotedRates(this.#db);
    this.#generation++;
  }

  /** Logs when the set of pairs that can't be quoted changes (and, once, that a fetched book starts so). */
  #announce(now: Date): void {
    const { stale, pairs } = this.readiness(now);
    if (stale.join() === this.#stale.join()) return;
    const reasons = this.reasons(now);
    const was = this.#stale;
    this.#stale = stale;
    if (stale.length) {
      const why = [...new Set(Object.values(reasons))].join(', ');
      this.#log.warn('rates_stale', `${stale.length} of ${pairs.length} pairs can't be quoted (${why}): sessions in them answer 503 rate_unavailable`, {
        pairs: stale.join(','),
        reasons: stale.map((pair) => `${pair}:${reasons[pair]}`).join(','),
      });
    } else if (was.length) {
      this.#log.info('rates_fresh', `every pair can be quoted again (${pairs.length} pairs)`);
    }
  }

  /**
   * Refreshes every `refreshMs` until stopped (the stop function aborts a refresh under way and waits
   * for it). Each refresh re-checks the stale set, so the log says within a refresh when rates age out.
   */
  start(): () => Promise<void> {
    if (!this.fetches) return async () => {};
    const tick = () => {
      this.#timer = setTimeout(() => {
        void this.refresh()
          .catch((error: unknown) => this.#log.error('rates_refresh_failed', 'the rate refresh failed', { error }))
          .finally(() => this.#stopped || tick());
      }, this.settings.refreshMs);
      this.#timer.unref?.();
    };
    tick();
    return async () => {
      this.#stopped = true;
      clearTimeout(this.#timer);
      this.#aborter.abort();
      await this.#running?.catch(() => {});
    };
  }
}

/** |a − b| / b. */
function distanceOf(a: Ratio, b: Ratio): Ratio {
  const difference = a.num * b.den - b.num * a.den;
  return { num: difference < 0n ? -difference : difference, den: b.num * a.den };
}
