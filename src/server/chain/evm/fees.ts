/**
 * What a transaction costs: the fees of the moment (EIP-1559 where the chain has a base fee, a legacy
 * gas price where it has none, as on BNB Smart Chain) and the gas a call needs. A stored transaction
 * is never re-priced, so fees get headroom when a payout is prepared (`withHeadroom`).
 */
import { toHex, type Address, type Hex } from 'viem';
import type { ChainContext } from './context.js';
import { EvmChainError, toChainError } from './errors.js';

/** Fees of a transaction, from the node. */
export type FeeQuote = { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 'legacy'; gasPrice: bigint };

/** Gas of a plain native transfer to an externally owned account. */
export const NATIVE_TRANSFER_GAS = 21_000n;

function gasPrice(ctx: ChainContext): Promise<bigint> {
  return ctx.rpc.call('eth_gasPrice', (client) => client.getGasPrice());
}

/** Current fees from the node: EIP-1559 where the chain has a base fee, a legacy gas price otherwise. */
export async function feeQuote(ctx: ChainContext): Promise<FeeQuote> {
  const mode = ctx.options.feeMode ?? 'auto';
  if (mode === 'legacy') return { type: 'legacy', gasPrice: await gasPrice(ctx) };
  const block = await ctx.rpc.call('eth_getBlockByNumber', (client) => client.getBlock({ blockTag: 'latest' }));
  const baseFee = block.baseFeePerGas;
  if (baseFee === null || (mode === 'auto' && baseFee === 0n)) {
    if (mode === 'eip1559')
      throw new EvmChainError('unsupported', 'the chain has no EIP-1559 base fee (use feeMode legacy)', { method: 'eth_getBlockByNumber' });
    return { type: 'legacy', gasPrice: await gasPrice(ctx) };
  }
  let priority: bigint;
  try {
    priority = BigInt(await ctx.rpc.call('eth_maxPriorityFeePerGas', (client) => client.request({ method: 'eth_maxPriorityFeePerGas' })));
  } catch (error) {
    if (!(error instanceof EvmChainError) || error.code !== 'unsupported') throw error;
    const price = await gasPrice(ctx);
    priority = price > baseFee ? price - baseFee : 0n;
  }
  // Twice the base fee: the transaction stays includable through several full blocks in a row.
  return { type: 'eip1559', maxFeePerGas: baseFee * 2n + priority, maxPriorityFeePerGas: priority };
}

/**
 * Fees with headroom for a transaction that may wait in the database before it is broadcast:
 * the priority fee as quoted, and at least three times the base fee, so it stays includable
 * through a run of full blocks. The stored bytes are re-sent as they are, never re-priced.
 */
export function withHeadroom(fees: FeeQuote): FeeQuote {
  if (fees.type === 'legacy') return { type: 'legacy', gasPrice: (fees.gasPrice * 5n) / 4n };
  return { ...fees, maxFeePerGas: fees.maxFeePerGas + fees.maxFeePerGas / 2n };
}

/**
 * The gas a call needs, with the configured margin. Throws `EvmChainError('reverted')` when the
 * call would revert now (e.g. the token is paused or the sender's balance is too low).
 */
export async function estimateGas(
  ctx: ChainContext,
  call: { from: Address; to: Address; data?: Hex | undefined; value?: bigint | undefined },
): Promise<bigint> {
  const estimate = await ctx.rpc.call('eth_estimateGas', (client) =>
    client.estimateGas({ account: call.from, to: call.to, data: call.data, value: call.value }),
  );
  return withMargin(ctx, estimate);
}

/** `estimate` × the configured margin, rounded up. */
function withMargin(ctx: ChainContext, estimate: bigint): bigint {
  const margin = ctx.options.gasMargin ?? 1.25;
  return (estimate * BigInt(Math.round(margin * 1_000)) + 999n) / 1_000n;
}

/**
 * The gas of several calls, estimated in one JSON-RPC batch, each with the configured margin and
 * settling on its own: a call that would revert now is rejected with `EvmChainError('reverted')`.
 */
export async function estimateGasMany(
  ctx: ChainContext,
  calls: ReadonlyArray<{ from: Address; to: Address; data?: Hex | undefined; value?: bigint | undefined }>,
): Promise<Array<PromiseSettledResult<bigint>>> {
  const answers = await ctx.rpc.batch(
    'eth_estimateGas',
    calls.map((call) => [{ from: call.from, to: call.to, data: call.data, value: call.value === undefined ? undefined : toHex(call.value) }]),
  );
  return answers.map((answer): PromiseSettledResult<bigint> => {
    if (answer.status === 'rejected') return { status: 'rejected', reason: toChainError(answer.reason, 'eth_estimateGas') };
    if (typeof answer.value !== 'string' || !/^0x[0-9a-f]+$/i.test(answer.value)) {
      return {
        status: 'rejected',
        reason: new EvmChainError('bad_response', 'eth_estimateGas: the node answered no gas amount', { method: 'eth_estimateGas' }),
      };
    }
    return { status: 'fulfilled', value: withMargin(ctx, BigInt(answer.value)) };
  });
}
