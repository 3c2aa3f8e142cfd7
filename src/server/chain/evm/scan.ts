/**
 * Reading the configured tokens' Transfer logs to the deposit addresses over a block range, on nodes
 * that cap `eth_getLogs`. Providers refuse a query they find too wide (by blocks or by results) in
 * words and codes of their own (-32005, -32602, -32614, -32000, -32600, an HTTP 413, a timeout), and
 * a new provider will find new ones, so no refusal is trusted to mean anything but "maybe too wide":
 * the range is halved down to one block (then the address list is halved) before the node is called
 * faulty. Only a node that cannot be reached at all, or a rate limit by HTTP status, is not a width
 * problem.
 *
 * `LogRangeMemory` remembers the widest range that worked, so a capped node is not refused again at
 * every call: once a 10-block cap is found, queries are 8 blocks wide (or whatever worked) and stay
 * so. It grows back carefully (a provider may lift its cap): after a run of successes it tries
 * halfway between what works and what was refused, so it converges on the cap in a few refusals.
 */
import { getAddress, type Address } from 'viem';
import type { ChainContext } from './context.js';
import { EvmChainError } from './errors.js';
import { TRANSFER_EVENT, transfersOf, type EvmTransfer, type TransferLog } from './transfers.js';

/** Successes at the remembered width before a wider range is tried again. */
const GROW_AFTER = 16;
/** Growth rounds at the cap before the refusal is forgotten and a wider range tried once more. */
const FORGET_AFTER = 64;

/** The widest `eth_getLogs` range that works on a network's nodes, learned from their refusals. */
export class LogRangeMemory {
  /** The widest range that is tried now. */
  width: number;
  /** The narrowest range refused since the last growth, if any. */
  refusedAt: number | undefined;
  #streak = 0;
  #settled = 0;

  constructor(readonly maxWidth: number) {
    this.width = Math.max(1, maxWidth);
  }

  /** A query of `width` blocks worked. */
  succeeded(width: number): void {
    if (width < this.width || this.width >= this.maxWidth) return;
    if (++this.#streak < GROW_AFTER) return;
    this.#streak = 0;
    const ceiling = Math.min(this.refusedAt ?? this.maxWidth, this.maxWidth + 1);
    if (ceiling - this.width > 1) {
      this.width = Math.min(this.maxWidth, Math.floor((this.width + ceiling) / 2));
    } else if (++this.#settled >= FORGET_AFTER) {
      // The cap is found; after a long quiet stretch it is probed again, in case the provider lifted it.
      this.#settled = 0;
      this.refusedAt = undefined;
    }
  }

  /** A query of `width` blocks was refused: the next ones are at most half as wide. */
  refused(width: number): void {
    this.#streak = 0;
    this.refusedAt = Math.min(this.refusedAt ?? Infinity, width);
    this.width = Math.max(1, Math.min(this.width, Math.floor(width / 2)));
  }
}

/** Whether a refused `eth_getLogs` may be cured by asking for less. */
function maybeTooWide(error: unknown): boolean {
  if (!(error instanceof EvmChainError)) return false;
  if (error.code === 'unreachable' || error.code === 'lagging') return false;
  // A rate limit by HTTP status is about how often, not how much.
  if (error.code === 'rate_limited' && /HTTP 429/.test(error.message)) return false;
  return true;
}

/** Splits `items` into slices of at most `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One `eth_getLogs` of the tokens' transfers to `to` in `fromBlock`…`toBlock`, on a node that has reached `toBlock`. */
function getLogs(ctx: ChainContext, fromBlock: number, toBlock: number, to: Address[]): Promise<TransferLog[]> {
  return ctx.rpc.call(
    'eth_getLogs',
    (client) =>
      client.getLogs({
        address: ctx.tokens.map((t) => t.address),
        event: TRANSFER_EVENT[0],
        args: { to },
        fromBlock: BigInt(fromBlock),
        toBlock: BigInt(toBlock),
        strict: true,
      }),
    // A refusal is handled here (narrower), not retried as it is.
    { atLeast: toBlock, retries: 0 },
  );
}

/** The logs of one block for `to`, halving the address list while the node refuses. */
async function blockLogs(ctx: ChainContext, block: number, to: Address[]): Promise<TransferLog[]> {
  try {
    return await getLogs(ctx, block, block, to);
  } catch (error) {
    if (!maybeTooWide(error) || to.length === 1) throw error;
    const half = Math.ceil(to.length / 2);
    return [...(await blockLogs(ctx, block, to.slice(0, half))), ...(await blockLogs(ctx, block, to.slice(half)))];
  }
}

/**
 * The Transfer logs of the configured tokens to any of `addresses` in blocks `fromBlock` through
 * `toBlock` (inclusive), oldest first, in ranges no wider than `memory` allows. Empty when
 * `addresses` is empty or `fromBlock > toBlock`. A `toBlock` no node has reached fails (retryable:
 * a lagging node catches up).
 */
export async function scanTransfers(
  ctx: ChainContext,
  memory: LogRangeMemory,
  query: { fromBlock: number; toBlock: number; addresses: readonly string[] },
): Promise<EvmTransfer[]> {
  const { fromBlock, toBlock } = query;
  if (!Number.isSafeInteger(fromBlock) || !Number.isSafeInteger(toBlock) || fromBlock < 0) {
    throw new RangeError(`block range must be whole numbers ≥ 0, not ${fromBlock}…${toBlock}`);
  }
  if (query.addresses.length === 0 || fromBlock > toBlock) return [];
  const addresses = [...new Set(query.addresses.map((a) => getAddress(a)))];
  const maxAddresses = Math.max(1, ctx.options.maxAddressesPerQuery ?? 500);
  const logs: TransferLog[] = [];
  for (const slice of chunks(addresses, maxAddresses)) {
    for (let start = fromBlock; start <= toBlock;) {
      const end = Math.min(toBlock, start + memory.width - 1);
      const width = end - start + 1;
      try {
        logs.push(...(width === 1 ? await blockLogs(ctx, start, slice) : await getLogs(ctx, start, end, slice)));
        memory.succeeded(width);
        start = end + 1;
      } catch (error) {
        if (width === 1 || !maybeTooWide(error)) throw error;
        memory.refused(width);
      }
    }
  }
  return transfersOf(ctx, logs);
}
