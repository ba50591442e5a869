// Stopping the processes the tests start, whatever happened: a process and everything under it
// (npm start's server runs detached, in a process group and session of its own, so a signal to
// the launcher's group does not reach it), and, should a test file end with any still running,
// those too when its worker ends (vitest stops a worker with SIGTERM).
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Processes started through {@link track} that have not exited yet. */
const live = new Set<ChildProcess>();

function killLive(): void {
  for (const child of live) killTree(child.pid);
  live.clear();
}
process.once('exit', killLive);
process.once('SIGTERM', () => {
  killLive();
  // The signal's own effect, now that this listener is gone: the process ends.
  process.kill(process.pid, 'SIGTERM');
});

/** Watches `child` until it exits: still running when this process exits, it is killed then. */
export function track<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
  return child;
}

/** The processes under `pid` (its children, theirs, …), from /proc; none where there is none. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  for (const entry of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, the last `)` ends it.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * SIGKILLs `pid`, every process under it and the process groups any of them lead. The processes
 * under it are found first: once their parent is gone they are no longer under it.
 */
export function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const each of [pid, ...descendants(pid)]) {
    for (const target of [-each, each]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // not a group leader, or gone already
      }
    }
  }
}

/** Resolves once `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Stops `child`: `signal` to it (or to its process group with `group`), then, if it has not
 * exited within `graceMs`, SIGKILL to it and everything under it. Resolves with its exit code
 * (null when it was killed).
 */
export async function stopProcess(
  child: ChildProcess,
  {
    signal = 'SIGTERM',
    group = false,
    graceMs = 20_000,
  }: { signal?: NodeJS.Signals; group?: boolean; graceMs?: number } = {},
): Promise<number | null> {
  const done = exited(child);
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    try {
      process.kill(group ? -child.pid : child.pid, signal);
    } catch {
      // gone already
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    if ((await Promise.race([done, late])) === 'late') killTree(child.pid);
    clearTimeout(timer);
  }
  await done;
  return child.exitCode;
}
