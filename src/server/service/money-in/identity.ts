/**
 * At start, each network's node against what the database holds of it: its chain id and the blocks
 * held as final (./scanner.ts holds the chain to them at every round).
 */
import { defaultLogger } from '../../log.js';
import { payoutsHalted, raiseAlert } from '../alerts/index.js';
import { finalCreditBlocks, readNetworkRecord, recordChainId } from './repository.js';

import type { ScannerDeps } from './scanner.js';

/**
 * The database belongs to another chain than the node's (another chain id, or the same id with other
 * blocks: a reset local chain, a replaced testnet), or the chain was reorganized past a block the
 * database held as final. The message names the network, what the database holds, what the node
 * serves, and the way out.
 */
export class ChainIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainIdentityError';
  }
}

/**
 * Checks, before anything reads or sends on it, that each network's node serves the chain this
 * database was used with: the same chain id, and the blocks it holds as final (its checkpoint, and the
 * blocks of credited transfers that became final above it) with the same hashes. A network the
 * database has not seen yet is recorded. Throws `ChainIdentityError` naming the problem: on another
 * chain new payments would be missed for good and payouts would wait on a nonce gap; after a
 * reorganization past finality, money the ledger holds as final may be gone. A final block with
 * another hash raises the `chain_finality_violated` alert (payouts on the network halt) before it
 * throws; a network halted so refuses until `paylink chain resume`. The node's own errors (down,
 * slow) are thrown as they are.
 */
export async function verifyChainIdentity(deps: Pick<ScannerDeps, 'db' | 'chain' | 'now' | 'logger'>): Promise<void> {
  if (deps.chain.kind !== 'real') return;
  const logger = deps.logger ?? defaultLogger;
  const wayOut = (network: string) =>
    `Point the node setting of ${network} (its *_RPC_URL) at the chain this database was used with, or start the service on a fresh database (another --data-dir or --database-url).`;
  const resume = (network: string) =>
    `If the node is right, look at what the reorganization took back, then run: paylink chain resume --network ${network} (it reverses the credits that are gone and resumes payouts). If it is the wrong chain, point ${network}'s *_RPC_URL at the right one.`;
  for (const { blockchainId, incoming } of deps.chain.chains) {
    const record = await readNetworkRecord(deps.db, blockchainId);
    if (!record) {
      await recordChainId(deps.db, blockchainId, incoming.chainId, deps.now());
      continue;
    }
    if (record.chainId !== incoming.chainId) {
      throw new ChainIdentityError(
        `network ${blockchainId}: this database was used with chain ${record.chainId}, but the node serves chain ${incoming.chainId} (another chain). ${wayOut(blockchainId)}`,
      );
    }
    if (await payoutsHalted(deps.db, blockchainId)) {
      throw new ChainIdentityError(
        `network ${blockchainId}: payouts are halted: a block this database held as final has another hash on the node (a reorganization past finality, chain_finality_violated). ${resume(blockchainId)}`,
      );
    }
    if (!record.checkpoint) continue;
    const { block, hash } = record.checkpoint;
    const nodeHash = await incoming.blockHash(block);
    if (nodeHash === null) {
      const head = await incoming.latestBlock();
      throw new ChainIdentityError(
        `network ${blockchainId}: the node has no block ${block} (its latest is ${head}), which this database already read as final: the chain (id ${incoming.chainId}) was reset. ${wayOut(blockchainId)}`,
      );
    }
    const held = [{ block, hash }, ...(await finalCreditBlocks(deps.db, blockchainId, block))];
    for (const final of held) {
      const now = final.block === block ? nodeHash.toLowerCase() : await incoming.blockHash(final.block);
      if (now === null || now === final.hash) continue;
      const message = `network ${blockchainId}: the node's block ${final.block} is ${now}, but this database held ${final.hash} there as final: the chain was reorganized past finality (or this node serves another chain with the same id, ${incoming.chainId}). Payouts on ${blockchainId} are halted.`;
      const detail = { block: final.block, heldHash: final.hash, nodeHash: now };
      if (
        await raiseAlert(
          deps.db,
          { blockchainId, code: 'chain_finality_violated', message: `${message} Run: paylink chain resume --network ${blockchainId}`, detail },
          deps.now(),
        )
      ) {
        logger.error('chain_finality_violated', message, { blockchainId, ...detail });
      }
      throw new ChainIdentityError(`${message} ${resume(blockchainId)}`);
    }
  }
}
