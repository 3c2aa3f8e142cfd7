/**
 * A network, as every family describes it: its id and names, the assets it carries, and what the
 * public checkout shows of it (chain id, token contracts, explorer, the wallet's "add network"
 * parameters) where the family has such things.
 */
import type { AssetId } from '../../core/money.js';

/** What a wallet needs to add a network it does not know (`wallet_addEthereumChain`, EIP-3085). */
export interface AddNetworkParameters {
  /** `0x`-prefixed hexadecimal chain id. */
  chainId: string;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  rpcUrls: string[];
  blockExplorerUrls?: string[] | undefined;
}

/** A network withdrawals and payments can use. More networks are configuration, not code. */
export interface Network {
  /** Canonical id, as the API returns it (`bsc`). */
  id: string;
  /** Human name (`BNB Smart Chain`). */
  name: string;
  /** Other spellings accepted on input, compared case-insensitively. */
  aliases: string[];
  /** Assets this network carries. */
  assets: AssetId[];
  /** EIP-155 chain id, where the network is a real EVM chain. */
  chainId?: number | undefined;
  /** Block explorer base without a trailing slash (a transaction is `${explorerUrl}/tx/${hash}`). */
  explorerUrl?: string | undefined;
  /** Each asset's ERC-20 contract (EIP-55) and its `decimals()`, where the chain has real tokens. */
  tokens?: Partial<Record<AssetId, { address: string; decimals: number }>> | undefined;
  /** What a browser wallet needs to add the network (EIP-3085 `wallet_addEthereumChain`), where known. */
  addNetwork?: AddNetworkParameters | undefined;
}

/** The chain facts of `assetId` on `network` that the public checkout API returns (nulls on the sandbox). */
export function assetChainFacts(network: Network | undefined, assetId: AssetId) {
  const token = network?.tokens?.[assetId];
  return {
    chainId: network?.chainId ?? null,
    tokenAddress: token?.address ?? null,
    decimals: token?.decimals ?? null,
    explorerUrl: network?.explorerUrl ?? null,
    addNetwork: network?.addNetwork ?? null,
  };
}

/** Finds the network named by an id or one of its aliases, case-insensitively. */
export function findNetwork(networks: readonly Network[], name: string): Network | undefined {
  const wanted = name.trim().toLowerCase();
  return networks.find((n) => n.id.toLowerCase() === wanted || n.aliases.some((a) => a.toLowerCase() === wanted));
}
