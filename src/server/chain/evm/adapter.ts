/**
 * EVM networks as the service's real `ChainAdapter` (../types.ts): deposit addresses from the
 * shared xpub (one address space on every network: a deposit index is never given twice), and per
 * network `incoming` for its scanner, `outgoing` for its payouts (./outgoing.ts) and what
 * reconciliation reads (./balances.ts). It keeps no state: nonces, stored transactions, the scanners'
 * cursors and finality live in the database, keyed by network, under the service's locks, so any
 * number of instances share one hot wallet.
 *
 * `connectEvmAdapter` is what `paylink serve --chain evm` runs: it waits for nodes that are down
 * (saying so), and refuses for good a node of another chain or a token that is not a contract.
 */
import { getAddress, type Hex } from 'viem';
import { defaultLogger } from '../../log.js';
import type { IncomingChain, NetworkChain, ObservedTransfer, ObservedTransferCheck, RealChainAdapter } from '../types.js';
import { evmReconcileChain } from './balances.js';
import type { EvmChain, EvmChainOptions, EvmTransfer } from './chain.js';
import type { EvmConfig } from './config.js';
import { connectEvmChain } from './connect.js';
import { EvmChainError } from './errors.js';
import { evmOutgoingChain } from './outgoing.js';

/** The `ObservedTransfer` of a library transfer, with its block's time. */
function observed(chain: EvmChain, transfer: EvmTransfer, blockTime: Date): ObservedTransfer {
  return { ...transfer, blockchainId: chain.network.id, blockTime };
}

/** The library's transfer of an `ObservedTransfer` (what `recheckTransfer` takes). */
function libraryTransfer(transfer: ObservedTransfer): EvmTransfer {
  return {
    assetId: transfer.assetId,
    token: getAddress(transfer.token),
    from: getAddress(transfer.from),
    to: getAddress(transfer.to),
    amount: transfer.amount,
    txHash: transfer.txHash as Hex,
    logIndex: transfer.logIndex,
    blockNumber: transfer.blockNumber,
    blockHash: transfer.blockHash as Hex,
    ordinal: transfer.ordinal,
  };
}

/** The scanner input and payouts of one connected network. */
export function evmNetworkChain(chain: EvmChain): NetworkChain {
  const network = chain.network;
  const blockTimes = new Map<number, { hash: string; time: Date }>();

  /** Timestamps of blocks holding transfers (one call per block, cached by number and hash). */
  const blockTime = async (number: number, hash: string): Promise<Date> => {
    const cached = blockTimes.get(number);
    if (cached?.hash === hash) return cached.time;
    const block = await chain.rpc.call('eth_getBlockByNumber', (client) => client.getBlock({ blockHash: hash as Hex }));
    const time = new Date(Number(block.timestamp) * 1000);
    if (blockTimes.size > 10_000) blockTimes.clear();
    blockTimes.set(number, { hash, time });
    return time;
  };

  const incoming: IncomingChain = {
    blockchainId: network.id,
    chainId: chain.config.chainId,
    confirmations: chain.confirmations,
    pollMs: chain.config.pollMs,
    latestBlock: () => chain.latestBlock(),
    finalizedBlock: (latest) => chain.finalizedBlock(latest),
    blockHash: (number) => chain.blockHash(number),
    async transfers(query) {
      const found = await chain.transfers(query);
      const out: ObservedTransfer[] = [];
      for (const transfer of found) out.push(observed(chain, transfer, await blockTime(transfer.blockNumber, transfer.blockHash)));
      return out;
    },
    logRangeWidth: () => chain.logRange.width,
    async recheck(transfer, context = {}): Promise<ObservedTransferCheck> {
      const check = await chain.recheckTransfer(libraryTransfer(transfer), context);
      if (check.status === 'pending' || check.status === 'gone') return check;
      return {
        status: 'mined',
        moved: check.status === 'moved',
        confirmations: check.confirmations,
        transfer: { ...observed(chain, check.transfer, transfer.blockTime) },
      };
    },
  };

  return { blockchainId: network.id, incoming, outgoing: evmOutgoingChain(chain), reconcile: evmReconcileChain(chain) };
}

/**
 * The `ChainAdapter` of connected EVM networks (one or more; their ids and chain ids distinct).
 * Deposit addresses come from the first network's xpub, which every network shares. `close()`
 * closes every node connection.
 */
export function createEvmChainAdapter(chains: EvmChain | readonly EvmChain[]): RealChainAdapter {
  const list = Array.isArray(chains) ? [...(chains as readonly EvmChain[])] : [chains as EvmChain];
  if (list.length === 0) throw new RangeError('createEvmChainAdapter needs at least one network');
  const first = list[0]!;
  return {
    kind: 'real',
    sandbox: false,
    networks: list.map((chain) => chain.network),
    chains: list.map(evmNetworkChain),
    async depositAddress({ index }) {
      return first.depositAddress(index);
    },
    close: async () => {
      await Promise.all(list.map((chain) => chain.close()));
    },
  };
}

/** How `connectEvmAdapter` reports while it waits for a node. */
export interface ConnectEvmOptions extends EvmChainOptions {
  /** Progress lines (default: the process's log, `evm_node_waiting`). */
  log?: (line: string) => void;
  /** Give up after this long, in ms (default: wait as long as it takes). */
  waitMs?: number | undefined;
  /** First retry delay, doubled up to 10 s (default 1 s). */
  retryDelayMs?: number | undefined;
}

/**
 * Connects to the nodes of one network, waiting while they are down, slow or failing (a line says
 * so at each try); a node of another chain id, or a token that is not an ERC-20 contract, throws at
 * once (`EvmChainError` with `retryable: false`).
 */
export async function connectWaiting(config: EvmConfig, options: ConnectEvmOptions = {}): Promise<EvmChain> {
  const log = options.log ?? ((line: string) => defaultLogger.warn('evm_node_waiting', line));
  const started = Date.now();
  let delay = options.retryDelayMs ?? 1_000;
  const which = `${config.network}, chain ${config.chainId}`;
  for (let attempt = 1; ; attempt++) {
    try {
      const chain = await connectEvmChain(config, options);
      if (attempt > 1) log(`paylink: the EVM node answers now (${which}).`);
      return chain;
    } catch (error) {
      if (!(error instanceof EvmChainError) || !error.retryable) throw error;
      if (options.waitMs !== undefined && Date.now() - started + delay > options.waitMs) throw error;
      log(`paylink: waiting for the EVM node (${which}): ${error.message}; trying again in ${Math.round(delay / 1000)} s`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  }
}

/**
 * Connects to every network of `configs` (one config, or those of `parseEvmNetworks`) at once and
 * adapts them; see `connectWaiting`. A network that fails for good closes the others.
 */
export async function connectEvmAdapter(configs: EvmConfig | readonly EvmConfig[], options: ConnectEvmOptions = {}): Promise<RealChainAdapter> {
  const list = Array.isArray(configs) ? (configs as readonly EvmConfig[]) : [configs as EvmConfig];
  const settled = await Promise.allSettled(list.map((config) => connectWaiting(config, options)));
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  const chains = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (failed) {
    await Promise.all(chains.map((chain) => chain.close()));
    throw failed.reason;
  }
  return createEvmChainAdapter(chains);
}
