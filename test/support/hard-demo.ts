/**
 * The attacks on the demo and the admin token, as measurements, for `npm run test:hard`
 * (test/hard/demo.test.ts asserts on them) and `bench/attack.ts` (which prints them for this tree and
 * an older one). Like test/support/hard.ts: the `paylink` command of a code tree in child processes,
 * the attacker in a process of its own from 127.0.0.2 and up, the visitor from 127.0.0.1.
 *
 * - the wallet relay: one `eth_call` of a loop with 2^40 gas, then calls of a block's worth of gas from
 *   three addresses for 20 s, while the demo's chain is watched for blocks;
 * - the admin sessions: a visitor signs in, then 10,050 anonymous loads of the admin page from one address;
 * - `X-Forwarded-For`: session starts from the loopback itself (the peer the demo used to trust), each
 *   naming another client in that header;
 * - the admin token: a proxy started with a one-character token, and 300 wrong tokens from one address;
 * - the API's edges, on `paylink serve --chain sandbox`: a webhook endpoint on the loopback, a keyed
 *   create sent twice, a number with 30 decimals, a title with a bidi override, an email with `?bcc=`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { sleep } from './attack.js';
import { startReceiver } from './webhook-receiver.js';
import { attackerAddresses, CUSTOMER, fromAttacker, residentMb, startStack, timedRequest, type Timed } from './hard.js';
import { freePort, type PostgresCluster } from './postgres.js';
import { ROOT, exited, readable, waitForHealth } from './processes.js';

/** The admin token both trees' demos and proxies get (long enough for the rule, so the older tree runs as it did). */
export const HARD_ADMIN_TOKEN = 'hard-demo-admin-token-0123456789abcdef';

/** A running `paylink demo`. */
export interface DemoProcess {
  url: string;
  pid: number;
  /** The local chain's node (absent on the sandbox). */
  rpcUrl: string | undefined;
  /** A link of the seed (the simple one). */
  slug: string;
  /** What it wrote so far. */
  output(): string;
  close(): Promise<void>;
}

/** Starts `paylink demo` of `root` (default this tree) on a fresh data directory; resolves once it printed its URLs. */
export async function startDemoProcess(chain: 'evm' | 'sandbox', root = ROOT): Promise<DemoProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-hard-demo-'));
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, 'bin', 'paylink.mjs'), 'demo', '--port', String(port), '--chain', chain, '--data-dir', dataDir], {
    cwd: root,
    // The banner read as at a terminal (off one it is a JSON line).
    env: { ...process.env, PAYLINK_ADMIN_TOKEN: HARD_ADMIN_TOKEN, PAYLINK_TRUST_PROXY: '', PAYLINK_LOG_FORMAT: 'pretty' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (text.length < 100_000 ? (text += chunk) : undefined));
  const close = async () => {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  // The last line of what it prints: the seed's mnemonic on the local chain, the service's line on the sandbox.
  const ready = chain === 'evm' ? /Mnemonic/ : /Service API/;
  while (!ready.test(text)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`paylink demo did not start: ${text.slice(-2_000)}`);
    }
    await sleep(100);
  }
  return {
    url: /Paylink demo running at (\S+)/.exec(text)![1]!,
    pid: child.pid!,
    rpcUrl: /RPC URL\s+(\S+)/.exec(text)?.[1],
    slug: /Hosted checkout\s+\S+\/pay\/(\S+)/.exec(text)![1]!,
    output: () => text,
    close,
  };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited(child);
  clearTimeout(timer);
}

// -------------------------------------------------------------------------------------------------
// Floods (run in the attacker's process)

/** How the relay answered a flood of calls. */
export interface RelayFloodFigures {
  sent: number;
  /** Calls the node ran (a result, or the node's own error such as "out of gas"). */
  ran: number;
  /** Refusals by the relay, by their words: `gas`, `busy`, `rate` (429), other. */
  refused: Record<string, number>;
  /** The slowest answer, in ms. */
  maxMs: number;
}

/** One JSON-RPC request to the demo wallet's relay, from `localAddress`. */
function relayCall(url: string, localAddress: string, method: string, params: unknown[], timeoutMs: number, agent?: Agent): Promise<Timed> {
  return timedRequest(`${url}/demo/wallet/rpc`, {
    method: 'POST',
    headers: { origin: url },
    json: { jsonrpc: '2.0', id: 1, method, params },
    localAddress,
    timeoutMs,
    agent,
  });
}

/** The words of a relay's refusal, as a figure's key. */
function refusalKind(answer: Timed): string {
  if (answer.status === 429) return 'rate';
  if (answer.status !== 200) return `http ${answer.status || answer.error}`;
  const body = JSON.parse(answer.text) as { error?: { message?: string } };
  const message = body.error?.message ?? '';
  if (/more than a block/.test(message)) return 'gas';
  if (/busy/.test(message)) return 'busy';
  if (/did not answer/.test(message)) return 'node did not answer';
  return 'other';
}

/** From each address, `eth_call`s of a looping contract with `gasHex` gas, one after another, for `durationMs`. */
export async function relayFlood(url: string, addresses: string[], gasHex: string, durationMs: number): Promise<RelayFloodFigures> {
  const figures: RelayFloodFigures = { sent: 0, ran: 0, refused: {}, maxMs: 0 };
  const until = Date.now() + durationMs;
  await Promise.all(
    addresses.map(async (address) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      while (Date.now() < until) {
        const answer = await relayCall(url, address, 'eth_call', [{ data: LOOP_INITCODE, gas: gasHex }, 'latest'], 15_000, agent);
        figures.sent++;
        figures.maxMs = Math.max(figures.maxMs, answer.ms);
        const body = answer.status === 200 ? (JSON.parse(answer.text) as { result?: unknown; error?: { code?: number; message?: string } }) : undefined;
        // The node's own answer to a loop: out of gas (-32603 "EVM error OutOfGas").
        if (body && ('result' in body || /OutOfGas|out of gas/i.test(body.error?.message ?? ''))) figures.ran++;
        else {
          const kind = refusalKind(answer);
          figures.refused[kind] = (figures.refused[kind] ?? 0) + 1;
          if (kind === 'rate') await sleep(200);
        }
      }
      agent.destroy();
    }),
  );
  return figures;
}

/** `count` GETs of `url` from `localAddress`, 16 at a time over keep-alive connections; the answers by status. */
export async function getFlood(url: string, count: number, localAddress: string): Promise<{ statuses: Record<string, number>; ms: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const statuses: Record<string, number> = {};
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        next++;
        const answer = await timedRequest(url, { localAddress, agent, timeoutMs: 15_000 });
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  return { statuses, ms: Math.round(performance.now() - started) };
}

/**
 * `count` requests to `url` from `localAddress`, one after another over one connection, each with
 * another `X-Forwarded-For` (`forwarded-for`) or another wrong bearer token (`bearer`); POSTs of `json` when given.
 */
export async function headerFlood(url: string, count: number, localAddress: string, kind: 'forwarded-for' | 'bearer', json?: unknown) {
  const statuses: Record<string, number> = {};
  let withRetryAfter = 0;
  const started = performance.now();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < count; i++) {
    const headers: Record<string, string> =
      kind === 'bearer' ? { authorization: `Bearer guess-${i}-${'x'.repeat(32)}` } : { 'x-forwarded-for': `198.51.${Math.floor(i / 250)}.${(i % 250) + 1}` };
    const answer = await timedRequest(url, { method: json === undefined ? 'GET' : 'POST', headers, json, localAddress, agent, timeoutMs: 15_000 });
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (answer.status >= 400 && answer.headers['retry-after']) withRetryAfter++;
  }
  agent.destroy();
  return { statuses, withRetryAfter, ms: Math.round(performance.now() - started) };
}

/** The floods of this module that the attacker's process runs (test/support/hard-attacker.ts). */
export const demoFloods = { relayFlood, getFlood, headerFlood };

// -------------------------------------------------------------------------------------------------
// The attacks

/** Initcode that loops (JUMPDEST PUSH1 0 JUMP) until its gas is gone. */
const LOOP_INITCODE = '0x5b600056';
/** How long the relay attack lasts. */
export const RELAY_ATTACK_MS = 20_000;

/** What the relay attack did to the demo's chain. */
export interface RelayAttackFigures {
  /** How the relay answered the 2^40-gas loop: its error's kind, and in how many ms. */
  hugeCall: string;
  flood: RelayFloodFigures;
  /** Blocks the chain mined during the attack (a block a second when nothing stops it). */
  blocksMined: number;
  /** The longest the watcher saw no new block, in ms. */
  longestWithoutBlockMs: number;
  /** Reads of the block number that took over 2 s or failed (the node stuck in a call). */
  stuckReads: number;
}

/**
 * On the demo's local chain: one `eth_call` of a loop with 2^40 gas through the relay, and meanwhile,
 * from three addresses, loops with a block's worth of gas (30,000,000) for `RELAY_ATTACK_MS`; the
 * chain's block number is read every 250 ms straight from the node.
 */
export async function relayGasAttack(root?: string): Promise<RelayAttackFigures> {
  const demo = await startDemoProcess('evm', root);
  try {
    const rpcUrl = demo.rpcUrl!;
    const blockNumber = async () => {
      const answer = await timedRequest(rpcUrl, { method: 'POST', json: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }, timeoutMs: 2_000 });
      return answer.status === 200 ? Number((JSON.parse(answer.text) as { result: string }).result) : undefined;
    };
    const start = (await blockNumber())!;
    let last = start;
    let lastAt = Date.now();
    let longest = 0;
    let stuckReads = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const started = Date.now();
        const block = await blockNumber();
        if (block === undefined || Date.now() - started > 2_000) stuckReads++;
        if (block !== undefined && block > last) {
          longest = Math.max(longest, Date.now() - lastAt);
          last = block;
          lastAt = Date.now();
        }
        await sleep(250);
      }
      longest = Math.max(longest, Date.now() - lastAt);
    })();
    const huge = relayCall(
      demo.url,
      attackerAddresses(1, 7)[0]!,
      'eth_call',
      [{ data: LOOP_INITCODE, gas: `0x${(2n ** 40n).toString(16)}` }, 'latest'],
      15_000,
    );
    const flood = await fromAttacker('relayFlood', demo.url, attackerAddresses(3), '0x1c9c380', RELAY_ATTACK_MS);
    const hugeAnswer = await huge;
    watching = false;
    await watcher;
    return {
      hugeCall: `${hugeAnswer.status === 200 && /OutOfGas/i.test(hugeAnswer.text) ? 'ran' : refusalKind(hugeAnswer)} in ${hugeAnswer.ms} ms`,
      flood,
      blocksMined: last - start,
      longestWithoutBlockMs: longest,
      stuckReads,
    };
  } finally {
    await demo.close();
  }
}

/** Anonymous admin page loads in the session flood. */
export const PAGE_FLOOD_COUNT = 10_050;

/** What the sandbox demo's visitor-facing attacks did. */
export interface DemoVisitorFigures {
  /** `x-frame-options` and the CSP's `frame-ancestors` of each page, as `DENY / 'none'` (or `none`). */
  framing: Record<string, string>;
  pageFlood: { statuses: Record<string, number>; ms: number };
  /** The signed-in visitor's admin call after the flood (200: still signed in). */
  visitorAfter: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  /** 100 session starts from 127.0.0.1, each with another `X-Forwarded-For`: straight to the service, then through the proxy (one visitor's allowance for both). */
  rotatingService: Record<string, number>;
  rotatingProxy: Record<string, number>;
}

/** Framing headers, 10,050 anonymous admin page loads from one address, and session starts with rotating `X-Forwarded-For`, on a sandbox demo. */
export async function demoVisitorAttacks(root?: string): Promise<DemoVisitorFigures> {
  const demo = await startDemoProcess('sandbox', root);
  try {
    const framing: Record<string, string> = {};
    for (const page of ['/', '/store.html', '/admin.html', `/pay/${demo.slug}`]) {
      const answer = await timedRequest(`${demo.url}${page}`);
      const frameAncestors = /frame-ancestors ([^;]+)/.exec(String(answer.headers['content-security-policy'] ?? ''))?.[1] ?? 'none set';
      framing[page.startsWith('/pay/') ? '/pay/<slug>' : page] = `${answer.headers['x-frame-options'] ?? 'none set'} / ${frameAncestors}`;
    }
    const signIn = await timedRequest(`${demo.url}/admin.html`);
    const cookie = String(signIn.headers['set-cookie'] ?? '').split(';')[0]!;
    const rssBeforeMb = residentMb(demo.pid);
    const pageFlood = await fromAttacker('getFlood', `${demo.url}/admin.html`, PAGE_FLOOD_COUNT, attackerAddresses(1)[0]!);
    const rssAfterMb = residentMb(demo.pid);
    const visitorAfter = (await timedRequest(`${demo.url}/paylink/admin/balance`, { headers: { cookie } })).status;
    // From 127.0.0.1, the address the demo's own proxy reached the service from; the printed link asks for an address and a phone.
    const sessions = (base: string) => `${demo.url}${base}/${demo.slug}/sessions`;
    const start = { assetId: 'USDT', customer: { address: '1 Marina, Lagos', phone: '+2348012345678' } };
    const rotatingService = (await fromAttacker('headerFlood', sessions('/v1/checkout'), 100, CUSTOMER, 'forwarded-for', start)).statuses;
    const rotatingProxy = (await fromAttacker('headerFlood', sessions('/paylink/checkout'), 100, CUSTOMER, 'forwarded-for', start)).statuses;
    return { framing, pageFlood, visitorAfter, rssBeforeMb, rssAfterMb, rotatingService, rotatingProxy };
  } finally {
    await demo.close();
  }
}

/** What guessing the admin token met. */
export interface TokenAttackFigures {
  /** Whether `paylink proxy` started with `PAYLINK_ADMIN_TOKEN=a`, and what it said if not. */
  shortTokenProxy: string;
  guesses: { statuses: Record<string, number>; withRetryAfter: number; ms: number };
  /** The right token from the guessing address right after (429 while it is limited), and from another address. */
  rightTokenFromGuesser: number;
  rightTokenElsewhere: number;
  /** The proxy's log lines with the code `admin_auth_failed`, and whether any held a guessed token. */
  failureLines: number;
  tokenInLog: boolean;
}

/** A proxy with a one-character token; then 300 wrong bearer tokens from one address against a proxy with a good one. */
export async function adminTokenAttack(cluster: PostgresCluster, root?: string): Promise<TokenAttackFigures> {
  const bin = path.join(root ?? ROOT, 'bin', 'paylink.mjs');
  const stack = await startStack(cluster, { root, proxy: true });
  try {
    const port = await freePort();
    const short = spawn(process.execPath, [bin, 'proxy', '--upstream', stack.serviceUrl, '--port', String(port)], {
      cwd: root ?? ROOT,
      env: { ...process.env, PAYLINK_API_KEY: stack.apiKey, PAYLINK_ADMIN_TOKEN: 'a' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    short.stderr!.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
    // Started means answering /healthz; refused means exiting first (its stderr read to the end). No
    // fixed wait: on a loaded machine Node alone may take seconds to load the command.
    const closed = new Promise<number | null>((resolve) => short.once('close', (code) => resolve(code)));
    const outcome = await waitForHealth(`http://127.0.0.1:${port}`, short).then(
      () => 'started',
      async (error: Error) =>
        short.exitCode !== null || short.signalCode !== null
          ? `refused to start (exit ${await closed}): ${readable(said).trim().slice(0, 120)}`
          : `neither started nor exited: ${error.message}`,
    );
    await stop(short);

    const logStart = stack.proxyLog.length;
    const admin = `${stack.proxyUrl}/paylink/admin/balance`;
    const guesser = attackerAddresses(1, 10)[0]!;
    const guesses = await fromAttacker('headerFlood', admin, 300, guesser, 'bearer');
    const right = { authorization: `Bearer ${stack.adminToken}` };
    const rightTokenFromGuesser = (await timedRequest(admin, { headers: right, localAddress: guesser })).status;
    const rightTokenElsewhere = (await timedRequest(admin, { headers: right })).status;
    await sleep(200);
    const lines = stack.proxyLog.slice(logStart);
    return {
      shortTokenProxy: outcome,
      guesses,
      rightTokenFromGuesser,
      rightTokenElsewhere,
      failureLines: lines.filter((line) => line.includes('"admin_auth_failed"')).length,
      tokenInLog: lines.some((line) => line.includes('guess-')),
    };
  } finally {
    await stack.close();
  }
}

/** What the API answered at its edges. */
export interface EdgeFigures {
  /** `POST /v1/webhook-endpoint` to `http://127.0.0.1:<port>` on the sandbox, and whether a test event then reached that port. */
  loopbackEndpoint: string;
  /** Links written by two identical creates with one `Idempotency-Key`. */
  linksForOneKey: number;
  /** A price of `10.000000000000000000000000000001` sent as a JSON number: the status, and the price stored. */
  thirtyDecimals: string;
  /** A title with U+202E. */
  bidiTitle: number;
  /** A customer email `support@shop.example?bcc=thief%40evil.example`. */
  bccEmail: number;
}

/** The API's edges on a fresh `paylink serve --chain sandbox` (PAYLINK_WEBHOOK_ALLOW_PRIVATE unset). */
export async function edgesAttack(cluster: PostgresCluster, root?: string): Promise<EdgeFigures> {
  const stack = await startStack(cluster, { root, env: { PAYLINK_WEBHOOK_ALLOW_PRIVATE: '' } });
  const receiver = await startReceiver();
  try {
    const key = { 'x-api-key': stack.apiKey };
    const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
      timedRequest(`${stack.serviceUrl}${path}`, { method: 'POST', json, headers: { ...key, ...headers } });
    const endpoint = await post('/v1/webhook-endpoint', { url: `${receiver.url}/hooks` });
    if (endpoint.status === 201) await post(`/v1/webhook-endpoint/${(JSON.parse(endpoint.text) as { id: string }).id}/test`, undefined);
    const link = (overrides: Record<string, unknown> = {}) => ({
      title: 'Edges',
      description: '',
      fiatAmount: 10,
      fiatCurrency: 'USD',
      action: {},
      options: {},
      cart: { items: [] },
      ...overrides,
    });
    const before = (await stack.rows()).links;
    for (let i = 0; i < 2; i++) await post('/v1/payment-link', link(), { 'idempotency-key': 'edges-once' });
    const linksForOneKey = (await stack.rows()).links - before;
    const digits = await timedRequest(`${stack.serviceUrl}/v1/payment-link`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify(link()).replace('"fiatAmount":10', '"fiatAmount":10.000000000000000000000000000001'),
    });
    const slug = (JSON.parse((await post('/v1/payment-link', link({ options: {} }))).text) as { slug: string }).slug;
    const email = await timedRequest(`${stack.serviceUrl}/v1/checkout/${slug}/sessions`, {
      method: 'POST',
      json: { assetId: 'USDT', customer: { email: 'support@shop.example?bcc=thief%40evil.example' } },
    });
    return {
      loopbackEndpoint: `${endpoint.status}, ${receiver.received.length} signed POSTs reached the loopback`,
      linksForOneKey,
      thirtyDecimals: `${digits.status}${digits.status === 201 ? ` (stored ${(JSON.parse(digits.text) as { fiatAmount: string }).fiatAmount})` : ''}`,
      bidiTitle: (await post('/v1/payment-link', link({ title: 'Invoice \u202efdp.exe' }))).status,
      bccEmail: email.status,
    };
  } finally {
    await receiver.close();
    await stack.close();
  }
}
