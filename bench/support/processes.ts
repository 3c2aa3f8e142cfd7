/**
 * Servers under benchmark run in their own processes so the load generator (this process) does not
 * share an event loop with them. Each waits for `/healthz` and is killed after.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { BIN, ROOT, exited, startHealthyProcess } from '../../test/support/processes.js';

export { ROOT, waitForHealth } from '../../test/support/processes.js';

export interface BenchProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startProcess(args: string[], env: Record<string, string> = {}, port?: number): Promise<BenchProcess> {
  const { url, child } = await startHealthyProcess(args, { env, ...(port === undefined ? {} : { port }) });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      child.kill('SIGTERM');
      await exited(child);
      clearTimeout(timer);
    },
  };
}

/** A service on a fresh PGlite data dir (or `databaseUrl`), with one API key. */
export async function startBenchService(options: { databaseUrl?: string } = {}): Promise<BenchProcess & { key: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-bench-'));
  const storage = options.databaseUrl ? ['--database-url', options.databaseUrl] : ['--data-dir', dir];
  const created = spawnSync(process.execPath, [BIN, 'keys', 'create', ...storage], { cwd: ROOT, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(created.stderr);
  const key = created.stdout.trim().split('\n').at(-1)!;
  const proc = await startProcess([BIN, 'serve', '--chain', 'sandbox', ...storage]);
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
