/**
 * The rate book: what the sources said last, kept in memory, so that quoting a session costs no
 * database or network work. A background refresh reads every source every `refreshMs`; a quote reads
 * the book.
 *
 * **One pivot.** Every source's answer is kept as units per US dollar of each code, so sources that
 * rate different pairs combine: an asset's rate in a currency is `perUsd(asset) / perUsd(currency)`,
 * crossed through USD (Coinbase gives per-USD figures outright; CoinGecko gives a coin's price in each
 * currency, crossed the same way, see ./sources.ts). USD itself is exactly 1.
 *
 * **Median, freshness.** Per code, each source's last believed value and when it was fetched are kept;
 * a quote takes the median of the values fetched within `maxAgeMs` (the table's values have no age),
 * and is dated by the oldest of them. A code without a fresh value is not quoted: a session start then
 * answers 503 `rate_unavailable`; sessions already quoted keep their quote (it is in their row).
 *
 * **Pegs.** An asset no fresh source rates is priced at par with its peg's currency
 * (`PAYLINK_RATES_PEGS=CNGN=NGN`); an asset in its own peg's currency is exactly 1.
 *
 * **Nonsense is skipped.** A reading that fails (error, timeout, HTTP status, not the documented
 * shape) or a value that is missing, zero, negative or not a number is skipped, and so is a value 10×
 * or more away from the same source's previous answer and its last believed one (a one-off jump; the
 * same level again is believed, as a real redenomination would be) or from the median of the other
 * sources. Each is logged once when it starts, with a code, the source and the currency, never the
 * body.
 *
 * **Readiness.** Every configured pair (assets × `currencies`) has a fresh rate, or it is stale;
 * `/readyz` answers it, and the log says when the set of stale pairs changes.
 */
import { apartByFactor, divideRatio, medianRatio, ratioToDecimal, type Ratio } from '../../../core/money.js';
import { defaultLogger, type Logger } from '../../log.js';
import { type RateSettings, type RateSourceName } from './settings.js';
import { createSources, RateSourceError, type RateSource, type WantedCodes } from './sources.js';

/** A code's value now: units per USD, the sources behind it, and when the oldest was fetched (null: the table, which has no age). */
export interface PerUsdRate {
  value: Ratio;
  at: number | null;
  sources: RateSourceName[];
  /** `CNGN=NGN` when the value is its peg's. */
  peg?: string;
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

/** Whether every configured pair can be quoted. */
export interface RateReadiness {
  ready: boolean;
  /** Every configured pair, `USDT/NGN`. */
  pairs: string[];
  /** The pairs without a fresh rate. */
  stale: string[];
}

/** What the book needs of the service. */
export interface RateBookDeps {
  /** The assets the chain settles in. */
  assets: readonly string[];
  now?: () => Date;
  log?: Logger | undefined;
  /** The sources to read (default: the settings'); tests inject failing ones. */
  sources?: RateSource[];
}

/** Values 10× or more apart from what they are checked against are nonsense. */
const NONSENSE_FACTOR = 10n;
/**
 * The digits a rate is recorded with: 20 significant, and at least 24 after the point, so that the cut
 * costs less than a millionth of a unit on any amount a link may ask (`MAX_AMOUNT`, 10^12).
 */
const RATE_DIGITS = 20;
const RATE_DECIMALS = 24;
const ONE: Ratio = { num: 1n, den: 1n };

interface Kept {
  value: Ratio;
  at: number | null;
}

/** Rates from memory (see the module comment). */
export class RateBook {
  readonly settings: RateSettings;
  readonly #sources: RateSource[];
  readonly #wanted: WantedCodes;
  readonly #assets: readonly string[];
  readonly #now: () => Date;
  readonly #log: Logger;
  /** code → source → its last believed value. */
  readonly #kept = new Map<string, Map<RateSourceName, Kept>>();
  /** source → code → its previous answer, believed or not (the jump check). */
  readonly #previous = new Map<RateSourceName, Map<string, Ratio>>();
  /** What was wrong at the last refresh (`source|code|reason`): each is logged once when it starts. */
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
    const currencies = new Set([...settings.currencies, ...Object.values(settings.pegs)]);
    this.#wanted = { assets: this.#assets, currencies: [...currencies] };
    // The table answers at once and for good: a book of it alone is complete before any refresh.
    for (const source of this.#sources) {
      const reading = source.readNow?.(this.#wanted);
      if (reading) for (const [code, value] of reading.values) this.#keep(code, source.name, { value, at: null });
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

  /** Units of `code` per USD at `now`, from the fresh values (or its peg's); undefined when there is none. */
  perUsd(code: string, now: Date = this.#now()): PerUsdRate | undefined {
    if (code === 'USD') return { value: ONE, at: null, sources: [] };
    const time = now.getTime();
    const fresh = [...(this.#kept.get(code) ?? [])].filter(([, kept]) => this.#fresh(kept, time));
    if (fresh.length === 0) {
      const currency = this.settings.pegs[code];
      const base = currency === undefined || currency === code ? undefined : this.perUsd(currency, now);
      return base && { ...base, peg: `${code}=${currency}` };
    }
    const ages = fresh.map(([, kept]) => kept.at).filter((at): at is number => at !== null);
    return {
      value: medianRatio(fresh.map(([, kept]) => kept.value))!,
      at: ages.length ? Math.min(...ages) : null,
      sources: this.settings.sources.filter((source) => fresh.some(([name]) => name === source)),
    };
  }

  /** The rate of `assetId` in `currency` at `now` (asset units per currency unit), or undefined when either has no fresh value. */
  pair(assetId: string, currency: string, now: Date = this.#now()): PairRate | undefined {
    const asset = this.perUsd(assetId, now);
    // Pegged to this very currency: par, whatever the currency's own rate.
    if ((!asset || asset.peg) && this.settings.pegs[assetId] === currency) return { rate: '1', source: `peg:${assetId}=${currency}`, at: now };
    const fiat = asset && this.perUsd(currency, now);
    if (!asset || !fiat) return undefined;
    const ages = [asset.at, fiat.at].filter((at): at is number => at !== null);
    const sources = this.settings.sources.filter((source) => asset.sources.includes(source) || fiat.sources.includes(source));
    return {
      rate: ratioToDecimal(divideRatio(asset.value, fiat.value), RATE_DIGITS, RATE_DECIMALS),
      source: [...sources, ...(asset.peg ? [`peg:${asset.peg}`] : [])].join('+'),
      at: ages.length ? new Date(Math.min(...ages)) : now,
    };
  }

  /** Whether every configured pair has a fresh rate at `now`. */
  readiness(now: Date = this.#now()): RateReadiness {
    const pairs = this.#assets.flatMap((asset) => this.settings.currencies.map((currency) => [asset, currency] as const));
    return {
      ready: pairs.every(([asset, currency]) => this.pair(asset, currency, now)),
      pairs: pairs.map(([asset, currency]) => `${asset}/${currency}`),
      stale: pairs.filter(([asset, currency]) => !this.pair(asset, currency, now)).map(([asset, currency]) => `${asset}/${currency}`),
    };
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
          source.read(this.#wanted, controller.signal).then(
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
    const report = (source: RateSourceName, reason: string, code: string, message: string, fields: Record<string, string | number> = {}) => {
      const key = `${source}|${fields.currency ?? ''}|${reason}`;
      problems.add(key);
      if (!this.#problems.has(key)) this.#log.warn(code, message, { source, reason, ...fields });
    };

    // Values this round that pass their own checks, by code and source.
    const candidates = new Map<string, Map<RateSourceName, Ratio>>();
    for (const result of readings) {
      const { name } = result.source;
      if ('error' in result) {
        const error = result.error;
        const reason = error instanceof RateSourceError ? error.reason : 'unreachable';
        const status: Record<string, number> = error instanceof RateSourceError && error.httpStatus !== undefined ? { httpStatus: error.httpStatus } : {};
        report(name, reason, 'rate_source_failed', `${error instanceof RateSourceError ? error.message : `${name} failed`}: its rates are skipped`, status);
        // What was wrong with its values before still is, as far as anyone knows: not news, not recovered.
        for (const key of this.#problems) if (key.startsWith(`${name}|`) && !key.startsWith(`${name}||`)) problems.add(key);
        continue;
      }
      const previous = this.#previous.get(name) ?? new Map<string, Ratio>();
      this.#previous.set(name, previous);
      for (const [currency, reason] of result.reading.problems) {
        // A code the source was never going to rate (cNGN on Coinbase) is priced by a peg, if any: not news.
        if (reason === 'missing' && this.settings.pegs[currency]) continue;
        report(name, reason, 'rate_value_invalid', `${name} answered no usable rate for ${currency} (${reason.replace('_', ' ')}): skipped`, { currency });
      }
      for (const [currency, value] of result.reading.values) {
        // A jump: 10× from the previous answer and from the last believed one (so the answer after a
        // one-off spike, back at the believed level, is believed; and a level held twice is too).
        const before = previous.get(currency);
        const believed = this.#kept.get(currency)?.get(name)?.value;
        previous.set(currency, value);
        if (before && apartByFactor(value, before, NONSENSE_FACTOR) && (!believed || apartByFactor(value, believed, NONSENSE_FACTOR))) {
          report(name, 'jump', 'rate_value_outlier', `${name}'s rate for ${currency} moved 10× or more since its previous answer: skipped once`, { currency });
          continue;
        }
        let bySource = candidates.get(currency);
        if (!bySource) candidates.set(currency, (bySource = new Map()));
        bySource.set(name, value);
      }
    }

    // Each candidate against the median of the other sources (their value this round, else their fresh one).
    for (const [currency, bySource] of candidates) {
      for (const [name, value] of bySource) {
        const others: Ratio[] = [];
        for (const source of this.settings.sources) {
          if (source === name) continue;
          const kept = this.#kept.get(currency)?.get(source);
          const other = bySource.get(source) ?? (kept && this.#fresh(kept, at) ? kept.value : undefined);
          if (other) others.push(other);
        }
        const median = medianRatio(others);
        if (median && apartByFactor(value, median, NONSENSE_FACTOR)) {
          report(name, 'outlier', 'rate_value_outlier', `${name}'s rate for ${currency} is 10× or more away from the other sources': skipped`, { currency });
          continue;
        }
        this.#keep(currency, name, { value, at });
      }
    }

    // What was wrong and no longer is: a source that answers again (once, whatever its failures were),
    // and a currency a source that answers rates usably again.
    const failing = (keys: Set<string>) => new Set([...keys].filter((key) => key.split('|')[1] === '').map((key) => key.split('|')[0]!));
    const [failedBefore, failedNow] = [failing(this.#problems), failing(problems)];
    for (const source of failedBefore) if (!failedNow.has(source)) this.#log.info('rate_source_recovered', `${source} answers again`, { source });
    for (const key of this.#problems) {
      const [source, currency] = key.split('|') as [string, string];
      if (currency && !problems.has(key) && !failedNow.has(source)) {
        this.#log.info('rate_source_recovered', `${source} answers a usable rate for ${currency} again`, { source, currency });
      }
    }
    this.#problems = problems;
    this.#announce(this.#now());
  }

  /** Logs when the set of stale pairs changes (and, once, that a fetched book starts stale). */
  #announce(now: Date): void {
    const { stale, pairs } = this.readiness(now);
    if (stale.join() === this.#stale.join()) return;
    const was = this.#stale;
    this.#stale = stale;
    if (stale.length) {
      this.#log.warn('rates_stale', `no rate fresher than ${this.settings.maxAgeMs / 1000} s for ${stale.length} of ${pairs.length} pairs: sessions in them answer 503 rate_unavailable`, {
        pairs: stale.join(','),
      });
    } else if (was.length) {
      this.#log.info('rates_fresh', `every pair has a fresh rate again (${pairs.length} pairs)`);
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
