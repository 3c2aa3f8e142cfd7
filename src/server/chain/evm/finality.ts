/**
 * Which block is final on a node: the node's `finalized` block where it names one, else the block
 * `finalityDepth` below the head. Remembers which nodes said they do not know the tag, and whether
 * any node has it (then a depth-counted block of another is not used). The credits' finality, the
 * reconciliation's final block and the proof that a nonce went elsewhere (./nonces.ts) all follow
 * this one rule.
 */
import type { Hex, PublicClient } from 'viem';
import { type ChainContext, lower } from './context.js';
import { EvmChainError, nodeMessage } from './errors.js';
import { orNull } from './transfers.js';

/** A node's finalized block, and whether the node named it (`finalized` tag) or it was counted by depth. */
export interface FinalOnNode {
  number: number;
  hash: Hex;
  byTag: boolean;
}

/** Makes a call: through any node (failing over), or on one node alone. */
export type AskNode = <T>(method: string, run: (client: PublicClient) => Promise<T>) => Promise<T>;

/** The final block by the rule above: its calls made by `ask`, `head` for the depth. */
export type FinalBlockReader = (ask: AskNode, head: () => Promise<number>) => Promise<FinalOnNode>;

/**
 * The rule of one connected network. Each node is asked for its `finalized` block; one that says it
 * does not know the tag (and only that: a refusal, an outage or an access error is not an answer
 * about the tag) has its final block counted `finalityDepth` below the head from then on, unless
 * another node has the tag: then it is passed over (a transient fault, so `ask` fails over to
 * another node where it can).
 */
export function finalBlockReader(ctx: ChainContext): FinalBlockReader {
  /** Nodes (by client) that said they do not know the `finalized` block tag: their final block is counted by depth. */
  const noFinalizedTag = new WeakSet<PublicClient>();
  /** Whether any node answered the `finalized` tag: then a depth-counted final block of another is not used. */
  let finalizedTagSeen = false;
  const method = 'eth_getBlockByNumber';
  return async (ask, head) => {
    const tagged = await ask(method, async (client) => {
      if (noFinalizedTag.has(client)) {
        if (finalizedTagSeen) throw new EvmChainError('node_error', `${method}: this node has no finalized block tag, other nodes have`, { method });
        return undefined;
      }
      try {
        const block = await client.getBlock({ blockTag: 'finalized' });
        finalizedTagSeen = true;
        if (block.number === null || !block.hash)
          throw new EvmChainError('bad_response', `${method}: the node's finalized block has no number or hash`, { method });
        return { number: Number(block.number), hash: lower(block.hash), byTag: true };
      } catch (raw) {
        // A node that knows the tag but has no finalized block (a chain without finality, or one that
        // has not reached it yet) answers null: its final block is counted by depth this time.
        const none = raw instanceof Error && raw.name === 'BlockNotFoundError';
        if (!none && !unknownBlockTag(raw)) throw raw;
        if (!none) noFinalizedTag.add(client);
        if (finalizedTagSeen)
          throw new EvmChainError('node_error', `${method}: this node has no finalized block tag, other nodes have`, { method, cause: raw });
        return undefined;
      }
    });
    if (tagged) return tagged;
    const number = Math.max(0, (await head()) - ctx.config.finalityDepth);
    const block = await ask(method, (client) => orNull(client.getBlock({ blockNumber: BigInt(number) }), 'BlockNotFoundError'));
    if (!block?.hash) throw new EvmChainError('lagging', `${method}: the node has no block ${number} yet`, { method });
    return { number, hash: lower(block.hash), byTag: false };
  };
}

/**
 * Whether a node's error says it does not know a block tag (an older or non-Ethereum client asked for
 * `finalized`), as geth, erigon, nethermind, besu and hosted providers word it.
 */
export function unknownBlockTag(error: unknown): boolean {
  const text = nodeMessage(error).toLowerCase();
  return /(unknown|invalid|unsupported|unrecognized|unexpected) (block )?(tag|number|identifier)|block tag|finalized.*(not (supported|found|available)|unsupported|unknown)|(unknown|unsupported|invalid).*finalized|hex string without 0x prefix|cannot unmarshal (string|"finalized")/.test(
    text,
  );
}
