/**
 * After a reorganization past finality (the scanner's `chain_finality_violated`): what the chain the
 * node serves now no longer holds of what the database credited on a network, found and reversed once
 * an operator has looked (`paylink chain resume`, ../../chain-command.ts).
 *
 * The credited transfers' blocks are walked from the highest down, each hash against the node's, to
 * the first block the node still has as it was when the scanner read it on the chain the checkpoint
 * was on (a transfer recorded there before the checkpoint was last written): by the hash chain, that
 * chain and the node's share everything below it. (A block recorded later was read from the chain the
 * node serves now, and says nothing about the old one.)
 * Each credited transfer above it is re-checked by its receipt: one whose transaction the current
 * chain holds (in another block) stays credited, at its new place; one it does not hold (gone, or
 * back in the mempool) is reversed (./finality.ts, `orFinal`), final or not: its own ledger entry, its
 * session `reversed`, a `payment.reversed` webhook. A block the node does not have (a node still
 * syncing, or behind) stops the walk with an error: nothing is concluded from it.
 */
import { networkChain, type ChainAdapter } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { reverseCredit } from './finality.js';
import { checkpointWrittenAt, creditedBlocksBelow, creditedIn, moveWaiting, readNetworkRecord, replaceCheckpoint } from './repository.js';
import { observedOf } from './transfers.js';

/** The node cannot tell yet what the reorganization took back (it lacks a block the database holds). */
export class ResumeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResumeError';
  }
}

/** What a resume found and did on a network. */
export interface ReversalReport {
  /** The highest credited block the node still has as the database held it (null: none was checked). */
  intactBlock: number | null;
  /** Credits taken back: gone from the chain. */
  reversed: Array<{ transferId: string; sessionId: string; txHash: string; assetId: string; amount: string; integratorId: string; final: boolean }>;
  /** Credits whose transaction the current chain holds in another block: kept, at their new place. */
  moved: Array<{ transferId: string; txHash: string; block: number }>;
}

/** Distinct credited blocks read per page while walking down. */
const PAGE = 200;

/**
 * Finds and reverses, on `blockchainId`, the credits the chain the node serves now no longer holds
 * (see the module comment). Idempotent: a second run finds nothing more.
 */
export async function reverseVanishedCredits(deps: { db: Database; chain: ChainAdapter; now: () => Date }, blockchainId: string): Promise<ReversalReport> {
  const network = networkChain(deps.chain, blockchainId);
  if (!network) throw new ResumeError(`network ${blockchainId} is not configured here (PAYLINK_EVM_NETWORKS)`);
  const { incoming } = network;
  const latest = await incoming.latestBlock();
  const changed: number[] = [];
  let intactBlock: number | null = null;
  const hashOnNode = async (block: number) => {
    const hash = block > latest ? null : await incoming.blockHash(block);
    if (hash === null) {
      throw new ResumeError(
        `network ${blockchainId}: the node has no block ${block} (its latest is ${latest}), where this database credited a payment: it cannot tell yet whether the payment is still on the chain. Wait until the node has synced past it, then run this again.`,
      );
    }
    return hash;
  };
  const recordedBy = (await checkpointWrittenAt(deps.db, blockchainId)) ?? new Date(0);
  walk: for (let below = Number.MAX_SAFE_INTEGER; ;) {
    const page = await creditedBlocksBelow(deps.db, blockchainId, below, PAGE, recordedBy);
    for (const held of page) {
      if ((await hashOnNode(held.block)) !== held.hash) {
        changed.push(held.block);
      } else if (held.before) {
        intactBlock = held.block;
        break walk;
      }
    }
    if (page.length < PAGE) break;
    below = page.at(-1)!.block;
  }
  const report: ReversalReport = { intactBlock, reversed: [], moved: [] };
  for (const row of await creditedIn(deps.db, blockchainId, changed)) {
    const check = await incoming.recheck(observedOf(row, blockchainId), { latestBlock: latest });
    if (check.status === 'mined') {
      const moved = check.transfer;
      await deps.db.transaction((tx) =>
        moveWaiting(
          tx,
          row.id,
          { logIndex: moved.logIndex, blockNumber: moved.blockNumber, blockHash: moved.blockHash, confirmations: check.confirmations },
          deps.now(),
          'credited',
        ),
      );
      report.moved.push({ transferId: row.transfer_id, txHash: row.tx_hash, block: moved.blockNumber });
      continue;
    }
    const reversed = await deps.db.transaction((tx) => reverseCredit(tx, row.transfer_id, deps.now(), { orFinal: true }));
    if (reversed) {
      report.reversed.push({
        transferId: reversed.id,
        sessionId: reversed.session_id,
        txHash: row.tx_hash,
        assetId: reversed.asset_id,
        amount: reversed.amount,
        integratorId: reversed.integrator_id,
        final: reversed.final,
      });
    }
  }
  return report;
}

/**
 * Records, as `blockchainId`'s checkpoint, the node's finalized block now (the chain the service goes
 * on with), replacing the one the reorganization disagreed with; resolves with it.
 */
export async function recordCurrentCheckpoint(
  deps: { db: Database; chain: ChainAdapter; now: () => Date },
  blockchainId: string,
): Promise<{ block: number; hash: string }> {
  const network = networkChain(deps.chain, blockchainId);
  if (!network) throw new ResumeError(`network ${blockchainId} is not configured here (PAYLINK_EVM_NETWORKS)`);
  const final = await network.incoming.finalizedBlock(await network.incoming.latestBlock());
  if (!(await readNetworkRecord(deps.db, blockchainId))) throw new ResumeError(`network ${blockchainId}: this database has never run on it`);
  await replaceCheckpoint(deps.db, blockchainId, final.number, final.hash, deps.now());
  return { block: final.number, hash: final.hash };
}
