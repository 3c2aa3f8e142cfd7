/**
 * The chain adapter: the only part of the service that talks to a blockchain. The service is
 * written against this interface; the built-in implementation is the sandbox (./sandbox.ts).
 */
import type { AssetId } from '../../core/money.js';

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
}

export interface ChainAdapter {
  /** True for the sandbox: no real funds move, and `simulate-payment` exists. */
  readonly sandbox: boolean;
  readonly networks: readonly Network[];
}

/** Finds the network named by an id or one of its aliases, case-insensitively. */
export function findNetwork(networks: readonly Network[], name: string): Network | undefined {
  const wanted = name.trim().toLowerCase();
  return networks.find((n) => n.id.toLowerCase() === wanted || n.aliases.some((a) => a.toLowerCase() === wanted));
}

/** The one network the service supports today. */
export const BSC: Network = {
  id: 'bsc',
  name: 'BNB Smart Chain',
  aliases: ['bnb-smart-chain', 'bnb smart chain', 'binance-smart-chain', 'binance smart chain', 'bep20', 'bep-20', 'bnb'],
  assets: ['USDT', 'CNGN'],
};
