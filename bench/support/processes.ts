/**
 * Servers under benchmark run in their own processes so the load generator (this process) does not
 * share an event loop with them. Each waits for `/healthz` and is killed after.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/support/postgres.js';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'paylink.mjs');

export interface BenchProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become healthy`);
}

export async function startProcess(args: string[], env: Record<string, string> = {}, port?: number): Promise<BenchProcess> {
  const listenPort = port ?? (await freePort());
  const child = spawn(process.execPath, [...args, '--port', String(listenPort)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${listenPort}`;
  await waitForHealth(url, child);
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** A service on a fresh PGlite data dir (or `databaseUrl`), with one API key. */
export async function startBenchService(options: { databaseUrl?: string } = {}): Promise<BenchProcess & { key: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-bench-'));
  const storage = options.databaseUrl ? ['--database-url', options.databaseUrl] : ['--data-dir', dir];
  const created = spawnSync(process.execPath, [BIN, 'keys', 'create', ...storage], { cwd: ROOT, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(created.stderr);
  const key = created.stdout.trim().split('\n').at(-1)!;
  const proc = await startProcess([BIN, 'serve', ...storage]);
  return {
    ...proc,
    key,
    stop: async () => {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function binPath(): string {
  return BIN;
}
