/**
 * The EVM chain's settings (DESIGN §7), read from the environment. Every bad or missing setting
 * gets its own sentence naming the variable and what it should hold, and all of them are reported
 * at once, so an operator fixes the whole configuration in one pass. A private key never appears
 * in a message, not even a malformed one.
 */
import { readFileSync, statSync } from 'node:fs';
import { HDKey } from '@scure/bip32';
import { ASSET_IDS, type AssetId } from '../../../core/money.js';
import { checkEvmAddress } from '../evm.js';

/** Facts of the chains we know by id: their name and block explorer. */
export interface KnownChain {
  name: string;
  /** Block explorer base URL without a trailing slash; undefined where there is none. */
  explorerUrl: string | undefined;
}

/** Names and explorers of well-known chain ids; other ids get no explorer and a generic name. */
export const KNOWN_CHAINS: Readonly<Record<number, KnownChain>> = {
  56: { name: 'BNB Smart Chain', explorerUrl: 'https://bscscan.com' },
  97: { name: 'BNB Smart Chain Testnet', explorerUrl: 'https://testnet.bscscan.com' },
  31337: { name: 'Local chain', explorerUrl: undefined },
};

const REDACTED = '[redacted private key]';

/**
 * A private key that does not print: `String()`, `JSON.stringify()` and `console.log()` of it (or of
 * a config holding it) show `[redacted private key]`. `reveal()` hands it to a signer.
 */
export class SecretKey {
  readonly #value: `0x${string}`;
  constructor(value: `0x${string}`) {
    this.#value = value;
  }
  /** The key itself: for a signer, never for a log. */
  reveal(): `0x${string}` {
    return this.#value;
  }
  toString(): string {
    return REDACTED;
  }
  toJSON(): string {
    return REDACTED;
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `SecretKey ${REDACTED}`;
  }
}

/** The parsed settings of the EVM chain. */
export interface EvmConfig {
  /** `PAYLINK_EVM_RPC_URL`: http(s) or ws(s). May embed a provider key: never log it. */
  rpcUrl: string;
  /** `PAYLINK_EVM_CHAIN_ID`: checked against `eth_chainId` on connect. */
  chainId: number;
  /** `PAYLINK_EVM_NETWORK`: the network id the API uses (default `bsc`). */
  network: string;
  /** Human name of the network: the known chain's name, else the network id. */
  networkName: string;
  /** Block explorer of the chain id, if known. */
  explorerUrl: string | undefined;
  /** `PAYLINK_EVM_TOKENS`: each asset's ERC-20 contract, EIP-55. */
  tokens: Partial<Record<AssetId, string>>;
  /** `PAYLINK_EVM_CONFIRMATIONS`: confirmations before a transfer counts (default 3). */
  confirmations: number;
  /** `PAYLINK_EVM_XPUB`: account-level extended public key (m/44'/60'/0'). */
  xpub: string | undefined;
  /** From `PAYLINK_EVM_PAYOUT_KEY_FILE` or `PAYLINK_EVM_PAYOUT_KEY`: the hot wallet's key. */
  payoutKey: SecretKey | undefined;
  /** `PAYLINK_EVM_POLL_MS`: how often new blocks are scanned (default 1000). */
  pollMs: number;
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
const PRIVATE_KEY = /^(?:0x)?([0-9a-fA-F]{64})$/;

/**
 * Reads DESIGN §7's settings from `env`. Throws `EvmConfigError` listing every problem.
 * Unset and empty variables are the same (a blank line in an env file means "not set").
 */
export function parseEvmConfig(env: Env = process.env, needs: EvmConfigNeeds = {}): EvmConfig {
  const problems: EvmConfigProblem[] = [];
  const warnings: string[] = [];
  const problem = (setting: string, message: string) => problems.push({ setting, message });
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };

  // PAYLINK_EVM_RPC_URL
  const rpcUrl = read('PAYLINK_EVM_RPC_URL');
  if (!rpcUrl) {
    problem('PAYLINK_EVM_RPC_URL', 'PAYLINK_EVM_RPC_URL is missing: set it to the JSON-RPC URL of an EVM node (http(s):// or ws(s)://)');
  } else {
    let protocol: string | undefined;
    try {
      protocol = new URL(rpcUrl).protocol;
    } catch {
      protocol = undefined;
    }
    // The value itself is not echoed: a node URL often carries a provider's API key.
    if (!protocol) problem('PAYLINK_EVM_RPC_URL', 'PAYLINK_EVM_RPC_URL is not a URL: give the node as http(s)://host[:port][/path] or ws(s)://…');
    else if (!['http:', 'https:', 'ws:', 'wss:'].includes(protocol))
      problem('PAYLINK_EVM_RPC_URL', `PAYLINK_EVM_RPC_URL must use http, https, ws or wss, not ${protocol.slice(0, -1)}`);
  }

  // PAYLINK_EVM_CHAIN_ID
  const chainIdText = read('PAYLINK_EVM_CHAIN_ID');
  let chainId = 0;
  if (!chainIdText) {
    problem('PAYLINK_EVM_CHAIN_ID', 'PAYLINK_EVM_CHAIN_ID is missing: set it to the EIP-155 chain id the node must serve (56 for BNB Smart Chain, 97 for its testnet, 31337 for a local anvil)');
  } else if (!/^\d+$/.test(chainIdText) || !Number.isSafeInteger(Number(chainIdText)) || Number(chainIdText) <= 0) {
    problem('PAYLINK_EVM_CHAIN_ID', `PAYLINK_EVM_CHAIN_ID must be a positive whole number (e.g. 56), not "${chainIdText}"`);
  } else {
    chainId = Number(chainIdText);
  }

  // PAYLINK_EVM_NETWORK
  const network = (read('PAYLINK_EVM_NETWORK') ?? 'bsc').toLowerCase();
  if (!NETWORK_ID.test(network)) {
    problem('PAYLINK_EVM_NETWORK', `PAYLINK_EVM_NETWORK must be a short id of letters, digits and dashes (default bsc), not "${network}"`);
  }

  // PAYLINK_EVM_TOKENS
  const tokens: Partial<Record<AssetId, string>> = {};
  const tokensText = read('PAYLINK_EVM_TOKENS');
  const example = 'USDT=0x…,CNGN=0x…';
  if (!tokensText) {
    problem('PAYLINK_EVM_TOKENS', `PAYLINK_EVM_TOKENS is missing: list each asset's ERC-20 contract as ${example}`);
  } else {
    const seen = new Map<string, AssetId>();
    for (const entry of tokensText.split(',').map((e) => e.trim()).filter(Boolean)) {
      const match = /^([^=\s]+)\s*=\s*(\S+)$/.exec(entry);
      if (!match) {
        problem('PAYLINK_EVM_TOKENS', `PAYLINK_EVM_TOKENS: "${entry}" is not ASSET=0xADDRESS (expected ${example})`);
        continue;
      }
      const asset = match[1]!.toUpperCase();
      if (!(ASSET_IDS as readonly string[]).includes(asset)) {
        problem('PAYLINK_EVM_TOKENS', `PAYLINK_EVM_TOKENS: unknown asset "${match[1]}" (known: ${ASSET_IDS.join(', ')})`);
        continue;
      }
      const assetId = asset as AssetId;
      if (tokens[assetId]) {
        problem('PAYLINK_EVM_TOKENS', `PAYLINK_EVM_TOKENS names ${assetId} twice`);
        continue;
      }
      const check = checkEvmAddress(match[2]!);
      if (!check.ok) {
        problem('PAYLINK_EVM_TOKENS', `PAYLINK_EVM_TOKENS: the ${assetId} contract "${match[2]}" is not valid: ${check.message}`);
        continue;
      }
      const other = seen.get(check.address.toLowerCase());
      if (other) {
        problem('PAYLINK_EVM_TOKENS', `PAYLINK_EVM_TOKENS gives ${other} and ${assetId} the same contract ${check.address}`);
        continue;
      }
      seen.set(check.address.toLowerCase(), assetId);
      tokens[assetId] = check.address;
    }
    if (Object.keys(tokens).length === 0 && !problems.some((p) => p.setting === 'PAYLINK_EVM_TOKENS')) {
      problem('PAYLINK_EVM_TOKENS', `PAYLINK_EVM_TOKENS lists no token: give at least one as ${example}`);
    }
  }

  // PAYLINK_EVM_CONFIRMATIONS
  const confirmations = positiveInteger(read('PAYLINK_EVM_CONFIRMATIONS'), 3, 1, 10_000, 'PAYLINK_EVM_CONFIRMATIONS', 'a whole number of blocks from 1 to 10000 (default 3)', problem);

  // PAYLINK_EVM_XPUB
  const xpub = read('PAYLINK_EVM_XPUB');
  if (!xpub) {
    if (needs.xpub ?? true) {
      problem('PAYLINK_EVM_XPUB', "PAYLINK_EVM_XPUB is missing: set it to the account-level extended public key (xpub…) of m/44'/60'/0' of the deposit wallet");
    }
  } else {
    const message = checkAccountXpub(xpub);
    if (message) problem('PAYLINK_EVM_XPUB', `PAYLINK_EVM_XPUB ${message}`);
  }

  // PAYLINK_EVM_PAYOUT_KEY_FILE / PAYLINK_EVM_PAYOUT_KEY
  const keyFile = read('PAYLINK_EVM_PAYOUT_KEY_FILE');
  const keyValue = read('PAYLINK_EVM_PAYOUT_KEY');
  let payoutKey: `0x${string}` | undefined;
  if (keyFile && keyValue) {
    problem('PAYLINK_EVM_PAYOUT_KEY', 'PAYLINK_EVM_PAYOUT_KEY_FILE and PAYLINK_EVM_PAYOUT_KEY are both set: keep one (the file is safer)');
  } else if (keyFile) {
    let text: string | undefined;
    try {
      text = readFileSync(keyFile, 'utf8');
      const mode = statSync(keyFile).mode;
      if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
        warnings.push(`PAYLINK_EVM_PAYOUT_KEY_FILE ${keyFile} can be read by other users (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problem('PAYLINK_EVM_PAYOUT_KEY_FILE', `PAYLINK_EVM_PAYOUT_KEY_FILE ${keyFile} cannot be read (${code ?? 'error'})`);
    }
    if (text !== undefined) {
      const match = PRIVATE_KEY.exec(text.trim());
      if (match) payoutKey = `0x${match[1]!.toLowerCase()}`;
      else problem('PAYLINK_EVM_PAYOUT_KEY_FILE', `PAYLINK_EVM_PAYOUT_KEY_FILE ${keyFile} does not hold a private key (64 hexadecimal characters, 0x optional)`);
    }
  } else if (keyValue) {
    const match = PRIVATE_KEY.exec(keyValue);
    if (match) payoutKey = `0x${match[1]!.toLowerCase()}`;
    else problem('PAYLINK_EVM_PAYOUT_KEY', 'PAYLINK_EVM_PAYOUT_KEY is not a private key (64 hexadecimal characters, 0x optional)');
  } else if (needs.payoutKey ?? true) {
    problem('PAYLINK_EVM_PAYOUT_KEY_FILE', "PAYLINK_EVM_PAYOUT_KEY_FILE is missing: name a file holding the hot wallet's private key (or set PAYLINK_EVM_PAYOUT_KEY)");
  }
  if (payoutKey && /^0x0{64}$/.test(payoutKey)) {
    problem(keyFile ? 'PAYLINK_EVM_PAYOUT_KEY_FILE' : 'PAYLINK_EVM_PAYOUT_KEY', 'the payout key is zero, which is not a valid private key');
    payoutKey = undefined;
  }

  // PAYLINK_EVM_POLL_MS
  const pollMs = positiveInteger(read('PAYLINK_EVM_POLL_MS'), 1_000, 10, 3_600_000, 'PAYLINK_EVM_POLL_MS', 'a whole number of milliseconds from 10 to 3600000 (default 1000)', problem);

  if (problems.length) throw new EvmConfigError(problems);
  const known = KNOWN_CHAINS[chainId];
  return {
    rpcUrl: rpcUrl!,
    chainId,
    network,
    networkName: known?.name ?? (network === 'bsc' ? 'BNB Smart Chain' : network),
    explorerUrl: known?.explorerUrl,
    tokens,
    confirmations,
    xpub,
    payoutKey: payoutKey ? new SecretKey(payoutKey) : undefined,
    pollMs,
    warnings,
  };
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

/** Why `xpub` is not an account-level public key (depth 3, no private part), or null when it is. */
export function checkAccountXpub(xpub: string): string | null {
  if (/^[xt]prv/i.test(xpub)) return 'is a private extended key (xprv): give the public one (xpub); the service must hold no deposit private key';
  let key: HDKey;
  try {
    key = HDKey.fromExtendedKey(xpub);
  } catch {
    return 'is not an extended public key (expected xpub… in base58, as wallets export it)';
  }
  if (key.privateKey) return 'holds a private key: give the public one (xpub)';
  if (key.depth !== 3) return `is at depth ${key.depth} of its wallet, not at the account level m/44'/60'/0' (depth 3)`;
  return null;
}
