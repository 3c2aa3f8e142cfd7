/**
 * `paylink rates` and `paylink rates accept <pair>`, on the database `serve` uses (`--data-dir` or
 * `--database-url`, like `keys create`; a PGlite data directory that `serve` holds is refused by its
 * lock, so on PGlite run it while the service is stopped).
 *
 * - `paylink rates` lists each code's last quoted rate and the move held, if any.
 * - `paylink rates accept USDT/NGN` accepts the moves held on the pair's codes (`USDT/USD` and
 *   `USD/NGN` here; `USD/NGN` or `NGN` names the naira alone): each is quoted at the value held from
 *   now on. Every running instance on the database sees it at its next refresh
 *   (`PAYLINK_RATES_REFRESH_S`) and logs `rate_move_accepted`. Accepting what is not held changes
 *   nothing and says so.
 */
import { ASSET_IDS, FIAT_DIGITS } from '../../../core/money.js';
import type { Database } from '../../db/index.js';
import { codePair } from './quotes.js';
import { acceptMoves, keptDecimal, readQuotedRates } from './moves.js';

/** A `rates` command the operator got wrong: the CLI prints it with the usage and exits 2. */
export class RatesUsageError extends Error {
  override name = 'RatesUsageError';
}

const ASSETS: readonly string[] = ASSET_IDS;

/** The codes a pair names, USD left out (`USDT/NGN` → USDT, NGN; `USD/NGN` → NGN; `ngn` → NGN). */
export function codesOfPair(pair: string): string[] {
  const codes = pair
    .trim()
    .toUpperCase()
    .split(/[/\-:]/)
    .map((code) => code.trim());
  const known = (code: string) => ASSETS.includes(code) || code in FIAT_DIGITS;
  if (codes.length > 2 || codes.some((code) => !known(code)))
    throw new RatesUsageError(`not a pair: ${pair} (a pair is ASSET/CURRENCY such as USDT/NGN, USDT/USD or USD/NGN)`);
  const named = [...new Set(codes.filter((code) => code !== 'USD'))];
  if (named.length === 0) throw new RatesUsageError('USD/USD is always 1: name a pair such as USDT/NGN or USD/NGN');
  return named;
}

/** What `paylink rates` was asked: the list, or to accept the codes of a pair. Throws a `RatesUsageError`. */
export function parseRatesArgs(args: readonly string[]): { accept?: { pair: string; codes: string[] } } {
  const [verb, pair, ...rest] = args;
  if (verb === undefined) return {};
  if (verb !== 'accept') throw new RatesUsageError(`unknown rates command: ${verb}; try "paylink rates" or "paylink rates accept USDT/NGN"`);
  if (pair === undefined || rest.length) throw new RatesUsageError('paylink rates accept takes one pair, such as USDT/NGN');
  return { accept: { pair, codes: codesOfPair(pair) } };
}

/** Runs `paylink rates [accept <pair>]` on `db`; answers the lines to print. */
export async function runRatesCommand(db: Database, args: readonly string[], now: Date = new Date()): Promise<string[]> {
  const { accept } = parseRatesArgs(args);
  const pairOf = (code: string) => codePair(code, ASSETS);
  if (!accept) {
    const rows = [...(await readQuotedRates(db)).values()].sort((a, b) => a.code.localeCompare(b.code));
    if (rows.length === 0) return ['No rate has been quoted yet (a refresh of "paylink serve" with market sources records them).'];
    return rows.map(
      (row) =>
        `${pairOf(row.code).padEnd(9)} last quoted ${keptDecimal(row.value)} per USD at ${row.quotedAt.toISOString()}` +
        (row.held ? `; HELD: moved to ${keptDecimal(row.held.value)} since ${row.held.since.toISOString()} (paylink rates accept ${pairOf(row.code)})` : ''),
    );
  }
  const { codes } = accept;
  const accepted = await acceptMoves(db, codes, now);
  const lines = accepted.map((row) => `Accepted ${pairOf(row.code)} at ${keptDecimal(row.value)} per USD: running instances quote it from their next refresh.`);
  for (const code of codes) if (!accepted.some((row) => row.code === code)) lines.push(`${pairOf(code)} is not held: nothing to accept.`);
  return lines;
}
