/**
 * The EVM networks Paylink knows by id, with the defaults their settings override: the name, the
 * EIP-155 chain id, the confirmations before a transfer is credited, the finality depth used where a
 * node has no `finalized` block tag, the block explorer, other spellings the API accepts, and what a
 * browser wallet needs to add the network (EIP-3085 `wallet_addEthereumChain`), which the public
 * checkout view hands to the checkout so that the bundle carries no network table.
 */
import type { AddNetworkParameters } from '../network.js';

export type { AddNetworkParameters } from '../network.js';

/** Defaults of a well-known network id. */
export interface KnownNetwork {
  name: string;
  chainId: number;
  confirmations: number;
  /** Blocks behind the head that count as final where the node has no `finalized` tag. */
  finalityDepth: number;
  explorerUrl: string;
  aliases: string[];
  nativeCurrency: { name: string; symbol: string; decimals: number };
  /** Public RPC URLs a wallet may add (never the service's own node). */
  walletRpcUrls: string[];
}

const ETH = { name: 'Ether', symbol: 'ETH', decimals: 18 };

/** The networks known by id. */
export const KNOWN_NETWORKS: Readonly<Record<string, KnownNetwork>> = {
  bsc: {
    name: 'BNB Smart Chain',
    chainId: 56,
    confirmations: 3,
    finalityDepth: 15,
    explorerUrl: 'https://bscscan.com',
    aliases: [
      'bnb-smart-chain',
      'bnb smart chain',
      'binance-smart-chain',
      'binance smart chain',
      'bep20',
      'bep-20',
      'bnb',
      'bnb_smart_chain',
      'bsc-mainnet',
      'binance',
    ],
    nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: 18 },
    walletRpcUrls: ['https://bsc-dataseed.bnbchain.org'],
  },
  'bsc-testnet': {
    name: 'BNB Smart Chain Testnet',
    chainId: 97,
    confirmations: 3,
    finalityDepth: 15,
    explorerUrl: 'https://testnet.bscscan.com',
    aliases: ['bsc_testnet', 'bnb-testnet', 'bsc testnet'],
    nativeCurrency: { name: 'BNB', symbol: 'tBNB', decimals: 18 },
    walletRpcUrls: ['https://data-seed-prebsc-1-s1.bnbchain.org:8545'],
  },
  ethereum: {
    name: 'Ethereum',
    chainId: 1,
    confirmations: 12,
    finalityDepth: 64,
    explorerUrl: 'https://etherscan.io',
    aliases: ['eth', 'mainnet', 'erc20', 'erc-20', 'ethereum-mainnet'],
    nativeCurrency: ETH,
    walletRpcUrls: ['https://ethereum-rpc.publicnode.com'],
  },
  sepolia: {
    name: 'Sepolia',
    chainId: 11155111,
    confirmations: 3,
    finalityDepth: 64,
    explorerUrl: 'https://sepolia.etherscan.io',
    aliases: ['eth-sepolia', 'ethereum-sepolia'],
    nativeCurrency: { name: 'Sepolia Ether', symbol: 'ETH', decimals: 18 },
    walletRpcUrls: ['https://ethereum-sepolia-rpc.publicnode.com'],
  },
  polygon: {
    name: 'Polygon',
    chainId: 137,
    confirmations: 32,
    finalityDepth: 256,
    explorerUrl: 'https://polygonscan.com',
    aliases: ['matic', 'pol', 'polygon-pos', 'polygon pos'],
    nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
    walletRpcUrls: ['https://polygon-rpc.com'],
  },
  base: {
    name: 'Base',
    chainId: 8453,
    confirmations: 10,
    finalityDepth: 64,
    explorerUrl: 'https://basescan.org',
    aliases: ['base-mainnet'],
    nativeCurrency: ETH,
    walletRpcUrls: ['https://mainnet.base.org'],
  },
  arbitrum: {
    name: 'Arbitrum One',
    chainId: 42161,
    confirmations: 20,
    finalityDepth: 64,
    explorerUrl: 'https://arbiscan.io',
    aliases: ['arbitrum-one', 'arbitrum one', 'arb'],
    nativeCurrency: ETH,
    walletRpcUrls: ['https://arb1.arbitrum.io/rpc'],
  },
  optimism: {
    name: 'OP Mainnet',
    chainId: 10,
    confirmations: 10,
    finalityDepth: 64,
    explorerUrl: 'https://optimistic.etherscan.io',
    aliases: ['op', 'op-mainnet', 'op mainnet'],
    nativeCurrency: ETH,
    walletRpcUrls: ['https://mainnet.optimism.io'],
  },
};

/** Names and explorers of chain ids, for a network id whose well-known chain id is not the one configured (a local chain, say). */
export const KNOWN_CHAINS: Readonly<Record<number, { name: string; explorerUrl: string | undefined }>> = {
  56: { name: 'BNB Smart Chain', explorerUrl: 'https://bscscan.com' },
  97: { name: 'BNB Smart Chain Testnet', explorerUrl: 'https://testnet.bscscan.com' },
  31337: { name: 'Local chain', explorerUrl: undefined },
};

/** Finality depth of a network that is not well known and has no `finalized` tag. */
export const DEFAULT_FINALITY_DEPTH = 64;

/** The well-known network with this id or alias (any case), if any. */
export function knownNetwork(id: string): (KnownNetwork & { id: string }) | undefined {
  const wanted = id.trim().toLowerCase();
  for (const [known, network] of Object.entries(KNOWN_NETWORKS)) {
    if (known === wanted || network.aliases.includes(wanted)) return { ...network, id: known };
  }
  return undefined;
}

/** The prefix of a network's settings: `PAYLINK_EVM_BSC_TESTNET_` for `bsc-testnet`. */
export function settingPrefix(networkId: string): string {
  return `PAYLINK_EVM_${networkId.toUpperCase().replace(/-/g, '_')}_`;
}
