/**
 * Starting and stopping `paylink` processes for tests and benchmarks: spawn on a free loopback port,
 * wait for `GET /healthz`, wait for the exit.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import path from 'node:path';
import { freePort } from './postgres.js';
import { until } from './wait.js';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const BIN = path.join(ROOT, 'bin', 'paylink.mjs');

/**
 * What a person would read of a process's output: each JSON log line's `message` (and `detail`, where a
 * line has one), other lines as they are. Off a terminal every line is JSON, with its quotes escaped.
 */
export function readable(output: string): string {
  return output
    .split('\n')
    .map((line) => {
      if (!line.startsWith('{')) return line;
      try {
        const parsed = JSON.parse(line) as { message?: unknown; detail?: unknown };
        return [parsed.message, parsed.detail].filter((part) => typeof part === 'string').join('\n');
      } catch {
        return line;
      }
    })
    .join('\n');
}

/** Resolves once `url/healthz` answers 200; rejects if `child` exits first or `timeoutMs` passes. */
export async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
      return fetch(`${url}/healthz`).then(
        (response) => response.ok,
        () => false, // not listening yet
      );
    },
    `${url} to become healthy`,
    timeoutMs,
    { everyMs: 100 },
  );
}

/** True while process `pid` runs (on this host). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The exit code of `child` (null when a signal ended it), at once if it has already exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Runs `node <args> --port <free port>` and resolves once it is healthy. */
export async function startHealthyProcess(
  args: string[],
  options: { env?: Record<string, string>; port?: number; stdio?: StdioOptions } = {},
): Promise<{ url: string; child: ChildProcess }> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [...args, '--port', String(port)], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: options.stdio ?? ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { url, child };
}
