/**
 * Connecting to one EVM network: the nodes of the settings checked to serve the configured chain,
 * each configured token checked to be an ERC-20 contract and its decimals read, before an `EvmChain`
 * (./chain.ts) is handed out. What fails here fails at start, naming the setting to fix.
 */
import { erc20Abi, getAddress, type Address } from 'viem';
import type { AssetId } from '../../../core/money.js';
import { EvmChain } from './chain.js';
import type { EvmConfig } from './config.js';
import type { EvmChainOptions, EvmToken } from './context.js';
import { EvmChainError } from './errors.js';
import { createEvmRpc, type EvmRpc } from './rpc.js';

/**
 * Connects to the nodes named by `config`: checks that they serve `config.chainId` (a mismatch
 * throws a non-retryable `EvmChainError('chain_mismatch')`), reads each token's `decimals()` (a
 * token that is not a contract throws `misconfigured`), and returns the connected chain. Nodes that
 * are down throw a retryable `EvmChainError`.
 */
export async function connectEvmChain(config: EvmConfig, options: EvmChainOptions = {}): Promise<EvmChain> {
  const rpc = createEvmRpc(config.rpcUrls?.length ? config.rpcUrls : [config.rpcUrl], options);
  try {
    const nodeChainId = await rpc.call('eth_chainId', (client) => client.getChainId());
    const prefix = config.settingPrefix ?? 'PAYLINK_EVM_';
    if (nodeChainId !== config.chainId) {
      throw new EvmChainError(
        'chain_mismatch',
        `the node serves chain ${nodeChainId}, but ${prefix}CHAIN_ID is ${config.chainId}: refusing to use it (wrong node, or wrong setting)`,
        { method: 'eth_chainId' },
      );
    }
    const tokens: EvmToken[] = [];
    for (const [assetId, address] of Object.entries(config.tokens) as Array<[AssetId, string]>) {
      tokens.push({
        assetId,
        address: getAddress(address),
        decimals: await readDecimals(rpc, `${prefix}TOKENS`, assetId, getAddress(address), config.chainId),
      });
    }
    return new EvmChain(config, rpc, tokens, options);
  } catch (error) {
    await rpc.close();
    throw error;
  }
}

/** The decimals of the token at `address`, checked to be an ERC-20 contract on the chain. */
async function readDecimals(rpc: EvmRpc, setting: string, assetId: AssetId, address: Address, chainId: number): Promise<number> {
  const code = await rpc.call('eth_getCode', (client) => client.getCode({ address }));
  if (!code || code === '0x') {
    throw new EvmChainError('misconfigured', `${setting}: ${assetId} at ${address} is not a contract on chain ${chainId}`, { method: 'eth_getCode' });
  }
  let decimals: number;
  try {
    decimals = await rpc.call('decimals()', (client) => client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }));
  } catch (error) {
    if (error instanceof EvmChainError && error.retryable) throw error;
    throw new EvmChainError('misconfigured', `${setting}: ${assetId} at ${address} does not answer decimals() like an ERC-20 token`, {
      method: 'decimals()',
      cause: error,
    });
  }
  if (decimals > 36) throw new EvmChainError('misconfigured', `${setting}: ${assetId} at ${address} reports ${decimals} decimals`, { method: 'decimals()' });
  return decimals;
}
