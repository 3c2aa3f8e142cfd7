/**
 * `paylink chain resume --network <id>`: after a reorganization past finality halted payouts on a
 * network (`chain_finality_violated`) and an operator has looked at it, takes back what the
 * reorganization took back and lets the network run again:
 *
 * 1. every credit the chain the node serves now no longer holds is reversed (final or not): its own
 *    ledger entry, its session `reversed`, a `payment.reversed` webhook (../service/money-in/resume.ts);
 * 2. a balance a reversal took below zero (its funds had been withdrawn) first gets back what waits in
 *    its withdrawals not yet paid out (`pending`, nothing signed), newest first: each fails with the
 *    reason, its funds returned, a `withdrawal.failed` webhook; whatever is still short stays owed
 *    (`owed` in `GET /v1/balance`, `available` 0): later payments repay it before anything can be
 *    withdrawn, and the log says so (`balance_owed`);
 * 3. the node's finalized block becomes the network's checkpoint, and the alert is cleared: payouts
 *    go on, and `serve` starts again.
 *
 * It runs beside running instances on PostgreSQL (they keep scanning, their payouts halted until the
 * alert is cleared); a PGlite data dir that `serve` holds is refused by its lock.
 */
import type { EvmChain } from './chain/evm/chain.js';
import { connectEvmChain } from './chain/evm/connect.js';
import { createEvmChainAdapter } from './chain/evm/adapter.js';
import { parseEvmNetworks } from './chain/evm/config.js';
import type { ChainAdapter } from './chain/types.js';
import { openDatabase, type Database } from './db/index.js';
import { defaultLogger, type Logger } from './log.js';
import { clearAlert, payoutsHalted } from './service/alerts/index.js';
import { applyLedgerChanges, assetAmount, owingBalances } from './service/ledger/index.js';
import { recordCurrentCheckpoint, ResumeError, reverseVanishedCredits, type ReversalReport } from './service/money-in/index.js';
import { announceWithdrawals, failWaitingOf } from './service/withdrawals/index.js';
import { UsageError } from './mnemonic-file.js';

export { ResumeError } from './service/money-in/index.js';

/** The reason a waiting withdrawal is failed with when its balance lost the funds. */
const RELEASE_REASON =
  'Not paid: a payment credited to this balance was taken back by a reorganization of the chain past finality (payment.reversed), and the balance no longer holds these funds.';

/** What `resumeNetwork` found and did. */
export interface ResumeReport extends ReversalReport {
  blockchainId: string;
  /** Whether payouts on the network were halted (`chain_finality_violated`) before. */
  wasHalted: boolean;
  /** Withdrawals not yet paid out that were failed, their funds back in the balance that lost them. */
  released: Array<{ withdrawalId: string; integratorId: string; assetId: string; amount: string }>;
  /** Balances still owing after that: what they had paid out already of the funds taken back. */
  owed: Array<{ integratorId: string; assetId: string; owed: string }>;
  /** The network's new checkpoint, on the chain the node serves now. */
  checkpoint: { block: number; hash: string };
}

/** Resumes network `blockchainId` (see the module comment). Idempotent. */
export async function resumeNetwork(
  deps: { db: Database; chain: ChainAdapter; now: () => Date; logger?: Logger | undefined },
  blockchainId: string,
): Promise<ResumeReport> {
  const logger = deps.logger ?? defaultLogger;
  const wasHalted = await payoutsHalted(deps.db, blockchainId);
  const reversal = await reverseVanishedCredits(deps, blockchainId);
  for (const credit of reversal.reversed) {
    logger.error('payment_reversed', 'a credited payment is no longer on the chain (a reorganization took it back): reversed', {
      blockchainId,
      sessionId: credit.sessionId,
      transferId: credit.transferId,
      txHash: credit.txHash,
      assetId: credit.assetId,
      amount: credit.amount,
      final: credit.final,
    });
  }
  const released: ResumeReport['released'] = [];
  for (const owing of await owingBalances(deps.db, blockchainId)) {
    await deps.db.transaction(async (tx) => {
      const now = deps.now();
      const failed = await failWaitingOf(tx, owing, owing.owed, RELEASE_REASON, now);
      await applyLedgerChanges(
        tx,
        failed.map((withdrawal) => ({
          integratorId: withdrawal.integrator_id,
          assetId: withdrawal.asset_id,
          blockchainId: withdrawal.blockchain_id,
          kind: 'withdrawal_release' as const,
          availableDelta: assetAmount(withdrawal.amount),
          pendingDelta: `-${assetAmount(withdrawal.amount)}`,
          withdrawalId: withdrawal.id,
        })),
      );
      await announceWithdrawals(
        tx,
        failed.map((withdrawal) => ({ type: 'withdrawal.failed' as const, id: withdrawal.id, integratorId: withdrawal.integrator_id })),
        now,
      );
      for (const withdrawal of failed)
        released.push({
          withdrawalId: withdrawal.id,
          integratorId: withdrawal.integrator_id,
          assetId: withdrawal.asset_id,
          amount: assetAmount(withdrawal.amount),
        });
    });
  }
  const owed = (await owingBalances(deps.db, blockchainId)).map(({ integratorId, assetId, owed }) => ({ integratorId, assetId, owed }));
  for (const balance of owed) {
    logger.error(
      'balance_owed',
      'a reversal took back funds the balance had paid out already: it owes them, later payments repay it first, and nothing can be withdrawn until then',
      {
        blockchainId,
        integratorId: balance.integratorId,
        assetId: balance.assetId,
        owed: balance.owed,
      },
    );
  }
  const checkpoint = await recordCurrentCheckpoint(deps, blockchainId);
  await clearAlert(deps.db, blockchainId, 'chain_finality_violated');
  logger.warn('chain_resumed', `payouts on ${blockchainId} resumed after a reorganization past finality`, {
    blockchainId,
    reversed: reversal.reversed.length,
    moved: reversal.moved.length,
    released: released.length,
    owing: owed.length,
    checkpointBlock: checkpoint.block,
  });
  return { blockchainId, wasHalted, ...reversal, released, owed, checkpoint };
}

export interface ChainCommandOptions {
  /** `resume` (the only one). */
  action: string | undefined;
  network: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  /** The `PAYLINK_EVM_*` settings (default `process.env`). */
  env?: Record<string, string | undefined>;
  out?: (line: string) => void;
  /** Where a refusal is said (default stderr). */
  err?: (line: string) => void;
  logger?: Logger;
}

/** Runs `paylink chain <action>`; resolves with the exit code. Throws `UsageError` on bad usage. */
export async function runChainCommand(options: ChainCommandOptions): Promise<number> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  if (options.action !== 'resume') throw new UsageError(`unknown chain command: ${options.action ?? '(none)'}; try "paylink chain resume --network <id>"`);
  if (!options.network) throw new UsageError('chain resume needs --network <id>: the network whose payouts a reorganization past finality halted');
  const configs = parseEvmNetworks(options.env ?? process.env, { xpub: false, payoutKey: false });
  const config = configs.find((c) => c.network === options.network);
  if (!config) throw new UsageError(`no network ${options.network} in the settings (configured: ${configs.map((c) => c.network).join(', ')})`);
  const db = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir });
  let chain: EvmChain | undefined;
  try {
    chain = await connectEvmChain(config);
    const report = await resumeNetwork({ db, chain: createEvmChainAdapter([chain]), now: () => new Date(), logger: options.logger }, config.network);
    out(
      report.wasHalted
        ? `Payouts on ${config.network} were halted (chain_finality_violated).`
        : `Payouts on ${config.network} were not halted; checked all the same.`,
    );
    out(
      report.intactBlock === null
        ? 'No credited block of this database is on the node as it was.'
        : `Credits up to block ${report.intactBlock} are on the chain as credited.`,
    );
    for (const credit of report.reversed)
      out(`Reversed ${credit.amount} ${credit.assetId} (transaction ${credit.txHash}, session ${credit.sessionId}${credit.final ? ', it was final' : ''}).`);
    for (const moved of report.moved) out(`Kept ${moved.txHash}: now in block ${moved.block}.`);
    for (const withdrawal of report.released)
      out(`Failed withdrawal ${withdrawal.withdrawalId} of ${withdrawal.amount} ${withdrawal.assetId}: its balance lost these funds; they are back in it.`);
    for (const balance of report.owed)
      out(
        `Balance of integrator ${balance.integratorId} owes ${balance.owed} ${balance.assetId} (paid out before the reorganization): later payments repay it first.`,
      );
    out(`Checkpoint: block ${report.checkpoint.block} (${report.checkpoint.hash}). Payouts on ${config.network} resume.`);
    return 0;
  } catch (error) {
    if (!(error instanceof ResumeError)) throw error;
    (options.err ?? ((line: string) => process.stderr.write(`${line}\n`)))(`paylink: ${error.message}`);
    return 1;
  } finally {
    await chain?.close();
    await db.close();
  }
}
