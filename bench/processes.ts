// The servers a bench starts: each a Node process on core 0 (taskset, when the machine has one and
// more cores), its output to a log file, ready when its log shows its URL, and stopped (SIGTERM,
// then SIGKILL if it lingers) when the bench is done with it, fails, or is interrupted.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether servers are pinned to core 0 and the bench (the load generator) to core 1. */
export const pinned =
  availableParallelism() > 1 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/** Pins this process (the load generator) to core 1, away from the server under test. */
export function pinLoadGenerator(): void {
  if (pinned) spawnSync('taskset', ['-cp', '1', String(process.pid)]);
}

const running = new Set<ChildProcess>();

/**
 * The CPU time (user and system) a process has spent so far, in microseconds, from /proc (at the
 * kernel's clock tick, 10 ms). Time the machine's host steals from the VM is not in it, which
 * makes it steadier than a rate on a shared machine.
 */
export async function cpuMicroseconds(pid: number | undefined): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks / 100) * 1e6;
}

/** A started server. */
export interface Launched {
  /** Its base URL, as its log announced it. */
  readonly url: string;
  /** Where its stdout and stderr go. */
  readonly logFile: string;
  /** Its process id. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface LaunchOptions {
  /** The program: Node (this process's) by default; Bun's binary for the Bun rows. */
  readonly command?: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Where its stdout and stderr go. */
  readonly logFile: string;
  /** Its URL, once the log shows it. */
  readonly urlIn: (log: string) => string | undefined;
  /** How long the start may take. */
  readonly deadlineMs?: number;
}

const tail = (log: string) => log.split('\n').slice(-20).join('\n');

/** Starts `node <args>` (or `command`, on core 0) and resolves once its log names its URL. */
export async function launch(options: LaunchOptions): Promise<Launched> {
  const log = await open(options.logFile, 'w');
  const pin = pinned ? ['taskset', '-c', '0'] : [];
  const program = options.command ?? process.execPath;
  const [command = program, ...args] = [...pin, program, ...options.args];
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', log.fd, log.fd],
    });
  } finally {
    await log.close();
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
  const launched: Launched = {
    url: '',
    logFile: options.logFile,
    pid: child.pid,
    stop: () => stop(child),
  };
  const deadline = Date.now() + (options.deadlineMs ?? 120_000);
  for (;;) {
    const text = await readFile(options.logFile, 'utf8');
    const url = options.urlIn(text);
    if (url !== undefined) return { ...launched, url };
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}):\n${tail(text)}`);
    }
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`the server did not start in time:\n${tail(text)}`);
    }
    await sleep(20);
  }
}

/** Stops a server: SIGTERM, and SIGKILL if it has not exited 30 s later. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Stops every server still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map(stop));
}
