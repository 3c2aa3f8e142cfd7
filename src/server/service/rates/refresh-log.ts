/**
 * What a refresh of the rate book (./book.ts) tells the log: each condition once when it starts
 * (`report`, which the book calls with a key per condition and logs only when the key is new) and once
 * when it ends, and each wild move held, accepted or reverted.
 */
import type { Ratio } from '../../../core/money.js';
import type { Logger } from '../../log.js';
import type { Evaluation } from './evaluate.js';
import { keptDecimal, type MoveEvent, type QuotedRate } from './moves.js';
import { distanceOf, percent } from './quotes.js';
import type { RateSettings, RateSourceName } from './settings.js';

/** Logs a condition when it starts: called with its key, a log code, the sentence and its fields. */
export type Report = (key: string, code: string, message: string, fields: Record<string, string | number>) => void;

/** What the reports read of the book. */
interface BookView {
  settings: RateSettings;
  pairOf(code: string): string;
  report: Report;
}

/** A source's unusable answer for `currency` (`reason`): an outlier beyond any currency, or no usable value. */
export function reportInvalid(name: RateSourceName, currency: string, reason: string, book: BookView): void {
  // A code the source was never going to rate (cNGN on Coinbase) is priced by a peg, if any: not news.
  if (reason === 'missing' && book.settings.pegs[currency]) return;
  const pair = book.pairOf(currency);
  if (reason === 'out_of_range') {
    book.report(
      `${name}|${currency}|out_of_range`,
      'rate_source_outlier',
      `${name}'s ${pair} is outside any rate a currency has (10^-12 to 10^12 per US dollar): dropped`,
      {
        source: name,
        currency,
        pair,
        reason,
      },
    );
  } else {
    book.report(
      `${name}|${currency}|${reason}`,
      'rate_value_invalid',
      `${name} answered no usable rate for ${currency} (${reason.replace('_', ' ')}): skipped`,
      {
        source: name,
        currency,
        reason,
      },
    );
  }
}

/** Per code: its outliers, no quorum, off its peg. */
export function reportCodes(codes: readonly string[], book: BookView & { spread: Ratio; evaluate(code: string): Evaluation }): void {
  for (const code of codes) {
    if (code === 'USD') continue;
    const evaluation = book.evaluate(code);
    const pair = book.pairOf(code);
    for (const source of evaluation.agreement?.outliers ?? []) {
      const agreed = evaluation.agreement!;
      book.report(
        `${source}|${code}|outlier`,
        'rate_source_outlier',
        `${source}'s ${pair} is more than ${percent(book.spread)} away from the ${agreed.agreed.join(', ')} median: dropped`,
        { source, currency: code, pair, reason: 'spread', agreed: agreed.agreed.join(',') },
      );
    }
    const why = evaluation.unquoted;
    if (why?.reason === 'no_quorum') {
      book.report(`|${code}|no_quorum`, 'rate_no_quorum', `${why.message}: sessions in ${pair} answer 503 rate_unavailable`, {
        currency: code,
        pair,
        quorum: book.settings.quorum,
        sources: evaluation.fresh.map((entry) => entry.source).join(','),
      });
    } else if (why?.reason === 'depeg' && evaluation.fresh.length) {
      book.report(`|${code}|depeg`, 'rate_depeg', `${why.message}: sessions in it answer 503 rate_unavailable`, {
        currency: code,
        pair,
        peg: book.settings.pegs[code]!,
      });
    }
  }
}

/** What was wrong at the refresh before (`before`'s keys) and no longer is (not in `now`): said once. */
export function reportRecoveries(log: Logger, before: ReadonlySet<string>, now: ReadonlySet<string>, pairOf: (code: string) => string): void {
  // What was wrong and no longer is: a source that answers again (once, whatever its failures were),
  // and a currency a source that answers rates usably again.
  const failing = (keys: ReadonlySet<string>) => new Set([...keys].filter((key) => key.split('|')[1] === '').map((key) => key.split('|')[0]!));
  const [failedBefore, failedNow] = [failing(before), failing(now)];
  for (const source of failedBefore) if (source && !failedNow.has(source)) log.info('rate_source_recovered', `${source} answers again`, { source });
  for (const key of before) {
    const [source, currency, reason] = key.split('|') as [string, string, string];
    if (now.has(key) || failedNow.has(source)) continue;
    if (!source && reason === 'no_quorum') log.info('rate_quorum_restored', `${pairOf(currency)} has a quorum again`, { currency, pair: pairOf(currency) });
    else if (!source && reason === 'depeg') log.info('rate_peg_restored', `${currency} is back within its peg`, { currency, pair: pairOf(currency) });
    else if (source && reason === 'outlier')
      log.info('rate_source_recovered', `${source}'s ${pairOf(currency)} agrees with the other sources again`, { source, currency });
    else if (source && currency) log.info('rate_source_recovered', `${source} answers a usable rate for ${currency} again`, { source, currency });
  }
}

/** Each code's move as settled (./moves.ts): held, lasted, accepted by an operator, or back within bounds. */
export function logMoves(
  log: Logger,
  moved: { before: ReadonlyMap<string, QuotedRate>; rows: ReadonlyMap<string, QuotedRate>; events: ReadonlyMap<string, MoveEvent> },
  options: { confirmMs: number; maxMove: Ratio; pairOf(code: string): string },
): void {
  for (const [code, row] of moved.rows) {
    const pair = options.pairOf(code);
    const event = moved.events.get(code);
    const was = moved.before.get(code);
    if (event?.kind === 'held') {
      log.warn(
        'rate_move_held',
        `${pair} moved ${percent(distanceOf(event.to, event.from))} from its last quoted rate: held (503 rate_unavailable) until the move has lasted ${options.confirmMs / 1000} s, or "paylink rates accept ${pair}"`,
        { currency: code, pair, from: keptDecimal(event.from), to: keptDecimal(event.to) },
      );
    } else if (event?.kind === 'persisted') {
      log.info('rate_move_accepted', `${pair}'s move lasted ${options.confirmMs / 1000} s: quoted at the new rate`, {
        currency: code,
        pair,
        from: keptDecimal(event.from),
        to: keptDecimal(event.to),
        by: 'persistence',
      });
    } else if (was?.held && !row.held && row.acceptedAt && row.acceptedAt.getTime() !== was.acceptedAt?.getTime() && event?.kind !== 'reverted') {
      log.info('rate_move_accepted', `${pair}'s move was accepted by an operator: quoted at the new rate`, {
        currency: code,
        pair,
        to: keptDecimal(row.value),
        by: 'operator',
      });
    } else if (event?.kind === 'reverted') {
      log.info('rate_move_reverted', `${pair} is back within ${percent(options.maxMove)} of its last quoted rate: quoted again`, { currency: code, pair });
    }
  }
}
