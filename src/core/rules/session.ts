/**
 * The statuses of a checkout session and what they mean, defined once for the service, the client
 * and the elements. Isomorphic: no DOM, no Node, no zod.
 *
 * `awaiting_payment` → (`confirming`, on real chains) → `paid` | `underpaid` | `overpaid`, and an open
 * session → `expired` when its quote runs out. On a real chain a session whose payment a reorg took
 * back before it was final becomes `reversed` (terminal: its funds left the balance).
 */

/** Every status a session can have. */
export const SESSION_STATUSES = ['awaiting_payment', 'confirming', 'paid', 'underpaid', 'overpaid', 'expired', 'reversed'] as const;

/** One session status. */
export type SessionStatusName = (typeof SESSION_STATUSES)[number];

/** Statuses in which a session still takes payments (its quote may still run out). */
export const OPEN_STATUSES: ReadonlySet<SessionStatusName> = new Set(['awaiting_payment', 'underpaid']);

/**
 * Statuses in which money is still on its way to a session: the open ones, or a transfer confirming.
 * Spelled out rather than spread from `OPEN_STATUSES` so that bundles that do not use it drop it (a
 * spread is kept); a test holds it to the open ones plus `confirming`.
 */
export const UNSETTLED_STATUSES: ReadonlySet<SessionStatusName> = new Set(['awaiting_payment', 'underpaid', 'confirming']);

/** Statuses of a session whose full amount (or more) arrived: the link counted one payment. */
export const SETTLED_STATUSES: ReadonlySet<SessionStatusName> = new Set(['paid', 'overpaid']);

/** Statuses after which a session never changes again (its event stream ends, watchers stop). */
export const TERMINAL_STATUSES: ReadonlySet<SessionStatusName> = new Set(['paid', 'overpaid', 'expired', 'reversed']);
