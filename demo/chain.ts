/**
 * The demo's own chains (`paylink demo`, the default): two local anvil nodes started for the demo and
 * stopped with it ("Local BNB Smart Chain" and "Local Polygon", chain ids 31337 and 31338), each with
 * USDT (18 decimals, as on BNB Smart Chain) and cNGN (6) test tokens deployed at start, and the
 * service's EVM settings made for each.
 *
 * Every key comes from one public mnemonic, anvil's well-known test phrase: nothing here is secret,
 * and nothing here may ever hold real money. Its accounts are split by BIP-44 account so that no
 * account of the demo is ever a deposit address (a mint to the demo wallet must never pay a session):
 *
 * | path               | role |
 * |--------------------|------|
 * | m/44'/60'/0'/0/n   | deposit address n (the service gets the xpub of m/44'/60'/0' only, as in production; `paylink sweep` takes the mnemonic) |
 * | m/44'/60'/1'/0/0   | the hot wallet: sends payouts, pays their gas; holds a float of both tokens |
 * | m/44'/60'/2'/0/0   | the demo wallet: what a visitor pays with in the pages |
 * | m/44'/60'/3'/0/0   | the tokens' owner: deploys and mints them, and pays the seed sessions |
 *
 * Anvil starts with no dev accounts of its own (`--accounts 0`), so the node holds no unlocked key:
 * everything is signed here, and the demo wallet's relay can forward reads to the node without
 * exposing a signer. Gas comes from `anvil_setBalance`.
 */
import { createPublicClient, createWalletClient, getAddress, http, parseEther, parseUnits, toHex, type Address, type Hash, type PublicClient } from 'viem';
import { mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { accountXpubFromMnemonic } from '../src/server/chain/evm/addresses.js';
import { ANVIL_MNEMONIC, anvilBinary, AnvilNotInstalledError, startAnvil, type AnvilNode } from '../src/server/chain/evm/anvil.js';
import { parseEvmConfig, type EvmConfig } from '../src/server/chain/evm/config.js';
import { deployTestToken, mintTestToken, TEST_TOKEN_ABI, type TokenOwner } from '../src/server/chain/evm/test-token.js';
import { existsSync } from 'node:fs';

/** The demo's mnemonic: anvil's public test phrase. Printed on start; never use it for real funds. */
export const DEMO_MNEMONIC = ANVIL_MNEMONIC;

/** The chain id of the demo's first chain (anvil's default, a local chain by convention). */
export const DEMO_CHAIN_ID = 31337;

/** The network id the service's API uses for the demo's first chain (not `bsc`: it is not BNB Smart Chain). */
export const DEMO_NETWORK = 'local';

/** One of the demo's local chains: its network id in the API, its name, and its chain id. */
export interface DemoNetwork {
  network: string;
  name: string;
  chainId: number;
}

/**
 * The demo's two local chains, standing in for two networks a customer may hold USDT on: payments
 * and withdrawals work on either, with one balance per network.
 */
export const DEMO_NETWORKS: readonly DemoNetwork[] = [
  { network: DEMO_NETWORK, name: 'Local BNB Smart Chain', chainId: DEMO_CHAIN_ID },
  { network: 'local-polygon', name: 'Local Polygon', chainId: 31338 },
];

/**
 * Seconds between blocks: 1 s, so a visitor sees a transfer arrive and its confirmations count up
 * (instant mining would credit it before the page could show it), and a payment is paid in ~3 s.
 */
export const DEMO_BLOCK_TIME = 1;

/**
 * Confirmations before a transfer is credited: 3, the production default, so the demo
 * shows the same path a merchant's customers will see, and at 1 s blocks it still takes ~3 s.
 */
export const DEMO_CONFIRMATIONS = 3;

/** How far the demo node's finalized block trails its head (two slots of two-slot epochs). */
export const DEMO_FINALITY_LAG = 4;

/** How often the scanner reads new blocks: a quarter of the block time, so each count shows promptly. */
export const DEMO_POLL_MS = 250;

/** One deployed test token. */
export interface DemoToken {
  assetId: 'USDT' | 'CNGN';
  symbol: string;
  name: string;
  address: Address;
  decimals: number;
}

/** The demo's running chain. */
export interface DemoChain {
  /** The network id the API uses for this chain, and its name. */
  network: string;
  name: string;
  node: AnvilNode;
  rpcUrl: string;
  chainId: number;
  /** Reads the chain without caching (confirmations must be fresh). */
  client: PublicClient;
  tokens: { USDT: DemoToken; CNGN: DemoToken };
  /** The service's settings: the same values `serve --chain evm` reads from `PAYLINK_EVM_*`. */
  config: EvmConfig;
  /** The same settings as `PAYLINK_EVM_*` variables (without the key), to print. */
  env: Record<string, string>;
  /** The visitor's wallet in the pages. */
  demoWallet: PrivateKeyAccount;
  hotWallet: PrivateKeyAccount;
  /** Deploys and mints the tokens; pays the seed sessions. */
  owner: PrivateKeyAccount;
  /** Mints `units` of a token to `to` (the owner signs); resolves once mined. */
  mint(token: DemoToken, to: Address, units: bigint): Promise<Hash>;
  /** Sends `units` of a token from the owner to `to`; resolves once mined. */
  payFromOwner(token: DemoToken, to: Address, units: bigint): Promise<Hash>;
  /** Mines `blocks` blocks at once (the seed uses it to confirm its payments before the clock starts). */
  mine(blocks: number): Promise<void>;
  /** Starts mining a block every `DEMO_BLOCK_TIME` seconds (instant mining until then). */
  startBlockClock(): Promise<void>;
  stop(): Promise<void>;
}

/** The signing account at m/44'/60'/`account`'/0/0 of the demo mnemonic. */
function demoAccount(account: number): PrivateKeyAccount {
  const hd = mnemonicToAccount(DEMO_MNEMONIC, { accountIndex: account, addressIndex: 0 });
  return privateKeyToAccount(toHex(hd.getHdKey().privateKey!));
}

/**
 * Why the demo cannot start anvil here, or `undefined` when it can: no binary for this platform, the
 * package missing (installed without dev dependencies), or `PAYLINK_ANVIL_BIN` naming a file that is
 * not there (how a test, or a curious user, sees the fallback on a machine that has anvil).
 */
export function anvilMissing(): string | undefined {
  try {
    const binary = anvilBinary();
    return existsSync(binary) ? undefined : `anvil is not installed: ${binary} (PAYLINK_ANVIL_BIN) does not exist`;
  } catch (error) {
    if (error instanceof AnvilNotInstalledError) return error.message.replace(/\. Install .*$/s, '');
    throw error;
  }
}

/**
 * Starts anvil (instant mining until `startBlockClock`), funds the demo's accounts with gas, deploys
 * both tokens, and mints the hot wallet's float and the demo wallet's starting balance.
 */
export async function startDemoChain(spec: DemoNetwork = DEMO_NETWORKS[0]!): Promise<DemoChain> {
  // Two-slot epochs: the node's finalized block is 4 blocks behind its head (anvil's default is 64), so a
  // visitor's payment becomes withdrawable seconds after it is paid, not a minute.
  const node = await startAnvil({ chainId: spec.chainId, mnemonic: DEMO_MNEMONIC, accounts: 0, extraArgs: ['--slots-in-an-epoch', '2'] });
  try {
    const transport = http(node.url, { retryCount: 0 });
    const client = createPublicClient({ transport, cacheTime: 0, pollingInterval: 50 });
    const hotWallet = demoAccount(1);
    const demoWallet = demoAccount(2);
    const owner = demoAccount(3);
    const rpc = (method: string, params: unknown[]) => client.request({ method, params } as never);
    for (const account of [hotWallet, demoWallet, owner]) await rpc('anvil_setBalance', [account.address, toHex(parseEther('1000'))]);

    const tokenOwner: TokenOwner = { rpcUrl: node.url, from: owner, client };
    const deploy = async (assetId: 'USDT' | 'CNGN', name: string, symbol: string, decimals: number): Promise<DemoToken> => ({
      assetId,
      name,
      symbol,
      decimals,
      address: await deployTestToken(tokenOwner, { name: `${name} (demo)`, symbol, decimals }),
    });
    const tokens = { USDT: await deploy('USDT', 'Tether USD', 'USDT', 18), CNGN: await deploy('CNGN', 'Compliant Naira', 'cNGN', 6) };
    const mint = (token: DemoToken, to: Address, units: bigint) => mintTestToken(tokenOwner, token.address, to, units);
    // The hot wallet's float: payouts go out of it (in production, `paylink sweep` fills it from the
    // deposit addresses). It moves no merchant balance: only payments the scanner sees do.
    await mint(tokens.USDT, hotWallet.address, parseUnits('1000000', 18));
    await mint(tokens.CNGN, hotWallet.address, parseUnits('1000000000', 6));
    // What the seed sessions are paid with.
    await mint(tokens.USDT, owner.address, parseUnits('10000', 18));
    await mint(tokens.CNGN, owner.address, parseUnits('10000000', 6));
    await mint(tokens.USDT, demoWallet.address, parseUnits('1000', 18));
    await mint(tokens.CNGN, demoWallet.address, parseUnits('1000000', 6));

    const env = {
      PAYLINK_EVM_RPC_URL: node.url,
      PAYLINK_EVM_CHAIN_ID: String(spec.chainId),
      PAYLINK_EVM_NETWORK: spec.network,
      PAYLINK_EVM_NAME: spec.name,
      PAYLINK_EVM_TOKENS: `USDT=${tokens.USDT.address},CNGN=${tokens.CNGN.address}`,
      PAYLINK_EVM_CONFIRMATIONS: String(DEMO_CONFIRMATIONS),
      PAYLINK_EVM_XPUB: accountXpubFromMnemonic(DEMO_MNEMONIC),
      PAYLINK_EVM_POLL_MS: String(DEMO_POLL_MS),
    };
    const hotWalletKey = toHex(mnemonicToAccount(DEMO_MNEMONIC, { accountIndex: 1, addressIndex: 0 }).getHdKey().privateKey!);
    const config = parseEvmConfig({ ...env, PAYLINK_EVM_PAYOUT_KEY: hotWalletKey });
    const ownerWallet = createWalletClient({ account: owner, transport });

    return {
      network: spec.network,
      name: spec.name,
      node,
      rpcUrl: node.url,
      chainId: spec.chainId,
      client,
      tokens,
      config,
      env,
      demoWallet,
      hotWallet,
      owner,
      mint,
      async payFromOwner(token, to, units) {
        const hash = await ownerWallet.writeContract({ address: token.address, abi: TEST_TOKEN_ABI, functionName: 'transfer', args: [getAddress(to), units], chain: null });
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
        if (receipt.status !== 'success') throw new Error(`the seed payment ${hash} reverted`);
        return hash;
      },
      async mine(blocks) {
        await rpc('anvil_mine', [toHex(blocks)]);
      },
      async startBlockClock() {
        await rpc('evm_setIntervalMining', [DEMO_BLOCK_TIME]);
      },
      stop: () => node.stop(),
    };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

/**
 * Starts every chain of `DEMO_NETWORKS` side by side; if one fails, the others are stopped before
 * the error is thrown.
 */
export async function startDemoChains(): Promise<DemoChain[]> {
  const started = await Promise.allSettled(DEMO_NETWORKS.map((spec) => startDemoChain(spec)));
  const chains = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await Promise.all(chains.map((chain) => chain.stop()));
    throw failed.reason;
  }
  return chains;
}
