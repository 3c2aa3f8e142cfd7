/**
 * The sweep: moves the tokens that deposit addresses received to the hot wallet (or another
 * destination). Deposit addresses hold no gas money, so each one that holds tokens first gets just
 * enough gas from the hot wallet, then sends all of its tokens on. This runs in `paylink sweep`, a
 * process of its own that holds the deposit wallet's mnemonic, which the service never sees.
 *
 * It keeps no state: every decision comes from the chain, so a run that crashed at any point is
 * resumed by running again.
 * - A deposit address's transfers use its next mined nonce, and the sweep first waits for any
 *   transaction of that address still in flight: a re-run can sign the same transfer again, but
 *   both share one nonce, so at most one of them ever moves the tokens.
 * - A gas top-up is skipped when the address's balance, counting the mempool, already covers the
 *   transfers: a top-up sent just before a crash is waited for, not repeated. (A node that has no
 *   `pending` view can make a re-run top up again: only gas money, never tokens.)
 * - An address whose tokens are gone (moved by an earlier run) is left alone: a second run does nothing.
 */
import { encodeFunctionData, erc20Abi, formatUnits, getAddress, type Address, type Hex } from 'viem';
import type { AssetId } from '../../../core/money.js';
import { depositKeys } from './addresses.js';
import type { EvmChain, FeeQuote } from './chain.js';
import { EvmChainError } from './errors.js';

/** What happened to one token of one deposit address. */
export interface SweptToken {
  assetId: AssetId;
  /** Exact decimal string in the asset's units. */
  amount: string;
  /** The transfer to the destination (absent when it could not be sent). */
  txHash?: Hex;
  /** `success`: moved; `reverted`: mined but failed (tokens stayed); `skipped`: not sent (see `reason`). */
  status: 'success' | 'reverted' | 'skipped';
  reason?: string;
}

/** What the sweep did at one deposit address that held tokens. */
export interface SweptAddress {
  index: number;
  address: Address;
  /** Gas money sent from the hot wallet first, in wei. */
  gasTopUp?: { value: bigint; txHash: Hex };
  tokens: SweptToken[];
}

/** The outcome of a sweep. */
export interface SweepReport {
  destination: Address;
  /** Deposit indexes looked at. */
  checked: number;
  /** Only the addresses that held tokens. */
  addresses: SweptAddress[];
  /** Total moved per asset (exact decimal strings). */
  moved: Partial<Record<AssetId, string>>;
}

/** A progress line for the CLI. */
export type SweepEvent =
  | { type: 'waiting'; index: number; address: Address; reason: string }
  | { type: 'top-up'; index: number; address: Address; value: bigint; txHash: Hex }
  | { type: 'transfer'; index: number; address: Address; assetId: AssetId; amount: string; txHash: Hex };

export interface SweepOptions {
  chain: EvmChain;
  /** The deposit wallet's BIP-39 mnemonic; must belong to the chain's `PAYLINK_EVM_XPUB` when one is configured. */
  mnemonic: string;
  /** Deposit indexes to look at (the service's deposit sequence, 0 … n-1). */
  indexes: Iterable<number>;
  /** Where tokens go (default: the hot wallet). */
  destination?: string | undefined;
  /**
   * Sends `value` wei of gas money from the hot wallet to `to` and resolves with the transaction's
   * hash once broadcast. Default: signs with the hot wallet's pending nonce. The service's payout
   * worker allocates hot-wallet nonces under a database lock: when it runs, pass a sender that
   * takes its nonce from the same lock, or the two can collide.
   */
  sendGas?: ((to: Address, value: bigint) => Promise<Hex>) | undefined;
  /** Poll interval while waiting for the chain (default: the chain's `pollMs`). */
  pollMs?: number | undefined;
  /** Longest wait for one transaction to be mined (default 180 s). */
  waitTimeoutMs?: number | undefined;
  onProgress?: ((event: SweepEvent) => void) | undefined;
  /**
   * Records each token transfer out of a deposit address: `signed` before it is broadcast (awaited: a
   * transfer that could not be recorded is not sent), `settled` once its receipt tells what it did. One
   * with no receipt yet is left to the service's reconciliation, which reads it again. Reconciliation
   * counts what the sweeps moved out of each address; without the record a sweep would look like money
   * gone missing.
   */
  record?: SweepRecorder | undefined;
}

/** Where a sweep records what it moves (see `SweepOptions.record`). */
export interface SweepRecorder {
  signed(transfer: { index: number; address: Address; assetId: AssetId; token: Address; amount: string; txHash: Hex }): Promise<void>;
  settled(txHash: Hex, outcome: { status: 'success' | 'reverted'; blockNumber: number }): Promise<void>;
}

/**
 * Sweeps the deposit addresses `indexes`, one after another. Throws `EvmChainError` when the node
 * fails (run again: it resumes) and an `Error` when the mnemonic is not the configured xpub's.
 */
export async function sweepDeposits(options: SweepOptions): Promise<SweepReport> {
  const { chain } = options;
  const keys = depositKeys(options.mnemonic);
  if (chain.config.xpub && keys.xpub !== chain.config.xpub) {
    throw new Error("the mnemonic does not belong to PAYLINK_EVM_XPUB: its m/44'/60'/0' key differs, so its addresses are not the service's deposit addresses");
  }
  const destinationInput = options.destination ?? chain.hotWallet;
  if (!destinationInput) throw new Error('no destination: configure the hot wallet (PAYLINK_EVM_PAYOUT_KEY_FILE) or give --to');
  const destination = getAddress(destinationInput);
  const pollMs = options.pollMs ?? chain.config.pollMs;
  const waitTimeoutMs = options.waitTimeoutMs ?? 180_000;
  const sendGas = options.sendGas ?? ((to: Address, value: bigint) => sendGasFromHotWallet(chain, to, value));
  const report: SweepReport = { destination, checked: 0, addresses: [], moved: {} };
  const totals = new Map<AssetId, bigint>();

  const waitUntil = async (done: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + waitTimeoutMs;
    while (!(await done())) {
      if (Date.now() > deadline) throw new EvmChainError('timeout', `sweep: gave up waiting for ${what} after ${waitTimeoutMs / 1000} s (run the sweep again)`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };

  for (const index of options.indexes) {
    report.checked++;
    const account = keys.account(index);
    const address = account.address;
    if (address.toLowerCase() === destination.toLowerCase()) continue;

    // Let a transaction of an earlier run land before reading balances.
    const inFlight = await chain.pendingNonce(address);
    if (inFlight > (await chain.latestNonce(address))) {
      options.onProgress?.({ type: 'waiting', index, address, reason: 'a transfer of an earlier run is still pending' });
      await waitUntil(async () => (await chain.latestNonce(address)) >= inFlight, `the pending transactions of ${address}`);
    }

    const held: Array<{ assetId: AssetId; units: bigint }> = [];
    for (const token of chain.tokens) {
      const units = await chain.tokenUnits(token.assetId, address);
      if (units > 0n) held.push({ assetId: token.assetId, units });
    }
    if (held.length === 0) continue;

    const entry: SweptAddress = { index, address, tokens: [] };
    report.addresses.push(entry);
    const fees = await chain.feeQuote();
    const perGas = fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice;
    const planned: Array<{ assetId: AssetId; units: bigint; data: Hex; gas: bigint }> = [];
    for (const { assetId, units } of held) {
      const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [destination, units] });
      const amount = formatUnits(units, chain.token(assetId).decimals);
      try {
        const gas = await chain.estimateGas({ from: address, to: chain.token(assetId).address, data });
        planned.push({ assetId, units, data, gas });
      } catch (error) {
        if (!(error instanceof EvmChainError) || error.code !== 'reverted') throw error;
        entry.tokens.push({ assetId, amount, status: 'skipped', reason: `the transfer would revert: ${error.message}` });
      }
    }
    // Report tokens in configuration order, whatever happened to each.
    const order = (assetId: AssetId) => chain.tokens.findIndex((token) => token.assetId === assetId);
    const sortTokens = () => entry.tokens.sort((x, y) => order(x.assetId) - order(y.assetId));
    if (planned.length === 0) {
      sortTokens();
      continue;
    }

    // Gas: the most these transfers can cost at the quoted fees.
    const need = planned.reduce((sum, p) => sum + p.gas * perGas, 0n);
    if ((await chain.nativeBalance(address)) < need) {
      const withPending = await chain.nativeBalance(address, 'pending');
      if (withPending < need) {
        const value = need - withPending;
        const txHash = await sendGas(address, value);
        entry.gasTopUp = { value, txHash };
        options.onProgress?.({ type: 'top-up', index, address, value, txHash });
      } else {
        options.onProgress?.({ type: 'waiting', index, address, reason: 'a gas top-up is still pending' });
      }
      await waitUntil(async () => (await chain.nativeBalance(address)) >= need, `gas money at ${address}`);
    }

    let nonce = await chain.latestNonce(address);
    const sent: Array<{ token: SweptToken; units: bigint }> = [];
    for (const p of planned) {
      const amount = formatUnits(p.units, chain.token(p.assetId).decimals);
      const signed = await chain.signCall({ account, to: chain.token(p.assetId).address, data: p.data, nonce: nonce++, fees, gas: p.gas });
      await options.record?.signed({ index, address, assetId: p.assetId, token: chain.token(p.assetId).address, amount, txHash: signed.txHash });
      // Any outcome is fine: the receipt (or the nonce moving on) tells what happened.
      await chain.broadcast(signed.rawTransaction);
      const token: SweptToken = { assetId: p.assetId, amount, txHash: signed.txHash, status: 'skipped' };
      entry.tokens.push(token);
      sent.push({ token, units: p.units });
      options.onProgress?.({ type: 'transfer', index, address, assetId: p.assetId, amount, txHash: signed.txHash });
    }
    // Wait until the address's nonces are all used, then read what each transfer did.
    await waitUntil(async () => (await chain.latestNonce(address)) >= nonce, `the transfers of ${address}`);
    for (const { token, units } of sent) {
      const status = await chain.receipt(token.txHash!);
      if (status.status === 'success') {
        token.status = 'success';
        totals.set(token.assetId, (totals.get(token.assetId) ?? 0n) + units);
      } else if (status.status === 'reverted') {
        token.status = 'reverted';
      } else {
        // Another transaction with the same nonce was mined instead (one of an earlier run).
        token.reason = "replaced by an earlier run's transfer with the same nonce";
      }
      // Mined or reverted is settled now; one in no block stays open for the service, which reads its receipt again later.
      if (status.status !== 'pending') await options.record?.settled(token.txHash!, { status: status.status, blockNumber: status.blockNumber });
    }
    sortTokens();
  }
  for (const [assetId, units] of totals) report.moved[assetId] = formatUnits(units, chain.token(assetId).decimals);
  return report;
}

/**
 * The default gas sender: a native transfer from the hot wallet at its pending nonce. When another
 * sender took that nonce meanwhile, it signs again with the next one (at most 3 times).
 */
export async function sendGasFromHotWallet(chain: EvmChain, to: Address, value: bigint, fees?: FeeQuote): Promise<Hex> {
  for (let attempt = 0; ; attempt++) {
    const nonce = await chain.pendingNonce();
    const signed = await chain.signNativeTransfer({ nonce, to, value, fees: fees ?? (await chain.feeQuote()) });
    const result = await chain.broadcast(signed.rawTransaction);
    if (result.outcome === 'sent' || result.outcome === 'already_known') return signed.txHash;
    if (attempt >= 2) {
      throw new EvmChainError('node_error', `sweep: the hot wallet's nonce ${nonce} keeps being taken by another sender (${result.outcome})`, {
        method: 'eth_sendRawTransaction',
      });
    }
  }
}
