/**
 * The demo wallet's server side: the pages' EIP-1193 provider (demo/assets/demo-wallet.js) sends its
 * JSON-RPC requests here, and this relays them to the demo's own anvil node, or answers them itself.
 *
 * It is a wallet anyone on the demo page may use, so it is fenced in:
 * - only the methods a token payment needs: chain reads of an allow-list are relayed to the local node
 *   (never to any other URL), each with the params it takes and nothing more; account and network
 *   requests are answered here, and `eth_sendTransaction` is signed here with the demo wallet's key,
 *   for an ERC-20 `transfer` of one of the demo's tokens, from the demo wallet, with no native value:
 *   nothing else is ever signed (no `eth_sign`, no typed data);
 * - the chain keeps mining whatever a visitor asks: anvil runs an `eth_call` with whatever gas it is
 *   given (2^40 gas of a loop held its executor for minutes, and no block came), so an `eth_call` or
 *   `eth_estimateGas` that asks for more gas than a block holds is refused, as is one with a state or
 *   block override (a third or fourth param: code and balances of the caller's choosing), before the
 *   node sees it; an estimate searches for its answer by running the code again and again, each run up
 *   to the gas it may use (by default a block's worth: 2 to 2.6 s for a loop of cheap-gas, costly-CPU
 *   precompile calls, against 1.3 s for one `eth_call` of it), so it may search up to `ESTIMATE_GAS_CAP`
 *   only, what a token transfer needs many times over (its estimate of that loop: a few ms); and the
 *   node runs one call at a time for the relay (a few more wait; past them, the relay answers "busy"),
 *   so blocks are mined between calls;
 * - same-origin JSON only (a cross-site page cannot drive it: the Origin header must be the demo's
 *   own, and a JSON content type forces a preflight that nothing here answers);
 * - small bodies, no batches, and a rate limit per client address (reads, sends and faucet apart).
 *
 * Routes (under `/demo/wallet`): `GET` the wallet's description, `POST …/rpc` one JSON-RPC request,
 * `POST …/faucet` test tokens for the demo wallet (on every chain).
 *
 * The demo runs two local chains, and the wallet is on either: the page's provider keeps the chain it
 * is on (moved by `wallet_switchEthereumChain`) and names it in each request (`X-Demo-Chain-Id`,
 * default the first chain); reads go to that chain's node, and a transfer is signed for that chain.
 */
import { createWalletClient, decodeFunctionData, getAddress, http, parseUnits, type Address, type Hex } from 'viem';
import { TEST_TOKEN_ABI } from '../src/server/chain/evm/test-token.js';
import type { DemoChain, DemoToken } from './chain.js';

/** What the wallet calls itself in the pages (EIP-6963 `info.name`). */
export const DEMO_WALLET_NAME = 'Paylink demo wallet (local test chain)';

/** Largest JSON-RPC body accepted, in bytes (a transfer is ~300). */
const MAX_BODY_BYTES = 8 * 1024;

/**
 * The most gas an `eth_estimateGas` through the relay may search up to: a demo token's transfer needs
 * about 53,000. A call that names more (up to a block's worth) is estimated within this bound.
 */
export const ESTIMATE_GAS_CAP = 1_000_000n;

/** What one param of a relayed read may be. */
type ParamRule = (value: unknown) => boolean;

const hex = (pattern: RegExp): ParamRule => (value) => typeof value === 'string' && pattern.test(value);
const BLOCK: ParamRule = hex(/^(latest|pending|earliest|safe|finalized|0x[0-9a-fA-F]{1,16})$/);
const HASH: ParamRule = hex(/^0x[0-9a-fA-F]{64}$/);
const ADDRESS: ParamRule = hex(/^0x[0-9a-fA-F]{40}$/);
const BOOLEAN: ParamRule = (value) => typeof value === 'boolean';
const BLOCK_COUNT: ParamRule = (value) => (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 1024) || hex(/^0x[0-9a-fA-F]{1,3}$/)(value);
const PERCENTILES: ParamRule = (value) => Array.isArray(value) && value.length <= 100 && value.every((p) => typeof p === 'number' && p >= 0 && p <= 100);
/** A call object: the fields of a transaction request, nothing else (no EIP-7702 authorizations, no blobs). */
const CALL_FIELDS = new Set(['from', 'to', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'value', 'data', 'input', 'nonce', 'type', 'chainId', 'accessList']);
const CALL: ParamRule = (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).every((key) => CALL_FIELDS.has(key));

/**
 * The chain reads relayed to the local node, each with the rules of its params: the required ones
 * first, then the optional ones. A request with a param more, or one that breaks its rule, is refused.
 * (So `eth_call` takes no state override, its third param, nor block override, its fourth;
 * `eth_estimateGas` no state override, its third.)
 */
const RELAYED: Readonly<Record<string, { required: ParamRule[]; optional: ParamRule[] }>> = {
  eth_chainId: { required: [], optional: [] },
  net_version: { required: [], optional: [] },
  eth_blockNumber: { required: [], optional: [] },
  eth_gasPrice: { required: [], optional: [] },
  eth_maxPriorityFeePerGas: { required: [], optional: [] },
  eth_call: { required: [CALL], optional: [BLOCK] },
  eth_estimateGas: { required: [CALL], optional: [BLOCK] },
  eth_feeHistory: { required: [BLOCK_COUNT, BLOCK], optional: [PERCENTILES] },
  eth_getBalance: { required: [ADDRESS], optional: [BLOCK] },
  eth_getCode: { required: [ADDRESS], optional: [BLOCK] },
  eth_getTransactionCount: { required: [ADDRESS], optional: [BLOCK] },
  eth_getTransactionByHash: { required: [HASH], optional: [] },
  eth_getTransactionReceipt: { required: [HASH], optional: [] },
  eth_getBlockByNumber: { required: [BLOCK], optional: [BOOLEAN] },
  eth_getBlockByHash: { required: [HASH], optional: [BOOLEAN] },
};

/** Reads that make the node run code: one at a time, and a few waiting at most. */
const EXECUTING = new Set(['eth_call', 'eth_estimateGas']);
/** Executing reads that may wait for the node at once; past them the relay answers "busy". */
const MAX_WAITING_CALLS = 8;

/** Checks a relayed read's params against its rules (see `RELAYED`); throws the JSON-RPC error that says what is wrong. */
function checkParams(method: string, params: unknown[]): void {
  const rules = RELAYED[method]!;
  // Trailing nulls are "not given", as nodes read them.
  let given = params.length;
  while (given > 0 && (params[given - 1] === null || params[given - 1] === undefined)) given--;
  if (EXECUTING.has(method) && given > 2) {
    throw new RpcError(-32602, `the demo wallet relays ${method} without a ${given > 3 ? 'block' : 'state'} override`);
  }
  if (given < rules.required.length || given > rules.required.length + rules.optional.length) {
    throw new RpcError(-32602, `${method} takes ${rules.required.length}${rules.optional.length ? ` to ${rules.required.length + rules.optional.length}` : ''} params here`);
  }
  const all = [...rules.required, ...rules.optional];
  for (let i = 0; i < given; i++) if (!all[i]!(params[i])) throw new RpcError(-32602, `${method}: param ${i + 1} is not what it takes`);
}

/** The gas a call object asks for, or undefined when it names none; a JSON-RPC error when it is no quantity. */
function gasOf(call: Record<string, unknown>): bigint | undefined {
  const gas = call.gas;
  if (gas === undefined || gas === null) return undefined;
  if (typeof gas === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(gas)) return BigInt(gas);
  if (typeof gas === 'number' && Number.isSafeInteger(gas) && gas >= 0) return BigInt(gas);
  throw new RpcError(-32602, 'gas must be a hex quantity');
}

/**
 * A queue that runs its tasks one at a time, in order; with `maxWaiting` tasks already in it, another
 * is refused at once with "busy" (a JSON-RPC -32005).
 */
function oneAtATime(maxWaiting: number) {
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  return <T>(task: () => Promise<T>): Promise<T> => {
    if (waiting >= maxWaiting) return Promise.reject(new RpcError(-32005, 'the demo chain is busy: try again in a moment'));
    waiting++;
    const run = queue.then(task, task).finally(() => waiting--);
    queue = run.catch(() => undefined);
    return run;
  };
}

/** What the faucet gives per press. */
const FAUCET = { USDT: '100', CNGN: '100000' } as const;

/** A token bucket per client address: `burst` at once, refilled at `perSecond`. */
export function rateLimiter(perSecond: number, burst: number, now: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (client: string): boolean => {
    const time = now();
    const bucket = buckets.get(client) ?? { tokens: burst, at: time };
    bucket.tokens = Math.min(burst, bucket.tokens + ((time - bucket.at) / 1000) * perSecond);
    bucket.at = time;
    buckets.set(client, bucket);
    // A bounded map: visitors that went quiet are forgotten (a full bucket is the default anyway).
    if (buckets.size > 10_000) for (const [key, value] of buckets) if (value.tokens >= burst) buckets.delete(key);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };
}

/** A JSON-RPC error (EIP-1193 codes: 4001 rejected, 4200 unsupported, 4902 unknown chain; -326xx JSON-RPC). */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });

const problem = (status: number, code: string, message: string) => json({ error: { code, message } }, status);

/** The demo wallet's HTTP handler, for the demo's running chains (the first is the default); `origin` is the demo's own. */
export function createDemoWallet(chains: readonly DemoChain[], origin: string) {
  const first = chains[0]!;
  const account = first.demoWallet;
  const tokensOf = (chain: DemoChain): DemoToken[] => [chain.tokens.USDT, chain.tokens.CNGN];
  const wallets = new Map(chains.map((chain) => [chain, createWalletClient({ account, transport: http(chain.rpcUrl, { retryCount: 0 }) })]));
  const reads = rateLimiter(20, 60);
  const sends = rateLimiter(1, 5);
  const faucets = rateLimiter(0.2, 3);
  const hex = (chain: DemoChain) => `0x${chain.chainId.toString(16)}`;
  /** The chain a request names (`X-Demo-Chain-Id`, decimal or 0x-hex), the first by default. */
  const chainOf = (request: Request): DemoChain => {
    const named = request.headers.get('x-demo-chain-id');
    if (named === null) return first;
    const chain = chains.find((candidate) => candidate.chainId === Number(named));
    if (!chain) throw new RpcError(4901, `the demo wallet is on none of the demo's chains (${chains.map(hex).join(', ')})`);
    return chain;
  };
  // One send at a time: the wallet's nonce is read per transaction, so two at once would collide.
  const serially = oneAtATime(Infinity);

  // Each node's block gas limit, read once (anvil's does not change); no call may ask for more.
  const blockGasLimits = new Map<DemoChain, Promise<bigint>>();
  const gasLimit = (chain: DemoChain) => {
    let limit = blockGasLimits.get(chain);
    if (!limit) {
      limit = relay(chain, 'eth_getBlockByNumber', ['latest', false]).then(
        (block) => BigInt((block as { gasLimit: string }).gasLimit),
        (error: unknown) => {
          blockGasLimits.delete(chain);
          throw error;
        },
      );
      blockGasLimits.set(chain, limit);
    }
    return limit;
  };
  // Executing reads, one at a time: the nodes mine between them.
  const oneCallAtATime = oneAtATime(MAX_WAITING_CALLS);

  /** Relays an allowed read (see `RELAYED`) to `chain`, after its checks; calls that run code one at a time. */
  async function relayRead(chain: DemoChain, method: string, params: unknown[]): Promise<unknown> {
    checkParams(method, params);
    if (!EXECUTING.has(method)) return relay(chain, method, params);
    const gas = gasOf(params[0] as Record<string, unknown>);
    const limit = await gasLimit(chain);
    if (gas !== undefined && gas > limit) throw new RpcError(-32602, `${method} asks for ${gas} gas, more than a block of the demo chain holds (${limit})`);
    if (method === 'eth_estimateGas' && (gas === undefined || gas > ESTIMATE_GAS_CAP)) {
      const bounded = { ...(params[0] as Record<string, unknown>), gas: `0x${ESTIMATE_GAS_CAP.toString(16)}` };
      return oneCallAtATime(() => relay(chain, method, [bounded, ...params.slice(1)]));
    }
    return oneCallAtATime(() => relay(chain, method, params));
  }

  async function relay(chain: DemoChain, method: string, params: unknown[]): Promise<unknown> {
    const response = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { result?: unknown; error?: { code?: number; message?: string } };
    if (body.error) throw new RpcError(typeof body.error.code === 'number' ? body.error.code : -32603, String(body.error.message ?? 'the node refused the request'));
    return body.result;
  }

  /** Checks a transaction request and signs and sends it; only ERC-20 transfers of the demo tokens. */
  async function sendTransaction(chain: DemoChain, request: unknown): Promise<Hex> {
    const tokens = tokensOf(chain);
    const tokenAt = (address: string) => tokens.find((token) => token.address.toLowerCase() === address.toLowerCase());
    if (typeof request !== 'object' || request === null) throw new RpcError(-32602, 'eth_sendTransaction takes one transaction object');
    const { from, to, data, value } = request as Record<string, unknown>;
    if (from !== undefined && (typeof from !== 'string' || from.toLowerCase() !== account.address.toLowerCase())) {
      throw new RpcError(4100, `the demo wallet sends only from its own account ${account.address}`);
    }
    const token = typeof to === 'string' ? tokenAt(to) : undefined;
    if (!token) throw new RpcError(4200, `the demo wallet sends only demo USDT and cNGN transfers (to ${tokens.map((t) => t.address).join(' or ')})`);
    if (value !== undefined && value !== null && !/^0x0*$/i.test(String(value))) throw new RpcError(4200, 'the demo wallet sends no native coin');
    if (typeof data !== 'string' || !/^0xa9059cbb[0-9a-fA-F]{128}$/.test(data)) throw new RpcError(4200, 'the demo wallet sends only ERC-20 transfer(address,uint256) calls');
    const { args } = decodeFunctionData({ abi: TEST_TOKEN_ABI, data: data as Hex });
    const [recipient, units] = args as [Address, bigint];
    if (units <= 0n) throw new RpcError(-32602, 'the transfer amount must be more than 0');
    if (/^0x0{40}$/i.test(recipient)) throw new RpcError(-32602, 'the demo wallet does not send to the zero address');
    return serially(async () => {
      const balance = await chain.client.readContract({ address: token.address, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [account.address] });
      if (balance < units) throw new RpcError(-32000, `the demo wallet holds too little ${token.symbol}: press "Get test tokens"`);
      return wallets.get(chain)!.writeContract({ address: token.address, abi: TEST_TOKEN_ABI, functionName: 'transfer', args: [getAddress(recipient), units], chain: null });
    });
  }

  async function answer(chain: DemoChain, method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case 'eth_accounts':
      case 'eth_requestAccounts':
        return [account.address];
      case 'wallet_switchEthereumChain':
      case 'wallet_addEthereumChain': {
        // The page's provider moves to the chain once this answers: the wallet knows the demo's chains only.
        const wanted = (params[0] as { chainId?: unknown } | undefined)?.chainId;
        if (typeof wanted === 'string' && chains.some((known) => hex(known) === wanted.toLowerCase())) return null;
        throw new RpcError(4902, `the demo wallet knows only the demo's local chains (${chains.map(hex).join(', ')})`);
      }
      case 'eth_sendTransaction':
        return sendTransaction(chain, params[0]);
      default:
        if (Object.hasOwn(RELAYED, method)) return relayRead(chain, method, params);
        throw new RpcError(4200, `the demo wallet does not support ${method}`);
    }
  }

  /** Refuses what did not come from a demo page: another origin, or not JSON. */
  function refuseForeign(request: Request): Response | undefined {
    const from = request.headers.get('origin');
    if (from !== origin && request.headers.get('sec-fetch-site') !== 'same-origin') {
      return problem(403, 'cross_site_request', 'the demo wallet answers only the demo pages of its own origin');
    }
    if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
      return problem(415, 'unsupported_media_type', 'send JSON (content-type: application/json)');
    }
    return undefined;
  }

  async function readBody(request: Request): Promise<unknown> {
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > MAX_BODY_BYTES) throw new RpcError(-32600, `the request is larger than ${MAX_BODY_BYTES} bytes`);
    const text = await request.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new RpcError(-32600, `the request is larger than ${MAX_BODY_BYTES} bytes`);
    try {
      return JSON.parse(text);
    } catch {
      throw new RpcError(-32700, 'the body is not JSON');
    }
  }

  async function handleRpc(request: Request, client: string): Promise<Response> {
    let id: unknown = null;
    try {
      const body = await readBody(request);
      if (Array.isArray(body)) throw new RpcError(-32600, 'the demo wallet takes one request at a time (no batches)');
      if (typeof body !== 'object' || body === null) throw new RpcError(-32600, 'a JSON-RPC request is an object');
      const { method, params = [] } = body as { method?: unknown; params?: unknown };
      id = (body as { id?: unknown }).id ?? null;
      if (typeof id !== 'string' && typeof id !== 'number' && id !== null) id = null;
      if (typeof method !== 'string') throw new RpcError(-32600, 'method must be a string');
      if (!Array.isArray(params) || params.length > 4) throw new RpcError(-32602, 'params must be an array of at most 4 items');
      const limit = method === 'eth_sendTransaction' ? sends : reads;
      if (!limit(client)) return json({ jsonrpc: '2.0', id, error: { code: -32005, message: 'too many requests to the demo wallet: wait a moment' } }, 429);
      return json({ jsonrpc: '2.0', id, result: await answer(chainOf(request), method, params) });
    } catch (error) {
      if (error instanceof RpcError) return json({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message } });
      // The node's own failure: say so without its details (the node URL stays here).
      return json({ jsonrpc: '2.0', id, error: { code: -32603, message: 'the demo chain did not answer' } });
    }
  }

  async function handleFaucet(client: string): Promise<Response> {
    if (!faucets(client)) return problem(429, 'rate_limited', 'the faucet gives once every few seconds: wait a moment');
    try {
      for (const chain of chains) {
        await chain.mint(chain.tokens.USDT, account.address, parseUnits(FAUCET.USDT, chain.tokens.USDT.decimals));
        await chain.mint(chain.tokens.CNGN, account.address, parseUnits(FAUCET.CNGN, chain.tokens.CNGN.decimals));
      }
    } catch {
      return problem(502, 'chain_unavailable', 'the demo chain did not mint the test tokens; try again');
    }
    return json({ minted: { USDT: FAUCET.USDT, CNGN: FAUCET.CNGN } });
  }

  /** What the pages' script needs to announce the wallet. */
  const description = {
    name: DEMO_WALLET_NAME,
    address: account.address,
    chainId: first.chainId,
    tokens: tokensOf(first).map(({ assetId, symbol, address, decimals }) => ({ assetId, symbol, address, decimals })),
    /** Every chain the wallet is on, with its tokens (the first is where it starts). */
    chains: chains.map((chain) => ({
      chainId: chain.chainId,
      name: chain.name,
      tokens: tokensOf(chain).map(({ assetId, symbol, address, decimals }) => ({ assetId, symbol, address, decimals })),
    })),
    notice: 'A wallet of the demo: test tokens on a local chain the demo started, not real money. Its key comes from a public test mnemonic.',
  };

  return {
    description,
    /** Answers `/demo/wallet` and below; `client` is the caller's address (for the rate limits). */
    async handle(request: Request, client: string): Promise<Response> {
      const { pathname } = new URL(request.url);
      if (pathname === '/demo/wallet' && request.method === 'GET') return json(description);
      if (pathname === '/demo/wallet/rpc' || pathname === '/demo/wallet/faucet') {
        if (request.method !== 'POST') return problem(405, 'method_not_allowed', 'use POST');
        const refused = refuseForeign(request);
        if (refused) return refused;
        return pathname === '/demo/wallet/rpc' ? handleRpc(request, client) : handleFaucet(client);
      }
      return problem(404, 'not_found', 'no such demo wallet route');
    },
  };
}
