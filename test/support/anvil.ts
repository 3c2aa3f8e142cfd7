/**
 * A local chain for tests: anvil (src/server/chain/evm/anvil.ts) plus the helpers tests need to
 * stage money moves: mine, snapshot/revert, reorg, set balances, deploy and mint the test token,
 * send from anvil's unlocked dev accounts, and an `EvmConfig` pointing at it all.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  http,
  toHex,
  WaitForTransactionReceiptTimeoutError,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { accountXpubFromMnemonic } from '../../src/server/chain/evm/addresses.js';
import { startAnvil, type AnvilNode, type AnvilOptions } from '../../src/server/chain/evm/anvil.js';
import { MULTICALL3_ADDRESS } from '../../src/server/chain/evm/balances.js';
import multicall3 from '../fixtures/multicall3.json' with { type: 'json' };
import { parseEvmConfig, type EvmConfig } from '../../src/server/chain/evm/config.js';
import { releaseQueuedOn, type NodeRequest } from '../../src/server/chain/evm/dev-node.js';
import {
  deployFeeTestToken,
  deployTestToken,
  mintTestToken,
  setTestTokenPaused,
  TEST_TOKEN_ABI,
  type TokenOwner,
} from '../../src/server/chain/evm/test-token.js';
import { sleep, until } from './wait.js';

/**
 * Freezes a node (SIGSTOP): it holds its port but answers nothing, like a hung node. Resolves once
 * every thread has stopped (a stop signal lands a moment after it is sent, and a request in that
 * moment would still be answered). Returns the function that thaws it.
 */
export async function freeze(node: AnvilNode): Promise<() => void> {
  node.process.kill('SIGSTOP');
  const stat = `/proc/${node.pid}/task`;
  if (existsSync(stat)) {
    const stopped = () => readdirSync(stat).every((task) => /\) [Tt] /.test(readFileSync(`${stat}/${task}/stat`, 'utf8')));
    await until(stopped, `every thread of anvil (pid ${node.pid}) stopped`, 5_000, { everyMs: 5 });
  } else {
    await sleep(200); // no /proc to look at the threads (not Linux): the signal's moment, as a guess
  }
  return () => node.process.kill('SIGCONT');
}

/** The deposit wallet of tests: BIP-39's first test vector, holding nothing on a fresh chain. */
export const DEPOSIT_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** Its account-level xpub (m/44'/60'/0'): what the service would be configured with. */
export const DEPOSIT_XPUB = accountXpubFromMnemonic(DEPOSIT_MNEMONIC);

/**
 * Most blocks one `anvil_mine` request asks for: anvil takes a while per block, and 500 at once
 * outlasted a request's timeout on a busy machine. More are mined in parts of this size.
 */
const MINE_PART = 100;

export interface TestChain {
  node: AnvilNode;
  url: string;
  chainId: number;
  /** Reads the chain (no caching: confirmations must be fresh). */
  client: PublicClient;
  /** Anvil's dev accounts (unlocked on the node, 10,000 ETH each); [0] deploys and owns the tokens. */
  accounts: Address[];
  /** Dev account `index` as a local signer (to sign raw transactions, e.g. for a reorg). */
  devAccount(index: number): PrivateKeyAccount;
  /** The private key of dev account `index` (to configure it as a hot wallet). */
  devKey(index: number): Hex;
  mine(blocks?: number): Promise<void>;
  /** Turns instant mining off (transactions wait in the mempool) or back on. */
  setAutomine(enabled: boolean): Promise<void>;
  snapshot(): Promise<Hex>;
  /** Reverts to a snapshot (anvil_reorg invalidates earlier snapshots). */
  revert(id: Hex): Promise<void>;
  /**
   * Replaces the latest `depth` blocks with `depth` new ones holding only `include` (raw signed
   * transactions, each with the offset of its new block, 0 = the oldest replaced block).
   * Anvil drops every other transaction of the replaced blocks.
   */
  reorg(depth: number, include?: Array<{ raw: Hex; blockOffset: number }>): Promise<void>;
  setBalance(address: Address, wei: bigint): Promise<void>;
  /** Deploys the test token from dev account 0. */
  deployToken(token: { name: string; symbol: string; decimals: number }): Promise<Address>;
  /** Deploys the fee-charging test token (each transfer delivers its value less `feeBps`/10,000) from dev account 0. */
  deployFeeToken(token: { name: string; symbol: string; decimals: number; feeBps: number }): Promise<Address>;
  mint(token: Address, to: Address, units: bigint): Promise<Hash>;
  setTokenPaused(token: Address, paused: boolean): Promise<Hash>;
  /**
   * A token transfer from an unlocked dev account (no signing). Resolves once it is mined, or, with
   * `{mined: false}` (for automine off), once the node has it. `heldAfterMs` (default 10 s) is how
   * long the node may hold it unmined before it is released or a block is mined for it.
   */
  sendToken(from: Address, token: Address, to: Address, units: bigint, options?: { mined?: boolean; heldAfterMs?: number }): Promise<Hash>;
  /** Signs a token transfer from dev account `fromIndex` at `nonce` without sending it. */
  signTokenTransfer(fromIndex: number, token: Address, to: Address, units: bigint, nonce: number): Promise<Hex>;
  /** Sends native coin from an unlocked dev account. */
  sendNative(from: Address, to: Address, wei: bigint): Promise<Hash>;
  /** Waits until `hash` is mined and returns its receipt status. */
  mined(hash: Hash): Promise<'success' | 'reverted'>;
  /** A raw JSON-RPC call to the node (pool and anvil methods viem has no action for). */
  rpc(method: string, params: unknown[]): Promise<unknown>;
  /** Puts Multicall3's code at its usual address (as on every major network), so balances are read many per call. */
  deployMulticall3(): Promise<void>;
  /** Sets `holder`'s balance of `token` without a transfer (no log, no receipt): money the books cannot explain. */
  setTokenBalance(token: Address, holder: Address, units: bigint): Promise<void>;
  /**
   * An `EvmConfig` for this chain: the given tokens, the test deposit xpub, dev account
   * `hotWalletIndex` (default 1) as the hot wallet, instant-mining-friendly polling.
   */
  config(options: { tokens: Partial<Record<'USDT' | 'CNGN', Address>>; confirmations?: number; hotWalletIndex?: number; rpcUrl?: string }): EvmConfig;
  stop(): Promise<void>;
}

/** Starts anvil (instant mining unless `blockTime` is given) and wraps it in test helpers. */
export async function startTestChain(options: AnvilOptions = {}): Promise<TestChain> {
  const node = await startAnvil(options);
  const transport = http(node.url, { retryCount: 0 });
  const client = createPublicClient({ transport, cacheTime: 0, pollingInterval: 20 });
  const testClient = createTestClient({ mode: 'anvil', transport });
  const devAccount = (index: number) => {
    const hd = mnemonicToAccount(node.mnemonic, { addressIndex: index });
    return privateKeyToAccount(toHex(hd.getHdKey().privateKey!));
  };
  const devKey = (index: number) => toHex(mnemonicToAccount(node.mnemonic, { addressIndex: index }).getHdKey().privateKey!);
  const accounts = Array.from({ length: options.accounts ?? 10 }, (_, i) => devAccount(i).address);
  const owner: TokenOwner = { rpcUrl: node.url, from: accounts[0]!, client };
  const wallet = (from: Address) => createWalletClient({ account: from, transport });
  const request: NodeRequest = (method, params) => client.request({ method, params } as never);
  /**
   * Waits for `hash` to be mined. A transaction anvil holds but does not mine within `heldAfterMs` (it queues
   * one for ever now and then: see src/server/chain/evm/dev-node.ts) is released from the sender's
   * queue as the service's payouts are (the same bytes sent again), or, when none is stuck there, a
   * block is mined; the test says so on stderr, and a transaction still not mined after that fails
   * with the node's view of it.
   */
  const minedOrReleased = async (hash: Hash, from: Address, heldAfterMs: number) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.waitForTransactionReceipt({ hash, pollingInterval: 10, timeout: heldAfterMs });
      } catch (error) {
        if (!(error instanceof WaitForTransactionReceiptTimeoutError)) throw error;
        const [pool, known] = await Promise.all([request('txpool_status', []), request('eth_getTransactionByHash', [hash])]);
        const view = `node pool ${JSON.stringify(pool)}, ${known ? 'the node has it' : 'unknown to the node'}`;
        if (attempt === 3) throw new Error(`test chain: ${hash} not mined in ${(3 * heldAfterMs) / 1000} s (${view})`, { cause: error });
        const released = await releaseQueuedOn(request, from);
        if (released === 0) await testClient.mine({ blocks: 1 });
        process.stderr.write(
          `test chain: ${hash} not mined in ${heldAfterMs / 1000} s (${view}): ${released ? `${released} transaction(s) released from anvil's queue` : 'a block mined'}\n`,
        );
      }
    }
  };

  const chain: TestChain = {
    node,
    url: node.url,
    chainId: node.chainId,
    client,
    accounts,
    devAccount,
    devKey,
    async mine(blocks = 1) {
      let left = blocks;
      for (; left > MINE_PART; left -= MINE_PART) await testClient.mine({ blocks: MINE_PART });
      await testClient.mine({ blocks: left });
    },
    async setAutomine(enabled) {
      await testClient.setAutomine(enabled);
    },
    snapshot: () => testClient.snapshot(),
    async revert(id) {
      await testClient.revert({ id });
    },
    async reorg(depth, include = []) {
      await client.request({
        method: 'anvil_reorg',
        params: [depth, include.map(({ raw, blockOffset }) => [raw, blockOffset])],
      } as never);
    },
    async setBalance(address, wei) {
      await testClient.setBalance({ address, value: wei });
    },
    deployToken: (token) => deployTestToken(owner, token),
    deployFeeToken: (token) => deployFeeTestToken(owner, token),
    mint: (token, to, units) => mintTestToken(owner, token, to, units),
    setTokenPaused: (token, paused) => setTestTokenPaused(owner, token, paused),
    async sendToken(from, token, to, units, { mined = true, heldAfterMs = 10_000 } = {}) {
      const hash = await wallet(from).writeContract({
        address: token,
        abi: TEST_TOKEN_ABI,
        functionName: 'transfer',
        args: [to, units],
        chain: null,
        gas: 100_000n,
      });
      // eth_sendTransaction can answer before its block is visible to reads.
      if (mined) await minedOrReleased(hash, from, heldAfterMs);
      return hash;
    },
    async signTokenTransfer(fromIndex, token, to, units, nonce) {
      const block = await client.getBlock();
      return devAccount(fromIndex).signTransaction({
        chainId: node.chainId,
        type: 'eip1559',
        nonce,
        to: token,
        data: encodeFunctionData({ abi: TEST_TOKEN_ABI, functionName: 'transfer', args: [to, units] }),
        gas: 100_000n,
        maxFeePerGas: (block.baseFeePerGas ?? 1_000_000_000n) * 3n + 1_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
    },
    sendNative: (from, to, wei) => wallet(from).sendTransaction({ to, value: wei, chain: null }),
    async mined(hash) {
      return (await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status;
    },
    rpc: request,
    async deployMulticall3() {
      await request('anvil_setCode', [MULTICALL3_ADDRESS, multicall3.runtime]);
    },
    async setTokenBalance(token, holder, units) {
      await request('anvil_dealERC20', [holder, token, toHex(units)]);
    },
    config({ tokens, confirmations = 3, hotWalletIndex = 1, rpcUrl = node.url }) {
      return parseEvmConfig({
        PAYLINK_EVM_RPC_URL: rpcUrl,
        PAYLINK_EVM_CHAIN_ID: String(node.chainId),
        PAYLINK_EVM_TOKENS: Object.entries(tokens)
          .map(([asset, address]) => `${asset}=${address}`)
          .join(','),
        PAYLINK_EVM_CONFIRMATIONS: String(confirmations),
        PAYLINK_EVM_XPUB: DEPOSIT_XPUB,
        PAYLINK_EVM_PAYOUT_KEY: devKey(hotWalletIndex),
        PAYLINK_EVM_POLL_MS: '20',
      });
    },
    stop: () => node.stop(),
  };
  return chain;
}
