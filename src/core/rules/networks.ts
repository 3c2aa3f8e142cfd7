/**
 * Networks a withdrawal can use, as the service's configuration describes them (more
 * networks are configuration, not code). Nothing here lists a network: the service reads them from
 * its chain adapter and serves them at `GET /v1/withdrawal/networks`, which is where the admin's
 * withdrawal form takes its choices from. Isomorphic: no DOM, no Node, no zod.
 */
import type { AssetId } from '../money.js';

/**
 * What an operator must be told about a network until it is mended: a deposit address holds what the
 * books cannot explain, the hot wallet holds less than the payouts need, a block held as final changed.
 */
export const NETWORK_ALERT_CODES = ['reconciliation_mismatch', 'hot_wallet_low', 'chain_finality_violated'] as const;

/** A network as the rules and the admin need it (the service's `Network` has these fields and more). */
export interface NetworkInfo {
  /** Canonical id, as the API returns it (`bsc`). */
  id: string;
  /** Human name (`BNB Smart Chain`). */
  name: string;
  /** Other spellings accepted on input, compared case-insensitively. */
  aliases: readonly string[];
  /** Assets this network carries. */
  assets: readonly AssetId[];
}

/** Finds the network named by its id or one of its aliases, in any case and with surrounding spaces. */
export function findNetwork<N extends NetworkInfo>(networks: readonly N[], name: string): N | undefined {
  const wanted = name.trim().toLowerCase();
  return networks.find((n) => n.id.toLowerCase() === wanted || n.aliases.some((a) => a.toLowerCase() === wanted));
}

/** Every asset some network carries, each once, in the networks' order. */
export function assetsOf(networks: readonly NetworkInfo[]): AssetId[] {
  return [...new Set(networks.flatMap((network) => network.assets))];
}
