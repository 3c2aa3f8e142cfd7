/**
 * The lock of a PGlite data directory. PGlite allows one process per directory: a second one would
 * write where the first never reads (a key created while `serve` runs, never seen by it). The lock
 * file names its holder, so the refusal can say who holds it, and a holder that died is taken over.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, realpathSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

/** Thrown when a PGlite data directory is open in another process (PGlite is single-process). */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly holder: { pid: number; host: string; since: string },
    readonly lockFile: string,
  ) {
    const where =
      holder.host !== hostname() ? `process ${holder.pid} on ${holder.host}` : holder.pid === process.pid ? 'this process' : `process ${holder.pid}`;
    super(
      `The PGlite data directory ${dataDir} is in use by ${where} (since ${holder.since}). ` +
        'PGlite allows one process at a time, so this one would write where that one never reads: stop that process ' +
        '(e.g. stop "paylink serve", run "paylink keys create", start it again), or share one PostgreSQL database ' +
        `between processes (--database-url). If that process is gone, delete ${lockFile}.`,
    );
  }
}

/** The lock file of a PGlite data directory: `{pid, host, since, token}` of the process holding it. */
const LOCK_FILE = 'paylink.lock';
/** Data directories this process holds (real paths): a second open in the same process is refused too. */
const heldHere = new Set<string>();

interface LockHolder {
  pid: number;
  host: string;
  since: string;
  token: string;
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) && typeof holder.host === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** True unless the holder is certainly gone: a dead pid on this host (or this pid, from an earlier process). */
function holderAlive(holder: LockHolder, directory: string): boolean {
  if (holder.host !== hostname()) return true; // another machine or container: its pids are not ours to check
  if (holder.pid === process.pid) return heldHere.has(directory);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/**
 * Takes the data directory's lock file, or throws {@link DataDirInUseError}. The lock is created
 * whole and at once (a hard link to a complete file), so a reader never sees half of one; a lock
 * whose process is dead is taken over. Returns the release, which also runs if the process exits
 * without closing the database (a crash or kill -9 leaves a lock that the next open takes over).
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const directory = realpathSync(dataDir);
  const lockFile = path.join(directory, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: randomBytes(12).toString('hex') };
  if (heldHere.has(directory)) throw new DataDirInUseError(directory, mine, lockFile);

  const draft = `${lockFile}.${mine.token}`;
  writeFileSync(draft, `${JSON.stringify(mine)}\n`, { mode: 0o644 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, lockFile);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
      }
      const holder = readHolder(lockFile);
      if (holder && holderAlive(holder, directory)) throw new DataDirInUseError(directory, holder, lockFile);
      // Stale (or unreadable): move it aside, and make sure what moved is what was judged stale; another
      // process may have taken it over in between, and then its lock goes back.
      const aside = `${lockFile}.stale-${mine.token}`;
      try {
        renameSync(lockFile, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = readHolder(aside);
      if (holder && moved && moved.token !== holder.token) {
        try {
          linkSync(aside, lockFile);
        } catch {
          // Someone holds it again: the next attempt reads who.
        }
      }
      unlinkSync(aside);
    }
  } finally {
    unlinkSync(draft);
  }
  heldHere.add(directory);

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldHere.delete(directory);
    process.off('exit', release);
    // Only our own lock: never one that another process took over after declaring ours stale.
    if (readHolder(lockFile)?.token === mine.token) {
      try {
        unlinkSync(lockFile);
      } catch {
        // Already gone.
      }
    }
  };
  process.on('exit', release);
  return release;
}
