// lockDirectory, with real processes and real signals: the lock that keeps a second process off a
// PGlite directory. A holder that runs (even one whose thread is blocked, as PGlite's engine
// blocks it) is never judged gone; one that is gone (SIGKILL, a reused pid, a restarted machine)
// is taken over at once; several processes taking over one stale lock at once: exactly one wins.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DirectoryLockedError,
  LOCK_FILE_NAME,
  type LockHolder,
  lockDirectory,
} from '@workforce-kit/postgres';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exited, track } from '../support/processes.js';

const holdLock = fileURLToPath(new URL('../support/hold-lock.ts', import.meta.url));
/** What the test running now started and made: killed and removed when it ends. */
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    await exited(child);
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = join(tmpdir(), `workforce-kit-lock-${randomUUID()}`);
  mkdirSync(dir);
  dirs.push(dir);
  return dir;
}

interface Holder {
  readonly child: ChildProcess;
  /** Its `ready` line (racers only): started, waiting for the moment to try at. */
  readonly ready: Promise<void>;
  /** Its JSON line: whether it holds the lock. */
  readonly answer: Promise<{ held: boolean; pid?: number; error?: string }>;
  readonly exited: Promise<void>;
}

function holder(dir: string, ...args: string[]): Holder {
  const child = track(
    spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@workforce-kit/source', holdLock, dir, ...args],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  children.push(child);
  type Answer = { held: boolean; pid?: number; error?: string };
  let markReady = () => {};
  let give = (_answer: Answer) => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready`)));
  });
  ready.catch(() => {});
  const answer = new Promise<Answer>((resolve, reject) => {
    give = resolve;
    child.once('exit', (code) => reject(new Error(`exited with ${code} before answering`)));
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const lines = out.split('\n').slice(0, -1);
    if (lines.includes('ready')) markReady();
    const line = lines.find((each) => each.startsWith('{'));
    if (line !== undefined) give(JSON.parse(line));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, ready, answer, exited };
}

const lockFileOf = (dir: string) => join(dir, LOCK_FILE_NAME);
const readHolder = (dir: string) => JSON.parse(readFileSync(lockFileOf(dir), 'utf8')) as LockHolder;

function lockError(dir: string): DirectoryLockedError {
  try {
    lockDirectory(dir).release();
  } catch (error) {
    if (error instanceof DirectoryLockedError) return error;
    throw error;
  }
  throw new Error(`${dir} was not locked`);
}

describe('lockDirectory', () => {
  it('refuses a second process, naming the holder, and lets the next one in once it released', async () => {
    const dir = freshDir();
    const first = holder(dir);
    expect(await first.answer).toMatchObject({ held: true });
    const pid = first.child.pid as number;

    const second = holder(dir);
    const refused = await second.answer;
    expect(refused.held).toBe(false);
    expect(refused.error).toContain(`${dir} is in use by process ${pid} on `);
    expect(refused.error).toContain('only one process may open it');
    expect(lockError(dir).holder?.pid).toBe(pid);

    first.child.kill('SIGTERM');
    await first.exited;
    expect(existsSync(lockFileOf(dir))).toBe(false);
    const lock = lockDirectory(dir);
    expect(readHolder(dir).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lockFileOf(dir))).toBe(false);
  }, 30_000);

  it('takes over the lock of a process killed with SIGKILL at once, with no timeout', async () => {
    const dir = freshDir();
    const killed = holder(dir);
    expect(await killed.answer).toMatchObject({ held: true });
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(readHolder(dir).pid).toBe(killed.child.pid);

    // At once: the lock written moments ago is judged by the process table alone, with no
    // staleness timeout and no pause (the lock's only way to wait is Atomics.wait, for a lock file
    // caught while being written), however slow the machine.
    const waits = vi.spyOn(Atomics, 'wait');
    try {
      const lock = lockDirectory(dir);
      expect(waits).not.toHaveBeenCalled();
      expect(readHolder(dir).pid).toBe(process.pid);
      lock.release();
    } finally {
      waits.mockRestore();
    }
  }, 30_000);

  it('never judges a holder gone while its thread is blocked (as PGlite blocks it)', async () => {
    const dir = freshDir();
    // Blocked until this file exists: for all of the 3 s of checks, however long they take.
    const unblock = join(dir, 'unblock');
    const busy = holder(dir, 'busy', unblock);
    expect(await busy.answer).toMatchObject({ held: true });
    for (let check = 0; check < 12; check++) {
      expect(lockError(dir).holder?.pid).toBe(busy.child.pid);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    writeFileSync(unblock, '');
  }, 30_000);

  it('takes over a lock whose pid now belongs to a later process, or that is from before a restart', async () => {
    const runningDir = freshDir();
    const running = holder(runningDir);
    expect(await running.answer).toMatchObject({ held: true });
    const current = readHolder(runningDir);
    for (const stale of [
      { ...current, id: randomUUID(), processStart: '1' },
      { ...current, id: randomUUID(), bootId: randomUUID() },
    ]) {
      const dir = freshDir();
      writeFileSync(lockFileOf(dir), JSON.stringify(stale));
      const lock = lockDirectory(dir);
      expect(readHolder(dir).pid).toBe(process.pid);
      lock.release();
    }
  }, 30_000);

  it('never takes over the lock of a process on another host, and says what to do', () => {
    const dir = freshDir();
    const remote: LockHolder = {
      id: randomUUID(),
      pid: 1,
      hostname: `elsewhere-${randomUUID()}`,
      since: new Date().toISOString(),
      command: 'workforce-kit',
    };
    writeFileSync(lockFileOf(dir), JSON.stringify(remote));
    const error = lockError(dir);
    expect(error.message).toContain(`another host whose processes this one cannot check`);
    expect(error.message).toContain(`delete ${lockFileOf(dir)}`);
    expect(readHolder(dir).id).toBe(remote.id);
  });

  it('refuses a second lock of one directory in this process', () => {
    const dir = freshDir();
    const lock = lockDirectory(dir);
    expect(lockError(dir).message).toContain('already open in this process');
    lock.release();
    lockDirectory(dir).release();
  });

  it('lets exactly one of several processes take over one stale lock at once', async () => {
    const dir = freshDir();
    const killed = holder(dir);
    expect(await killed.answer).toMatchObject({ held: true });
    killed.child.kill('SIGKILL');
    await killed.exited;

    // All started, then all told the same moment, a little ahead, to try at.
    const racers = Array.from({ length: 5 }, () => holder(dir, 'race'));
    await Promise.all(racers.map((racer) => racer.ready));
    const at = Date.now() + 500;
    for (const racer of racers) racer.child.stdin?.write(`${at}\n`);
    const answers = await Promise.all(racers.map((racer) => racer.answer));
    expect(answers.filter((answer) => answer.held)).toHaveLength(1);
    const winner = answers.find((answer) => answer.held)?.pid;
    expect(readHolder(dir).pid).toBe(winner);
    for (const answer of answers.filter((each) => !each.held)) {
      expect(answer.error).toContain(`in use by process ${winner}`);
    }
  }, 30_000);
});
