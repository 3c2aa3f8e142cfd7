/**
 * Tracing a deposit address whose balance at a final block is not what the books say, without
 * trusting the node's log index: the books' own history of the address (what was credited there and
 * swept out of it, by block) against its balance at past blocks (`balanceOf` at a block number), in a
 * binary search for the first block where the two part; then that block's receipts, for a transfer to
 * the address the books do not hold. Such a transfer is handed to the scanner's own crediting
 * (`creditFound`): recorded once under its identity and credited once, whoever else finds it too.
 * After each credit the history is read again and the search starts over, a few times at most.
 */
import { parseUnits } from 'viem';
import type { AssetId } from '../../../core/money.js';
import type { ObservedTransfer, ReconcileChain } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { receivedTransfers } from '../money-in/index.js';
import { sweptTransfers, type LastRun } from './repository.js';

/** What a trace ended with. */
export interface TraceResult {
  /** What the books say the address holds at the final block now, and what it holds (base units). */
  expected: bigint;
  actual: bigint;
  /** Transfers found and credited (or recorded as too small to credit) on the way. */
  credited: ObservedTransfer[];
  /**
   * `matched`; `unexplained`: no transfer of that block explains the change; `not_credited`: a transfer
   * explains it but the settlement took none (no session of this network at the address, or another
   * asset); `deficit`: less than the books; `untraced`: no block where the books and the chain last agreed.
   */
  reason: 'matched' | 'unexplained' | 'not_credited' | 'deficit' | 'untraced';
  /** The first block where the balance and the books part (null when not searched). */
  tracedBlock: number | null;
}

/** What a trace needs. */
export interface TraceInput {
  db: Database;
  chain: ReconcileChain;
  /** The scanner's crediting of a transfer found outside its rounds. */
  creditFound: (transfer: ObservedTransfer, latest: number) => Promise<string>;
  blockchainId: string;
  sessionId: string;
  /** Lowercase. */
  address: string;
  assetId: AssetId;
  token: { address: string; decimals: number };
  createdAt: Date;
  /** The final block the run reads at, the tip it is judged at, and the balance there. */
  final: number;
  latest: number;
  actual: bigint;
  /** The last completed run, when the address matched at its block (a lower bound of the search). */
  matchedAt: LastRun | null;
}

/** Searches this many times at most per address and run (each credit found starts a new search). */
const MAX_ROUNDS = 5;
/** Block times and the service's clock may disagree: the search starts this long before the session was created. */
const CLOCK_MARGIN_MS = 10 * 60 * 1000;

/** Traces one address (see the module comment). */
export async function traceAddress(input: TraceInput): Promise<TraceResult> {
  const { db, chain, blockchainId, address, token, final } = input;
  const credited: ObservedTransfer[] = [];
  let events: Array<{ block: number; delta: bigint }> = [];
  let known = new Set<string>();
  const loadBooks = async () => {
    const received = await receivedTransfers(db, blockchainId, input.sessionId, token.address);
    const swept = await sweptTransfers(db, blockchainId, address, token.address);
    events = [
      ...received.map((t) => ({ block: t.blockNumber, delta: parseUnits(t.amount, token.decimals) })),
      ...swept.map((t) => ({ block: t.blockNumber, delta: -parseUnits(t.amount, token.decimals) })),
    ];
    known = new Set(received.map((t) => `${t.txHash}:${t.ordinal}`));
  };
  const booksAt = (block: number) => events.reduce((sum, e) => (e.block <= block ? sum + e.delta : sum), 0n);
  const balanceAt = async (block: number) => (await chain.balancesAt(block, [{ assetId: input.assetId, holder: address }]))[0]!;
  const differenceAt = async (block: number) => (await balanceAt(block)) - booksAt(block);

  /** The last block before the session was created: its address held nothing then, and the books nothing. */
  const beforeCreation = async (): Promise<number> => {
    const time = input.createdAt.getTime() - CLOCK_MARGIN_MS;
    let lo = 0;
    let hi = final;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const header = await chain.header(mid);
      if (header && header.time.getTime() < time) lo = mid;
      else hi = mid;
    }
    return lo;
  };

  /** A block below `final` where the balance and the books agreed, or null. */
  const agreedAt = async (): Promise<number | null> => {
    if (input.matchedAt && input.matchedAt.block < final && (await differenceAt(input.matchedAt.block)) === 0n) return input.matchedAt.block;
    const created = await beforeCreation();
    return created < final && (await differenceAt(created)) === 0n ? created : null;
  };

  await loadBooks();
  let result: TraceResult = { expected: booksAt(final), actual: input.actual, credited, reason: 'matched', tracedBlock: null };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const expected = booksAt(final);
    result = { ...result, expected };
    if (expected === input.actual) return { ...result, reason: 'matched' };
    let lo = await agreedAt();
    if (lo === null) return { ...result, reason: input.actual < expected ? 'deficit' : 'untraced' };
    let hi = final;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await differenceAt(mid)) === 0n) lo = mid;
      else hi = mid;
    }
    const changed = await differenceAt(hi);
    result = { ...result, tracedBlock: hi };
    if (changed < 0n) return { ...result, reason: 'deficit' };
    const { incoming } = await chain.blockTransfers(hi, address);
    const missing = incoming.filter((t) => t.token.toLowerCase() === token.address.toLowerCase() && !known.has(`${t.txHash}:${t.ordinal}`));
    if (missing.length === 0) return { ...result, reason: input.actual < expected ? 'deficit' : 'unexplained' };
    let progress = false;
    for (const transfer of missing) {
      const status = await input.creditFound(transfer, input.latest);
      if (status === 'credited' || status === 'ignored') {
        credited.push(transfer);
        progress = true;
      }
    }
    if (!progress) return { ...result, reason: 'not_credited' };
    await loadBooks();
  }
  const expected = booksAt(final);
  return { ...result, expected, reason: expected === input.actual ? 'matched' : input.actual < expected ? 'deficit' : 'untraced' };
}
