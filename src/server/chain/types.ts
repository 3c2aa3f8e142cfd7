/**
 * The chain interface: the only way the service talks to a blockchain. The service is written
 * against it; each chain family (its own folder beside this file, registered in ./registry.ts)
 * implements it, and none is imported here. What a family is and provides: ./family.ts.
 *
 * An adapter is one of two kinds (`kind`), and the service asks which before it uses either:
 * - `sandbox`: no real funds move. A transfer is fabricated (`simulateIncomingTransfer`) and credited
 *   at once; a payout is direct (`sendPayout`).
 * - `real`: one or more networks (`chains`, one per network), each with its own scanner input
 *   (`incoming`, ./money-in.ts) and hot-wallet payouts (`outgoing`, ./money-out.ts). The money-in
 *   room's scanner (../service/money-in/scanner.ts) reads each network's transfers block range by
 *   block range, follows their confirmations and credits each once through the same settlement
 *   (../service/money-in/settlement.ts), then follows it to finality. The payout worker
 *   (../service/payouts/) has a network prepare and sign one transaction per withdrawal (a batch of
 *   them at a time), stores each with its place in the hot wallet's sequence before anything is
 *   sent, then broadcasts those stored transactions (again, after any crash) and follows their
 *   receipts.
 *
 * The adapter never touches the database: money moves in the service, in transactions, and
 * everything it stores about a network (cursor, nonces, finality) is keyed by the network's id.
 */
import type { AssetId } from '../../core/money.js';
import type { DepositAddressRequest, IncomingChain, IncomingTransfer } from './money-in.js';
import type { OutgoingChain, PayoutRequest, PayoutResult } from './money-out.js';
import type { Network } from './network.js';
import type { ReconcileChain } from './reconcile.js';

export { assetChainFacts, findNetwork, type AddNetworkParameters, type Network } from './network.js';
export type { DepositAddressRequest, IncomingChain, IncomingTransfer, ObservedTransfer, ObservedTransferCheck } from './money-in.js';
export {
  HotWalletShortError,
  PayoutError,
  type BroadcastOutcome,
  type HotWalletHoldings,
  type OutgoingChain,
  type PayoutRequest,
  type PayoutResult,
  type PreparedTransaction,
  type SenderSequence,
  type SequenceVerdict,
  type SignedRawTransaction,
  type TransactionState,
} from './money-out.js';
export type { BalanceQuery, BlockHeader, ReconcileChain } from './reconcile.js';

/** What both kinds of adapter have. */
interface ChainAdapterBase {
  readonly networks: readonly Network[];
  /** The address a customer pays a checkout session at; distinct per session. */
  depositAddress(request: DepositAddressRequest): Promise<string>;
  /** Releases the node connections (the creator calls it after the service has stopped). */
  close?(): Promise<void>;
}

/** The sandbox: fabricated transfers credited at once, direct payouts, no real funds. */
export interface SandboxChainAdapter extends ChainAdapterBase {
  readonly kind: 'sandbox';
  readonly sandbox: true;
  /**
   * Sends a withdrawal's funds. Resolves with the transaction hash, throws `PayoutError` when the
   * payout failed for good (the funds are then returned to the balance). Any other error (or no
   * answer within the worker's `payoutTimeoutMs`) means "outcome unknown": the withdrawal stays
   * `processing` and the same request is sent again after the lease, so this must be idempotent per
   * `withdrawalId`.
   */
  sendPayout(request: PayoutRequest): Promise<PayoutResult>;
  /** Fabricates an incoming transfer to `toAddress`, as if a customer had paid (`simulate-payment`). */
  simulateIncomingTransfer(request: {
    blockchainId: string;
    assetId: AssetId;
    toAddress: string;
    amount: string;
    txHash?: string | undefined;
  }): Promise<IncomingTransfer>;
}

/** One network of a real adapter: what its scanner reads and what its payouts use. */
export interface NetworkChain {
  readonly blockchainId: string;
  readonly incoming: IncomingChain;
  /** Absent without a payout key: withdrawals on the network wait. */
  readonly outgoing: OutgoingChain | undefined;
  /** What reconciliation reads (absent on an adapter that cannot: its network is not reconciled). */
  readonly reconcile?: ReconcileChain | undefined;
}

/** Real networks: transfers read from the chain, payouts as stored signed transactions. */
export interface RealChainAdapter extends ChainAdapterBase {
  readonly kind: 'real';
  readonly sandbox: false;
  /** One per network, in the order of `networks`. */
  readonly chains: readonly NetworkChain[];
  /** Releases every node connection (the creator calls it after the service has stopped). */
  close(): Promise<void>;
}

/** The chain the service runs on: the sandbox, or real networks. */
export type ChainAdapter = SandboxChainAdapter | RealChainAdapter;

/** The network `blockchainId` of a real adapter, or undefined (the sandbox, or a network not configured). */
export function networkChain(chain: ChainAdapter, blockchainId: string): NetworkChain | undefined {
  return chain.kind === 'real' ? chain.chains.find((c) => c.blockchainId === blockchainId) : undefined;
}
