/**
 * The chain adapter: the only part of the service that talks to a blockchain. The service is
 * written against this interface; the built-in implementation is the sandbox (./sandbox.ts).
 *
 * The adapter never touches the database. Money moves in the service, in transactions:
 * - money in: the adapter hands out a deposit address per checkout session and reports the
 *   transfers that reach it (`IncomingTransfer`); the service settles each one once, keyed by its
 *   transaction hash (see `settleIncomingTransfer` in ../service/sessions.ts);
 * - money out: the payout worker (../service/payouts.ts) calls `sendPayout` for a withdrawal it has
 *   claimed; the adapter sends the funds or throws `PayoutError`.
 */
import type { AssetId } from '../../core/money.js';

/** A network withdrawals and payments can use. More networks are configuration, not code. */
export interface Network {
  /** Canonical id, as the API returns it (`bsc`). */
  id: string;
  /** Human name (`BNB Smart Chain`). */
  name: string;
  /** Other spellings accepted on input, compared case-insensitively. */
  aliases: string[];
  /** Assets this network carries. */
  assets: AssetId[];
  /** EIP-155 chain id, where the network is a real EVM chain. */
  chainId?: number | undefined;
  /** Block explorer base without a trailing slash (a transaction is `${explorerUrl}/tx/${hash}`). */
  explorerUrl?: string | undefined;
  /** Each asset's ERC-20 contract (EIP-55) and its `decimals()`, where the chain has real tokens. */
  tokens?: Partial<Record<AssetId, { address: string; decimals: number }>> | undefined;
}

/** The chain facts of `assetId` on `network` that the public checkout API returns (nulls on the sandbox). */
export function assetChainFacts(network: Network | undefined, assetId: AssetId) {
  const token = network?.tokens?.[assetId];
  return {
    chainId: network?.chainId ?? null,
    tokenAddress: token?.address ?? null,
    decimals: token?.decimals ?? null,
    explorerUrl: network?.explorerUrl ?? null,
  };
}

/** A transfer the chain saw arriving at a deposit address. */
export interface IncomingTransfer {
  blockchainId: string;
  /** Lowercase `0x` + 64 hex. One hash is settled at most once per network. */
  txHash: string;
  assetId: AssetId;
  /** The deposit address it reached. */
  toAddress: string;
  /** Decimal string with at most the asset's digits. */
  amount: string;
  /** True when no real funds moved (the sandbox chain). */
  sandbox: boolean;
}

/** What the payout worker asks the chain to send. */
export interface PayoutRequest {
  /** The withdrawal's id: adapters use it to make a retried payout idempotent. */
  withdrawalId: string;
  blockchainId: string;
  assetId: AssetId;
  address: string;
  amount: string;
}

export interface PayoutResult {
  txHash: string;
  /** True when no real funds moved (the sandbox chain). */
  sandbox: boolean;
}

/** A payout the chain refused for good; `message` becomes the withdrawal's `failureReason`. */
export class PayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayoutError';
  }
}

export interface ChainAdapter {
  /** True for the sandbox: no real funds move, and `simulate-payment` exists. */
  readonly sandbox: boolean;
  readonly networks: readonly Network[];
  /** The address a customer pays a checkout session at; distinct per session. */
  depositAddress(request: { sessionId: string; blockchainId: string; assetId: AssetId }): Promise<string>;
  /**
   * Sends a withdrawal's funds. Resolves with the transaction hash, throws `PayoutError` when the
   * payout failed for good (the funds are then returned to the balance). Any other error (or no
   * answer within the worker's `payoutTimeoutMs`) means "outcome unknown": the withdrawal stays
   * `processing` and the same request is sent again after the lease, so this must be idempotent
   * per `withdrawalId`.
   */
  sendPayout(request: PayoutRequest): Promise<PayoutResult>;
  /**
   * Sandbox only: fabricates an incoming transfer to `toAddress`, as if a customer had paid.
   * Absent on real chains, which is what makes `simulate-payment` a 404 there.
   */
  simulateIncomingTransfer?(request: {
    blockchainId: string;
    assetId: AssetId;
    toAddress: string;
    amount: string;
    txHash?: string | undefined;
  }): Promise<IncomingTransfer>;
}

/** Finds the network named by an id or one of its aliases, case-insensitively. */
export function findNetwork(networks: readonly Network[], name: string): Network | undefined {
  const wanted = name.trim().toLowerCase();
  return networks.find((n) => n.id.toLowerCase() === wanted || n.aliases.some((a) => a.toLowerCase() === wanted));
}

/** The one network the service supports today. */
export const BSC: Network = {
  id: 'bsc',
  name: 'BNB Smart Chain',
  aliases: ['bnb-smart-chain', 'bnb smart chain', 'binance-smart-chain', 'binance smart chain', 'bep20', 'bep-20', 'bnb', 'bnb_smart_chain', 'bsc-mainnet', 'binance'],
  assets: ['USDT', 'CNGN'],
};
