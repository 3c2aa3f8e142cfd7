/**
 * `paylink sweep --mnemonic-file F [--to ADDRESS] [--indexes 0-99,120]`: moves the
 * tokens that deposit addresses received to the hot wallet (or `--to`), topping up their gas from
 * the hot wallet. A process of its own: it holds the deposit wallet's mnemonic, which the service
 * never sees.
 *
 * Which addresses: every deposit index whose address the service saw a transfer to (from the
 * database: `--data-dir` or `--database-url`, like `keys create`; a PGlite data dir that `serve`
 * holds is refused by its lock), plus the `--indexes` given. Idempotent and resumable: every
 * decision comes from the chain (../chain/evm/sweep.ts), and the gas top-ups take their nonces from
 * the payouts' sequence under its database lock, stored before they are broadcast, so a sweep and
 * the payout workers never collide on the hot wallet's nonces. Each token transfer out of a deposit
 * address is recorded (`deposit_sweeps`) before it is broadcast and settled from its receipt, so the
 * service's reconciliation knows what left each address.
 */
import { formatEther, type Address } from 'viem';
import { createEvmChainAdapter } from './chain/evm/adapter.js';
import type { EvmChain } from './chain/evm/chain.js';
import { connectEvmChain } from './chain/evm/connect.js';
import { parseEvmNetworks } from './chain/evm/config.js';
import { MAX_DEPOSIT_INDEX } from './chain/evm/addresses.js';
import { sweepDeposits, type SweepEvent } from './chain/evm/sweep.js';
import { openDatabase } from './db/index.js';
import { processStoredPayouts, sendStoredGasTopUp } from './service/payouts/index.js';
import { recordSweepTransfer, settleSweepTransfer } from './service/reconciliation/index.js';
import { depositIndexesWithTransfers } from './service/money-in/index.js';
import { readMnemonicFile, UsageError } from './mnemonic-file.js';
import { commandOutput } from './command-output.js';
import type { LogFields } from './log.js';

export interface SweepCommandOptions {
  mnemonicFile: string | undefined;
  to: string | undefined;
  indexes: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  /** The `PAYLINK_EVM_*` settings (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Where the report goes: each line, its code and fields (default: stdout, as text at a terminal and JSON lines elsewhere). */
  out?: (line: string, code: string, fields?: LogFields) => void;
}

/** Parses `0-99,120` into the listed indexes; throws a `UsageError` that says what is wrong. */
export function parseIndexRanges(text: string): number[] {
  const out = new Set<number>();
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    const from = match ? Number(match[1]) : NaN;
    const to = match?.[2] !== undefined ? Number(match[2]) : from;
    if (!match || !(from <= to) || to > MAX_DEPOSIT_INDEX) throw new UsageError(`--indexes: "${part}" is not an index or a range such as 0-99`);
    if (to - from > 100_000) throw new UsageError(`--indexes: ${part} is more than 100,000 addresses; sweep it in parts`);
    for (let n = from; n <= to; n++) out.add(n);
  }
  if (out.size === 0) throw new UsageError('--indexes lists no index (e.g. 0-99,120)');
  return [...out].sort((a, b) => a - b);
}

function describe(event: SweepEvent): [line: string, code: string, fields: LogFields] {
  const at = { index: event.index, address: event.address };
  switch (event.type) {
    case 'waiting':
      return [`  #${event.index} ${event.address}: waiting (${event.reason})`, 'sweep_waiting', { ...at, reason: event.reason }];
    case 'top-up':
      return [
        `  #${event.index} ${event.address}: gas top-up ${formatEther(event.value)} (${event.txHash})`,
        'sweep_gas_top_up',
        { ...at, txHash: event.txHash },
      ];
    case 'transfer':
      return [
        `  #${event.index} ${event.address}: ${event.amount} ${event.assetId} → ${event.txHash}`,
        'sweep_transfer',
        { ...at, assetId: event.assetId, txHash: event.txHash },
      ];
  }
}

/** Runs the sweep; resolves with the exit code. */
export async function runSweepCommand(options: SweepCommandOptions): Promise<number> {
  const command = commandOutput();
  const out = options.out ?? ((line: string, code: string, fields?: LogFields) => command.print(code, line, fields));
  const mnemonic = readMnemonicFile(options.mnemonicFile, 'sweep');
  const extra = options.indexes === undefined ? [] : parseIndexRanges(options.indexes);
  // The hot wallet pays the gas top-ups, so its key is needed even with --to; the xpub, when set, is checked against the mnemonic.
  const configs = parseEvmNetworks(options.env ?? process.env, { xpub: false, payoutKey: true });
  for (const warning of configs[0]!.warnings) command.say('warn', 'evm_config_warning', `paylink: ${warning}`);

  const db = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir });
  const chains: EvmChain[] = [];
  try {
    for (const config of configs) chains.push(await connectEvmChain(config));
    const adapter = createEvmChainAdapter(chains);
    const deps = { db, chain: adapter, now: () => new Date() };
    // First, any hot-wallet transaction stored but not yet taken by a node (an earlier sweep's top-up).
    await processStoredPayouts(deps, [], { checkMs: 0 });
    let failed = false;
    // Every network in turn: one address space, so an index may hold tokens on several of them.
    for (const chain of chains) {
      const fromDatabase = await depositIndexesWithTransfers(db, chain.network.id);
      const indexes = [...new Set([...fromDatabase, ...extra])].sort((a, b) => a - b);
      out(
        `Sweeping ${indexes.length} deposit address(es) on ${chain.network.name} (chain ${chain.config.chainId}) to ${options.to ?? chain.hotWallet}`,
        'sweep_started',
        {
          network: chain.network.id,
          addresses: indexes.length,
        },
      );
      const report = await sweepDeposits({
        chain,
        mnemonic,
        indexes,
        destination: options.to,
        sendGas: async (to: Address, value: bigint) => (await sendStoredGasTopUp(deps, chain.network.id, to, value)) as `0x${string}`,
        onProgress: (event) => out(...describe(event)),
        // What leaves each address, recorded before it is sent: the service's reconciliation subtracts it from the address's books.
        record: {
          signed: (transfer) =>
            recordSweepTransfer(
              db,
              {
                blockchainId: chain.network.id,
                txHash: transfer.txHash,
                depositIndex: transfer.index,
                address: transfer.address,
                assetId: transfer.assetId,
                token: transfer.token,
                amount: transfer.amount,
              },
              new Date(),
            ),
          settled: (txHash, outcome) => settleSweepTransfer(db, chain.network.id, txHash, outcome, new Date()),
        },
      });
      for (const entry of report.addresses)
        for (const token of entry.tokens)
          if (token.status !== 'success')
            out(
              `  #${entry.index} ${entry.address}: ${token.amount} ${token.assetId} ${token.status}${token.reason ? ` (${token.reason})` : ''}`,
              'sweep_not_moved',
              {
                index: entry.index,
                address: entry.address,
                assetId: token.assetId,
                outcome: token.status,
              },
            );
      const moved = Object.entries(report.moved).map(([asset, amount]) => `${amount} ${asset}`);
      out(`Done: ${report.checked} checked, ${report.addresses.length} held tokens; moved ${moved.length ? moved.join(', ') : 'nothing'}.`, 'sweep_done', {
        network: chain.network.id,
        checked: report.checked,
        held: report.addresses.length,
      });
      if (report.addresses.some((entry) => entry.tokens.some((token) => token.status !== 'success'))) failed = true;
    }
    return failed ? 1 : 0;
  } finally {
    await Promise.all(chains.map((chain) => chain.close()));
    await db.close();
  }
}
