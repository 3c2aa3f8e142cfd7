/**
 * What an operator runs around Paylink, from Debian's packages, for the tests of several instances:
 * PgBouncer in transaction mode in front of the test's PostgreSQL, HAProxy balancing over the instances
 * with `/readyz` checks, and a Prometheus server scraping them with the alerting rules loaded. Each on
 * a free loopback port, in a temporary directory, stopped by the process id it was started with.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './postgres.js';
import { until } from './wait.js';

export const PGBOUNCER = process.env.PGBOUNCER ?? '/usr/sbin/pgbouncer';
export const HAPROXY = process.env.HAPROXY ?? '/usr/sbin/haproxy';
export const PROMETHEUS = process.env.PROMETHEUS ?? '/usr/bin/prometheus';

/** The Debian packages of the tools that are not installed (`apt-get install` them). */
export function missingOpsTools(): string[] {
  return [
    [PGBOUNCER, 'pgbouncer'],
    [HAPROXY, 'haproxy'],
    [PROMETHEUS, 'prometheus'],
  ].flatMap(([binary, pkg]) => (existsSync(binary!) ? [] : [pkg!]));
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Resolves once `check` does (looking every 50 ms), or rejects with `what` after `timeoutMs` (or when `child` exits). */
function upWithin(what: string, check: () => Promise<boolean>, child: ChildProcess | undefined, log: () => string, timeoutMs = 30_000): Promise<void> {
  const exited = () => {
    if (child && child.exitCode !== null) throw new Error(`${what}: the process exited with ${child.exitCode}\n${log()}`);
  };
  return until(async () => (exited(), check().catch(() => false)), what, timeoutMs, { everyMs: 50, explain: log });
}

/** Kills `pid` with `signal` if it still runs. */
function signal(pid: number | undefined, name: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

/** Resolves once `child` has exited (at once when it has). */
function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface PgBouncer {
  port: number;
  /** `DATABASE_URL` for `database` through the pooler. */
  url(database: string): string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of PostgreSQL on `postgresPort` (every database, user
 * `postgres`, trust auth). It refuses to run as root, so as root it runs as `postgres`, like the
 * test cluster.
 */
export async function startPgBouncer(postgresPort: number): Promise<PgBouncer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${postgresPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 60',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  for (const file of ['userlist.txt', 'pgbouncer.ini']) chmodSync(path.join(dir, file), 0o644);
  const child = isRoot ? spawn('runuser', ['-u', 'postgres', '--', PGBOUNCER, ini], { stdio: 'ignore' }) : spawn(PGBOUNCER, [ini], { stdio: 'ignore' });
  const log = () => (existsSync(path.join(dir, 'pgbouncer.log')) ? readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8').slice(-2000) : '');
  const { default: pg } = await import('pg');
  await upWithin(
    'PgBouncer answering',
    async () => {
      const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } finally {
        await client.end().catch(() => {});
      }
    },
    child,
    log,
  );
  const pidFile = path.join(dir, 'pgbouncer.pid');
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : child.pid;
      signal(pid, 'SIGINT');
      await Promise.race([exitOf(child), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      signal(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Haproxy {
  /** The balancer's frontend. */
  url: string;
  /** HAProxy's log lines (one per request, with its status and termination state), the last 2,000. */
  log(): string[];
  /** Each server's state as HAProxy sees it (`UP`, `DOWN`, `MAINT`, …), by name. */
  states(): Promise<Record<string, string>>;
  /** Resolves once `name` is `state` in HAProxy's eyes. */
  waitFor(name: string, state: 'UP' | 'DOWN', timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * HAProxy over `servers`: `/readyz` checked every 250 ms (2 failures take a server out, 1 success puts it
 * back), a connection that fails tried again on another server; nothing retried once sent.
 */
export async function startHaproxy(servers: ReadonlyArray<{ name: string; port: number }>): Promise<Haproxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-haproxy-'));
  const [port, statsPort] = [await freePort(), await freePort()];
  const cfg = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4000',
      '  log stdout format raw local0',
      'defaults',
      '  mode http',
      '  log global',
      '  option httplog',
      '  log-format "%ci:%cp %r %ST %tsc %Tq/%Tw/%Tc/%Tr/%Ta %b/%s rc=%rc"',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout http-keep-alive 10s',
      // A check slower than its interval is not a failure: on a busy machine /readyz can take more than 250 ms.
      '  timeout check 2s',
      '  retries 3',
      '  option redispatch',
      'frontend paylink',
      `  bind 127.0.0.1:${port}`,
      '  default_backend instances',
      'backend instances',
      '  option httpchk',
      '  http-check send meth GET uri /readyz',
      '  http-check expect status 200',
      '  default-server inter 250ms fastinter 250ms downinter 250ms fall 2 rise 1',
      ...servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} check`),
      'listen stats',
      `  bind 127.0.0.1:${statsPort}`,
      '  stats enable',
      '  stats uri /stats',
      '',
    ].join('\n'),
  );
  const check = spawnSync(HAPROXY, ['-c', '-f', cfg], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c: ${check.stdout}${check.stderr}`);
  let output = '';
  const lines: string[] = [];
  const child = spawn(HAPROXY, ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let rest = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
    if (lines.length > 4000) lines.splice(0, lines.length - 2000);
  });
  child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const states = async () => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    const [header, ...rows] = csv.trim().split('\n');
    const columns = header!.replace(/^# /, '').split(',');
    const [pxname, svname, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
    const result: Record<string, string> = {};
    for (const row of rows) {
      const cells = row.split(',');
      if (cells[pxname!] === 'instances' && cells[svname!] !== 'BACKEND') result[cells[svname!]!] = cells[status!]!;
    }
    return result;
  };
  await upWithin(
    'HAProxy answering',
    async () => Object.keys(await states()).length === servers.length,
    child,
    () => output,
  );
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => lines.slice(-2000),
    states,
    waitFor: (name, state, timeoutMs = 30_000) =>
      upWithin(
        `HAProxy seeing ${name} ${state}`,
        async () => (await states())[name]?.startsWith(state) ?? false,
        child,
        () => output,
        timeoutMs,
      ),
    async stop() {
      child.kill('SIGTERM');
      await exitOf(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Prometheus {
  url: string;
  /** An instant query's result vector. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /** The alerting rules as the server evaluates them. */
  rules(): Promise<Array<{ name: string; health: string; lastError?: string; state: string }>>;
  stop(): Promise<void>;
}

/**
 * Prometheus scraping `targets` (`host:port`) every second with a bearer `token`, evaluating
 * `ruleFiles` every second.
 */
export async function startPrometheus(targets: readonly string[], token: string, ruleFiles: readonly string[]): Promise<Prometheus> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-prometheus-'));
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      `rule_files: [${ruleFiles.map((file) => JSON.stringify(file)).join(', ')}]`,
      'scrape_configs:',
      '  - job_name: paylink',
      `    authorization: { type: Bearer, credentials: ${JSON.stringify(token)} }`,
      '    static_configs:',
      `      - targets: [${targets.map((target) => JSON.stringify(target)).join(', ')}]`,
      '',
    ].join('\n'),
  );
  let output = '';
  const child = spawn(
    PROMETHEUS,
    [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  await upWithin(
    'Prometheus ready',
    async () => (await fetch(`${url}/-/ready`)).ok,
    child,
    () => output,
    60_000,
  );
  return {
    url,
    async query(promql) {
      const body = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as {
        status: string;
        error?: string;
        data: { result: never };
      };
      if (body.status !== 'success') throw new Error(`${promql}: ${body.error}`);
      return body.data.result;
    },
    async rules() {
      const body = (await (await fetch(`${url}/api/v1/rules`)).json()) as { data: { groups: Array<{ rules: never[] }> } };
      return body.data.groups.flatMap((group) => group.rules);
    },
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exitOf(child), new Promise((resolve) => setTimeout(resolve, 10_000))]);
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
