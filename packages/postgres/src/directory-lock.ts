import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/** The name of the lock file {@link lockDirectory} keeps in the directory it locks. */
export const LOCK_FILE_NAME = 'workforce-kit.lock';

/** What a lock file holds: who holds the directory, and how to tell whether it still runs. */
export interface LockHolder {
  /** Unique to this acquisition: a takeover removes the stale lock it judged, never a newer one. */
  readonly id: string;
  readonly pid: number;
  readonly hostname: string;
  /** Linux: `/proc/sys/kernel/random/boot_id`; another value means the machine restarted since. */
  readonly bootId?: string;
  /** Linux: the process's start time (clock ticks since boot), which a reused pid does not share. */
  readonly processStart?: string;
  /** When the lock was taken (ISO 8601). */
  readonly since: string;
  /** The command line of the holder, for the message that names it. */
  readonly command: string;
}

/**
 * The directory is locked by a process that is running (or that this machine cannot check). The
 * message names the directory, the holder, and what to do.
 */
export class DirectoryLockedError extends Error {
  override readonly name = 'DirectoryLockedError';
  constructor(
    message: string,
    /** The lock file. */
    readonly lockFile: string,
    /** Who holds it, when the lock file could be read. */
    readonly holder: LockHolder | undefined,
  ) {
    super(message);
  }
}

/** A held lock on a directory; see {@link lockDirectory}. */
export interface DirectoryLock {
  readonly directory: string;
  readonly lockFile: string;
  /** Removes the lock file (if it is still this lock's). Idempotent; also runs at process exit. */
  release(): void;
}

/** Locks held by this process, by lock file: a second lock of one directory in-process is refused too. */
const held = new Map<string, DirectoryLock>();
let exitHookInstalled = false;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), and its state. */
function procStat(pid: number): { state: string; start: string } | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [state, start] = [fields[0], fields[19]];
  return state === undefined || start === undefined ? undefined : { state, start };
}

const bootId = readText('/proc/sys/kernel/random/boot_id')?.trim();

function me(): LockHolder {
  const start = procStat(process.pid)?.start;
  return {
    id: randomUUID(),
    pid: process.pid,
    hostname: hostname(),
    ...(bootId === undefined ? {} : { bootId }),
    ...(start === undefined ? {} : { processStart: start }),
    since: new Date().toISOString(),
    command: process.argv.join(' ').slice(0, 500),
  };
}

/**
 * Whether the holder of a lock runs. Decided by the kernel's process table only, never by the age
 * of the file: a holder that is busy (PGlite runs its engine synchronously on the main thread, for
 * seconds at times) is never judged gone, and a holder that is gone (`kill -9`) is judged gone at
 * once.
 */
function holderState(holder: LockHolder): 'running' | 'gone' | 'unknown' {
  if (holder.hostname !== hostname()) return 'unknown';
  if (holder.bootId !== undefined && bootId !== undefined && holder.bootId !== bootId)
    return 'gone';
  const stat = procStat(holder.pid);
  if (holder.pid === process.pid) {
    // This pid is ours: the lock is this process's (if it started when this process did) or a
    // former process's that had the same pid (a container's pid 1 after a restart).
    return holder.processStart === undefined || holder.processStart === stat?.start
      ? 'running'
      : 'gone';
  }
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'gone';
    // EPERM: a process of another user has that pid; go on to tell whether it is the holder.
  }
  if (stat === undefined) return 'running';
  // A zombie (killed, not yet reaped by its parent) holds nothing any more.
  if (stat.state === 'Z' || stat.state === 'X') return 'gone';
  // The pid was reused by a process that started later.
  if (holder.processStart !== undefined && holder.processStart !== stat.start) return 'gone';
  return 'running';
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    return typeof value.id === 'string' &&
      typeof value.pid === 'number' &&
      typeof value.hostname === 'string'
      ? (value as LockHolder)
      : undefined;
  } catch {
    return undefined;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** Waits synchronously: the lock is taken in one synchronous sequence, with no timer involved. */
function sleep(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function describeHolder(holder: LockHolder): string {
  return `process ${holder.pid} on ${holder.hostname} since ${holder.since} (${holder.command})`;
}

/** Attempts before giving up on a lock file that stays unreadable or a takeover that stays claimed. */
const ATTEMPTS = 50;
const ATTEMPT_PAUSE_MS = 20;

/**
 * Locks a directory for the life of this process, or until `release()`: a lock file
 * ({@link LOCK_FILE_NAME}) created with `O_CREAT | O_EXCL` in the directory, holding this
 * process's pid, host, boot id and start time. Made for a PGlite data directory, which one process
 * at a time may open: two PostgreSQL engines on one directory each recover, checkpoint and write
 * it as if alone, and the directory loses changes or no longer opens. {@link openPGlite} opens a
 * PGlite directory under this lock.
 *
 * A lock whose holder no longer runs is stale and taken over at once: the pid is not running (or
 * is a zombie), the machine restarted since (another boot id), or the pid now belongs to a
 * process that started later (another start time, read from `/proc` on Linux). Liveness comes
 * from the process table only, not from a timestamp the holder keeps fresh: PGlite blocks the
 * main thread while its engine works, and a timer-refreshed lock would be judged stale while its
 * holder is merely busy; and after a `kill -9`, the next start takes over without waiting for a
 * timeout. Two processes taking over one stale lock at once cannot both win: the takeover is
 * claimed with a directory named after that lock's unique id (an atomic `mkdir`), and only the
 * claimant removes the stale file, after reading it again.
 *
 * A lock held by a process on another host (the same directory over a network file system, or
 * from another container, whose pids this process cannot see) is never taken over: its message
 * says to remove the lock file once that process is known to be gone.
 *
 * @param directory - the directory to lock; it must exist
 * @returns the held lock
 * @throws DirectoryLockedError when another running process (or one this machine cannot check)
 *   holds the directory, or the directory is already locked in this process
 * @example
 * ```ts
 * const lock = lockDirectory('.data/pglite');
 * try {
 *   // open the database in it
 * } finally {
 *   lock.release();
 * }
 * ```
 */
export function lockDirectory(directory: string): DirectoryLock {
  const dir = resolve(directory);
  const lockFile = join(dir, LOCK_FILE_NAME);
  if (held.has(lockFile)) {
    throw new DirectoryLockedError(
      `${dir} is already open in this process (pid ${process.pid}): open it once and share it`,
      lockFile,
      undefined,
    );
  }
  const holder = me();
  acquire(dir, lockFile, holder);
  return holdUntilExit(dir, lockFile, holder);
}

/** Creates the lock file as `holder`'s, taking a stale one over; throws while another holds it. */
function acquire(dir: string, lockFile: string, holder: LockHolder): void {
  for (let attempt = 1; ; attempt++) {
    if (created(lockFile, holder)) return;
    const text = readText(lockFile);
    if (text === undefined) continue; // released in the meantime: try again
    const other = parseHolder(text);
    if (other === undefined) {
      // Being written this very moment (created, not yet written), or not a lock of ours.
      if (attempt < ATTEMPTS) {
        sleep(ATTEMPT_PAUSE_MS);
        continue;
      }
      throw new DirectoryLockedError(
        `${dir} is locked by ${lockFile}, which cannot be read as a lock: if no process uses the directory, delete that file`,
        lockFile,
        undefined,
      );
    }
    refuseUnlessGone(dir, lockFile, other);
    if (takeOver(lockFile, other)) continue;
    if (attempt < ATTEMPTS) {
      sleep(ATTEMPT_PAUSE_MS);
      continue;
    }
    throw new DirectoryLockedError(
      `${dir} has a stale lock (${describeHolder(other)}) whose takeover did not finish: if no process uses the directory, delete ${lockFile} and ${takeoverClaim(lockFile, other)}`,
      lockFile,
      other,
    );
  }
}

/** Creates the lock file with `O_CREAT | O_EXCL`; false when it exists. */
function created(lockFile: string, holder: LockHolder): boolean {
  try {
    writeFileSync(lockFile, `${JSON.stringify(holder, null, 2)}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    return false;
  }
}

/** Throws unless the holder of the lock is known to be gone. */
function refuseUnlessGone(dir: string, lockFile: string, other: LockHolder): void {
  const state = holderState(other);
  if (state === 'running') {
    throw new DirectoryLockedError(
      `${dir} is in use by ${describeHolder(other)}: only one process may open it. Stop that process first, or use another directory`,
      lockFile,
      other,
    );
  }
  if (state === 'unknown') {
    throw new DirectoryLockedError(
      `${dir} is locked by ${describeHolder(other)}, another host whose processes this one cannot check: if that process is gone, delete ${lockFile}`,
      lockFile,
      other,
    );
  }
}

/** The directory that claims the takeover of a stale lock: its `mkdir` is atomic. */
function takeoverClaim(lockFile: string, stale: LockHolder): string {
  return `${lockFile}.takeover-${stale.id}`;
}

/**
 * Removes a stale lock file, if it is still the one judged stale; false when another process is
 * taking it over right now.
 */
function takeOver(lockFile: string, stale: LockHolder): boolean {
  const claim = takeoverClaim(lockFile, stale);
  try {
    mkdirSync(claim);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    return false;
  }
  try {
    if (parseHolder(readText(lockFile) ?? '')?.id === stale.id) unlinkSync(lockFile);
  } finally {
    rmdirSync(claim);
  }
  return true;
}

/** The held lock: released by `release()`, or when the process exits. */
function holdUntilExit(dir: string, lockFile: string, holder: LockHolder): DirectoryLock {
  const lock: DirectoryLock = {
    directory: dir,
    lockFile,
    release() {
      if (held.get(lockFile) !== lock) return;
      held.delete(lockFile);
      if (parseHolder(readText(lockFile) ?? '')?.id !== holder.id) return;
      try {
        unlinkSync(lockFile);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
      }
    },
  };
  held.set(lockFile, lock);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A process that ends without releasing leaves a stale lock, which the next start takes over
    // at once anyway; releasing at exit keeps the directory tidy.
    process.on('exit', () => {
      for (const each of [...held.values()]) {
        try {
          each.release();
        } catch {
          // exiting: nothing more to do
        }
      }
    });
  }
  return lock;
}
