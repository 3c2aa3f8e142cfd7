/**
 * The EVM chain's settings, read from the environment: which networks there are (one from the
 * unprefixed settings, `PAYLINK_EVM_RPC_URL`, …, network `PAYLINK_EVM_NETWORK`, default `bsc`; or
 * several named by `PAYLINK_EVM_NETWORKS=bsc,polygon`, each with its id in its settings' names,
 * `PAYLINK_EVM_POLYGON_RPC_URL`, …), each read by ./network-settings.ts, and the secrets every network
 * shares (the deposit xpub and the payout key, ./secrets.ts). What `EvmConfig` holds is defined here.
 *
 * Every bad or missing setting gets its own sentence naming the variable and what it should hold,
 * and all of them are reported at once, so an operator fixes the whole configuration in one pass.
 * A private key never appears in a message, not even a malformed one (the secrets: ./secrets.ts), and
 * neither does a node URL (it often carries a provider's key).
 */
import type { AssetId } from '../../../core/money.js';
import { listOf, parseNetworkSettings, SHARED_PREFIX, type NetworkSettings } from './network-settings.js';
import { settingPrefix, type AddNetworkParameters } from './networks.js';
import { parseSecrets, type SecretKey } from './secrets.js';

export { KNOWN_CHAINS, type AddNetworkParameters } from './networks.js';
export { checkAccountXpub, SecretKey } from './secrets.js';

/** The parsed settings of one EVM network (with the secrets every network shares). */
export interface EvmConfig {
  /** The first node URL of `*_RPC_URL`. May embed a provider key: never log it. */
  rpcUrl: string;
  /** Every node URL of `*_RPC_URL` (comma-separated): reads fail over between them. */
  rpcUrls: string[];
  /** `*_CHAIN_ID`: checked against `eth_chainId` on connect. */
  chainId: number;
  /** The network id the API uses (`PAYLINK_EVM_NETWORK`, default `bsc`, or an id of `PAYLINK_EVM_NETWORKS`). */
  network: string;
  /** The prefix of this network's settings: `PAYLINK_EVM_` for the single network, `PAYLINK_EVM_BSC_` for `bsc` of `PAYLINK_EVM_NETWORKS`. */
  settingPrefix: string;
  /** Human name of the network: `*_NAME`, else the well-known network's or chain's name, else the id. */
  networkName: string;
  /** Other spellings of the network id the API accepts (a well-known network's). */
  aliases: string[];
  /** Block explorer base (`*_EXPLORER_URL`, else the well-known one), if any. */
  explorerUrl: string | undefined;
  /** `*_TOKENS`: each asset's ERC-20 contract, EIP-55. */
  tokens: Partial<Record<AssetId, string>>;
  /** `*_CONFIRMATIONS`: confirmations before a transfer counts (default 3, or the well-known network's). */
  confirmations: number;
  /** `*_FINALITY_DEPTH`: blocks behind the head that count as final where the node has no `finalized` tag. */
  finalityDepth: number;
  /**
   * `*_REPLACE_CONFIRM_MS`: how long a proof that another transaction used a payout's nonce for good
   * must hold (seen again after this long, at a newer finalized block) before the payout is signed again.
   */
  replaceAfterMs: number;
  /** `PAYLINK_EVM_XPUB`: account-level extended public key (m/44'/60'/0'), shared by every network. */
  xpub: string | undefined;
  /** From `PAYLINK_EVM_PAYOUT_KEY_FILE` or `PAYLINK_EVM_PAYOUT_KEY`: the hot wallet's key, shared by every network. */
  payoutKey: SecretKey | undefined;
  /** `*_POLL_MS`: how often new blocks are scanned (default 1000). */
  pollMs: number;
  /**
   * `*_RECONCILE_S` (with `PAYLINK_EVM_NETWORKS`, else `PAYLINK_EVM_RECONCILE_S` for every network),
   * given in seconds (default 300), held in ms: how often the deposit addresses' balances are
   * reconciled with the books, and the hot wallet held against what the payouts owe.
   */
  reconcileMs: number;
  /** `*_RECONCILE_BATCH` (likewise): most `balanceOf` calls in one Multicall3 call (default 500). */
  reconcileBatch: number;
  /**
   * `*_MIN_GAS`: the least gas money the hot wallet should keep, in wei (given in the network's coin,
   * e.g. `0.05`); undefined: enough for 20 token transfers at the current fee.
   */
  minGas: bigint | undefined;
  /** The network's coin (`BNB`), which pays the gas: the well-known network's, `*_NATIVE_CURRENCY`, else ETH. */
  nativeCurrency: { symbol: string; decimals: number };
  /**
   * What a browser wallet needs to add the network, for the checkout: a well-known network's, or one
   * built from `*_WALLET_RPC_URL` (public node URLs a wallet may use) and `*_NATIVE_CURRENCY`.
   * Undefined where no public node URL is known (a wallet that lacks the network cannot add it).
   */
  addNetwork: AddNetworkParameters | undefined;
  /** Advice that does not stop a start (e.g. a key file others can read). */
  warnings: string[];
}

/** One bad or missing setting. */
export interface EvmConfigProblem {
  /** The environment variable (`PAYLINK_EVM_CHAIN_ID`). */
  setting: string;
  message: string;
}

/** Thrown by `parseEvmConfig` with every problem found; `message` has one line per problem. */
export class EvmConfigError extends Error {
  readonly problems: EvmConfigProblem[];
  constructor(problems: EvmConfigProblem[]) {
    super(`The EVM chain is not configured correctly:\n${problems.map((p) => `- ${p.message}`).join('\n')}`);
    this.name = 'EvmConfigError';
    this.problems = problems;
  }
}

/** Which secrets the caller needs: the service needs both, `paylink sweep` no xpub. */
export interface EvmConfigNeeds {
  /** Require `PAYLINK_EVM_XPUB` (default true). */
  xpub?: boolean;
  /** Require a payout key (default true). */
  payoutKey?: boolean;
}

type Env = Record<string, string | undefined>;

const NETWORK_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** Reads a setting: unset and empty (a blank line in an env file) are the same. */
function reader(env: Env) {
  return (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
}

/** Collects problems; `has` tells whether a setting has one already. */
export interface Problem {
  (setting: string, message: string): void;
  readonly list: EvmConfigProblem[];
  has(setting: string): boolean;
}

/** A new, empty collection of problems. */
export function collector(): Problem {
  const list: EvmConfigProblem[] = [];
  const problem = (setting: string, message: string) => void list.push({ setting, message });
  return Object.assign(problem, { list, has: (setting: string) => list.some((p) => p.setting === setting) });
}

/**
 * Reads the one network of the unprefixed settings from `env`. Throws `EvmConfigError` listing
 * every problem. Unset and empty variables are the same (a blank line in an env file means "not set").
 */
export function parseEvmConfig(env: Env = process.env, needs: EvmConfigNeeds = {}): EvmConfig {
  const warnings: string[] = [];
  const problem = collector();
  const read = reader(env);

  const network = (read('PAYLINK_EVM_NETWORK') ?? 'bsc').toLowerCase();
  if (!NETWORK_ID.test(network)) {
    problem('PAYLINK_EVM_NETWORK', `PAYLINK_EVM_NETWORK must be a short id of letters, digits and dashes (default bsc), not "${network}"`);
  }
  const settings = parseNetworkSettings(read, network, SHARED_PREFIX, problem, { chainIdRequired: true });
  const secrets = parseSecrets(read, needs, problem, warnings);
  if (problem.list.length) throw new EvmConfigError(problem.list);
  return { ...settings, ...secrets, warnings };
}

/**
 * Reads every network: those of `PAYLINK_EVM_NETWORKS` (each from its prefixed settings), or, without
 * it, the one network of the unprefixed settings (`parseEvmConfig`). Throws `EvmConfigError` listing
 * every problem of every network.
 */
export function parseEvmNetworks(env: Env = process.env, needs: EvmConfigNeeds = {}): EvmConfig[] {
  const read = reader(env);
  const list = read('PAYLINK_EVM_NETWORKS');
  if (list === undefined) return [parseEvmConfig(env, needs)];
  const warnings: string[] = [];
  const problem = collector();
  const ids = listOf(list).map((id) => id.toLowerCase());
  if (ids.length === 0) problem('PAYLINK_EVM_NETWORKS', 'PAYLINK_EVM_NETWORKS lists no network: name them as bsc,polygon,…');
  const seen = new Set<string>();
  const networks: NetworkSettings[] = [];
  for (const id of ids) {
    if (!NETWORK_ID.test(id)) {
      problem('PAYLINK_EVM_NETWORKS', `PAYLINK_EVM_NETWORKS: "${id}" is not a short id of letters, digits and dashes`);
      continue;
    }
    if (seen.has(id)) {
      problem('PAYLINK_EVM_NETWORKS', `PAYLINK_EVM_NETWORKS names ${id} twice`);
      continue;
    }
    seen.add(id);
    networks.push(parseNetworkSettings(read, id, settingPrefix(id), problem, { chainIdRequired: false }));
  }
  const chainIds = new Map<number, string>();
  for (const network of networks) {
    const other = chainIds.get(network.chainId);
    if (network.chainId > 0 && other)
      problem(
        `${settingPrefix(network.network)}CHAIN_ID`,
        `${other} and ${network.network} are both chain ${network.chainId}: give each network its own chain`,
      );
    chainIds.set(network.chainId, network.network);
  }
  // An alias of one network must not be another network's id.
  for (const network of networks) {
    for (const alias of network.aliases) {
      if (seen.has(alias) && alias !== network.network) network.aliases = network.aliases.filter((a) => a !== alias);
    }
  }
  const unprefixed = ['PAYLINK_EVM_RPC_URL', 'PAYLINK_EVM_CHAIN_ID', 'PAYLINK_EVM_TOKENS', 'PAYLINK_EVM_NETWORK'].filter((name) => read(name) !== undefined);
  if (unprefixed.length)
    warnings.push(
      `${unprefixed.join(', ')} ${unprefixed.length === 1 ? 'is' : 'are'} ignored: PAYLINK_EVM_NETWORKS is set, so each network takes its own PAYLINK_EVM_<ID>_* settings`,
    );
  const secrets = parseSecrets(read, needs, problem, warnings);
  if (problem.list.length) throw new EvmConfigError(problem.list);
  return networks.map((network) => ({ ...network, ...secrets, warnings }));
}
