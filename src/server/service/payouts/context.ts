/**
 * What the stages of payouts on a real chain share (./round.ts runs them): the services they work
 * with, where a round's lines go, the networks that pay, and a node that did not answer.
 */
import { type ChainAdapter, networkChain, type OutgoingChain } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import type { Logger } from '../../log.js';
import type { PayoutsAhead } from './ahead.js';
import { logWait, Stalls } from './waits.js';

export interface StoredPayoutOptions {
  /** How often each unfinished transaction's receipt is read, in ms (default 1000). */
  checkMs?: number | undefined;
  /** How long a sent transaction without a receipt waits before it is broadcast again, in ms (default 15 s). */
  rebroadcastMs?: number | undefined;
  /** Where the payouts' lines go (default: the process's logger, stderr). */
  logger?: Logger | undefined;
  /** The networks whose payouts are halted, when the caller has read them (`haltedNetworks`) already. */
  halted?: ReadonlySet<string> | undefined;
  /** Told of each network where a payout started or stopped waiting for the hot wallet (./hot-wallet.ts checks it then). */
  onHotWallet?: ((blockchainId: string) => void) | undefined;
}

/** How long a sent transaction without a receipt waits before it is broadcast again, by default (ms). */
export const REBROADCAST_MS = 15_000;

/** What one round of one network works with: where its lines go, and what it learns of why payouts wait. */
export interface Round {
  logger: Logger;
  stalls: Stalls;
}

/** A node that did not answer, logged once a minute per network and step (not once per payout). */
export function nodeUnavailable(round: Round, blockchainId: string, step: string, error: unknown, fields: Record<string, string | number | undefined> = {}) {
  logWait(
    round.logger,
    `node ${blockchainId} ${step}`,
    'warn',
    'payout_node_unavailable',
    `no node answered while payouts were ${step}: they wait (stalledReason node_unavailable) and are tried again`,
    {
      blockchainId,
      step,
      ...fields,
      error,
    },
  );
}

export interface Deps {
  db: Database;
  chain: ChainAdapter;
  now: () => Date;
  /** What the intake prepared ahead of the claims (./ahead.ts), where it does. */
  ahead?: PayoutsAhead | undefined;
}

/** The payouts of network `blockchainId`; throws where there are none (the sandbox, no payout key, a network not configured). */
export function outgoingOf(chain: ChainAdapter, blockchainId: string): OutgoingChain {
  const outgoing = networkChain(chain, blockchainId)?.outgoing;
  if (!outgoing) throw new Error(`network ${blockchainId} has no stored payouts (the sandbox, or no payout key)`);
  return outgoing;
}

/** The networks whose payouts this worker sends: those with a hot wallet. */
export function payingNetworks(chain: ChainAdapter): OutgoingChain[] {
  return chain.kind === 'real' ? chain.chains.flatMap((c) => (c.outgoing ? [c.outgoing] : [])) : [];
}
