/**
 * The EVM chain's settings, read from the environment: one network from the unprefixed settings
 * (`PAYLINK_EVM_RPC_URL`, …, network `PAYLINK_EVM_NETWORK`, default `bsc`), or several named by
 * `PAYLINK_EVM_NETWORKS=bsc,polygon`, each with its id in its settings' names
 * (`PAYLINK_EVM_POLYGON_RPC_URL`, …). Well-known ids (./networks.ts) give defaults that a setting
 * overrides. The deposit xpub and the payout key are shared by every network.
 *
 * Every bad or missing setting gets its own sentence naming the variable and what it should hold,
 * and all of them are reported at once, so an operator fixes the whole configuration in one pass.
 * A private key never appears in a message, not even a malformed one (the secrets: ./secrets.ts), and
 * neither does a node URL (it often carries a provider's key).
 */
import { ASSET_IDS, type AssetId } from '../../../core/money.js';
import { checkEvmAddress } from './address.js';
import { parseSecrets, SecretKey } from './secrets.js';
import { DEFAULT_FINALITY_DEPTH, KNOWN_CHAINS, knownNetwork, settingPrefix, type AddNetworkParameters } from './networks.js';

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
   * `*_RECONCILE_S` (with `PAYLINK_EVM_NETWORKS`, else `PAYLINK_EVM_RECONCILE_S` for every network):
   * seconds between reconciliations of the deposit addresses' balances with the books (default 300).
   */
  reconcileS: number;
  /** `*_RECONCILE_BATCH` (likewise): most `balanceOf` calls in one Multicall3 call (default 500). */
  reconcileBatch: number;
  /**
   * `*_MIN_GAS`: the least gas money the hot wallet should keep, in wei (given in the network's coin,
   * e.g. `0.05`); undefined: enough for 20 token transfers at the current fee.
   */
  minGas: bigint | undefined;
  /** The network's coin (`BNB`), which pays the gas: the well-known network's, `*_NATIVE_CURRENCY`, else ETH. */
  nativeCurrency: { symbol: string; decimals: number };
  /** `reconcileS` in ms: how often the hot wallet is held against what the payouts owe, too. */
  reconcileMs: number;
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

export function collector(): Problem {
  const list: EvmConfigProblem[] = [];
  const problem = (setting: string, message: string) => void list.push({ setting, message });
  return Object.assign(problem, { list, has: (setting: string) => list.some((p) => p.setting === setting) });
}

/** Checks one http(s)/ws(s) URL of `setting`, never echoing it (a node URL often carries a provider's key). */
function checkUrl(url: string, setting: string, problem: Problem, what: string): boolean {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (!protocol) problem(setting, `${setting} is not a URL: give ${what} as http(s)://host[:port][/path] or ws(s)://…`);
  else if (!['http:', 'https:', 'ws:', 'wss:'].includes(protocol)) problem(setting, `${setting} must use http, https, ws or wss, not ${protocol.slice(0, -1)}`);
  else return true;
  return false;
}

/**
 * One network's settings, named `${prefix}RPC_URL`, `${prefix}CHAIN_ID`, …; `chainIdRequired` when
 * no well-known default may stand in (the single network, as it always was).
 */
function parseNetwork(read: (name: string) => string | undefined, network: string, prefix: string, problem: Problem, options: { chainIdRequired: boolean }) {
  const name = (setting: string) => `${prefix}${setting}`;
  const known = knownNetwork(network);

  // RPC_URL: one node, or several separated by commas.
  const rpcSetting = name('RPC_URL');
  const rpcText = read(rpcSetting);
  const rpcUrls: string[] = [];
  if (!rpcText) {
    problem(rpcSetting, `${rpcSetting} is missing: set it to the JSON-RPC URL of an EVM node (http(s):// or ws(s)://), or several separated by commas`);
  } else {
    for (const url of rpcText
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean))
      if (checkUrl(url, rpcSetting, problem, 'each node')) rpcUrls.push(url);
  }

  // CHAIN_ID
  const chainSetting = name('CHAIN_ID');
  const chainIdText = read(chainSetting);
  let chainId = 0;
  if (!chainIdText) {
    if (options.chainIdRequired || !known) {
      problem(
        chainSetting,
        `${chainSetting} is missing: set it to the EIP-155 chain id the node must serve (56 for BNB Smart Chain, 97 for its testnet, 31337 for a local anvil)`,
      );
    } else {
      chainId = known.chainId;
    }
  } else if (!/^\d+$/.test(chainIdText) || !Number.isSafeInteger(Number(chainIdText)) || Number(chainIdText) <= 0) {
    problem(chainSetting, `${chainSetting} must be a positive whole number (e.g. 56), not "${chainIdText}"`);
  } else {
    chainId = Number(chainIdText);
  }

  // TOKENS
  const tokensSetting = name('TOKENS');
  const tokens: Partial<Record<AssetId, string>> = {};
  const tokensText = read(tokensSetting);
  const example = 'USDT=0x…,CNGN=0x…';
  if (!tokensText) {
    problem(tokensSetting, `${tokensSetting} is missing: list each asset's ERC-20 contract as ${example}`);
  } else {
    const seen = new Map<string, AssetId>();
    for (const entry of tokensText
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const match = /^([^=\s]+)\s*=\s*(\S+)$/.exec(entry);
      if (!match) {
        problem(tokensSetting, `${tokensSetting}: "${entry}" is not ASSET=0xADDRESS (expected ${example})`);
        continue;
      }
      const asset = match[1]!.toUpperCase();
      if (!(ASSET_IDS as readonly string[]).includes(asset)) {
        problem(tokensSetting, `${tokensSetting}: unknown asset "${match[1]}" (known: ${ASSET_IDS.join(', ')})`);
        continue;
      }
      const assetId = asset as AssetId;
      if (tokens[assetId]) {
        problem(tokensSetting, `${tokensSetting} names ${assetId} twice`);
        continue;
      }
      const check = checkEvmAddress(match[2]!);
      if (!check.ok) {
        problem(tokensSetting, `${tokensSetting}: the ${assetId} contract "${match[2]}" is not valid: ${check.message}`);
        continue;
      }
      const other = seen.get(check.address.toLowerCase());
      if (other) {
        problem(tokensSetting, `${tokensSetting} gives ${other} and ${assetId} the same contract ${check.address}`);
        continue;
      }
      seen.set(check.address.toLowerCase(), assetId);
      tokens[assetId] = check.address;
    }
    if (Object.keys(tokens).length === 0 && !problem.has(tokensSetting))
      problem(tokensSetting, `${tokensSetting} lists no token: give at least one as ${example}`);
  }

  // The well-known defaults hold only on the well-known chain (a local chain under the id `bsc` is not BNB Smart Chain).
  const wellKnown = known && known.chainId === chainId ? known : undefined;
  const confirmations = positiveInteger(
    read(name('CONFIRMATIONS')),
    wellKnown?.confirmations ?? 3,
    1,
    10_000,
    name('CONFIRMATIONS'),
    'a whole number of blocks from 1 to 10000 (default 3)',
    problem,
  );
  const finalityDepth = positiveInteger(
    read(name('FINALITY_DEPTH')),
    wellKnown?.finalityDepth ?? DEFAULT_FINALITY_DEPTH,
    1,
    100_000,
    name('FINALITY_DEPTH'),
    `a whole number of blocks from 1 to 100000 (default ${wellKnown?.finalityDepth ?? DEFAULT_FINALITY_DEPTH})`,
    problem,
  );
  const replaceAfterMs = positiveInteger(
    read(name('REPLACE_CONFIRM_MS')),
    300_000,
    0,
    86_400_000,
    name('REPLACE_CONFIRM_MS'),
    'a whole number of milliseconds from 0 to 86400000 (default 300000: 5 minutes)',
    problem,
  );
  const pollMs = positiveInteger(
    read(name('POLL_MS')),
    1_000,
    10,
    3_600_000,
    name('POLL_MS'),
    'a whole number of milliseconds from 10 to 3600000 (default 1000)',
    problem,
  );
  // Reconciliation: a network's own setting, else the one of every network.
  const reconcileSetting = read(name('RECONCILE_S')) !== undefined || prefix === 'PAYLINK_EVM_' ? name('RECONCILE_S') : 'PAYLINK_EVM_RECONCILE_S';
  const reconcileS = positiveInteger(
    read(reconcileSetting),
    300,
    1,
    86_400,
    reconcileSetting,
    'a whole number of seconds from 1 to 86400 (default 300)',
    problem,
  );
  const batchSetting = read(name('RECONCILE_BATCH')) !== undefined || prefix === 'PAYLINK_EVM_' ? name('RECONCILE_BATCH') : 'PAYLINK_EVM_RECONCILE_BATCH';
  const reconcileBatch = positiveInteger(read(batchSetting), 500, 1, 5_000, batchSetting, 'a whole number of calls from 1 to 5000 (default 500)', problem);
  const minGasText = read(name('MIN_GAS'));
  const minGas = minGasText === undefined ? undefined : parseGasAmount(minGasText);
  if (minGas === null) {
    problem(
      name('MIN_GAS'),
      `${name('MIN_GAS')} must be an amount of the network's coin, such as 0.05 (or in wei: 50000000000000000wei; default: enough for 20 transfers at the current fee), not "${minGasText}"`,
    );
  }

  const chain = KNOWN_CHAINS[chainId];
  const networkName = read(name('NAME')) ?? wellKnown?.name ?? chain?.name ?? (network === 'bsc' ? 'BNB Smart Chain' : network);
  const explorerText = read(name('EXPLORER_URL'));
  let explorerUrl = wellKnown?.explorerUrl ?? chain?.explorerUrl;
  if (explorerText) {
    if (/^https?:\/\/\S+$/i.test(explorerText) && URL.canParse(explorerText)) explorerUrl = explorerText.replace(/\/+$/, '');
    else problem(name('EXPLORER_URL'), `${name('EXPLORER_URL')} must be an http(s) URL such as https://bscscan.com, not "${explorerText}"`);
  }
  const walletSetting = name('WALLET_RPC_URL');
  const walletRpcUrls: string[] = [];
  for (const url of (read(walletSetting) ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)) {
    if (/^https?:\/\/\S+$/i.test(url) && URL.canParse(url)) walletRpcUrls.push(url);
    else problem(walletSetting, `${walletSetting} must list public http(s) node URLs a wallet may add, such as https://bsc-dataseed.bnbchain.org`);
  }
  const symbol = read(name('NATIVE_CURRENCY'));
  if (symbol !== undefined && !/^[A-Za-z0-9]{2,6}$/.test(symbol))
    problem(
      name('NATIVE_CURRENCY'),
      `${name('NATIVE_CURRENCY')} must be the symbol of the network's coin (2 to 6 letters or digits, e.g. BNB), not "${symbol}"`,
    );
  const rpcForWallets = walletRpcUrls.length ? walletRpcUrls : (wellKnown?.walletRpcUrls ?? []);
  const currency = symbol
    ? { name: symbol, symbol, decimals: 18 }
    : (wellKnown?.nativeCurrency ?? (known ? known.nativeCurrency : { name: 'Ether', symbol: 'ETH', decimals: 18 }));
  const addNetwork: AddNetworkParameters | undefined =
    chainId > 0 && rpcForWallets.length
      ? {
          chainId: `0x${chainId.toString(16)}`,
          chainName: networkName,
          nativeCurrency: currency,
          rpcUrls: rpcForWallets,
          blockExplorerUrls: explorerUrl ? [explorerUrl] : undefined,
        }
      : undefined;

  return {
    settingPrefix: prefix,
    rpcUrl: rpcUrls[0] ?? '',
    rpcUrls,
    chainId,
    network,
    networkName,
    aliases: known?.id === network ? [...known.aliases] : [],
    explorerUrl,
    tokens,
    confirmations,
    finalityDepth,
    replaceAfterMs,
    pollMs,
    reconcileS,
    reconcileBatch,
    reconcileMs: reconcileS * 1_000,
    minGas: minGas ?? undefined,
    nativeCurrency: { symbol: currency.symbol, decimals: currency.decimals },
    addNetwork,
  };
}

/**
 * An amount of gas money in wei, from `0.05` (the network's coin, 18 decimals), `50000000000000000wei`
 * or `50000000gwei`; a whole number of 13 digits or more reads as wei (nobody keeps 10^12 coins in a
 * hot wallet). Null when it is none of these.
 */
function parseGasAmount(text: string): bigint | null {
  const wei = /^(\d{1,30})\s*wei$/i.exec(text);
  if (wei) return BigInt(wei[1]!);
  const gwei = /^(\d{1,21})(?:\.(\d{1,9}))?\s*gwei$/i.exec(text);
  if (gwei) return BigInt(gwei[1]!) * 10n ** 9n + BigInt((gwei[2] ?? '').padEnd(9, '0'));
  if (/^\d{13,30}$/.test(text)) return BigInt(text);
  const coin = /^(\d{1,12})(?:\.(\d{1,18}))?$/.exec(text);
  return coin ? BigInt(coin[1]!) * 10n ** 18n + BigInt((coin[2] ?? '').padEnd(18, '0')) : null;
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
  const settings = parseNetwork(read, network, 'PAYLINK_EVM_', problem, { chainIdRequired: true });
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
  const ids = list
    .split(',')
    .map((id) => id.trim().toLowerCase())
    .filter(Boolean);
  if (ids.length === 0) problem('PAYLINK_EVM_NETWORKS', 'PAYLINK_EVM_NETWORKS lists no network: name them as bsc,polygon,…');
  const seen = new Set<string>();
  const networks: Array<ReturnType<typeof parseNetwork>> = [];
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
    networks.push(parseNetwork(read, id, settingPrefix(id), problem, { chainIdRequired: false }));
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

function positiveInteger(
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
  setting: string,
  expected: string,
  problem: (setting: string, message: string) => void,
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    problem(setting, `${setting} must be ${expected}, not "${text}"`);
    return fallback;
  }
  return value;
}
