/**
 * Holding wild moves. Each code's last quoted value (units per USD) is kept; a quorum value further
 * than `maxMove` from it is held: not quoted until the move has lasted `confirmMs` (a real devaluation
 * lasts; a hostile source's jump does not) or an operator accepts it (`paylink rates accept <pair>`).
 * A hold starts again whenever the value moves `maxMove` away from where the hold began, so a source
 * that keeps climbing (1 → 9 → 81 → 729) is never believed by waiting: only once it settles.
 *
 * The decision is one pure function (`decideMove`), applied to the rows of `quoted_rates` by every
 * instance under a lock of the table (`settleMoves`), so that all instances on one database agree on
 * what is held, and an operator's accept, written by the CLI, is seen by each at its next refresh. A
 * book without a database (the tests of the book alone) keeps the same rows in memory.
 */
import { ratioOf, ratioToDecimal, type Ratio } from '../../../core/money.js';
import type { Database, Queryable } from '../../db/index.js';
import { within } from './quorum.js';

/** A code's row: what it was last quoted at, and the move held, if any. */
export interface QuotedRate {
  code: string;
  value: Ratio;
  quotedAt: Date;
  held: { value: Ratio; since: Date } | null;
  acceptedAt: Date | null;
}

/** What a refresh did to a code's row, for the log. */
export type MoveEvent =
  | { kind: 'first' }
  | { kind: 'followed' }
  | { kind: 'held'; from: Ratio; to: Ratio }
  | { kind: 'still_held' }
  | { kind: 'reverted' }
  | { kind: 'persisted'; from: Ratio; to: Ratio; since: Date };

/** How moves are judged (from the settings). */
export interface MoveRules {
  maxMove: Ratio;
  confirmMs: number;
}

/** The digits a kept value is written with: 20 significant (a move is judged to a tenth of a percent, not to the 20th digit). */
const KEPT_DIGITS = 20;
/** A ratio as the decimal string kept in `quoted_rates` (and shown). */
export const keptDecimal = (value: Ratio) => ratioToDecimal(value, KEPT_DIGITS);

/** The row after a refresh found `value` for its code at `now`, and what happened (see the module comment). */
export function decideMove(row: QuotedRate | undefined, code: string, value: Ratio, rules: MoveRules, now: Date): { row: QuotedRate; event: MoveEvent } {
  const quoted = (event: MoveEvent, acceptedAt: Date | null = row?.acceptedAt ?? null) => ({
    row: { code, value, quotedAt: now, held: null, acceptedAt },
    event,
  });
  if (!row) return quoted({ kind: 'first' });
  if (within(value, row.value, rules.maxMove)) return quoted(row.held ? { kind: 'reverted' } : { kind: 'followed' });
  if (row.held && within(value, row.held.value, rules.maxMove)) {
    if (now.getTime() - row.held.since.getTime() >= rules.confirmMs) {
      return quoted({ kind: 'persisted', from: row.value, to: value, since: row.held.since }, now);
    }
    return { row, event: { kind: 'still_held' } };
  }
  // A new move, or the held one moved on: the hold starts (again) here.
  return { row: { ...row, held: { value, since: now } }, event: { kind: 'held', from: row.value, to: value } };
}

interface Row {
  code: string;
  quoted_value: string;
  quoted_at: Date;
  held_value: string | null;
  held_since: Date | null;
  accepted_at: Date | null;
}

const COLUMNS = 'code, quoted_value::text AS quoted_value, quoted_at, held_value::text AS held_value, held_since, accepted_at';

const fromRow = (row: Row): QuotedRate => ({
  code: row.code,
  value: ratioOf(row.quoted_value),
  quotedAt: row.quoted_at,
  held: row.held_value === null || row.held_since === null ? null : { value: ratioOf(row.held_value), since: row.held_since },
  acceptedAt: row.accepted_at,
});

/** Every code's row. */
export async function readQuotedRates(db: Queryable): Promise<Map<string, QuotedRate>> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM quoted_rates`);
  return new Map(rows.map((row) => [row.code, fromRow(row)]));
}

/**
 * Applies `decideMove` to each code of `values` under a lock of `quoted_rates` (one refresh of one
 * instance at a time), writes the rows that changed, and answers every row with the events.
 */
export async function settleMoves(
  db: Database,
  values: ReadonlyMap<string, Ratio>,
  rules: MoveRules,
  now: Date,
): Promise<{ rows: Map<string, QuotedRate>; events: Map<string, MoveEvent> }> {
  return db.transaction(async (tx) => {
    // Readers go on; a second refresh (another instance's) waits for this one and then sees its rows.
    await tx.query('LOCK TABLE quoted_rates IN SHARE ROW EXCLUSIVE MODE');
    const rows = await readQuotedRates(tx);
    const events = new Map<string, MoveEvent>();
    const changed: QuotedRate[] = [];
    for (const [code, value] of values) {
      const decision = decideMove(rows.get(code), code, value, rules, now);
      events.set(code, decision.event);
      if (decision.event.kind !== 'still_held') changed.push(decision.row);
      rows.set(code, decision.row);
    }
    if (changed.length) {
      const text = (value: Ratio | undefined) => (value ? keptDecimal(value) : null);
      await tx.query(
        `INSERT INTO quoted_rates (code, quoted_value, quoted_at, held_value, held_since, accepted_at)
         SELECT * FROM unnest($1::text[], $2::numeric[], $3::timestamptz[], $4::numeric[], $5::timestamptz[], $6::timestamptz[])
         ON CONFLICT (code) DO UPDATE SET quoted_value = EXCLUDED.quoted_value, quoted_at = EXCLUDED.quoted_at,
           held_value = EXCLUDED.held_value, held_since = EXCLUDED.held_since, accepted_at = EXCLUDED.accepted_at`,
        [
          changed.map((row) => row.code),
          changed.map((row) => keptDecimal(row.value)),
          changed.map((row) => row.quotedAt),
          changed.map((row) => text(row.held?.value)),
          changed.map((row) => row.held?.since ?? null),
          changed.map((row) => row.acceptedAt),
        ],
      );
    }
    return { rows, events };
  });
}

/**
 * The operator's accept: each of `codes` that is held is quoted at the value held from now on (its
 * next refresh quotes what the sources then agree on, if it is within the allowed move of that).
 * Answers the rows accepted; a code that is not held is left as it is.
 */
export async function acceptMoves(db: Database, codes: readonly string[], now: Date): Promise<QuotedRate[]> {
  const { rows } = await db.query<Row>(
    `UPDATE quoted_rates SET quoted_value = held_value, quoted_at = $2, held_value = NULL, held_since = NULL, accepted_at = $2
      WHERE code = ANY($1::text[]) AND held_value IS NOT NULL RETURNING ${COLUMNS}`,
    [codes, now],
  );
  return rows.map(fromRow);
}
