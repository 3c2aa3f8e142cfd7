/**
 * `GET /readyz`, beside `GET /healthz` (which answers 200 `{"status":"ok"}` as soon as the process
 * serves): 200 when every configured pair (the chain's assets × the quoted currencies) can be quoted,
 * else 503 `rates_stale` naming the pairs that can't (`stale`) and why (`reasons`: `stale`, `no_quorum`,
 * `held`, `depeg`), so a load balancer takes the instance out of rotation and an operator sees why.
 * Read from memory; `Cache-Control: no-store`.
 */
import type { Context } from 'hono';
import { errorBody } from '../../../core/errors.js';
import type { RateBook } from './book.js';

/** The readiness answer of `book` at `now`. */
export function readinessAnswer(c: Context, book: RateBook, now: Date): Response {
  const { stale, pairs } = book.readiness(now);
  const reasons = book.reasons(now);
  c.header('cache-control', 'no-store');
  if (stale.length === 0) return c.json({ status: 'ready', sources: book.settings.sources, pairs: pairs.length });
  const body = errorBody(
    503,
    'rates_stale',
    `${stale.length} of ${pairs.length} pairs can't be quoted (${[...new Set(Object.values(reasons))].join(', ')}): sessions in them answer 503 rate_unavailable`,
    stale.map((pair) => {
      const [asset = '', currency = ''] = pair.split('/');
      const why = book.whyNotPair(asset, currency, now);
      return { path: pair, message: why ? `${why.reason}: ${why.message}` : `no fresh rate for ${pair}` };
    }),
  );
  return c.json({ ...body, stale, reasons }, 503);
}
