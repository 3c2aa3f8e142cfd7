/**
 * Several instances, as an operator runs them: three `paylink serve` processes on one PostgreSQL
 * server, behind HAProxy checking `/readyz`, scraped every second by a Prometheus server with
 * docs/alerts.yml loaded, under steady traffic through the balancer (session starts, reads, payments,
 * withdrawals, event streams, webhook deliveries to a local receiver).
 *
 * - A rolling restart (SIGTERM each instance in turn, start it again, wait until HAProxy has it back)
 *   fails no request, and loses or doubles no session, payment, webhook delivery or payout.
 * - An instance killed with SIGKILL while it holds payouts has them finished by another within 30 s.
 *   So that the victim surely holds them, the two others are paused (SIGSTOP) while it claims a burst
 *   of withdrawals, and resumed (SIGCONT) once it is killed; traffic is paused meanwhile.
 * - Prometheus saw every instance up, took samples of each, saw the killed one down, and evaluated
 *   every alerting rule without error.
 *
 * Three runs: the sandbox behind PgBouncer in transaction mode without PAYLINK_DATABASE_LISTEN_URL
 * (the service polls, and says so at start); the sandbox straight on PostgreSQL (a rolling restart
 * only); and a local EVM chain (anvil, a block a second) with payouts in flight, behind PgBouncer with
 * LISTEN on a direct connection. Each prints the requests sent, failed, and the longest request made
 * during a restart. Needs PostgreSQL 15 and Debian's haproxy, pgbouncer and prometheus (CI installs
 * them); without them, here, it is skipped and says why.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { getAddress, parseUnits, type Address } from 'viem';
import { TEST_TOKEN_ABI } from '../../src/server/chain/evm/test-token.js';
import { openDatabase, type Database } from '../../src/server/db/index.js';
import { DEPOSIT_XPUB } from '../support/anvil.js';
import { creditDirectly, startEvmFixture, type EvmFixture } from '../support/evm-service.js';
import { assertLedgerMatches, GOOD_ADDRESS } from '../support/money.js';
import { missingOpsTools, startHaproxy, startPgBouncer, startPrometheus, type Haproxy, type PgBouncer, type Prometheus } from '../support/ops-stack.js';
import { freePort, postgresAvailable, startPostgresCluster, type PostgresCluster } from '../support/postgres.js';
import { BIN, ROOT } from '../support/processes.js';
import { sleep, until } from '../support/wait.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const TOKEN = 'ops-test-metrics-token-0123456789abcdef';
const NAMES = ['a', 'b', 'c'] as const;
/** How long the test gives a killed instance's work to be finished by another: the contract's 30 s. */
const TAKEOVER_MS = 30_000;

const missing = [...missingOpsTools(), ...(postgresAvailable() ? [] : ['postgresql-15'])];
const skip = missing.length > 0 && process.env.CI !== 'true' ? `needs ${missing.join(', ')} (apt-get install ${missing.join(' ')})` : false;

/** One `paylink serve` process: started again on the same port after a stop. */
class Instance {
  child: ChildProcess | undefined;
  /** Every line it wrote, stdout and stderr, across its lives. */
  readonly lines: string[] = [];
  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly databaseUrl: string,
    private readonly chain: 'sandbox' | 'evm',
  ) {}

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  start(): void {
    const child = spawn(process.execPath, [BIN, 'serve', '--chain', this.chain, '--database-url', this.databaseUrl, '--port', String(this.port)], {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout!, child.stderr!]) {
      let rest = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n');
        rest = parts.pop()!;
        this.lines.push(...parts.filter(Boolean));
      });
    }
    this.child = child;
  }

  /** Resolves once `/readyz` answers 200 (the instance serves, with fresh rates). */
  async ready(timeoutMs = 60_000): Promise<void> {
    const lastLines = () => this.lines.slice(-20).join('\n');
    await until(
      async () => {
        if (this.child?.exitCode !== null) throw new Error(`instance ${this.name} exited with ${this.child?.exitCode}:\n${lastLines()}`);
        return fetch(`${this.url}/readyz`).then(
          (res) => res.ok,
          () => false,
        );
      },
      `instance ${this.name} ready`,
      timeoutMs,
      { everyMs: 50, explain: lastLines },
    );
  }

  /** Sends `signal` and resolves with the exit code once the process has exited. */
  async stop(signal: NodeJS.Signals): Promise<number | null> {
    const child = this.child!;
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    return exit;
  }

  /** Pauses (SIGSTOP) the process and resolves once every thread of it has stopped; returns what resumes it. */
  async pause(): Promise<() => void> {
    const child = this.child!;
    child.kill('SIGSTOP');
    const tasks = `/proc/${child.pid}/task`;
    const stopped = () => readdirSync(tasks).every((task) => /\) [Tt] /.test(readFileSync(`${tasks}/${task}/stat`, 'utf8')));
    await until(() => !existsSync(tasks) || stopped(), `every thread of instance ${this.name} stopped`, 5_000, { everyMs: 5 });
    return () => child.kill('SIGCONT');
  }
}

/** One request of the traffic and how it went. */
interface Outcome {
  what: string;
  start: number;
  end: number;
  ok: boolean;
  why?: string;
}

/** The traffic through the balancer: every request timed and judged, until `stop()`. */
class Traffic {
  readonly outcomes: Outcome[] = [];
  readonly failures: Outcome[] = [];
  running = true;
  readonly streams = new AbortController();
  streamReconnects = 0;
  private loops: Promise<void>[] = [];

  constructor(private readonly base: string) {}

  /** A JSON request; fails unless the status is `expect`. Resolves with the body (undefined on failure). */
  async call(
    what: string,
    method: string,
    path: string,
    options: { key?: string; body?: unknown; expect: number; headers?: Record<string, string> },
  ): Promise<any> {
    const start = performance.now();
    let outcome: Outcome;
    let body: any;
    try {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.key ? { 'x-api-key': options.key } : {}),
          ...options.headers,
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      const ok = res.status === options.expect;
      body = ok && text ? JSON.parse(text) : undefined;
      outcome = { what, start, end: performance.now(), ok, why: ok ? undefined : `${method} ${path}: ${res.status} ${text.slice(0, 200)}` };
    } catch (error) {
      outcome = {
        what,
        start,
        end: performance.now(),
        ok: false,
        why: error instanceof Error ? `${error.name}: ${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error),
      };
    }
    this.outcomes.push(outcome);
    if (!outcome.ok) this.failures.push(outcome);
    return outcome.ok ? body : undefined;
  }

  /** Runs `step` again and again until `stop()`. */
  loop(step: () => Promise<void>): void {
    this.loops.push(
      (async () => {
        while (this.running) await step();
      })(),
    );
  }

  /**
   * Keeps an event stream open on `sessionId` through the balancer. A stream that ends must have said
   * `retry:` first (a stopping instance tells it to reconnect); then it reconnects.
   */
  watch(sessionId: string): void {
    this.loops.push(
      (async () => {
        while (this.running) {
          const start = performance.now();
          let retried = false;
          try {
            const res = await fetch(`${this.base}/v1/checkout/sessions/${sessionId}/events`, {
              headers: { accept: 'text/event-stream' },
              signal: this.streams.signal,
            });
            if (res.status !== 200) throw new Error(`event stream answered ${res.status}`);
            const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = '';
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer = (buffer + value).slice(-200);
              if (/(^|\n)retry: \d+\n/.test(buffer)) retried = true;
            }
            if (!this.running) return;
            if (!retried) throw new Error('the event stream ended without a retry: line');
            this.streamReconnects++;
          } catch (error) {
            if (!this.running) return;
            const outcome = { what: 'event stream', start, end: performance.now(), ok: false, why: String(error) };
            this.outcomes.push(outcome);
            this.failures.push(outcome);
          }
        }
      })(),
    );
  }

  /** Resolves once `count` more requests have been answered. */
  async progress(count: number, timeoutMs = 60_000): Promise<void> {
    const target = this.outcomes.length + count;
    await until(() => this.outcomes.length >= target, `${count} more requests of the traffic answered`, timeoutMs, {
      everyMs: 20,
      explain: () => `${this.outcomes.length - target + count} were`,
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    this.streams.abort();
    await Promise.all(this.loops);
  }
}

interface Scenario {
  chain: 'sandbox' | 'evm';
  /** Where DATABASE_URL points: PgBouncer in transaction mode, or the server itself. */
  via: 'pgbouncer' | 'direct';
  /** Behind PgBouncer: LISTEN over PAYLINK_DATABASE_LISTEN_URL (a direct connection), or polling. */
  listenUrl: boolean;
  /** Also kill an instance holding payouts. */
  kill: boolean;
}

// The three runs at once: each has its own database, instances, balancer, Prometheus and receiver.
describe('three instances behind HAProxy on one PostgreSQL', { skip, concurrency: 3 }, () => {
  let cluster: PostgresCluster;
  let bouncer: PgBouncer;

  before(async () => {
    cluster = await startPostgresCluster();
    bouncer = await startPgBouncer(cluster.port);
  });
  after(async () => {
    await bouncer?.stop();
    cluster?.stop();
  });

  async function run(t: TestContext, scenario: Scenario): Promise<void> {
    const started = performance.now();
    const name = `paylink_ops_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const directUrl = cluster.url.replace(/\/postgres$/, `/${name}`);
    const serviceUrl = scenario.via === 'pgbouncer' ? bouncer.url(name) : directUrl;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-ops-'));
    const cleanups: Array<() => Promise<unknown> | unknown> = [() => rmSync(dir, { recursive: true, force: true })];
    let fixture: EvmFixture | undefined;
    let db: Database | undefined;
    try {
      // The chain, the key, the instances' settings.
      const env: Record<string, string> = {
        PAYLINK_LOG_FORMAT: 'json',
        PAYLINK_METRICS_TOKEN: TOKEN,
        // HAProxy takes a server out after 2 failed checks 250 ms apart: well within the drain.
        PAYLINK_DRAIN_DELAY_MS: '1500',
        PAYLINK_SESSION_RATE_LIMIT: 'off',
        PAYLINK_VISIT_RATE_LIMIT: 'off',
        PAYLINK_WEBHOOK_ALLOW_PRIVATE: '1',
        PAYLINK_SANDBOX_PAYOUT_DELAY_MS: '1000',
        ...(scenario.via === 'pgbouncer' && scenario.listenUrl ? { PAYLINK_DATABASE_LISTEN_URL: directUrl } : {}),
      };
      if (scenario.chain === 'evm') {
        fixture = await startEvmFixture({ blockTime: 1 });
        cleanups.push(() => fixture!.stop());
        const keyFile = path.join(dir, 'payout.key');
        writeFileSync(keyFile, `${fixture.t.devKey(1)}\n`, { mode: 0o600 });
        await fixture.t.mint(fixture.usdt, fixture.t.accounts[1]!, parseUnits('1000000', 18));
        Object.assign(env, {
          PAYLINK_EVM_RPC_URL: fixture.t.url,
          PAYLINK_EVM_CHAIN_ID: String(fixture.t.chainId),
          PAYLINK_EVM_TOKENS: `USDT=${fixture.usdt}`,
          PAYLINK_EVM_XPUB: DEPOSIT_XPUB,
          PAYLINK_EVM_PAYOUT_KEY_FILE: keyFile,
          PAYLINK_EVM_CONFIRMATIONS: '1',
          PAYLINK_EVM_POLL_MS: '250',
          PAYLINK_RATES_SOURCES: 'static',
        });
      }
      const created = spawnSync(process.execPath, [BIN, 'keys', 'create', '--database-url', directUrl], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      assert.equal(created.status, 0, created.stderr);
      const key = created.stdout.trim().split('\n').at(-1)!;
      const integratorId = created.stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { code: string; integratorId?: string })
        .find((line) => line.code === 'api_key_created')!.integratorId!;
      db = await openDatabase({ databaseUrl: directUrl, maxConnections: 4 });

      const receiver: Receiver = await startReceiver(() => 200);
      cleanups.push(() => receiver.close());
      const ports = await Promise.all(NAMES.map(() => freePort()));
      const instances = NAMES.map((instanceName, i) => new Instance(instanceName, ports[i]!, env, serviceUrl, scenario.chain));
      cleanups.push(() => Promise.all(instances.map((instance) => instance.child && instance.child.exitCode === null && instance.stop('SIGKILL'))));
      for (const instance of instances) instance.start();
      const [haproxy, prometheus] = (await Promise.all([
        startHaproxy(instances.map((instance) => ({ name: instance.name, port: instance.port }))),
        startPrometheus(
          instances.map((instance) => `127.0.0.1:${instance.port}`),
          TOKEN,
          [path.join(ROOT, 'docs', 'alerts.yml')],
        ),
        ...instances.map((instance) => instance.ready()),
      ])) as [Haproxy, Prometheus];
      cleanups.push(
        () => haproxy.stop(),
        () => prometheus.stop(),
      );
      for (const instance of instances) await haproxy.waitFor(instance.name, 'UP');

      // A merchant with a link, a webhook endpoint, and money to withdraw.
      const lb = new Traffic(haproxy.url);
      const link = await lb.call('create link', 'POST', '/v1/payment-link', {
        key,
        expect: 201,
        body: { title: 'Rolling restart', description: '', fiatAmount: 12, fiatCurrency: 'USD', action: {}, options: {}, cart: { items: [] } },
      });
      assert.ok(link, JSON.stringify(lb.failures));
      assert.ok(await lb.call('create endpoint', 'POST', '/v1/webhook-endpoint', { key, expect: 201, body: { url: `${receiver.url}/hooks` } }));
      if (scenario.chain === 'sandbox') {
        const funding = await lb.call('funding session', 'POST', `/v1/checkout/${link.slug}/sessions`, { expect: 201, body: { assetId: 'USDT' } });
        assert.ok(await lb.call('funding payment', 'POST', `/v1/checkout/sessions/${funding.id}/simulate-payment`, { expect: 200, body: { amount: '1000' } }));
      } else {
        await creditDirectly({ url: haproxy.url, db }, { networks: [{ id: 'bsc' }] } as never, key, '1000');
      }
      const watched = await Promise.all(
        [0, 1].map(() => lb.call('watched session', 'POST', `/v1/checkout/${link.slug}/sessions`, { expect: 201, body: { assetId: 'USDT' } })),
      );
      assert.equal(lb.failures.length, 0, JSON.stringify(lb.failures));

      // Steady traffic.
      const traffic = new Traffic(haproxy.url);
      const sessions: string[] = [];
      const payments: string[] = [];
      const withdrawals: Array<{ id: string; address: string; amount: string }> = [];
      const payers = fixture ? [fixture.payers[0]!, fixture.payers[1]!] : [undefined, undefined, undefined];
      for (const payer of payers) {
        traffic.loop(async () => {
          const session = await traffic.call('start session', 'POST', `/v1/checkout/${link.slug}/sessions`, { expect: 201, body: { assetId: 'USDT' } });
          if (!session) return;
          sessions.push(session.id);
          if (!(await traffic.call('read session', 'GET', `/v1/checkout/sessions/${session.id}`, { expect: 200 }))) return;
          if (!fixture) {
            const paid = await traffic.call('simulate payment', 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { expect: 200, body: {} });
            if (paid?.status === 'paid') payments.push(session.id);
            else if (paid) traffic.failures.push({ what: 'payment', start: 0, end: 0, ok: false, why: `session ${paid.status}` });
            return;
          }
          await fixture.pay(session.payAddress, 'USDT', session.cryptoAmount, payer);
          payments.push(session.id);
          const deadline = Date.now() + 60_000;
          while (traffic.running || Date.now() < deadline) {
            const read = await traffic.call('read session until paid', 'GET', `/v1/checkout/sessions/${session.id}`, { expect: 200 });
            if (read?.status === 'paid') return;
            if (Date.now() > deadline) {
              traffic.failures.push({
                what: 'payment credited',
                start: 0,
                end: 0,
                ok: false,
                why: `session ${session.id} still ${read?.status} 60 s after its transfer`,
              });
              return;
            }
            await sleep(250); // the customer's page reads its session again: traffic at a page's pace, not a wait
          }
        });
      }
      traffic.loop(async () => {
        await traffic.call('read link', 'GET', `/v1/checkout/${link.slug}`, { expect: 200 });
        await traffic.call('list links', 'GET', '/v1/payment-link', { key, expect: 200 });
        await traffic.call('read balance', 'GET', '/v1/balance', { key, expect: 200 });
      });
      traffic.loop(async () => {
        const address = fixture ? getAddress(`0x${randomBytes(20).toString('hex')}`) : GOOD_ADDRESS;
        const withdrawal = await traffic.call('withdraw', 'POST', '/v1/withdrawal', {
          key,
          expect: 200,
          headers: { 'idempotency-key': randomUUID() },
          body: { amount: '0.5', address, blockchainId: 'bsc', assetId: 'USDT' },
        });
        if (withdrawal) withdrawals.push({ id: withdrawal.id, address, amount: '0.5' });
        await sleep(200); // withdrawals at a merchant's pace: the traffic's shape, not a wait
      });
      for (const session of watched) traffic.watch(session.id);
      await traffic.progress(30);

      // The rolling restart.
      const windows: Array<[number, number]> = [];
      for (const instance of instances) {
        const from = performance.now();
        assert.equal(await instance.stop('SIGTERM'), 0, `instance ${instance.name} drains and exits 0`);
        instance.start();
        await instance.ready();
        await haproxy.waitFor(instance.name, 'UP');
        windows.push([from, performance.now()]);
        await traffic.progress(20);
      }
      await traffic.stop();
      const duringRestart = traffic.outcomes.filter((outcome) => windows.some(([from, to]) => outcome.start < to && outcome.end > from));
      const longest = Math.max(0, ...duringRestart.map((outcome) => outcome.end - outcome.start));
      t.diagnostic(
        `${scenario.chain}, ${scenario.via}${scenario.via === 'pgbouncer' ? (scenario.listenUrl ? ' + LISTEN URL' : ' (polling)') : ''}: ` +
          `${traffic.outcomes.length} requests sent, ${traffic.failures.length} failed, ${duringRestart.length} during the restarts, ` +
          `the longest ${Math.round(longest)} ms; ${traffic.streamReconnects} event streams moved to another instance`,
      );
      assert.deepEqual(
        traffic.failures,
        [],
        `no request failed; HAProxy's errors:\n${haproxy
          .log()
          .filter((line) => / [45]\d\d /.test(line) || /rc=-1/.test(line))
          .slice(-20)
          .join('\n')}`,
      );
      assert.ok(traffic.streamReconnects >= 1, 'event streams were told to reconnect, and did');
      // What the rolling restart announced is delivered before anything is killed: each exactly once, below.
      const events = async () =>
        (
          await db!.query<{ id: string; type: string; body: unknown; created_at: Date }>(
            'SELECT id, type, body, created_at FROM webhook_events WHERE integrator_id = $1',
            [integratorId],
          )
        ).rows;
      const delivered = () => {
        const counts = new Map<string, number>();
        for (const delivery of receiver.received)
          counts.set(String(delivery.headers['paylink-event-id']), (counts.get(String(delivery.headers['paylink-event-id'])) ?? 0) + 1);
        return counts;
      };
      await until(async () => (await events()).every((event) => delivered().has(event.id)), 'every webhook event of the rolling restart delivered', 60_000, {
        everyMs: 100,
      });
      const beforeKill = new Date();

      // SIGKILL an instance holding payouts: the two others, paused while it claims, finish them.
      if (scenario.kill) {
        const [victim, ...others] = instances;
        const resumes = await Promise.all(others.map((instance) => instance.pause()));
        const burst = await Promise.all(
          [0, 1, 2, 3].map(async () => {
            const address = fixture ? getAddress(`0x${randomBytes(20).toString('hex')}`) : GOOD_ADDRESS;
            const res = await fetch(`${victim!.url}/v1/withdrawal`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-api-key': key },
              body: JSON.stringify({ amount: '0.25', address, blockchainId: 'bsc', assetId: 'USDT' }),
            });
            assert.equal(res.status, 200);
            const id = ((await res.json()) as { id: string }).id;
            withdrawals.push({ id, address, amount: '0.25' });
            return id;
          }),
        );
        const states = async () =>
          (await db!.query<{ id: string; status: string }>('SELECT id, status FROM withdrawals WHERE id = ANY($1::uuid[])', [burst])).rows;
        await until(
          async () => {
            const rows = await states();
            return rows.every((row) => row.status !== 'pending') && rows.some((row) => row.status === 'processing');
          },
          'the victim claims the burst',
          20_000,
          { everyMs: 100, explain: async () => JSON.stringify(await states()) },
        );
        await victim!.stop('SIGKILL');
        const killedAt = Date.now();
        // Nothing else runs yet: what is processing now is what the victim held.
        const held = (await states()).filter((row) => row.status === 'processing').map((row) => row.id);
        for (const resume of resumes) resume();
        const finished = async () => (await states()).filter((row) => held.includes(row.id)).every((row) => row.status === 'success');
        await until(finished, 'another instance finishes the killed one’s payouts', TAKEOVER_MS, {
          everyMs: 100,
          explain: async () => JSON.stringify(await states()),
        });
        const tookMs = Date.now() - killedAt;
        t.diagnostic(`a killed instance held ${held.length} payouts; another finished them ${(tookMs / 1000).toFixed(1)} s after the kill`);
        assert.ok(held.length >= 1 && Date.now() - killedAt <= TAKEOVER_MS);
        if (!fixture) {
          const { rows: claims } = await db.query<{ attempts: number }>('SELECT attempts FROM withdrawals WHERE id = ANY($1::uuid[])', [held]);
          assert.ok(
            claims.every((row) => row.attempts >= 2),
            'each was claimed again once the victim’s claim ran out',
          );
        }
        await until(
          async () => (await prometheus.query(`min_over_time(up{job="paylink",instance="127.0.0.1:${victim!.port}"}[1m])`))[0]?.value[1] === '0',
          'Prometheus sees the killed instance down',
          15_000,
          { everyMs: 100 },
        );
      }

      // Every withdrawal paid once; every webhook event delivered (once, for those of the rolling restart).
      await until(
        async () =>
          (await db!.query<{ n: number }>("SELECT count(*)::int AS n FROM withdrawals WHERE integrator_id = $1 AND status <> 'success'", [integratorId]))
            .rows[0]!.n === 0,
        'every withdrawal paid out',
        60_000,
        {
          everyMs: 100,
          explain: async () =>
            JSON.stringify(
              (await db!.query('SELECT status, stalled_reason, count(*)::int FROM withdrawals WHERE integrator_id = $1 GROUP BY 1, 2', [integratorId])).rows,
            ),
        },
      );
      await until(async () => (await events()).every((event) => delivered().has(event.id)), 'every webhook event delivered', 60_000, { everyMs: 100 });
      const allEvents = await events();
      const counts = delivered();
      // A payment's block may become final during the run (on anvil, 64 blocks later): its session's
      // `checkout.session.finalized` comes on top, once at most.
      const finalized = allEvents.filter((event) => event.type === 'checkout.session.finalized');
      const finalizedSessions = new Set(
        finalized.map(
          (event) => ((typeof event.body === 'string' ? JSON.parse(event.body) : event.body) as { data: { object: { id: string } } }).data.object.id,
        ),
      );
      assert.equal(finalizedSessions.size, finalized.length, 'each session finalized once');
      assert.ok(finalized.length <= payments.length + 1, `${finalized.length} sessions finalized, of ${payments.length + 1} paid`);
      assert.equal(allEvents.length - finalized.length, payments.length + 1 + withdrawals.length, 'one event per payment, for the funding, and per withdrawal');
      for (const event of allEvents) if (event.created_at < beforeKill) assert.equal(counts.get(event.id), 1, `event ${event.id} delivered once`);
      assert.ok(
        [...counts.keys()].every((id) => allEvents.some((event) => event.id === id)),
        'nothing delivered that was not recorded',
      );

      // Sessions, payments and payouts: each once.
      const { rows: sessionRows } = await db.query<{ id: string; status: string; transfers: number }>(
        'SELECT s.id, s.status, (SELECT count(*)::int FROM chain_transfers t WHERE t.session_id = s.id) AS transfers FROM checkout_sessions s WHERE s.integrator_id = $1',
        [integratorId],
      );
      const byId = new Map(sessionRows.map((row) => [row.id, row]));
      assert.equal(sessionRows.length, sessions.length + 1 + watched.length, 'every session started is there, and no other');
      for (const id of sessions) assert.ok(byId.has(id), `session ${id}`);
      for (const id of payments) {
        assert.equal(byId.get(id)?.status, 'paid', `session ${id} paid`);
        assert.equal(byId.get(id)?.transfers, 1, `session ${id} credited once`);
      }
      const { rows: payouts } = await db.query<{ withdrawal_id: string; n: number }>(
        "SELECT withdrawal_id, count(*)::int AS n FROM ledger_entries WHERE integrator_id = $1 AND kind = 'withdrawal_payout' GROUP BY withdrawal_id",
        [integratorId],
      );
      assert.equal(payouts.length, withdrawals.length, 'every withdrawal paid out');
      assert.ok(
        payouts.every((row) => row.n === 1),
        'each once',
      );
      await assertLedgerMatches(db, integratorId);
      if (fixture) {
        for (const withdrawal of withdrawals) {
          const balance: bigint = await fixture.t.client.readContract({
            address: fixture.usdt,
            abi: TEST_TOKEN_ABI,
            functionName: 'balanceOf',
            args: [withdrawal.address as Address],
          });
          assert.equal(balance, fixture.units('USDT', withdrawal.amount), `${withdrawal.address} received its withdrawal once`);
        }
      }

      // Prometheus scraped every instance and evaluated every rule.
      const up = await prometheus.query('max_over_time(up{job="paylink"}[10m])');
      assert.deepEqual(up.map((sample) => sample.value[1]).sort(), ['1', '1', '1'], JSON.stringify(up));
      const scraped = await prometheus.query('count_over_time(paylink_build_info{job="paylink"}[10m])');
      assert.equal(scraped.length, 3, JSON.stringify(scraped));
      assert.ok(
        scraped.every((sample) => Number(sample.value[1]) >= 3),
        'samples of each instance',
      );
      const requests = await prometheus.query('sum(max_over_time(paylink_http_requests_total{job="paylink",route="/v1/checkout/:slug/sessions"}[10m]))');
      assert.ok(Number(requests[0]?.value[1]) > 0, 'request counts by route template');
      const rules = await prometheus.rules();
      assert.ok(rules.length >= 9 && rules.every((rule) => rule.health === 'ok'), JSON.stringify(rules.filter((rule) => rule.health !== 'ok')));

      // Every line of every instance is JSON (but the payouts' own few, which their code writes as text
      // until it moves to the logger); the way LISTEN goes is said at start.
      for (const instance of instances) {
        const lines = instance.lines.filter((line) => !/^\[paylink\] payouts\b/.test(line));
        for (const line of lines) {
          const parsed = JSON.parse(line) as { time?: string; level?: string; code?: string; message?: string };
          assert.ok(parsed.time && parsed.level && parsed.code && typeof parsed.message === 'string', line);
        }
        const codes = lines.map((line) => (JSON.parse(line) as { code: string }).code);
        assert.ok(codes.includes('service_draining') && codes.includes('service_stopped'), `instance ${instance.name} drained`);
        if (scenario.via === 'pgbouncer' && !scenario.listenUrl)
          assert.ok(codes.includes('database_listen_polling'), `instance ${instance.name} says it polls`);
        else {
          assert.ok(codes.includes('database_listen'), `instance ${instance.name} listens`);
          assert.ok(!codes.includes('database_listen_polling'));
        }
      }
      t.diagnostic(`${scenario.chain}, ${scenario.via}: ${((performance.now() - started) / 1000).toFixed(0)} s in all`);
    } finally {
      await db?.close();
      for (const cleanup of cleanups.reverse()) await cleanup();
      const drop = new pg.Client({ connectionString: cluster.url });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await drop.end();
    }
  }

  it('the sandbox behind PgBouncer, polling: a rolling restart fails nothing, a killed instance’s payouts are finished within 30 s', (t) =>
    run(t, { chain: 'sandbox', via: 'pgbouncer', listenUrl: false, kill: true }));

  it('the sandbox straight on PostgreSQL: a rolling restart fails nothing', (t) => run(t, { chain: 'sandbox', via: 'direct', listenUrl: false, kill: false }));

  it('a local EVM chain with payouts in flight, behind PgBouncer with LISTEN on a direct connection', (t) =>
    run(t, { chain: 'evm', via: 'pgbouncer', listenUrl: true, kill: true }));
});
