/**
 * What reconciliation reads of an EVM network (`ReconcileChain`, ../types.ts): token balances at a past
 * block for thousands of deposit addresses at once, a block's token transfers read from its receipts,
 * and where transactions stand.
 *
 * Balances: one `balanceOf` per address and token, made many at a time. Where the network has
 * Multicall3 (at its usual address on every major network; on a local chain a test deploys it there),
 * up to `callsPerMulticall` `balanceOf` calls go in one `eth_call` of its `aggregate3`, and those
 * `eth_call`s go in JSON-RPC batches; elsewhere (or for a chunk the contract could not answer: a block
 * before it was deployed, a provider's gas cap) the `balanceOf` calls go in JSON-RPC batches themselves.
 * 10,000 addresses cost about 20 `eth_call`s in one HTTP request, not 10,000 round trips.
 *
 * A block's transfers come from its receipts (`eth_getBlockReceipts`, else the block's transactions and
 * a batch of `eth_getTransactionReceipt`), never from `eth_getLogs`: a node behind a load balancer may
 * answer `eth_getLogs` from an index that lacks a log, and a reconciliation that trusted it would miss
 * the very transfer it looks for.
 */
import { formatUnits, getAddress, numberToHex, type Address, type Hex } from 'viem';
import type { BalanceQuery, BlockHeader, ObservedTransfer, ReconcileChain } from '../types.js';
import type { EvmChain } from './chain.js';
import { lower } from './context.js';
import { EvmChainError, toChainError } from './errors.js';
import { orNull } from './transfers.js';

/** Multicall3's address: the same on every network it is deployed on (its deployer's nonce 0). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** `balanceOf(address)`'s selector. */
const BALANCE_OF = '0x70a08231';
/** `Transfer(address,address,uint256)`'s topic. */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** Options of `evmReconcileChain`. */
export interface ReconcileReadOptions {
  /** Most `balanceOf` calls in one Multicall3 `eth_call` (default `*_RECONCILE_BATCH`): lower it for a provider with a small gas or response cap. */
  callsPerMulticall?: number | undefined;
}

/** A receipt's fields that matter here, as the node sends them. */
interface RawReceipt {
  transactionHash: string;
  blockHash: string;
  blockNumber: string;
  status?: string;
  logs: Array<{ address: string; topics: string[]; data: string; logIndex: string; removed?: boolean }>;
}

function balanceCall(holder: string): Hex {
  return `${BALANCE_OF}${'0'.repeat(24)}${holder.slice(2).toLowerCase()}` as Hex;
}

/** `aggregate3((address,bool,bytes)[])`'s selector. */
const AGGREGATE3 = '0x82ad56cb';
const word = (n: number) => n.toString(16).padStart(64, '0');
const ZEROS_24 = '0'.repeat(24);
const ZEROS_56 = '0'.repeat(56);
/** allowFailure, the call's offset and length, `balanceOf`'s selector and the holder's padding: the same in every call. */
const CALL_HEAD = `${word(1)}${word(96)}${word(36)}70a08231${ZEROS_24}`;

/**
 * Multicall3 `aggregate3` of `balanceOf(holder)` on each `[token, holder]`, each allowed to fail: its
 * ABI encoding written out (every call has the same shape: a 36-byte call in 192 bytes), which costs a
 * fraction of a generic encoder's time for thousands of calls.
 */
export function encodeBalanceAggregate(calls: ReadonlyArray<readonly [token: string, holder: string]>): Hex {
  let out = `${AGGREGATE3}${word(32)}${word(calls.length)}`;
  for (let i = 0; i < calls.length; i++) out += word(calls.length * 32 + i * 192);
  const targets = new Map<string, string>();
  for (const [token, holder] of calls) {
    let target = targets.get(token);
    if (target === undefined) targets.set(token, (target = `${ZEROS_24}${token.slice(2).toLowerCase()}`));
    // target, allowFailure = true, the call's offset in the tuple (3 words), its length (36), then 36 bytes padded to 64.
    out += `${target}${CALL_HEAD}${holder.slice(2).toLowerCase()}${ZEROS_56}`;
  }
  return out as Hex;
}

/**
 * `aggregate3`'s answer, `(bool success, bytes returnData)[]`, read by its offsets; null when it is
 * not that shape (a contract that is not Multicall3, or none at all).
 */
export function decodeAggregate(data: string): Array<{ success: boolean; returnData: Hex }> | null {
  const hex = data.startsWith('0x') ? data.slice(2) : data;
  const at = (byte: number) => {
    const text = hex.slice(byte * 2, byte * 2 + 64);
    if (text.length !== 64) throw new RangeError('short');
    return Number.parseInt(text, 16);
  };
  try {
    const array = at(0);
    const count = at(array);
    const base = array + 32;
    const out: Array<{ success: boolean; returnData: Hex }> = [];
    for (let i = 0; i < count; i++) {
      const tuple = base + at(base + i * 32);
      const bytes = tuple + at(tuple + 32);
      const length = at(bytes);
      const start = (bytes + 32) * 2;
      if (start + length * 2 > hex.length) return null;
      out.push({ success: at(tuple) === 1, returnData: `0x${hex.slice(start, start + length * 2)}` as Hex });
    }
    return out;
  } catch {
    return null;
  }
}

/** A `balanceOf` answer: 32 bytes; none at all where the token had no code (nothing to hold). */
function balanceOfAnswer(data: string): bigint {
  if (data === '0x') return 0n;
  if (!/^0x[0-9a-fA-F]{64}/.test(data)) throw new EvmChainError('bad_response', 'balanceOf: the answer is not a uint256', { method: 'eth_call' });
  return BigInt(data.slice(0, 66));
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The reads of reconciliation on a connected EVM network. */
export function evmReconcileChain(chain: EvmChain, options: ReconcileReadOptions = {}): ReconcileChain {
  const rpc = chain.rpc;
  const perMulticall = Math.max(1, options.callsPerMulticall ?? chain.config.reconcileBatch);
  const tokenOf = (assetId: BalanceQuery['assetId']) => chain.token(assetId).address;
  /** Whether Multicall3 has code on this network (asked once; a failed ask is asked again next time). */
  let multicall: Promise<boolean> | undefined;
  const hasMulticall = () =>
    (multicall ??= rpc
      .call('eth_getCode', (client) => client.getCode({ address: MULTICALL3_ADDRESS }))
      .then(
        (code) => !!code && code !== '0x',
        (error: unknown) => {
          multicall = undefined;
          throw error;
        },
      ));

  /** The balances of `queries` as one JSON-RPC batch of plain `eth_call`s (in requests of the rpc's batch size). */
  const direct = async (block: Hex, queries: readonly BalanceQuery[], atLeast: number): Promise<bigint[]> => {
    const answers = await rpc.batch(
      'eth_call',
      queries.map((q) => [{ to: tokenOf(q.assetId), data: balanceCall(q.holder) }, block]),
      { atLeast },
    );
    return answers.map((answer) => {
      if (answer.status === 'rejected') throw toChainError(answer.reason, 'eth_call');
      return balanceOfAnswer(String(answer.value));
    });
  };

  /** One Multicall3 `aggregate3` per chunk, the chunks' `eth_call`s in JSON-RPC batches; a chunk it cannot answer is read directly. */
  const viaMulticall = async (block: Hex, queries: readonly BalanceQuery[], atLeast: number): Promise<bigint[]> => {
    const parts = chunks(queries, perMulticall);
    const calls = parts.map((part) => [
      { to: MULTICALL3_ADDRESS, data: encodeBalanceAggregate(part.map((q) => [tokenOf(q.assetId), q.holder] as const)) },
      block,
    ]);
    const answers = await rpc.batch('eth_call', calls, { atLeast });
    const out: bigint[] = [];
    for (const [i, answer] of answers.entries()) {
      const part = parts[i]!;
      let results: ReadonlyArray<{ success: boolean; returnData: Hex }> | null = null;
      if (answer.status === 'fulfilled') {
        results = decodeAggregate(String(answer.value));
      } else {
        const error = toChainError(answer.reason, 'eth_call');
        // An outage fails the read; a refusal (gas cap, no contract at that block) is read another way.
        if (error instanceof EvmChainError && error.retryable) throw error;
      }
      if (!results || results.length !== part.length || results.some((r) => !r.success)) {
        out.push(...(await direct(block, part, atLeast)));
        continue;
      }
      for (const result of results) out.push(balanceOfAnswer(result.returnData));
    }
    return out;
  };

  const header = async (number: number): Promise<BlockHeader | null> => {
    const block = await rpc.call('eth_getBlockByNumber', (client) => orNull(client.getBlock({ blockNumber: BigInt(number) }), 'BlockNotFoundError'));
    if (!block?.hash) return null;
    return { number, hash: lower(block.hash), time: new Date(Number(block.timestamp) * 1000) };
  };

  /** The receipts of block `number` (whose hash is `hash`), from `eth_getBlockReceipts` or, where the node lacks it, one by one in a batch. */
  const blockReceipts = async (number: number, hash: string): Promise<RawReceipt[]> => {
    const at = { atLeast: number };
    try {
      const receipts = await rpc.call(
        'eth_getBlockReceipts',
        (client) => client.request({ method: 'eth_getBlockReceipts', params: [numberToHex(number)] } as never) as Promise<RawReceipt[] | null>,
        at,
      );
      if (Array.isArray(receipts)) return receipts;
    } catch (error) {
      if (!(error instanceof EvmChainError) || error.code !== 'unsupported') throw error;
    }
    const block = await rpc.call('eth_getBlockByNumber', (client) => orNull(client.getBlock({ blockNumber: BigInt(number) }), 'BlockNotFoundError'), at);
    if (!block || lower(block.hash ?? '0x') !== hash)
      throw new EvmChainError('node_error', `eth_getBlockByNumber: block ${number} changed while it was read`, { method: 'eth_getBlockByNumber' });
    const answers = await rpc.batch(
      'eth_getTransactionReceipt',
      block.transactions.map((tx) => [tx]),
      at,
    );
    return answers.map((answer) => {
      if (answer.status === 'rejected') throw toChainError(answer.reason, 'eth_getTransactionReceipt');
      if (!answer.value)
        throw new EvmChainError('node_error', `eth_getTransactionReceipt: the node has no receipt of a transaction of block ${number}`, {
          method: 'eth_getTransactionReceipt',
        });
      return answer.value as RawReceipt;
    });
  };

  return {
    blockchainId: chain.network.id,
    intervalMs: chain.config.reconcileMs,
    async balancesAt(block, queries) {
      if (queries.length === 0) return [];
      const tag = numberToHex(block);
      return (await hasMulticall()) ? viaMulticall(tag, queries, block) : direct(tag, queries, block);
    },
    header,
    async blockTransfers(number, holder) {
      const head = await header(number);
      if (!head) throw new EvmChainError('lagging', `eth_getBlockByNumber: the node has no block ${number}`, { method: 'eth_getBlockByNumber' });
      const receipts = await blockReceipts(number, head.hash);
      const who = lower(getAddress(holder));
      const incoming: ObservedTransfer[] = [];
      const outgoing: ObservedTransfer[] = [];
      for (const receipt of receipts) {
        if (lower(receipt.blockHash) !== head.hash)
          throw new EvmChainError('node_error', `eth_getBlockReceipts: a receipt of block ${number} names another block (reorg under way)`, {
            method: 'eth_getBlockReceipts',
          });
        if (receipt.status !== undefined && Number(receipt.status) !== 1) continue;
        // The ordinal: the transfer's place among its transaction's transfers of one token to one address, as the scanner counts it.
        const ordinals = new Map<string, number>();
        for (const log of [...receipt.logs].sort((a, b) => Number(a.logIndex) - Number(b.logIndex))) {
          const token = chain.tokens.find((t) => lower(t.address) === lower(log.address));
          if (log.removed || !token || lower(log.topics[0] ?? '') !== TRANSFER_TOPIC || log.topics.length !== 3) continue;
          const from = lower(`0x${log.topics[1]!.slice(26)}`);
          const to = lower(`0x${log.topics[2]!.slice(26)}`);
          const key = `${token.address}:${to}`;
          const ordinal = ordinals.get(key) ?? 0;
          ordinals.set(key, ordinal + 1);
          if (from !== who && to !== who) continue;
          const value = log.data === '0x' ? 0n : BigInt(log.data.slice(0, 66));
          const transfer: ObservedTransfer = {
            blockchainId: chain.network.id,
            assetId: token.assetId,
            token: token.address,
            from: getAddress(from),
            to: getAddress(to),
            amount: formatUnits(value, token.decimals),
            txHash: lower(receipt.transactionHash),
            logIndex: Number(log.logIndex),
            ordinal,
            blockNumber: number,
            blockHash: head.hash,
            blockTime: head.time,
          };
          if (to === who) incoming.push(transfer);
          if (from === who) outgoing.push(transfer);
        }
      }
      return { incoming, outgoing };
    },
    async outcomes(txHashes) {
      if (txHashes.length === 0) return [];
      const states = await chain.receipts(txHashes as Hex[], await chain.latestBlock());
      return states.map((state) => {
        if (state.status === 'rejected') throw state.reason;
        const value = state.value;
        return value.status === 'pending' ? value : { status: value.status, blockNumber: value.blockNumber };
      });
    },
  };
}
