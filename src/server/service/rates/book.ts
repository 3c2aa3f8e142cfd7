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
import { decideMove, readQuotedRates, settleMoves, type MoveEvent, type QuotedRate } from './moves.js';
import { spreadOf } from './quorum.js';
import { sourceRates, type RateSettings, type RateSourceName } from './settings.js';
import { checkPerUsd, createSources, RateSourceError, type RateSource, type WantedCodes } from './sources.js';
import { evaluateCode, type Evaluation, type Kept } from './evaluate.js';
import { logMoves, reportCodes, reportInvalid, reportRecoveries } from './refresh-log.js';
import { codePair, RATE_DECIMALS, RATE_DIGITS } from './quotes.js';
import type { MarketState, PairQuote, PairRate, PerUsdRate, RateBasis, RateReadiness, SourceState, Unquoted, UnquotedReason } from './quotes.js';

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
    const evaluation = evaluateCode(code, now, {
      settings: this.settings,
      generation: this.#generation,
      pair: this.pairOf(code),
      kept: this.#kept.get(code),
      isFresh: (kept) => this.#fresh(kept, now),
      evaluate: (other) => this.#evaluate(other, now),
      last: this.fetches ? this.#moves.get(code) : undefined,
      spread: this.#spread,
      maxMove: this.#maxMove,
      pegTolerance: this.#pegTolerance,
    });
    this.#evaluations.set(code, evaluation);
    return evaluation;
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
        reportInvalid(name, currency, reason, { settings: this.settings, pairOf: (code) => this.pairOf(code), report });
      }
      for (const [currency, value] of values) {
        this.#setInvalid(currency, name, undefined);
        this.#keep(currency, name, { value, at });
      }
    }
    this.#generation++;

    await this.#settle(at);

    // Per code: outliers, no quorum, off the peg, each said when it starts.
    reportCodes([...this.#wanted.assets, ...this.#wanted.currencies], {
      settings: this.settings,
      spread: this.#spread,
      pairOf: (code) => this.pairOf(code),
      evaluate: (code) => this.#evaluate(code, at),
      report,
    });

    // What was wrong and no longer is: said once.
    reportRecoveries(this.#log, this.#problems, problems, (code) => this.pairOf(code));
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
    logMoves(this.#log, { before, rows, events }, { confirmMs: this.settings.confirmMs, maxMove: this.#maxMove, pairOf: (code) => this.pairOf(code) });
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
