/**
 * Group commit for work that costs a database round trip per request: requests go in turns, per
 * lane. An idle lane's first turn goes as soon as this turn of the event loop ends (`setImmediate`),
 * with every request that reached the lane meanwhile (those read from the same burst of sockets);
 * those that arrive while a turn is in flight wait for it to end and then go together, as one batch
 * (one statement). A lone request waits for nothing but the end of the current turn of the event
 * loop; a burst of fifty costs a handful of round trips instead of fifty, and holds one pool
 * connection per lane instead of queueing fifty on a row lock. Lanes run side by side.
 *
 * Under load that is what counts: a round trip costs a wake-up of the database's backend and of this
 * event loop each way, and on a busy machine the wait for the scheduler outweighs the work. Each
 * batch's query starts after every request in it arrived, so an answer is never older than its
 * request (this is batching, not a cache).
 */

/** An item of a batch: `run` settles it, or the coalescer rejects it when `run` throws. */
export interface Coalesced {
  reject(error: unknown): void;
}

export interface CoalescerOptions<Item extends Coalesced> {
  /**
   * Sends one batch (never empty) and settles each of its items, or hands some back with `again`:
   * they go first in the lane's next turn. Throwing rejects every item of the batch with the error.
   */
  run(lane: string, batch: Item[], again: (items: readonly Item[]) => void): Promise<void>;
  /** Picks the next batch from the lane's waiting items, in their order (default: the first `maxBatch`). */
  take?(waiting: readonly Item[], maxBatch: number): Item[];
  /** Most items in one batch (default 100). */
  maxBatch?: number;
}

/** Takes items and runs them in turns (see the file's comment). */
export interface Coalescer<Item extends Coalesced> {
  /** Queues `item` in `lane`: items of different lanes never share a batch. */
  add(lane: string, item: Item): void;
}

interface Lane<Item> {
  waiting: Item[];
  running: boolean;
}

/** A coalescer: keep one per resource whose requests it batches, for as long as the resource lives. */
export function createCoalescer<Item extends Coalesced>(options: CoalescerOptions<Item>): Coalescer<Item> {
  const maxBatch = options.maxBatch ?? 100;
  const take = options.take ?? ((waiting: readonly Item[]) => waiting.slice(0, maxBatch));
  const lanes = new Map<string, Lane<Item>>();

  const drain = async (name: string, lane: Lane<Item>) => {
    while (lane.waiting.length > 0) {
      const batch = take(lane.waiting, maxBatch);
      if (batch.length === 0) batch.push(lane.waiting[0]!);
      const taken = new Set(batch);
      lane.waiting = lane.waiting.filter((item) => !taken.has(item));
      try {
        await options.run(name, batch, (items) => lane.waiting.unshift(...items));
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    lane.running = false;
    lanes.delete(name);
  };

  return {
    add(name, item) {
      let lane = lanes.get(name);
      if (!lane) lanes.set(name, (lane = { waiting: [], running: false }));
      lane.waiting.push(item);
      if (lane.running) return;
      lane.running = true;
      const idle = lane;
      setImmediate(() => void drain(name, idle));
    },
  };
}
