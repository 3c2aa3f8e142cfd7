/**
 * The service on a real local chain, for the real-chain integration tests: anvil with USDT (18
 * decimals, as on BSC) and cNGN (6) deployed, a payer holding both, the EVM adapter connected to it,
 * and helpers to pay a session, read it and drive the scanner by hand.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { getAddress, parseEventLogs, parseTransaction, parseUnits, type Address, type Hash, type Hex } from 'viem';
import { connectEvmAdapter } from '../../src/server/chain/evm/adapter.js';
import type { EvmChainOptions } from '../../src/server/chain/evm/chain.js';
import { TEST_TOKEN_ABI } from '../../src/server/chain/evm/test-token.js';
import type { Queryable } from '../../src/server/db/index.js';
import type { BroadcastOutcome, ChainAdapter, OutgoingChain, PayoutRequest, PreparedTransaction, RealChainAdapter } from '../../src/server/chain/types.js';
import { createLogger } from '../../src/server/log.js';
import { processPayouts, type PayoutsAhead } from '../../src/server/service/payouts/index.js';
import { createChainScanner } from '../../src/server/service/money-in/index.js';
import { DEPOSIT_XPUB, startTestChain, type TestChain } from './anvil.js';
import { countRows, eventually } from './money.js';
import { call, startTestService, type Backend, type TestService } from './service.js';
import { sleep } from './wait.js';

export interface EvmFixture {
  t: TestChain;
  usdt: Address;
  cngn: Address;
  /** A token the service is not configured with. */
  other: Address;
  /** Dev accounts that hold a million of each token. */
  payers: Address[];
  /** A new adapter on this chain (each service instance gets its own connection). */
  adapter(
    options?: {
      confirmations?: number;
      rpcUrl?: string;
      hotWalletIndex?: number;
      replaceAfterMs?: number;
      finalityDepth?: number;
      minGas?: bigint;
      reconcileMs?: number;
    } & EvmChainOptions,
  ): Promise<RealChainAdapter>;
  /** Units of `amount` (a decimal string) of a token. */
  units(asset: 'USDT' | 'CNGN', amount: string): bigint;
  /** Sends `amount` of `asset` from `payer` (default payers[0]) to `to`, mined. */
  pay(to: string, asset: 'USDT' | 'CNGN', amount: string, payer?: Address): Promise<Hash>;
  stop(): Promise<void>;
}

/**
 * Starts anvil (instant mining unless `blockTime`; chain id 31337 unless `chainId`) with the tokens
 * deployed and the payers funded.
 */
export async function startEvmFixture(options: { blockTime?: number; extraArgs?: string[]; chainId?: number } = {}): Promise<EvmFixture> {
  const t = await startTestChain({ blockTime: options.blockTime, extraArgs: options.extraArgs, chainId: options.chainId });
  const usdt = await t.deployToken({ name: 'Tether USD', symbol: 'USDT', decimals: 18 });
  const cngn = await t.deployToken({ name: 'Compliant Naira', symbol: 'cNGN', decimals: 6 });
  const other = await t.deployToken({ name: 'Other', symbol: 'OTH', decimals: 18 });
  const payers = [t.accounts[2]!, t.accounts[3]!, t.accounts[4]!];
  for (const payer of payers) {
    await t.mint(usdt, payer, parseUnits('1000000', 18));
    await t.mint(cngn, payer, parseUnits('1000000', 6));
    await t.mint(other, payer, parseUnits('1000000', 18));
  }
  const units = (asset: 'USDT' | 'CNGN', amount: string) => parseUnits(amount, asset === 'USDT' ? 18 : 6);
  return {
    t,
    usdt,
    cngn,
    other,
    payers,
    units,
    async adapter({ confirmations = 3, rpcUrl, hotWalletIndex, replaceAfterMs, finalityDepth, minGas, reconcileMs, ...chainOptions } = {}) {
      const config = t.config({ tokens: { USDT: usdt, CNGN: cngn }, confirmations, rpcUrl, hotWalletIndex });
      if (replaceAfterMs !== undefined) config.replaceAfterMs = replaceAfterMs;
      if (finalityDepth !== undefined) config.finalityDepth = finalityDepth;
      if (minGas !== undefined) config.minGas = minGas;
      if (reconcileMs !== undefined) config.reconcileMs = reconcileMs;
      return connectEvmAdapter(config, { timeoutMs: 2_000, retries: 1, retryDelayMs: 20, ...chainOptions, log: () => {} });
    },
    pay: (to, asset, amount, payer = payers[0]!) => t.sendToken(payer, asset === 'USDT' ? usdt : cngn, to as Address, units(asset, amount)),
    stop: () => t.stop(),
  };
}

/** A local chain as one of several networks (`PAYLINK_EVM_NETWORKS`). */
export interface LocalNetwork {
  /** The network id (`bsc`, `polygon`). */
  id: string;
  name: string;
  f: EvmFixture;
  confirmations?: number;
  pollMs?: number;
}

/**
 * The settings of several local chains as an operator writes them (`PAYLINK_EVM_NETWORKS=bsc,polygon`
 * with `PAYLINK_EVM_<ID>_*`), sharing the test deposit xpub and dev account 1 of the first chain as the
 * hot wallet (anvil's dev keys are the same on every chain). Pass to `parseEvmNetworks`.
 */
export function networksEnv(networks: readonly LocalNetwork[]): Record<string, string> {
  const env: Record<string, string> = {
    PAYLINK_EVM_NETWORKS: networks.map((n) => n.id).join(','),
    PAYLINK_EVM_XPUB: DEPOSIT_XPUB,
    PAYLINK_EVM_PAYOUT_KEY: networks[0]!.f.t.devKey(1),
  };
  for (const { id, name, f, confirmations = 3, pollMs = 20 } of networks) {
    const prefix = `PAYLINK_EVM_${id.toUpperCase().replace(/-/g, '_')}_`;
    Object.assign(env, {
      [`${prefix}RPC_URL`]: f.t.url,
      [`${prefix}CHAIN_ID`]: String(f.t.chainId),
      [`${prefix}TOKENS`]: `USDT=${f.usdt},CNGN=${f.cngn}`,
      [`${prefix}CONFIRMATIONS`]: String(confirmations),
      [`${prefix}POLL_MS`]: String(pollMs),
      [`${prefix}NAME`]: name,
    });
  }
  return env;
}

/** The payouts of a real adapter's first network (tests run one network unless they say otherwise). */
export function outgoingOf(chain: ChainAdapter): OutgoingChain {
  if (chain.kind !== 'real' || !chain.chains[0]?.outgoing) throw new Error('no hot wallet on this chain');
  return chain.chains[0].outgoing;
}

/** What a test makes of a real adapter's broadcasts (see `hookPayouts`). */
export interface PayoutHooks {
  /** Runs before each transaction goes to the node, alone or in a batch: throw to fail that one. */
  broadcast: ((raw: string) => Promise<void>) | null;
  /** Replaces a batch's broadcast; `send` broadcasts raw transactions as usual (through `broadcast`). */
  broadcastMany:
    | ((
        raws: readonly string[],
        send: (raws: readonly string[]) => Promise<Array<PromiseSettledResult<BroadcastOutcome>>>,
      ) => Promise<Array<PromiseSettledResult<BroadcastOutcome>>>)
    | null;
  /** Replaces the receipt reads of a round's transactions; `read` reads them as usual. */
  states:
    ((transactions: Parameters<OutgoingChain['states']>[0], read: () => ReturnType<OutgoingChain['states']>) => ReturnType<OutgoingChain['states']>) | null;
  /** Every raw transaction sent on to the node, in order (repeats included). */
  sent: string[];
}

/** A real adapter whose first network's broadcasts go through `hooks` (everything else untouched). */
export function hookPayouts(chain: RealChainAdapter): { chain: RealChainAdapter; hooks: PayoutHooks } {
  const outgoing = outgoingOf(chain);
  const hooks: PayoutHooks = { broadcast: null, broadcastMany: null, states: null, sent: [] };
  const send = async (raws: readonly string[]): Promise<Array<PromiseSettledResult<BroadcastOutcome>>> => {
    const gate = await Promise.allSettled(raws.map(async (raw) => hooks.broadcast?.(raw)));
    const passing = raws.filter((_, i) => gate[i]!.status === 'fulfilled');
    hooks.sent.push(...passing);
    const results = passing.length ? await outgoing.broadcastMany(passing) : [];
    let next = 0;
    return gate.map((g) => (g.status === 'rejected' ? g : results[next++]!));
  };
  const wrapped: OutgoingChain = {
    ...outgoing,
    preparePayouts: (requests, early) => outgoing.preparePayouts(requests, early),
    prepareGasTopUp: (to, value) => outgoing.prepareGasTopUp(to, value),
    prepareFiller: () => outgoing.prepareFiller(),
    sign: (prepared, nonce) => outgoing.sign(prepared, nonce),
    state: (hash, payout) => outgoing.state(hash, payout),
    states: (transactions, latest) =>
      hooks.states ? hooks.states(transactions, () => outgoing.states(transactions, latest)) : outgoing.states(transactions, latest),
    latestBlock: () => outgoing.latestBlock(),
    sequence: outgoing.sequence,
    transactionKnown: (txHash) => outgoing.transactionKnown(txHash),
    async broadcast(raw) {
      await hooks.broadcast?.(raw);
      hooks.sent.push(raw);
      return outgoing.broadcast(raw);
    },
    broadcastMany: (raws) => (hooks.broadcastMany ? hooks.broadcastMany(raws, send) : send(raws)),
  };
  return { chain: { ...chain, chains: [{ ...chain.chains[0]!, outgoing: wrapped }, ...chain.chains.slice(1)] } as RealChainAdapter, hooks };
}

/** A scanner driven by hand (`runOnce`), for tests that decide when a round happens; its lines go nowhere unless `deps.logger` takes them. */
export function manualScanner(deps: Parameters<typeof createChainScanner>[0], options: Parameters<typeof createChainScanner>[1] = {}) {
  return createChainScanner({ logger: createLogger(() => {}), ...deps }, options);
}

/** Reads a session through the public API. */
export async function readSession(url: string, id: string) {
  const res = await call(url, 'GET', `/v1/checkout/sessions/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/**
 * Credits `amount` of `assetId` to the key's integrator through the settlement, as if a customer
 * had paid a session (a made-up transfer) whose block is final already, so the funds are available:
 * for payout tests, where the money's origin is not the point.
 */
export async function creditDirectly(
  service: { url: string; db: import('../../src/server/db/index.js').Database },
  chain: ChainAdapter,
  key: string,
  amount: string,
  assetId: 'USDT' | 'CNGN' = 'USDT',
): Promise<void> {
  const { createUsdLink, startSession } = await import('./money.js');
  const { finalizeCredit, settleIncomingTransfer } = await import('../../src/server/service/money-in/index.js');
  const slug = await createUsdLink(service.url, key, assetId === 'USDT' ? amount : '1');
  const session = await startSession(service.url, slug, { assetId });
  const { sessionId } = await settleIncomingTransfer(
    { db: service.db, now: () => new Date() },
    {
      blockchainId: chain.networks[0]!.id,
      txHash: `0x${randomBytes(32).toString('hex')}`,
      logIndex: 0,
      assetId,
      toAddress: session.payAddress,
      amount,
      sandbox: false,
    },
  );
  const { rows } = await service.db.query<{ id: string }>('SELECT id FROM chain_transfers WHERE session_id = $1', [sessionId]);
  await service.db.transaction((tx) => finalizeCredit(tx, rows[0]!.id, new Date()));
}

/** A service for payout tests on a fresh chain (`startPayoutService`). */
export interface PayoutService {
  f: EvmFixture;
  /** The service's adapter (1 confirmation). */
  chain: RealChainAdapter;
  /** The hot wallet, holding a million USDT. */
  hot: Address;
  t: TestService;
  /** A key whose integrator holds `credit` USDT, ready to withdraw. */
  key: string;
  integratorId: string;
  close(): Promise<void>;
}

/**
 * Anvil, an adapter with 1 confirmation, the hot wallet funded with USDT, and the API alone on
 * `backend` (no payout worker, scanner nor webhook worker: each test runs the payouts its own way),
 * with a key credited `credit` USDT.
 */
export async function startPayoutService(backend: Backend, credit = '10000'): Promise<PayoutService> {
  const f = await startEvmFixture();
  const chain = await f.adapter({ confirmations: 1 });
  const hot = outgoingOf(chain).hotWallet as Address;
  await f.t.mint(f.usdt, hot, parseUnits('1000000', 18));
  const t = await startTestService(backend, { chain, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
  const { key, integratorId } = await t.newKey();
  await creditDirectly(t, chain, key, credit);
  return {
    f,
    chain,
    hot,
    t,
    key,
    integratorId,
    async close() {
      await t.close();
      await chain.close();
      await f.stop();
    },
  };
}

/**
 * A fresh address without a zero byte: the costliest recipient of a transfer (a zero byte of calldata
 * costs 4 gas, any other 16), so a batch that paid one knows a gas limit enough for any other.
 */
export function costliestAddress(): Address {
  const bytes = randomBytes(20).map((byte) => byte || 1);
  return getAddress(`0x${Buffer.from(bytes).toString('hex')}`);
}

/**
 * An amount (at most 6 decimals, as the API takes) whose base units on an 18-decimal token have no zero
 * byte but the lowest (which every such amount has): the costliest calldata of the tests' amounts.
 */
export const COSTLIEST_AMOUNT = '1.234567';

/** A fresh address nobody holds the key of (a payout recipient). */
export function randomAddress(): Address {
  return getAddress(`0x${randomBytes(20).toString('hex')}`);
}

/** What a test sees of its adapter's preparing and signing. */
export interface Spy {
  /** The drafts handed over ahead of the estimates, per batch. */
  drafts: Array<ReadonlyArray<PreparedTransaction | undefined>>;
  /** Every signature made, as [prepared, nonce]. */
  signed: Array<[PreparedTransaction, number]>;
  /** Runs when a batch starts being prepared, once its nonce was guessed (null: nothing). */
  beforePrepare: (() => Promise<void>) | null;
  /** The requests of every batch prepared (estimated), in order. */
  prepared: Array<readonly PayoutRequest[]>;
}

/** `chain` with its first network's preparing and signing watched through `spy`. */
export function spied(chain: RealChainAdapter): { chain: RealChainAdapter; spy: Spy } {
  const outgoing = outgoingOf(chain);
  const spy: Spy = { drafts: [], signed: [], beforePrepare: null, prepared: [] };
  const wrapped: OutgoingChain = {
    ...outgoing,
    async preparePayouts(requests, early) {
      spy.prepared.push(requests);
      await spy.beforePrepare?.();
      return outgoing.preparePayouts(
        requests,
        early &&
          ((drafts) => {
            spy.drafts.push(drafts);
            early(drafts);
          }),
      );
    },
    prepareGasTopUp: (to, value) => outgoing.prepareGasTopUp(to, value),
    async sign(prepared, nonce) {
      spy.signed.push([prepared, nonce]);
      return outgoing.sign(prepared, nonce);
    },
    broadcast: (raw) => outgoing.broadcast(raw),
    broadcastMany: (raws) => outgoing.broadcastMany(raws),
    states: (transactions, latest) => outgoing.states(transactions, latest),
    latestBlock: () => outgoing.latestBlock(),
    sequence: outgoing.sequence,
  };
  return { chain: { ...chain, chains: [{ ...chain.chains[0]!, outgoing: wrapped }, ...chain.chains.slice(1)] } as RealChainAdapter, spy };
}

/** The stored transaction rows payout tests look at. */
export interface StoredRow {
  withdrawal_id: string;
  nonce: number;
  raw_transaction: string;
  status: string;
}

/** What a payout test waits on: the service's database, the chain, and the hot wallet. */
export interface PayoutScene {
  db: Queryable;
  f: Pick<EvmFixture, 't'>;
  hot: string;
}

/** The scene of a `PayoutService`. */
export function sceneOf(setup: Pick<PayoutService, 't' | 'f' | 'hot'>): PayoutScene {
  return { db: setup.t.db, f: setup.f, hot: setup.hot };
}

/**
 * What a payout test that timed out needs to say: the withdrawals (`ids`, and every one still
 * pending or processing) with their stalled reasons, the hot wallet's stored transactions as the
 * database has them and where the node has each, the hot wallet's nonces and its transactions in the
 * node's pool (a transaction the node holds but does not mine, one it has no trace of, a claim held),
 * the network alerts and the database sessions at work.
 */
export async function payoutState(scene: PayoutScene | Pick<PayoutService, 't' | 'f' | 'hot'>, ids: readonly string[] = []): Promise<string> {
  const { db, f, hot } = 'db' in scene ? scene : sceneOf(scene);
  const lines: string[] = [];
  const withdrawals = await db.query<{ id: string; status: string; attempts: number; claimed: string | null; stalled: string | null; tx_hash: string | null }>(
    `SELECT id, status, attempts, to_char(claimed_at, 'HH24:MI:SS.MS') AS claimed, stalled_reason AS stalled, tx_hash FROM withdrawals
      WHERE id = ANY($1) OR status IN ('pending', 'processing') ORDER BY created_at LIMIT 60`,
    [ids],
  );
  lines.push(
    `withdrawals: ${withdrawals.rows.map((w) => `${w.id.slice(0, 8)} ${w.status}${w.stalled ? ` (stalled: ${w.stalled})` : ''} (attempts ${w.attempts}, claimed ${w.claimed ?? '-'}, tx ${w.tx_hash?.slice(0, 10) ?? '-'})`).join('; ') || 'none'}`,
  );
  const rows = await db.query<{ nonce: number; status: string; tx_hash: string; broadcasts: number; withdrawal_id: string | null; due: string | null }>(
    `SELECT nonce::int AS nonce, status, tx_hash, broadcasts, withdrawal_id, to_char(checked_at, 'HH24:MI:SS.MS') AS due FROM payout_transactions
      WHERE from_address = $1 AND (status IN ('signed', 'sent', 'mined') OR withdrawal_id = ANY($2)) ORDER BY nonce`,
    [hot.toLowerCase(), ids],
  );
  const rpc = f.t.rpc;
  for (const row of rows.rows) {
    const known = (await rpc('eth_getTransactionByHash', [row.tx_hash])) as { blockNumber?: string | null } | null;
    const where = known === null ? 'unknown to the node' : known.blockNumber ? `in block ${Number(known.blockNumber)}` : 'in the pool';
    lines.push(
      `stored nonce ${row.nonce}: ${row.status}, ${row.broadcasts} broadcast(s), looked at ${row.due ?? '-'}, ${row.withdrawal_id?.slice(0, 8) ?? 'no withdrawal'}, ${where}`,
    );
  }
  const latest = await f.t.client.getTransactionCount({ address: hot as Address });
  const pending = await f.t.client.getTransactionCount({ address: hot as Address, blockTag: 'pending' });
  const pool = (await rpc('txpool_content', []).catch(() => null)) as {
    pending?: Record<string, Record<string, unknown>>;
    queued?: Record<string, Record<string, unknown>>;
  } | null;
  const pooled = (part: Record<string, Record<string, unknown>> | undefined) =>
    Object.entries(part ?? {}).find(([address]) => address.toLowerCase() === hot.toLowerCase())?.[1] ?? {};
  lines.push(
    `hot wallet nonces on the node: latest ${latest}, pending ${pending}; in its pool: pending [${Object.keys(pooled(pool?.pending)).join(', ')}], queued [${Object.keys(pooled(pool?.queued)).join(', ')}]; pool ${JSON.stringify(await rpc('txpool_status', []))}`,
  );
  const alerts = await db
    .query<{ blockchain_id: string; code: string }>('SELECT blockchain_id, code FROM network_alerts ORDER BY raised_at')
    .catch(() => ({ rows: [] }));
  if (alerts.rows.length) lines.push(`network alerts: ${alerts.rows.map((a) => `${a.blockchain_id} ${a.code}`).join(', ')}`);
  const open = await db
    .query<{ state: string; age: string; query: string }>(
      "SELECT state, to_char(now() - xact_start, 'SS.MS') AS age, left(query, 80) AS query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'",
    )
    .catch(() => ({ rows: [] }));
  if (open.rows.length) lines.push(`open database sessions: ${open.rows.map((r) => `${r.state} ${r.age}s ${r.query}`).join(' | ')}`);
  return lines.join('\n');
}

/**
 * Waits until `check` holds, as a payout test does: polling, or, with `mineEveryMs`, mining a block
 * before each look and that long after it (confirmations to reach). Timed out (default 20 s), it fails
 * with `payoutState`: what the withdrawals `ids` (and every other one unfinished), the stored
 * transactions and the node were at.
 */
export async function waitForPayouts(
  scene: PayoutScene | Pick<PayoutService, 't' | 'f' | 'hot'>,
  check: () => Promise<boolean>,
  what: string,
  options: { ids?: readonly string[] | undefined; timeoutMs?: number | undefined; mineEveryMs?: number | undefined } = {},
): Promise<void> {
  const { f } = 'db' in scene ? scene : sceneOf(scene);
  const explain = () => payoutState(scene, options.ids ?? []);
  if (options.mineEveryMs === undefined) return eventually(check, options.timeoutMs ?? 20_000, what, explain);
  const interval = options.mineEveryMs;
  return eventually(
    async () => {
      if (await check()) return true;
      await f.t.mine(1);
      await sleep(interval); // blocks at this pace: the confirmations come as a chain's would
      return false;
    },
    options.timeoutMs ?? 20_000,
    what,
    explain,
  );
}

/** A withdrawal of `amount` of `assetId` to `to` on bsc through the API at `url` with `key` (asserted accepted); resolves with its id. */
export async function withdrawOnBsc(url: string, key: string, amount: string, to: string, assetId = 'USDT'): Promise<string> {
  const res = await call(url, 'POST', '/v1/withdrawal', { key, body: { amount, address: to, blockchainId: 'bsc', assetId } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

/** A withdrawal as `GET /v1/withdrawal/{id}` answers it. */
export async function readWithdrawal(url: string, key: string, id: string) {
  return (await call(url, 'GET', `/v1/withdrawal/${id}`, { key })).body;
}

/** What payout tests check a `PayoutService` with: its API, its database and the chain. */
export function payoutChecks(setup: PayoutService) {
  const { f, t, key, hot } = setup;
  const stored = async (ids: string[]) =>
    (
      await t.db.query<StoredRow>(
        'SELECT withdrawal_id, nonce::int AS nonce, raw_transaction, status FROM payout_transactions WHERE withdrawal_id = ANY($1) ORDER BY nonce',
        [ids],
      )
    ).rows;
  return {
    /** A withdrawal on bsc through the API; resolves with its id. */
    withdraw: (amount: string, to: string, assetId = 'USDT'): Promise<string> => withdrawOnBsc(t.url, key, amount, to, assetId),
    /** The stored transactions of withdrawals `ids`, lowest nonce first. */
    stored,
    /** Runs payout rounds on `chain` (with what `ahead` prepared, where given) until every withdrawal of `ids` is finished. */
    payUntilDone: (chain: RealChainAdapter, ids: string[], ahead?: PayoutsAhead) => {
      const rounds: number[] = [];
      return eventually(
        async () => {
          const started = performance.now();
          const handled = await processPayouts({ db: t.db, chain, now: () => new Date(), ahead }, { checkMs: 0 });
          rounds.push(Math.round(performance.now() - started), handled);
          return (await countRows(t.db, 'withdrawals', "id = ANY($1) AND status IN ('success', 'failed')", [ids])) === ids.length;
        },
        20_000,
        `${ids.length} withdrawal(s) finished`,
        async () => `${await payoutState(setup, ids)}\nrounds (ms, handled): ${rounds.slice(0, 40).join(' ')}${rounds.length > 40 ? ' …' : ''}`,
      );
    },
    /** Each recipient's transfers of `token` from the hot wallet since block `from`, as "recipient units" (one line per transfer). */
    async transfersFromHot(from: bigint, token: Address = f.usdt): Promise<string[]> {
      const logs = await f.t.client.getLogs({
        address: token,
        event: TEST_TOKEN_ABI.find((x) => x.type === 'event' && x.name === 'Transfer')!,
        args: { from: hot },
        fromBlock: from,
      });
      return parseEventLogs({ abi: TEST_TOKEN_ABI, logs, eventName: 'Transfer' })
        .map((log) => `${log.args.to.toLowerCase()} ${log.args.value}`)
        .sort();
    },
    /** `transfersFromHot`'s lines for `paid`. */
    expected: (paid: Array<{ to: string; amount: string }>, decimals = 18) =>
      paid.map(({ to, amount }) => `${to.toLowerCase()} ${parseUnits(amount, decimals)}`).sort(),
    /** Asserts that each stored transaction's bytes carry its stored nonce, and the nonces follow each other from `start`. */
    assertNonces(rows: readonly StoredRow[], start: number): void {
      assert.deepEqual(
        rows.map((row) => row.nonce),
        rows.map((_, i) => start + i),
        'consecutive nonces, no gap, no twin',
      );
      for (const row of rows) assert.equal(parseTransaction(row.raw_transaction as Hex).nonce, row.nonce, 'the stored bytes carry the stored nonce');
    },
  };
}

export type PayoutChecks = ReturnType<typeof payoutChecks>;
