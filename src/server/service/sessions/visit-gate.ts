/**
 * How many visits one client may add to one link's `visitedCount` in a window (30 minutes, as the
 * `visitId` repeat rule): a `visitId` is the client's to choose, so without this one address could
 * count a visit per random id (5,000 ids used to add 5,000). Past the share a visit is answered
 * `counted: false` and nothing is written.
 *
 * In memory, per instance: a brake on one noisy client, not an exact count (behind N instances a client
 * may add N shares). Bounded: the least recently seen pairs are forgotten first past `maxEntries`.
 */

/** A visit's place in its client's share: give it back when the visit turned out not to count. */
export interface VisitSeat {
  giveBack(): void;
}

/** Counts visits per client and link. */
export interface VisitGate {
  /** A seat for one more counted visit of `client` to `linkKey`, or `false` past the share. */
  take(client: string, linkKey: string): VisitSeat | false;
  /** Pairs tracked now (for tests). */
  readonly size: number;
}

/** Options of `createVisitGate`. */
export interface VisitGateOptions {
  /** Visits one client may add to one link per window. */
  maxPerClient: number;
  /** The window, in ms. Default 30 minutes. */
  windowMs?: number;
  /** Pairs tracked at most. Default 100 000. */
  maxEntries?: number;
  /** The clock, in ms. */
  now?: () => number;
}

interface Share {
  count: number;
  windowStart: number;
}

export function createVisitGate(options: VisitGateOptions): VisitGate {
  const windowMs = options.windowMs ?? 30 * 60 * 1000;
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order; re-inserting on each visit keeps it ordered by last use.
  const shares = new Map<string, Share>();
  return {
    take(client, linkKey) {
      const key = `${client}\n${linkKey}`;
      const at = now();
      let share = shares.get(key);
      if (share) shares.delete(key);
      if (!share || at - share.windowStart >= windowMs) share = { count: 0, windowStart: at };
      if (shares.size >= maxEntries) {
        const oldest = shares.keys().next().value;
        if (oldest !== undefined) shares.delete(oldest);
      }
      shares.set(key, share);
      if (share.count >= options.maxPerClient) return false;
      share.count++;
      const taken = share;
      let given = false;
      return {
        giveBack() {
          if (given) return;
          given = true;
          if (taken.count > 0) taken.count--;
        },
      };
    },
    get size() {
      return shares.size;
    },
  };
}
