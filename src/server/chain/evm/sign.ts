/**
 * Signing without sending: a transaction is signed with the nonce the caller took under its database
 * lock, and stored before anything is broadcast. With fees and gas given, signing makes no node call
 * at all, so a payout can be signed and stored while the node is down.
 */
import { encodeFunctionData, erc20Abi, keccak256, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import type { AssetId } from '../../../core/money.js';
import { checkedAddress, type ChainContext, lower, tokenOf, tokenUnits } from './context.js';
import { estimateGas, feeQuote, NATIVE_TRANSFER_GAS, type FeeQuote } from './fees.js';

/** A signed, unsent transaction: store `rawTransaction` before broadcasting it. */
export interface SignedTransaction {
  /** The serialized signed transaction; `broadcast` it (again) as often as needed. */
  rawTransaction: Hex;
  /** keccak-256 of `rawTransaction`, lowercase. */
  txHash: Hex;
  from: Address;
  nonce: number;
  gas: bigint;
  fees: FeeQuote;
}

/** What any call to sign needs. */
export interface CallToSign {
  account: PrivateKeyAccount;
  to: Address;
  data?: Hex | undefined;
  value?: bigint | undefined;
  nonce: number;
  fees?: FeeQuote | undefined;
  gas?: bigint | undefined;
}

/**
 * Signs any call from `account` (the hot wallet, or a deposit key in `paylink sweep`). Reads fees
 * and gas from the node when they are not given.
 */
export async function signCall(ctx: ChainContext, request: CallToSign): Promise<SignedTransaction> {
  if (!Number.isSafeInteger(request.nonce) || request.nonce < 0) throw new RangeError(`nonce must be a whole number ≥ 0, not ${request.nonce}`);
  const fees = request.fees ?? (await feeQuote(ctx));
  const gas = request.gas ?? (await estimateGas(ctx, { from: request.account.address, to: request.to, data: request.data, value: request.value }));
  const common = { chainId: ctx.config.chainId, nonce: request.nonce, to: request.to, data: request.data, value: request.value ?? 0n, gas };
  const rawTransaction =
    fees.type === 'eip1559'
      ? await request.account.signTransaction({ ...common, type: 'eip1559', maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas })
      : await request.account.signTransaction({ ...common, type: 'legacy', gasPrice: fees.gasPrice });
  return { rawTransaction, txHash: lower(keccak256(rawTransaction)), from: request.account.address, nonce: request.nonce, gas, fees };
}

/** The call of an ERC-20 transfer of `amount` (decimal string in the asset's units) of `assetId` to `to`. */
export function tokenTransferCall(ctx: ChainContext, request: { assetId: AssetId; to: string; amount: string }): { to: Address; data: Hex } {
  const token = tokenOf(ctx, request.assetId);
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [checkedAddress(request.to), tokenUnits(request.amount, token)] });
  return { to: token.address, data };
}

/**
 * Signs an ERC-20 transfer from `account` with the caller's `nonce`. Sends nothing. `fees` and `gas`
 * are read from the node when omitted. Estimating the gas of a transfer that would revert throws
 * `EvmChainError('reverted')` (not retryable): nothing was signed or spent.
 */
export async function signTokenTransfer(
  ctx: ChainContext,
  account: PrivateKeyAccount,
  request: { nonce: number; assetId: AssetId; to: string; amount: string; fees?: FeeQuote | undefined; gas?: bigint | undefined },
): Promise<SignedTransaction> {
  const call = tokenTransferCall(ctx, request);
  return signCall(ctx, { account, ...call, nonce: request.nonce, fees: request.fees, gas: request.gas });
}

/** Signs a native-coin transfer (gas money: BNB on BSC) of `value` wei. Gas is 21,000 (a plain transfer to an account without code). */
export async function signNativeTransfer(
  ctx: ChainContext,
  account: PrivateKeyAccount,
  request: { nonce: number; to: string; value: bigint; fees?: FeeQuote | undefined },
): Promise<SignedTransaction> {
  if (request.value <= 0n) throw new RangeError('a native transfer must move more than 0 wei');
  return signCall(ctx, { account, to: checkedAddress(request.to), value: request.value, nonce: request.nonce, fees: request.fees, gas: NATIVE_TRANSFER_GAS });
}
