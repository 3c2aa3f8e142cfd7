/**
 * Money out on one EVM network, as the payout worker asks for it (`OutgoingChain`, ../money-out.ts):
 * the hot wallet's holdings and gas floor, payouts prepared (fees and gas read once per batch, drafts
 * priced from the last batch's gas so they can be signed while the estimates run), signed for a place
 * in the hot wallet's sequence (its nonce), broadcast, and followed by their receipts. A node's
 * refusal becomes what the worker acts on: `PayoutError` (refused for good), `HotWalletShortError`
 * (no gas money for now), or an outcome that means "follow the receipt".
 */
import { getAddress, type Address, type Hex } from 'viem';
import type { AssetId } from '../../../core/money.js';
import { defaultLogger } from '../../log.js';
import {
  HotWalletShortError,
  PayoutError,
  type BroadcastOutcome,
  type OutgoingChain,
  type PayoutRequest,
  type PreparedTransaction,
  type TransactionState,
} from '../types.js';
import { classifyRefusal } from './broadcast.js';
import type { EvmChain, TransactionStatus } from './chain.js';
import { watchHeld } from './dev-node.js';
import { EvmChainError, nodeMessage } from './errors.js';
import { NATIVE_TRANSFER_GAS, withHeadroom, type FeeQuote } from './fees.js';

/** A transaction with its fees and gas fixed, waiting for a nonce. */
interface EvmPrepared extends PreparedTransaction {
  readonly kind: 'token' | 'native';
  /** Who receives the tokens or the coin (for a token transfer, `to` is the token contract). */
  readonly recipient: Address;
  readonly assetId?: AssetId;
  readonly amount?: string;
  readonly value?: bigint;
  readonly fees: FeeQuote;
  readonly gas: bigint;
}

/** Turns a refusal for good into `PayoutError` (the withdrawal fails, its funds come back). */
function refusalOf(error: unknown, what: string): unknown {
  if (error instanceof EvmChainError && !error.retryable) return new PayoutError(`${what}: ${error.message}`);
  return error;
}

/** A node's word that the hot wallet cannot pay for a transaction (its gas and value), as `HotWalletShortError`; else undefined. */
function gasShort(error: unknown): HotWalletShortError | undefined {
  const said =
    error instanceof EvmChainError && error.code === 'insufficient_funds'
      ? error.message
      : classifyRefusal(nodeMessage(error)) === 'insufficient_funds'
        ? nodeMessage(error)
        : undefined;
  return said === undefined ? undefined : new HotWalletShortError('gas', `the hot wallet cannot pay the gas: ${said}`);
}

/**
 * A broadcast's refusal as the payouts see it: an outcome, `PayoutError` (refused for good),
 * `HotWalletShortError` (no gas money for now) or, thrown as it is, an outage.
 */
function broadcastRefusal(error: unknown): BroadcastOutcome {
  // A node that does not queue a transaction ahead of its nonce (several sent at once arrive out of order).
  if (error instanceof EvmChainError && error.code === 'nonce_too_high') return 'nonce_gap';
  throw gasShort(error) ?? refusalOf(error, 'The node refused the transaction');
}

/** Gas of an ERC-20 transfer when no batch has measured one yet: what common tokens need, with room. */
const TYPICAL_TRANSFER_GAS = 65_000n;
/** How many transfers the hot wallet's gas money should cover when `*_MIN_GAS` is not set. */
const MIN_GAS_TRANSFERS = 20n;

/** The most a transaction at `fees` with `gas` can cost in gas money, in wei. */
function gasCost(fees: FeeQuote, gas: bigint): bigint {
  return gas * (fees.type === 'legacy' ? fees.gasPrice : fees.maxFeePerGas);
}

/** The payouts of one connected network, or undefined without a payout key (withdrawals on it wait). */
export function evmOutgoingChain(chain: EvmChain): OutgoingChain | undefined {
  const network = chain.network;
  const hotWallet = chain.hotWallet;
  if (!hotWallet) return undefined;

  /** A receipt as a payout's state; for a withdrawal's payout, with what its recipient received. */
  const stateOf = (receipt: TransactionStatus, payout: { assetId: AssetId; to: string } | undefined): TransactionState => {
    if (receipt.status === 'pending') return receipt;
    const received = payout && receipt.status === 'success' ? chain.receivedAmount(receipt.logs, payout.assetId, payout.to) : undefined;
    return { status: receipt.status, blockNumber: receipt.blockNumber, confirmations: receipt.confirmations, received };
  };

  /**
   * Per token, the most gas (estimate × margin) a transfer of the latest batch needed: the next
   * batch's drafts are priced with it, so they can be signed while their own estimates run. A
   * transfer whose own estimate asks for more gets a transaction of its own (`preparePayouts`).
   */
  const usualGas = new Map<AssetId, bigint>();
  const rememberGas = (requests: readonly PayoutRequest[], gas: ReadonlyArray<PromiseSettledResult<bigint>>) => {
    const most = new Map<AssetId, bigint>();
    for (const [i, estimate] of gas.entries()) {
      const assetId = requests[i]!.assetId;
      if (estimate.status === 'fulfilled' && estimate.value > (most.get(assetId) ?? 0n)) most.set(assetId, estimate.value);
    }
    for (const [assetId, value] of most) usualGas.set(assetId, value);
  };

  // A payout in no block a while: a local anvil node may hold it queued for ever (./dev-node.ts).
  let releaseFailedAt = 0;
  const followUp = watchHeld(
    () => chain.releaseQueued(),
    (error) => {
      if (Date.now() - releaseFailedAt < 60_000) return; // one line a minute while it keeps failing
      releaseFailedAt = Date.now();
      defaultLogger.warn(
        'dev_node_release_failed',
        'a payout sent a while ago is in no block, and asking the node whether it holds it for ever failed: asked again later',
        { blockchainId: network.id, error },
      );
    },
  );

  return {
    blockchainId: network.id,
    hotWallet,
    confirmations: chain.confirmations,
    nativeCurrency: chain.config.nativeCurrency,
    reconcileMs: chain.config.reconcileMs,
    sequence: {
      next: () => chain.pendingNonce(),
      // The hot wallet's place is its nonce.
      async replaced(nonce, txHash) {
        const verdict = await chain.nonceReplaced(nonce, txHash as Hex);
        return verdict.replaced ? { replaced: true, next: verdict.nextNonce } : verdict;
      },
    },
    async holdings(assetIds) {
      // At the node's pending state: what the payouts it holds in its mempool will leave (the payouts
      // count those as sent). A node that reads `pending` as `latest` only looks fuller for a block.
      const read = (blockTag: 'latest' | 'pending') =>
        Promise.all([chain.nativeBalance(hotWallet, blockTag), ...assetIds.map((assetId) => chain.tokenBalance(assetId, hotWallet, blockTag))]);
      let balances: Array<bigint | string>;
      try {
        balances = await read('pending');
      } catch (error) {
        // A node that refuses the tag (not one that is down) is asked for its latest block.
        if (!(error instanceof EvmChainError) || error.retryable) throw error;
        balances = await read('latest');
      }
      const [native, ...tokens] = balances;
      return { native: native as bigint, tokens: Object.fromEntries(assetIds.map((assetId, i) => [assetId, tokens[i] as string])) };
    },
    async gasFloor() {
      // The costliest transfer a batch measured, else a typical one, at the current fee (no headroom: what it costs now).
      const measured = [...usualGas.values()];
      const gas = measured.length ? measured.reduce((most, value) => (value > most ? value : most)) : TYPICAL_TRANSFER_GAS;
      const perTransfer = gasCost(await chain.feeQuote(), gas);
      return { floor: chain.config.minGas ?? perTransfer * MIN_GAS_TRANSFERS, perTransfer };
    },
    maxCost(preparedTransaction) {
      const prepared = preparedTransaction as EvmPrepared;
      return gasCost(prepared.fees, prepared.gas) + (prepared.value ?? 0n);
    },
    transactionKnown: (txHash) => chain.transactionKnown(txHash as Hex),
    async preparePayouts(requests, early) {
      // Estimating is a dry run of each transfer: one that would revert now (the hot wallet holds too
      // little, the token is paused, the recipient is blocked) is refused before any nonce is taken.
      const refused = (error: unknown, assetId: AssetId) =>
        error instanceof RangeError || error instanceof TypeError
          ? new PayoutError(error.message)
          : (gasShort(error) ?? refusalOf(error, `The ${assetId} transfer cannot be sent`));
      const transfer = (request: PayoutRequest, fees: FeeQuote, gas: bigint): EvmPrepared => ({
        kind: 'token',
        description: `transfer ${request.amount} ${request.assetId} to ${request.address}`,
        to: chain.token(request.assetId).address,
        recipient: getAddress(request.address),
        assetId: request.assetId,
        amount: request.amount,
        fees,
        gas,
      });
      // One quote for the whole batch (the fees of one moment, with headroom for the wait in the
      // database), asked at the same time as the estimates: neither needs the other.
      const quoting = chain.feeQuote().then(withHeadroom);
      let drafts: Array<EvmPrepared | undefined> | undefined;
      if (early) {
        quoting.then(
          (fees) => {
            drafts = requests.map((request) => {
              const gas = usualGas.get(request.assetId);
              try {
                return gas === undefined ? undefined : transfer(request, fees, gas);
              } catch {
                return undefined; // a request that cannot be sent: its estimate says why
              }
            });
            if (drafts.some(Boolean)) early(drafts);
          },
          () => {},
        );
      }
      const [quote, estimates] = await Promise.allSettled([
        quoting,
        chain.estimateTokenTransfers(requests.map((request) => ({ assetId: request.assetId, to: request.address, amount: request.amount }))),
      ]);
      if (quote.status === 'rejected') {
        const refusal = refusalOf(quote.reason, 'The transfer cannot be sent');
        if (!(refusal instanceof PayoutError)) throw refusal;
        return requests.map((): PromiseRejectedResult => ({ status: 'rejected', reason: refusal }));
      }
      if (estimates.status === 'rejected')
        return requests.map((request): PromiseRejectedResult => ({ status: 'rejected', reason: refused(estimates.reason, request.assetId) }));
      const gas = estimates.value;
      rememberGas(requests, gas);
      return requests.map((request, i): PromiseSettledResult<PreparedTransaction> => {
        const estimate = gas[i]!;
        if (estimate.status === 'rejected') return { status: 'rejected', reason: refused(estimate.reason, request.assetId) };
        // The draft's gas covers this transfer's own estimate (margin included): it stands, and so does
        // its signature. A higher limit costs nothing: only the gas used is paid.
        const draft = drafts?.[i];
        if (draft && draft.gas >= estimate.value) return { status: 'fulfilled', value: draft };
        return { status: 'fulfilled', value: transfer(request, quote.value, estimate.value) };
      });
    },
    async prepareGasTopUp(to, value) {
      const recipient = getAddress(to);
      const prepared: EvmPrepared = {
        kind: 'native',
        description: `gas top-up of ${value} wei to ${recipient}`,
        to: recipient,
        recipient,
        value,
        fees: withHeadroom(await chain.feeQuote()),
        gas: NATIVE_TRANSFER_GAS,
      };
      return prepared;
    },
    async prepareFiller() {
      // 1 wei to itself: the cheapest transaction that uses a nonce (a native transfer must move something).
      const prepared: EvmPrepared = {
        kind: 'native',
        description: 'nonce filler (1 wei to itself)',
        to: hotWallet,
        recipient: hotWallet,
        value: 1n,
        fees: withHeadroom(await chain.feeQuote()),
        gas: NATIVE_TRANSFER_GAS,
      };
      return prepared;
    },
    async sign(preparedTransaction, nonce) {
      const prepared = preparedTransaction as EvmPrepared;
      const signed =
        prepared.kind === 'token'
          ? await chain.signTokenTransfer({
              nonce,
              assetId: prepared.assetId!,
              to: prepared.recipient,
              amount: prepared.amount!,
              fees: prepared.fees,
              gas: prepared.gas,
            })
          : await chain.signNativeTransfer({ nonce, to: prepared.recipient, value: prepared.value!, fees: prepared.fees });
      return { rawTransaction: signed.rawTransaction, txHash: signed.txHash };
    },
    async broadcast(rawTransaction) {
      try {
        return (await chain.broadcast(rawTransaction as Hex)).outcome;
      } catch (error) {
        return broadcastRefusal(error);
      }
    },
    async broadcastMany(rawTransactions) {
      const results = await chain.broadcastMany(rawTransactions as readonly Hex[]);
      return results.map((result): PromiseSettledResult<BroadcastOutcome> => {
        if (result.status === 'fulfilled') return { status: 'fulfilled', value: result.value.outcome };
        try {
          return { status: 'fulfilled', value: broadcastRefusal(result.reason) };
        } catch (reason) {
          return { status: 'rejected', reason };
        }
      });
    },
    latestBlock: () => chain.latestBlock(),
    async state(txHash, payout): Promise<TransactionState> {
      return stateOf(await chain.receipt(txHash as Hex), payout);
    },
    async states(transactions, latest) {
      const receipts = await chain.receipts(
        transactions.map((t) => t.txHash as Hex),
        latest,
      );
      const pending: string[] = [];
      const mined: string[] = [];
      for (const [i, receipt] of receipts.entries()) {
        if (receipt.status === 'fulfilled') (receipt.value.status === 'pending' ? pending : mined).push(transactions[i]!.txHash);
      }
      await followUp(pending, mined);
      return receipts.map((receipt, i): PromiseSettledResult<TransactionState> => {
        if (receipt.status === 'rejected') return receipt;
        try {
          return { status: 'fulfilled', value: stateOf(receipt.value, transactions[i]!.payout) };
        } catch (reason) {
          return { status: 'rejected', reason };
        }
      });
    },
  };
}
