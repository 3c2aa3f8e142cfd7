/**
 * The attacks on the service and the proxy (slow and flooding clients) as measurements, for `npm run test:hard` (test/hard/attack.test.ts, which
 * asserts on them) and `bench/attack.ts` (which prints them for the code of this tree and of an older
 * one, "before" and "after"). Everything runs on the loopback: the service (and the proxy) as child
 * processes of the `paylink` command of a code tree, on a database of a throwaway PostgreSQL cluster (so
 * rows are counted from outside), the attacker from 127.0.0.2 and up, the customers from 127.0.0.1.
 *
 * Each attack is bounded in count and time and returns what it saw: how the attacker's requests were
 * answered, how fast a customer's `/healthz`, link load and session start answered meanwhile, the
 * service's resident memory, and the rows written.
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { openEventStreamFrom, sleep, type EventStreamClient } from './attack.js';
import type { demoFloods } from './hard-demo.js';
import { freePort, type PostgresCluster } from './postgres.js';
import { ROOT, exited, waitForHealth } from './processes.js';

/** The customer's address. */
export const CUSTOMER = '127.0.0.1';

/** A customer's session start (the test link collects an address and a phone number). */
export const CUSTOMER_SESSION = { assetId: 'USDT', customer: { address: '12 Customer Road', phone: '+15555550100', email: 'customer@example.com' } };

/** `count` attacker addresses from 127.0.`block`.1 up (127.0.0.2 up when `block` is 0). */
export function attackerAddresses(count: number, block = 0): string[] {
  return Array.from({ length: count }, (_, i) => (block === 0 ? `127.0.0.${i + 2}` : `127.0.${block}.${i + 1}`));
}

// -------------------------------------------------------------------------------------------------
// The stack under attack

/** A running `paylink serve` (and optionally `paylink proxy`) on a fresh database, with one key and one link. */
export interface Stack {
  serviceUrl: string;
  servicePid: number;
  proxyUrl: string | undefined;
  proxyPid: number | undefined;
  apiKey: string;
  adminToken: string;
  slug: string;
  databaseUrl: string;
  /** The service's stderr lines so far. */
  serviceLog: string[];
  /** The proxy's stderr lines so far (empty without a proxy). */
  proxyLog: string[];
  /** Row counts of the tables an attacker could fill, and the link's visit count. */
  rows(): Promise<Rows>;
  close(): Promise<void>;
}

/** What the database holds. */
export interface Rows {
  links: number;
  sessions: number;
  visits: number;
  visitedCount: number;
  withdrawals: number;
}

export interface StackOptions {
  /** The code tree whose `bin/paylink.mjs` runs (default: this one). */
  root?: string;
  /** The open-file limit of the service and the proxy (`ulimit -n`), to reach exhaustion at a small scale. */
  fileLimit?: number;
  /** Start `paylink proxy` in front too. */
  proxy?: boolean;
  /** Extra environment of the service. */
  env?: Record<string, string>;
}

let databases = 0;

/** Starts the stack on a new database of `cluster`. */
export async function startStack(cluster: PostgresCluster, options: StackOptions = {}): Promise<Stack> {
  const root = options.root ?? ROOT;
  const bin = path.join(root, 'bin', 'paylink.mjs');
  const name = `paylink_hard_${process.pid}_${++databases}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();

  const created = spawnSync(process.execPath, [bin, 'keys', 'create', '--database-url', databaseUrl, '--name', 'Attack test'], { encoding: 'utf8', cwd: root });
  if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  const apiKey = created.stdout.trim().split('\n').at(-1)!;
  const adminToken = 'hard-admin-token-0123456789abcdef';

  const children: ChildProcess[] = [];
  const serviceLog: string[] = [];
  const proxyLog: string[] = [];
  const start = async (args: string[], env: Record<string, string>, log?: string[]) => {
    const port = await freePort();
    // `ulimit -n` in a shell that then becomes the command: the limit applies to the paylink process itself.
    const limit = options.fileLimit ? `ulimit -n ${options.fileLimit} && ` : '';
    const child = spawn('sh', ['-c', `${limit}exec "$0" "$@"`, process.execPath, bin, ...args, '--port', String(port)], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let partial = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      log?.push(...lines);
    });
    const childUrl = `http://127.0.0.1:${port}`;
    await waitForHealth(childUrl, child);
    return { url: childUrl, pid: child.pid! };
  };

  try {
    const service = await start(['serve', '--chain', 'sandbox', '--database-url', databaseUrl], options.env ?? {}, serviceLog);
    const link = await timedRequest(`${service.url}/v1/payment-link`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
      json: {
        title: 'Attack test',
        description: '',
        fiatAmount: 10,
        fiatCurrency: 'USD',
        action: {},
        options: { collectAddress: true, collectPhone: true },
        cart: { items: [] },
      },
    });
    if (link.status !== 201) throw new Error(`link creation failed: ${link.status} ${link.text}`);
    const slug = (JSON.parse(link.text) as { slug: string }).slug;
    const proxy = options.proxy
      ? await start(['proxy', '--upstream', service.url], { PAYLINK_API_KEY: apiKey, PAYLINK_ADMIN_TOKEN: adminToken }, proxyLog)
      : undefined;

    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    return {
      serviceUrl: service.url,
      servicePid: service.pid,
      proxyUrl: proxy?.url,
      proxyPid: proxy?.pid,
      apiKey,
      adminToken,
      slug,
      databaseUrl,
      serviceLog,
      proxyLog,
      async rows() {
        const { rows } = await pool.query(
          `SELECT (SELECT count(*) FROM payment_links)::int AS links, (SELECT count(*) FROM checkout_sessions)::int AS sessions,
                  (SELECT count(*) FROM link_visits)::int AS visits, (SELECT count(*) FROM withdrawals)::int AS withdrawals,
                  (SELECT visited_count FROM payment_links WHERE slug = $1) AS "visitedCount"`,
          [slug],
        );
        return rows[0] as Rows;
      },
      async close() {
        await pool.end();
        await stopChildren(children);
        await dropDatabase(cluster, name);
      },
    };
  } catch (error) {
    await stopChildren(children);
    await dropDatabase(cluster, name);
    throw error;
  }
}

async function stopChildren(children: ChildProcess[]) {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
      await exited(child);
      clearTimeout(timer);
    }),
  );
}

async function dropDatabase(cluster: PostgresCluster, name: string) {
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

/** Resident memory of process `pid`, in MB (0 once it is gone). */
export function residentMb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

// -------------------------------------------------------------------------------------------------
// Requests

/** An answer, or the error that stood for it, and how long it took. */
export interface Timed {
  status: number;
  ms: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
  error?: string;
}

/** One request from `localAddress` (default the customer) on a connection of its own (or `agent`'s), timed. */
export function timedRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; json?: unknown; body?: string; localAddress?: string; timeoutMs?: number; agent?: Agent } = {},
): Promise<Timed> {
  const started = performance.now();
  const body = options.json === undefined ? options.body : JSON.stringify(options.json);
  const headers = { ...(options.json === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
  return new Promise((resolve) => {
    const done = (answer: Omit<Timed, 'ms'>) => resolve({ ...answer, ms: Math.round(performance.now() - started) });
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers, localAddress: options.localAddress ?? CUSTOMER, agent: options.agent ?? false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, text, headers: res.headers }));
        res.on('error', (error: Error & { code?: string }) => done({ status: 0, text, headers: res.headers, error: error.code ?? error.message }));
      },
    );
    req.setTimeout(options.timeoutMs ?? 5_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (error: Error & { code?: string }) => done({ status: 0, text: '', headers: {}, error: error.code ?? error.message }));
    req.end(body);
  });
}

// -------------------------------------------------------------------------------------------------
// The customer, meanwhile

/** Where a customer's checkout calls go: the service directly, or through the proxy. */
export interface CustomerRoutes {
  healthz: string;
  link: string;
  sessions: string;
}

/** The customer's routes on the service (`base` its URL) or through the proxy (`base` the proxy's URL). */
export function customerRoutes(stack: Stack, via: 'service' | 'proxy' = 'service'): CustomerRoutes {
  if (via === 'proxy') {
    const base = stack.proxyUrl!;
    return { healthz: `${base}/healthz`, link: `${base}/paylink/checkout/${stack.slug}`, sessions: `${base}/paylink/checkout/${stack.slug}/sessions` };
  }
  const base = stack.serviceUrl;
  return { healthz: `${base}/healthz`, link: `${base}/v1/checkout/${stack.slug}`, sessions: `${base}/v1/checkout/${stack.slug}/sessions` };
}

/** How one kind of customer call fared: how many, the slowest, and the ones that failed or took over a second. */
export interface ProbeFigures {
  count: number;
  maxMs: number;
  /** Calls that did not answer 2xx within a second, as `status@ms` (`0` when there was no answer, with the error). */
  bad: string[];
}

/** What the customer saw and what the service held while an attack ran. */
export interface CustomerFigures {
  healthz: ProbeFigures;
  linkLoad: ProbeFigures;
  sessionStart: ProbeFigures;
  /** Sessions the customer started (each a row). */
  sessionsCreated: number;
  rssBeforeMb: number;
  rssMaxMb: number;
}

/**
 * A customer who, until `stop()`, checks `/healthz` and loads the link every 500 ms and starts a session
 * every 4 s (within the default session rate limit), each on a new connection, while the resident memory
 * of `pid` is sampled every 250 ms.
 */
export function watchCustomer(routes: CustomerRoutes, pid: number) {
  const rssBeforeMb = residentMb(pid);
  let rssMaxMb = rssBeforeMb;
  const figures = { healthz: newProbe(), linkLoad: newProbe(), sessionStart: newProbe() };
  let sessionsCreated = 0;
  let running = true;
  const record = (probe: ProbeFigures, answer: Timed) => {
    probe.count++;
    probe.maxMs = Math.max(probe.maxMs, answer.ms);
    if (answer.status < 200 || answer.status >= 300 || answer.ms > 1_000)
      probe.bad.push(`${answer.status}@${answer.ms}ms${answer.error ? ` ${answer.error}` : ''}`);
  };
  const sampler = setInterval(() => (rssMaxMb = Math.max(rssMaxMb, residentMb(pid))), 250);
  const quick = (async () => {
    while (running) {
      const [health, link] = await Promise.all([timedRequest(routes.healthz), timedRequest(routes.link)]);
      record(figures.healthz, health);
      record(figures.linkLoad, link);
      await sleep(500);
    }
  })();
  const sessions = (async () => {
    while (running) {
      const answer = await timedRequest(routes.sessions, { method: 'POST', json: CUSTOMER_SESSION });
      record(figures.sessionStart, answer);
      if (answer.status === 201) sessionsCreated++;
      for (let waited = 0; running && waited < 4_000; waited += 250) await sleep(250);
    }
  })();
  return {
    async stop(): Promise<CustomerFigures> {
      running = false;
      clearInterval(sampler);
      await Promise.all([quick, sessions]);
      return { ...figures, sessionsCreated, rssBeforeMb, rssMaxMb: Math.max(rssMaxMb, residentMb(pid)) };
    },
  };
}

/** Runs `attack` while a customer watches (see `watchCustomer`); the customer stops however the attack ends. */
export async function whileCustomerWatches<T>(routes: CustomerRoutes, pid: number, attack: () => Promise<T>): Promise<[T, CustomerFigures]> {
  const customer = watchCustomer(routes, pid);
  let result: T;
  let figures: CustomerFigures;
  try {
    result = await attack();
  } finally {
    figures = await customer.stop();
  }
  return [result, figures];
}

function newProbe(): ProbeFigures {
  return { count: 0, maxMs: 0, bad: [] };
}

// -------------------------------------------------------------------------------------------------
// Slow requests

/** How a flood of slow connections was answered. */
export interface SlowFloodFigures {
  /** Connections the attacker opened. */
  opened: number;
  /**
   * Refused before anything was read: a 503 for a connection past its address's cap (or the total), a
   * 429 for a visit past the client's rate limit (its body is never read).
   */
  refused: number;
  /** Cut with a 408 by a timeout. */
  timedOut: number;
  /** Closed some other way (a reset, an error, a close without an answer). */
  otherwiseClosed: number;
  /** Still open when the attack stopped. */
  stillOpen: number;
  /** The longest a connection lasted before the server closed it, in ms. */
  longestMs: number;
}

/**
 * From each address, `perAddress` connections that start a request and then send one byte every
 * `dripMs`: half stop inside the headers (`POST …/visits` with no blank line yet), half inside a body that
 * announced 100,000 bytes. Connections are opened at about 300 a second (they pile up: the attack is
 * exhaustion, not a connection-rate flood, which a 2-core machine shared with other work would take for
 * CPU starvation). Runs for `durationMs` from the first connection, then closes what is left.
 */
export async function slowFlood(
  base: string,
  visitsPath: string,
  addresses: string[],
  perAddress: number,
  durationMs: number,
  dripMs = 2_000,
): Promise<SlowFloodFigures> {
  const { hostname, port } = new URL(base);
  const figures: SlowFloodFigures = { opened: 0, refused: 0, timedOut: 0, otherwiseClosed: 0, stillOpen: 0, longestMs: 0 };
  const sockets = new Set<net.Socket>();
  const endings: Promise<void>[] = [];
  const started = Date.now();
  const open = (localAddress: string, slowBody: boolean) => {
    const openedAt = Date.now();
    const socket = net.connect({ host: hostname, port: Number(port), localAddress });
    figures.opened++;
    sockets.add(socket);
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', () => {});
    let drip: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(
        slowBody
          ? `POST ${visitsPath} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"visitId":"`
          : `POST ${visitsPath} HTTP/1.1\r\nHost: x\r\nX-Slow: `,
      );
      drip = setInterval(() => socket.write('a'), dripMs);
    });
    endings.push(
      new Promise((resolve) =>
        socket.on('close', () => {
          clearInterval(drip);
          if (!sockets.delete(socket)) return resolve(); // closed by the attacker at the end
          const lasted = Date.now() - openedAt;
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
          if (status === 503 || status === 429) figures.refused++;
          else if (status === 408) figures.timedOut++;
          else figures.otherwiseClosed++;
          figures.longestMs = Math.max(figures.longestMs, lasted);
          resolve();
        }),
      ),
    );
  };
  for (let i = 0; i < perAddress; i++) {
    for (const address of addresses) open(address, i % 2 === 1);
    if (i % 10 === 9) await sleep(100);
  }
  await sleep(Math.max(0, durationMs - (Date.now() - started)));
  figures.stillOpen = sockets.size;
  const left = [...sockets];
  sockets.clear();
  for (const socket of left) socket.destroy();
  await Promise.all(endings);
  return figures;
}

// -------------------------------------------------------------------------------------------------
// Event streams

/** How a flood of event streams was answered. */
export interface StreamFloodFigures {
  attempted: number;
  /** Streams let open (200). */
  open: number;
  /** Answers by status (0: no answer). */
  statuses: Record<string, number>;
  /** Refusals that carried `Retry-After` and the one error shape. */
  refusalsInShape: number;
  /** The most streams open from one address. */
  maxOpenPerAddress: number;
}

/** From each address, `perAddress` event streams on the session `sessionId`; returns the open ones too. */
export async function streamFlood(
  base: string,
  sessionId: string,
  addresses: string[],
  perAddress: number,
): Promise<{ figures: StreamFloodFigures; streams: EventStreamClient[] }> {
  const figures: StreamFloodFigures = { attempted: 0, open: 0, statuses: {}, refusalsInShape: 0, maxOpenPerAddress: 0 };
  const streams: EventStreamClient[] = [];
  const openPerAddress = new Map<string, number>();
  const path = `/v1/checkout/sessions/${sessionId}/events`;
  const openOne = async (address: string) => {
    figures.attempted++;
    try {
      const stream = await openEventStreamFrom(base, path, address);
      figures.statuses[stream.status] = (figures.statuses[stream.status] ?? 0) + 1;
      if (stream.status === 200) {
        streams.push(stream);
        openPerAddress.set(address, (openPerAddress.get(address) ?? 0) + 1);
      } else if (stream.headers['retry-after'] && stream.body?.status === 'error' && stream.body?.statusCode === stream.status) {
        figures.refusalsInShape++;
      }
    } catch {
      figures.statuses[0] = (figures.statuses[0] ?? 0) + 1;
    }
  };
  // Ten addresses at a time, each opening all of its streams at once.
  for (let at = 0; at < addresses.length; at += 10) {
    await Promise.all(addresses.slice(at, at + 10).flatMap((address) => Array.from({ length: perAddress }, () => openOne(address))));
  }
  figures.open = streams.length;
  figures.maxOpenPerAddress = Math.max(0, ...openPerAddress.values());
  return { figures, streams };
}

/**
 * Pays `sessionId` (sandbox) and times it: the answer of the simulated payment, and until every one of
 * `streams` heard the session paid (or `timeoutMs` passed).
 */
export async function payAndFanOut(base: string, sessionId: string, streams: EventStreamClient[], timeoutMs = 30_000) {
  const heard = streams.map(async (stream) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const event = await stream.next(Math.max(1, deadline - Date.now())).catch(() => undefined);
      if (event?.status === 'paid') return true;
      if (event === undefined) return false;
    }
    return false;
  });
  const started = performance.now();
  const paid = await timedRequest(`${base}/v1/checkout/sessions/${sessionId}/simulate-payment`, { method: 'POST', json: {}, timeoutMs });
  const heardBy = (await Promise.all(heard)).filter(Boolean).length;
  return { paymentStatus: paid.status, paymentMs: paid.ms, allHeardMs: Math.round(performance.now() - started), heardBy, of: streams.length };
}

/**
 * The stream flood, then, 3 s later with the streams still open, the resident memory of `pid` and a
 * payment of the session and its fan-out; then the streams are closed.
 */
export async function streamFloodAndPay(base: string, sessionId: string, addresses: string[], perAddress: number, pid: number) {
  const { figures, streams } = await streamFlood(base, sessionId, addresses, perAddress);
  try {
    await sleep(3_000);
    const rssWithStreamsMb = residentMb(pid);
    const payment = await payAndFanOut(base, sessionId, streams);
    return { flood: figures, rssWithStreamsMb, payment };
  } finally {
    for (const stream of streams) stream.close();
  }
}

// -------------------------------------------------------------------------------------------------
// Floods of public writes

/** How a flood of requests was answered. */
export interface FloodFigures {
  sent: number;
  statuses: Record<string, number>;
  ms: number;
  /** Answers past the first that were refused with a `Retry-After`. */
  withRetryAfter: number;
  /** Bodies of the 2xx answers (parsed), for counting what they say. */
  accepted: unknown[];
}

/**
 * `count` POSTs to `url` from `localAddress`, `concurrency` at a time over keep-alive connections: session
 * starts (`body: 'session'`) or visits with a random visitId each (`'visit'`).
 */
export async function postFlood(url: string, count: number, localAddress: string, body: 'session' | 'visit', concurrency = 16): Promise<FloodFigures> {
  const bodyOf = body === 'session' ? () => CUSTOMER_SESSION : () => ({ visitId: crypto.randomUUID() });
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const figures: FloodFigures = { sent: 0, statuses: {}, ms: 0, withRetryAfter: 0, accepted: [] };
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const answer = await timedRequest(url, { method: 'POST', json: bodyOf(), localAddress, agent, timeoutMs: 15_000 });
      figures.sent++;
      figures.statuses[answer.status] = (figures.statuses[answer.status] ?? 0) + 1;
      if (answer.headers['retry-after']) figures.withRetryAfter++;
      if (answer.status >= 200 && answer.status < 300) figures.accepted.push(JSON.parse(answer.text));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  figures.ms = Math.round(performance.now() - started);
  return figures;
}

// -------------------------------------------------------------------------------------------------
// Aborted uploads

/**
 * `count` session starts, each from an address of its own (so no rate limit refuses one before its body
 * is read), that send their headers and part of the body, then reset. Resolves once all are gone.
 */
export async function abortedUploads(base: string, slug: string, count: number): Promise<void> {
  const { hostname, port } = new URL(base);
  await Promise.all(
    attackerAddresses(count, 5).map(
      (localAddress) =>
        new Promise<void>((resolve) => {
          const socket = net.connect({ host: hostname, port: Number(port), localAddress });
          socket.on('error', () => {});
          socket.on('close', () => resolve());
          socket.on('connect', () => {
            socket.write(
              `POST /v1/checkout/${slug}/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"assetId":"USDT","customer":{"email":"ada@example.com"`,
            );
            setTimeout(() => socket.resetAndDestroy(), 200);
          });
        }),
    ),
  );
  await sleep(500);
}

// -------------------------------------------------------------------------------------------------
// The attacker's process

/** The floods the attacker's process runs (test/support/hard-attacker.ts), with those of test/support/hard-demo.ts. */
export const floods = { slowFlood, streamFloodAndPay, postFlood };
type AllFloods = typeof floods & typeof demoFloods;
export type FloodName = keyof AllFloods;

/** Runs `floods[name](...args)` in an attacker process of its own and resolves with its figures. */
export function fromAttacker<Name extends FloodName>(name: Name, ...args: Parameters<AllFloods[Name]>): ReturnType<AllFloods[Name]> {
  return new Promise((resolve, reject) => {
    const attacker = fork(path.join(import.meta.dirname, 'hard-attacker.ts'), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    let answered = false;
    attacker.once('message', (figures) => {
      answered = true;
      resolve(figures as never);
    });
    attacker.once('error', reject);
    attacker.once('exit', (code) => {
      if (!answered) reject(new Error(`the attacker exited with ${code} before answering`));
    });
    attacker.send({ name, args });
  }) as ReturnType<AllFloods[Name]>;
}

// -------------------------------------------------------------------------------------------------
// The attacks, each on a stack of its own

/** Connections the attack opens per attacker address (three addresses). */
export const SLOW_CONNECTIONS_PER_ADDRESS = 700;
/** The open-file limit of the attacked process in the slow-connection attacks: 2,100 connections exhaust it without limits. */
export const SLOW_FILE_LIMIT = 2048;
/** How long the slow-connection attacks last: past the 30 s body timeout and its 1 s check. */
export const SLOW_DURATION_MS = 34_000;

/** What the slow-connection attack (slow headers and slow bodies) did to the service or the proxy. */
export interface SlowAttackFigures {
  flood: SlowFloodFigures;
  customer: CustomerFigures;
  /** Visits the slow bodies (visit requests) got written. */
  visitsWritten: number;
  /** Whether the attacked process still answered `/healthz` afterwards. */
  aliveAfter: boolean;
}

/** 3 × 700 connections of slow headers and slow bodies against the service (`via: 'service'`) or the proxy. */
export async function slowConnectionAttack(cluster: PostgresCluster, via: 'service' | 'proxy', root?: string): Promise<SlowAttackFigures> {
  const stack = await startStack(cluster, { root, fileLimit: SLOW_FILE_LIMIT, proxy: via === 'proxy' });
  try {
    const before = await stack.rows();
    const routes = customerRoutes(stack, via);
    const target = via === 'proxy' ? stack.proxyUrl! : stack.serviceUrl;
    const visitsPath = via === 'proxy' ? `/paylink/checkout/${stack.slug}/visits` : `/v1/checkout/${stack.slug}/visits`;
    const [flood, customerFigures] = await whileCustomerWatches(routes, via === 'proxy' ? stack.proxyPid! : stack.servicePid, () =>
      fromAttacker('slowFlood', target, visitsPath, attackerAddresses(3), SLOW_CONNECTIONS_PER_ADDRESS, SLOW_DURATION_MS),
    );
    const after = await stack.rows();
    const aliveAfter = (await timedRequest(routes.healthz)).status === 200;
    return { flood, customer: customerFigures, visitsWritten: after.visits - before.visits, aliveAfter };
  } finally {
    await stack.close();
  }
}

/** Stream attempts per attacker address, and the addresses (3,000 streams in all). */
export const STREAMS_PER_ADDRESS = 20;
export const STREAM_ADDRESSES = 150;

/** What the event-stream flood did. */
export interface StreamAttackFigures {
  flood: StreamFloodFigures;
  customer: CustomerFigures;
  /** The service's resident memory with the streams open, in MB. */
  rssWithStreamsMb: number;
  payment: Awaited<ReturnType<typeof payAndFanOut>>;
}

/**
 * 3,000 event streams on one session (the customer's) from 150 attacker addresses, then a payment of that
 * session while they are open. `env` sets the service's stream caps (the bench lifts them to time the
 * fan-out of 3,000 streams).
 */
export async function streamAttack(cluster: PostgresCluster, root?: string, env?: Record<string, string>): Promise<StreamAttackFigures> {
  const stack = await startStack(cluster, { root, env });
  try {
    const routes = customerRoutes(stack);
    const session = await timedRequest(routes.sessions, { method: 'POST', json: CUSTOMER_SESSION });
    if (session.status !== 201) throw new Error(`session start failed: ${session.status}`);
    const sessionId = (JSON.parse(session.text) as { id: string }).id;
    const [attack, customerFigures] = await whileCustomerWatches(routes, stack.servicePid, () =>
      fromAttacker('streamFloodAndPay', stack.serviceUrl, sessionId, attackerAddresses(STREAM_ADDRESSES, 3), STREAMS_PER_ADDRESS, stack.servicePid),
    );
    return { ...attack, customer: customerFigures };
  } finally {
    await stack.close();
  }
}

/** Requests in the session and visit floods. */
export const FLOOD_COUNT = 5_000;

/** What a flood of public writes from one client did. */
export interface WriteFloodFigures {
  flood: FloodFigures;
  customer: CustomerFigures;
  /** Rows added to the table the flood writes (sessions, or visits), beyond the customer's own sessions. */
  rowsAdded: number;
  /** The link's `visitedCount` after, less before. */
  visitedCountAdded: number;
  /** Visits the answers said were counted. */
  countedVisits: number;
}

/** 5,000 session starts (`what: 'sessions'`) or 5,000 visits with random visitIds from one attacker address. */
export async function writeFloodAttack(cluster: PostgresCluster, what: 'sessions' | 'visits', root?: string): Promise<WriteFloodFigures> {
  const stack = await startStack(cluster, { root });
  try {
    const before = await stack.rows();
    const routes = customerRoutes(stack);
    const url = what === 'sessions' ? routes.sessions : `${stack.serviceUrl}/v1/checkout/${stack.slug}/visits`;
    const [flood, customerFigures] = await whileCustomerWatches(routes, stack.servicePid, () =>
      fromAttacker('postFlood', url, FLOOD_COUNT, attackerAddresses(1)[0]!, what === 'sessions' ? 'session' : 'visit'),
    );
    const after = await stack.rows();
    return {
      flood,
      customer: customerFigures,
      rowsAdded: what === 'sessions' ? after.sessions - before.sessions - customerFigures.sessionsCreated : after.visits - before.visits,
      visitedCountAdded: after.visitedCount - before.visitedCount,
      countedVisits: flood.accepted.filter((answer) => (answer as { counted?: boolean }).counted === true).length,
    };
  } finally {
    await stack.close();
  }
}

/** What bad bytes, impossible dates and the hygiene checks were answered, and what the log then held. */
export interface BadInputFigures {
  /** Each bad request's status, by name. */
  statuses: Record<string, number>;
  /** `Cache-Control` of a keyed answer (the balance) and of the proxy's admin answer. */
  keyedCacheControl: string;
  proxyAdminCacheControl: string;
  /** Rows of any table added by the bad requests (refusals write nothing). */
  rowsAdded: number;
  /** Customer details and SQL found in the service's log lines of the bad requests. */
  leaked: string[];
  /** Log lines of 50 aborted uploads, and how many of them are stack frames or carry any. */
  abortedUploadLines: number;
  abortedUploadStackLines: number;
}

/** Secrets in the bad requests that must never reach the log. */
const SECRETS = ['ada@example.com', '+2348012345678', 'Marina', 'INSERT', 'SELECT'];
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Bad bytes and dates in every kind of field, then the hygiene checks, then 50 aborted uploads. */
export async function badInputAttack(cluster: PostgresCluster, root?: string): Promise<BadInputFigures> {
  const stack = await startStack(cluster, { root, proxy: true });
  try {
    const key = { 'x-api-key': stack.apiKey };
    const base = stack.serviceUrl;
    // A balance to withdraw from, so the zero address is the only thing wrong with the withdrawal.
    const session = await timedRequest(`${base}/v1/checkout/${stack.slug}/sessions`, { method: 'POST', json: CUSTOMER_SESSION });
    await timedRequest(`${base}/v1/checkout/sessions/${(JSON.parse(session.text) as { id: string }).id}/simulate-payment`, { method: 'POST', json: {} });
    const link = (overrides: Record<string, unknown>) => ({
      title: 'Bad input',
      description: '',
      fiatAmount: 10,
      fiatCurrency: 'USD',
      action: {},
      options: {},
      cart: { items: [] },
      ...overrides,
    });
    const donation = (closesAt: string) => ({ ...link({ fiatAmount: undefined }), linkType: 'Donation', closesAt });
    const customer = { phone: '+2348012345678', email: 'ada@example.com', address: '1 Marina, Lagos' };
    const requests: Record<string, { path: string; method?: string; json?: unknown; body?: string; headers?: Record<string, string> }> = {
      'NUL in a link title': { path: '/v1/payment-link', json: link({ title: 'Coffee\u0000beans' }), headers: key },
      'NUL in a customer address': {
        path: `/v1/checkout/${stack.slug}/sessions`,
        json: { assetId: 'USDT', customer: { ...customer, address: '1 Marina\u0000, Lagos' } },
      },
      'NUL in a customer email': {
        path: `/v1/checkout/${stack.slug}/sessions`,
        json: { assetId: 'USDT', customer: { ...customer, email: 'ada\u0000@example.com' } },
      },
      'NUL in a visitId': { path: `/v1/checkout/${stack.slug}/visits`, json: { visitId: 'visit-\u0000-0123456789' } },
      'startDate=0000-01-01': { path: '/v1/withdrawal?startDate=0000-01-01', method: 'GET', headers: key },
      'endDate=9999-12-31': { path: '/v1/withdrawal?endDate=9999-12-31', method: 'GET', headers: key },
      'closesAt with a −23:59 offset': { path: '/v1/payment-link', json: donation('2030-06-01T12:00:00-23:59'), headers: key },
      'closesAt 2030-02-30': { path: '/v1/payment-link', json: donation('2030-02-30T00:00:00Z'), headers: key },
      'a cart over the amount cap': {
        path: '/v1/payment-link',
        json: link({
          fiatAmount: undefined,
          cart: { items: Array.from({ length: 100 }, (_, i) => ({ name: `Item ${i}`, quantity: 10_000, unitAmount: '1000000000000' })) },
        }),
        headers: key,
      },
      'a withdrawal to the zero address': {
        path: '/v1/withdrawal',
        json: { amount: '1', address: ZERO_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' },
        headers: key,
      },
      'a text/plain body': { path: '/v1/payment-link', body: JSON.stringify(link({})), headers: { ...key, 'content-type': 'text/plain' } },
    };
    const before = await stack.rows();
    const logStart = stack.serviceLog.length;
    const statuses: Record<string, number> = {};
    for (const [name, spec] of Object.entries(requests)) {
      const answer = await timedRequest(`${base}${spec.path}`, { method: spec.method ?? 'POST', json: spec.json, body: spec.body, headers: spec.headers });
      statuses[name] = answer.status;
    }
    await sleep(300);
    const after = await stack.rows();
    const lines = stack.serviceLog.slice(logStart).join('\n');
    const keyedCacheControl = String((await timedRequest(`${base}/v1/balance`, { headers: key })).headers['cache-control'] ?? 'none');
    const proxyAdminCacheControl = String(
      (await timedRequest(`${stack.proxyUrl}/paylink/admin/balance`, { headers: { authorization: `Bearer ${stack.adminToken}` } })).headers['cache-control'] ??
        'none',
    );

    const uploadStart = stack.serviceLog.length;
    await abortedUploads(base, stack.slug, 50);
    const uploadLines = stack.serviceLog.slice(uploadStart).filter((line) => line.trim() !== '');
    return {
      statuses,
      keyedCacheControl,
      proxyAdminCacheControl,
      rowsAdded: (Object.keys(after) as (keyof Rows)[])
        .filter((table) => table !== 'visitedCount')
        .reduce((sum, table) => sum + after[table] - before[table], 0),
      leaked: SECRETS.filter((secret) => lines.includes(secret)),
      abortedUploadLines: uploadLines.length,
      abortedUploadStackLines: uploadLines.filter((line) => /^\s+at /.test(line) || line.includes('"at":[')).length,
    };
  } finally {
    await stack.close();
  }
}
