/**
 * Steps 4 to 6 of a scanner's round (./scanner.ts): follows the transfers it recorded until they have
 * their confirmations and credits each once, follows the credited ones until their blocks are final
 * (or reverses one a reorganization took back), and holds the chain to what the database holds as
 * final (halting payouts on the network when it disagrees).
 */
import { randomUUID } from 'node:crypto';
import type { ScannerDeps } from './scanner.js';
import type { IncomingChain, ObservedTransfer } from '../../chain/types.js';
import { type Logger } from '../../log.js';
import { raiseAlert } from '../alerts/index.js';
import { recordEvent } from '../events/index.js';
import { lockOrderForPayment } from '../orders/index.js';
import { finalizeCredit, reverseCredit } from './finality.js';
import {
  closeWaiting,
  creditedUnfinal,
  finalCreditBlocks,
  lockSessionById,
  lockWaiting,
  moveWaiting,
  othersWaitingInTime,
  setConfirmations,
  setSessionStatus,
  waitingTransfers,
  type WaitingTransfer,
} from './repository.js';
import { orderOfSession } from '../sessions/settling.js';
import { settleTransfer } from './settlement.js';

import { creditableAmount, observedOf } from './transfers.js';

/** The steps of one network's scanner that follow what it recorded, sharing one round's block hashes. */
export function createTransferFollower(deps: ScannerDeps, incoming: IncomingChain, logger: Logger) {
  const { db } = deps;
  const network = incoming.blockchainId;
  const required = incoming.confirmations;

  /** Ends a waiting transfer that will not be credited, and puts its session back when nothing else is waiting. */
  const dropTransfer = async (row: WaitingTransfer, status: 'gone' | 'ignored') => {
    await db.transaction(async (tx) => {
      const now = deps.now();
      const session = await lockSessionById(tx, row.session_id);
      if (!(await closeWaiting(tx, row.id, status, now)) || !session) return;
      if (session.status === 'confirming' && !(await othersWaitingInTime(tx, session.id, row.id))) {
        const before = Number(session.paid_amount) > 0 ? 'underpaid' : 'awaiting_payment';
        await setSessionStatus(tx, session.id, 'confirming', before, now);
      }
      await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
    });
  };

  /** Credits a transfer with its N confirmations, once. */
  const credit = async (row: WaitingTransfer, current: ObservedTransfer) => {
    const amount = creditableAmount(row.amount);
    if (amount === null) {
      logger.info('transfer_below_ledger_unit', 'a transfer below 0.000001 (or beyond the ledger) was recorded, not credited', {
        blockchainId: network,
        txHash: row.tx_hash,
        assetId: row.asset_id,
        amount: row.amount,
      });
      return dropTransfer(row, 'ignored');
    }
    await db.transaction(async (tx) => {
      // Its order (if any), the session, then the transfer: the order every path takes, so instances never deadlock.
      const orderId = await orderOfSession(tx, row.session_id);
      if (orderId) await lockOrderForPayment(tx, orderId);
      await lockSessionById(tx, row.session_id);
      const locked = await lockWaiting(tx, row.id);
      if (!locked) return; // credited (or dropped) by another instance meanwhile
      const othersConfirming = await othersWaitingInTime(tx, row.session_id, row.id);
      const transferId = randomUUID();
      const settled = await settleTransfer(
        tx,
        {
          blockchainId: network,
          txHash: current.txHash,
          logIndex: current.logIndex,
          assetId: row.asset_id,
          toAddress: row.to_address,
          amount,
          sandbox: false,
          arrivedAt: row.block_time,
        },
        deps.now(),
        { othersConfirming, transferId },
      );
      if (settled.duplicate) {
        // Already credited under this hash and log index (no path leads here; never credit twice).
        logger.error('transfer_credited_already', 'a transfer was credited already under its hash and log index: not again', {
          blockchainId: network,
          txHash: current.txHash,
          logIndex: current.logIndex,
        });
        await closeWaiting(tx, row.id, 'ignored', deps.now());
        return;
      }
      await closeWaiting(tx, row.id, 'credited', deps.now(), transferId);
    });
  };

  /** The hash of block `number` as the node has it now (null: it has none), read once per round. */
  const hashAt = async (hashes: Map<number, string | null>, number: number) => {
    if (!hashes.has(number)) hashes.set(number, await incoming.blockHash(number));
    return hashes.get(number)!;
  };

  /** Says that the node answered nothing for a transfer its block still holds: it waits. */
  const unanswered = (row: WaitingTransfer) =>
    logger.throttled(
      'warn',
      'transfer_receipt_missing',
      'the node has no receipt for a transfer whose block it still holds: it waits, credited once the node answers',
      {
        blockchainId: network,
        txHash: row.tx_hash,
        block: row.block_number ?? undefined,
      },
      60_000,
    );

  /** Step 5: finalizes the credited transfers the final block has passed, and reverses those a reorg took back. */
  const finalize = async (latest: number, finalBlock: number, hashes: Map<number, string | null>) => {
    for (const row of await creditedUnfinal(db, network, 1_000)) {
      const block = row.block_number;
      if (block !== null && block > latest) continue; // above what this node shows: nothing to conclude
      const now = block === null ? undefined : await hashAt(hashes, block);
      if (now === null) continue; // the node has no block there (for now): proves nothing
      if (now === row.block_hash) {
        if (block! <= finalBlock) await db.transaction((tx) => finalizeCredit(tx, row.transfer_id, deps.now()));
        continue;
      }
      // Another block at its height, or none since a reorg: where is the transfer now?
      const check = await incoming.recheck(observedOf(row, network), { latestBlock: latest });
      if (check.status === 'gone') {
        const reversed = await db.transaction((tx) => reverseCredit(tx, row.transfer_id, deps.now()));
        if (reversed) {
          logger.error(
            'payment_reversed',
            'a credited payment is no longer on the chain (a reorg took it back before it was final): reversed, its funds taken out of the pending balance',
            {
              blockchainId: network,
              sessionId: reversed.session_id,
              transferId: reversed.id,
              txHash: row.tx_hash,
              assetId: reversed.asset_id,
              amount: reversed.amount,
            },
          );
        }
      } else {
        const moved = check.status === 'mined' ? check.transfer : undefined;
        await db.transaction((tx) =>
          moveWaiting(
            tx,
            row.id,
            {
              logIndex: moved?.logIndex ?? row.log_index,
              blockNumber: moved?.blockNumber ?? null,
              blockHash: moved?.blockHash ?? null,
              confirmations: check.status === 'mined' ? check.confirmations : 0,
            },
            deps.now(),
            'credited',
          ),
        );
      }
    }
  };

  /** Step 4: follows every waiting transfer at the tip `latest`. */
  const follow = async (latest: number, hashes: Map<number, string | null>) => {
    for (const row of await waitingTransfers(db, network, 1_000)) {
      const block = row.block_number;
      if (block !== null && block > latest) continue; // above what this node shows: nothing to conclude
      const now = block === null ? undefined : await hashAt(hashes, block);
      if (now === null) continue; // the node has no block there (for now): proves nothing
      const inPlace = block !== null && now === row.block_hash;
      const confirmations = inPlace ? latest - block + 1 : 0;
      if (inPlace && confirmations < required) {
        await db.transaction(async (tx) => {
          if (await setConfirmations(tx, row.id, confirmations, deps.now())) await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
        });
        continue;
      }
      // N confirmations (re-checked by the receipt before crediting), or a reorg proven by the hash.
      const check = await incoming.recheck(observedOf(row, network), { latestBlock: latest });
      if (check.status !== 'mined' && inPlace) {
        // Its block is still there, with its log: the node's "no receipt" is the node's, not the chain's.
        unanswered(row);
      } else if (check.status === 'gone') {
        await dropTransfer(row, 'gone');
      } else if (check.status === 'pending') {
        await db.transaction(async (tx) => {
          await moveWaiting(tx, row.id, { logIndex: row.log_index, blockNumber: null, blockHash: null, confirmations: 0 }, deps.now());
          await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
        });
      } else if (check.confirmations >= required) {
        await credit(row, check.transfer);
      } else {
        const moved = check.transfer;
        await db.transaction(async (tx) => {
          await moveWaiting(
            tx,
            row.id,
            { logIndex: moved.logIndex, blockNumber: moved.blockNumber, blockHash: moved.blockHash, confirmations: check.confirmations },
            deps.now(),
          );
          await recordEvent(tx, { type: 'session.changed', sessionId: row.session_id });
        });
      }
    }
  };

  /**
   * Step 6: the blocks the database holds as final, against the node. Resolves with the first one the
   * node reports with another hash, or undefined (a block the node has not, or not yet, proves nothing).
   */
  const violatedFinality = async (latest: number, hashes: Map<number, string | null>, checkpoint: { block: number; hash: string } | null) => {
    if (!checkpoint) return undefined;
    const held = [checkpoint, ...(await finalCreditBlocks(db, network, checkpoint.block))];
    for (const block of held) {
      if (block.block > latest) continue;
      const now = await hashAt(hashes, block.block);
      if (now !== null && now !== block.hash) return { block: block.block, heldHash: block.hash, nodeHash: now };
    }
    return undefined;
  };

  /** Halts payouts on the network: a block held as final has another hash on the node. */
  const halt = async (violation: { block: number; heldHash: string; nodeHash: string }) => {
    const message =
      `Block ${violation.block}, which this service held as final on ${network}, now has another hash on the node: the chain was reorganized past finality. ` +
      `Payouts on ${network} are halted; money in is still scanned. Look at what happened, then run: paylink chain resume --network ${network}`;
    const raised = await raiseAlert(db, { blockchainId: network, code: 'chain_finality_violated', message, detail: violation }, deps.now());
    if (raised) logger.error('chain_finality_violated', message, { blockchainId: network, ...violation });
  };

  return { follow, finalize, credit, violatedFinality, halt };
}
