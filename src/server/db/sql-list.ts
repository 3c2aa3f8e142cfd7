/**
 * Constant words as the items of an SQL `IN (…)` list, so that a query names a set the code defines
 * once (`OPEN_STATUSES`) instead of repeating its members as literals. The text stays constant, so
 * the statement is the same every time it runs.
 *
 * @example
 * const OPEN = sqlList(OPEN_STATUSES); // 'awaiting_payment', 'underpaid'
 * db.query(`SELECT id FROM checkout_sessions WHERE status IN (${OPEN})`);
 */

/** `'a', 'b'`: each value quoted. Only the code's own constants (lowercase words): throws on anything else, never quotes input. */
export function sqlList(values: Iterable<string>): string {
  const items = [...values];
  if (items.length === 0) throw new Error('sqlList: an SQL IN list needs at least one item');
  for (const item of items) if (!/^[a-z][a-z0-9_]*$/.test(item)) throw new Error(`sqlList: ${JSON.stringify(item)} is not a constant word`);
  return items.map((item) => `'${item}'`).join(', ');
}
