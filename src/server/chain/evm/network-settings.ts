/**
 * One EVM network's settings, each named by the network's prefix (`PAYLINK_EVM_RPC_URL` for the one
 * network of the unprefixed settings, `PAYLINK_EVM_POLYGON_RPC_URL` for `polygon` of
 * `PAYLINK_EVM_NETWORKS`): its nodes, chain, tokens, confirmations and finality, how often it is
 * scanned and reconciled, the hot wallet's gas floor, and what a browser wallet needs to add it. A
 * well-known network (./networks.ts) gives defaults that a setting overrides. Which networks there
 * are, and the secrets they share, are read by ./config.ts.
 *
 * Every bad or missing setting is told to `problem` in a sentence naming the variable and what it
 * should hold. A node URL is never echoed (it often carries a provider's key).
 */
import { ASSET_IDS, type AssetId } from '../../../core/money.js';
import { checkEvmAddress } from './address.js';
import type { EvmConfig, Problem } from './config.js';
import { DEFAULT_FINALITY_DEPTH, KNOWN_CHAINS, knownNetwork, type AddNetworkParameters, type KnownNetwork } from './networks.js';

/** What one network's own settings give (the secrets and warnings come from every network's). */
export type NetworkSettings = Omit<EvmConfig, 'xpub' | 'payoutKey' | 'warnings'>;

/** The prefix of the settings every network shares, and of the one network's when there is one. */
export const SHARED_PREFIX = 'PAYLINK_EVM_';

/** The entries of a comma-separated setting, trimmed, empty ones dropped. */
export function listOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/**
 * The settings of `network`, named `${prefix}RPC_URL`, `${prefix}CHAIN_ID`, …; `chainIdRequired` when
 * no well-known default may stand in (the single network, as it always was).
 */
export function parseNetworkSettings(
  read: (name: string) => string | undefined,
  network: string,
  prefix: string,
  problem: Problem,
  options: { chainIdRequired: boolean },
): NetworkSettings {
  const name = (setting: string) => `${prefix}${setting}`;
  const known = knownNetwork(network);
  const rpcUrls = parseRpcUrls(read, name('RPC_URL'), problem);
  const chainId = parseChainId(read, name('CHAIN_ID'), problem, options.chainIdRequired ? undefined : known);
  const tokens = parseTokens(read, name('TOKENS'), problem);

  // The well-known defaults hold only on the well-known chain (a local chain under the id `bsc` is not BNB Smart Chain).
  const wellKnown = known && known.chainId === chainId ? known : undefined;
  const whole = (setting: string, fallback: number, min: number, max: number, expected: string) =>
    wholeNumber(read(setting), fallback, min, max, setting, expected, problem);
  // A network's own setting, else (with `PAYLINK_EVM_NETWORKS`) the one of every network.
  const ownOrShared = (own: string, shared: string) => (read(own) !== undefined || prefix === SHARED_PREFIX ? own : shared);
  const confirmations = whole(name('CONFIRMATIONS'), wellKnown?.confirmations ?? 3, 1, 10_000, 'a whole number of blocks from 1 to 10000 (default 3)');
  const depth = wellKnown?.finalityDepth ?? DEFAULT_FINALITY_DEPTH;
  const finalityDepth = whole(name('FINALITY_DEPTH'), depth, 1, 100_000, `a whole number of blocks from 1 to 100000 (default ${depth})`);
  const replaceAfterMs = whole(
    name('REPLACE_CONFIRM_MS'),
    300_000,
    0,
    86_400_000,
    'a whole number of milliseconds from 0 to 86400000 (default 300000: 5 minutes)',
  );
  const pollMs = whole(name('POLL_MS'), 1_000, 10, 3_600_000, 'a whole number of milliseconds from 10 to 3600000 (default 1000)');
  const reconcileSeconds = whole(
    ownOrShared(name('RECONCILE_S'), `${SHARED_PREFIX}RECONCILE_S`),
    300,
    1,
    86_400,
    'a whole number of seconds from 1 to 86400 (default 300)',
  );
  const reconcileBatch = whole(
    ownOrShared(name('RECONCILE_BATCH'), `${SHARED_PREFIX}RECONCILE_BATCH`),
    500,
    1,
    5_000,
    'a whole number of calls from 1 to 5000 (default 500)',
  );
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
  for (const url of listOf(read(walletSetting))) {
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
    reconcileMs: reconcileSeconds * 1_000,
    reconcileBatch,
    minGas: minGas ?? undefined,
    nativeCurrency: { symbol: currency.symbol, decimals: currency.decimals },
    addNetwork,
  };
}

/** `*_RPC_URL`: one node, or several separated by commas. */
function parseRpcUrls(read: (name: string) => string | undefined, setting: string, problem: Problem): string[] {
  const text = read(setting);
  if (!text) {
    problem(setting, `${setting} is missing: set it to the JSON-RPC URL of an EVM node (http(s):// or ws(s)://), or several separated by commas`);
    return [];
  }
  return listOf(text).filter((url) => checkUrl(url, setting, problem, 'each node'));
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

/** `*_CHAIN_ID`; unset, the chain of `known` when given (0 after a problem). */
function parseChainId(read: (name: string) => string | undefined, setting: string, problem: Problem, known: KnownNetwork | undefined): number {
  const text = read(setting);
  if (!text) {
    if (known) return known.chainId;
    problem(
      setting,
      `${setting} is missing: set it to the EIP-155 chain id the node must serve (56 for BNB Smart Chain, 97 for its testnet, 31337 for a local anvil)`,
    );
    return 0;
  }
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) <= 0) {
    problem(setting, `${setting} must be a positive whole number (e.g. 56), not "${text}"`);
    return 0;
  }
  return Number(text);
}

/** `*_TOKENS`: each asset's ERC-20 contract (`USDT=0x…,CNGN=0x…`), EIP-55. */
function parseTokens(read: (name: string) => string | undefined, setting: string, problem: Problem): Partial<Record<AssetId, string>> {
  const tokens: Partial<Record<AssetId, string>> = {};
  const text = read(setting);
  const example = 'USDT=0x…,CNGN=0x…';
  if (!text) {
    problem(setting, `${setting} is missing: list each asset's ERC-20 contract as ${example}`);
    return tokens;
  }
  const seen = new Map<string, AssetId>();
  for (const entry of listOf(text)) {
    const match = /^([^=\s]+)\s*=\s*(\S+)$/.exec(entry);
    if (!match) {
      problem(setting, `${setting}: "${entry}" is not ASSET=0xADDRESS (expected ${example})`);
      continue;
    }
    const asset = match[1]!.toUpperCase();
    if (!(ASSET_IDS as readonly string[]).includes(asset)) {
      problem(setting, `${setting}: unknown asset "${match[1]}" (known: ${ASSET_IDS.join(', ')})`);
      continue;
    }
    const assetId = asset as AssetId;
    if (tokens[assetId]) {
      problem(setting, `${setting} names ${assetId} twice`);
      continue;
    }
    const check = checkEvmAddress(match[2]!);
    if (!check.ok) {
      problem(setting, `${setting}: the ${assetId} contract "${match[2]}" is not valid: ${check.message}`);
      continue;
    }
    const other = seen.get(check.address.toLowerCase());
    if (other) {
      problem(setting, `${setting} gives ${other} and ${assetId} the same contract ${check.address}`);
      continue;
    }
    seen.set(check.address.toLowerCase(), assetId);
    tokens[assetId] = check.address;
  }
  if (Object.keys(tokens).length === 0 && !problem.has(setting)) problem(setting, `${setting} lists no token: give at least one as ${example}`);
  return tokens;
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

/** `text` as a whole number from `min` to `max`; unset, `fallback`; out of range, a problem and `fallback`. */
function wholeNumber(
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
