/**
 * A transaction anvil queues for ever, and how the hot wallet gets it mined anyway.
 *
 * Anvil, the local node the demo and the tests run on, files each incoming transaction under the
 * transaction it waits for (the sender's nonce before it), read from the account just before. One
 * that arrives while that transaction is being mined is filed under a transaction that is gone by the
 * time it is filed: nothing ever releases it, every later transaction of the sender queues behind it,
 * and sending the same bytes again answers "already known" for good. Nodes of real networks (geth
 * and its kin) check a queued transaction against the account's nonce and promote it.
 *
 * So, when asked (the EVM adapter asks when it has seen a payout of the hot wallet in no block for
 * 2 s, `watchHeld`; the payout worker knows nothing of it): when the
 * sender has a queued transaction whose nonce is the account's next (it can be mined now, yet waits),
 * anvil is told to drop the sender's pooled transactions, and the very same bytes are sent again,
 * lowest nonce first. Never a new signature: the same transactions, each mined at most once (a nonce
 * is used once). Any other node is left alone (one `web3_clientVersion` call tells which it is).
 */
import type { Address, Hex } from 'viem';
import type { ChainContext } from './context.js';

/** A pooled transaction as `txpool_content` lists it. */
interface PooledTransaction {
  hash: Hex;
  nonce: Hex;
}

type Pool = Record<string, Record<string, PooledTransaction>>;

/** Releases a sender's transactions that anvil queued for ever; resolves with how many were sent again (0: none was stuck, or not anvil). */
export type ReleaseQueued = (sender: Address) => Promise<number>;

/** A JSON-RPC call to the node. */
export type NodeRequest = (method: string, params: unknown[]) => Promise<unknown>;

/**
 * On an anvil node (asked through `request`): when `sender` has a queued transaction whose nonce is
 * the account's next, drops the sender's pooled transactions and sends the same bytes again, lowest
 * nonce first; resolves with how many were sent again (0 when none is stuck).
 */
export async function releaseQueuedOn(request: NodeRequest, sender: Address): Promise<number> {
  const [content, count] = await Promise.all([request('txpool_content', []), request('eth_getTransactionCount', [sender, 'latest'])]);
  const of = (pool: Pool | undefined) =>
    Object.values(Object.entries(pool ?? {}).find(([address]) => address.toLowerCase() === sender.toLowerCase())?.[1] ?? {});
  const { pending, queued } = (content ?? {}) as { pending?: Pool; queued?: Pool };
  const next = Number(count);
  if (!of(queued).some((tx) => Number(tx.nonce) === next)) return 0;
  const pooled = [...of(pending), ...of(queued)].sort((a, b) => Number(a.nonce) - Number(b.nonce));
  const raws = await Promise.all(pooled.map((tx) => request('eth_getRawTransactionByHash', [tx.hash])));
  await request('anvil_removePoolTransactions', [sender]);
  let sent = 0;
  for (const raw of raws) {
    if (typeof raw !== 'string') continue;
    // One at a time, in nonce order: each is filed under one already there.
    await request('eth_sendRawTransaction', [raw]).then(
      () => sent++,
      () => {}, // mined meanwhile ("nonce too low"): nothing to send
    );
  }
  return sent;
}

/** `ReleaseQueued` for the nodes of `ctx`, on anvil only; one release at a time. */
export function queueRelease(ctx: ChainContext): ReleaseQueued {
  const request: NodeRequest = (method, params) =>
    ctx.rpc.call(method, (client) => (client.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params }));
  let anvil: Promise<boolean> | undefined;
  const isAnvil = () =>
    (anvil ??= request('web3_clientVersion', []).then(
      (version) => typeof version === 'string' && version.toLowerCase().startsWith('anvil/'),
      () => {
        anvil = undefined; // asked again next time
        return false;
      },
    ));
  let running: Promise<number> | undefined;
  return async (sender) => {
    if (!(await isAnvil())) return 0;
    running ??= releaseQueuedOn(request, sender).finally(() => {
      running = undefined;
    });
    return running;
  };
}

/** How long a transaction may be seen in no block before the node is asked whether it holds it queued for ever. */
export const HELD_AFTER_MS = 2_000;

/**
 * The EVM adapter's follow-up hook: told, each time it reads the states of the hot wallet's
 * transactions, which are in no block (`pending`) and which are (`mined`). Once one has been seen in
 * no block for `HELD_AFTER_MS`, `release` is called (at most once per `HELD_AFTER_MS`), and awaited,
 * so the worker's next broadcast comes after it; a failed release goes to `failed` (asked again later).
 */
export function watchHeld(release: () => Promise<unknown>, failed: (error: unknown) => void, now: () => number = Date.now) {
  const firstSeen = new Map<string, number>();
  let checked = 0;
  return async (pending: readonly string[], mined: readonly string[]): Promise<void> => {
    const at = now();
    for (const hash of mined) firstSeen.delete(hash);
    if (firstSeen.size > 10_000) firstSeen.clear(); // transactions replaced long ago: only a later release
    let held = false;
    for (const hash of pending) {
      const since = firstSeen.get(hash);
      if (since === undefined) firstSeen.set(hash, at);
      else if (at - since >= HELD_AFTER_MS) held = true;
    }
    if (!held || at - checked < HELD_AFTER_MS) return;
    checked = at;
    try {
      await release();
    } catch (error) {
      failed(error);
    }
  };
}
