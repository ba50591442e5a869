// The reference server's log destination, in a real process writing to a real pipe (its stdout,
// read by this test): lines whole, in order and valid UTF-8 when the reader is slower than the
// writer (partial writes, EAGAIN), every buffered line written when the process exits (exit,
// uncaught exception, SIGTERM handled by exiting, nothing left to do), and the lines beyond the
// backlog's cap dropped and counted.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const writer = fileURLToPath(new URL('./support/log-writer.ts', import.meta.url));

interface Writer {
  readonly child: ChildProcess;
  /** Resolves once the writer has said `word` on stderr. */
  said(word: string): Promise<void>;
  /** Bytes read from its stdout so far. */
  readonly received: Buffer[];
  /** Starts reading its stdout: as fast as it comes, or slowly (a chunk, then 20 ms). */
  read(pace: 'fast' | 'slow'): void;
  /** Resolves with its exit code once it has exited and its stdout has ended. */
  readonly done: Promise<number | null>;
  stderr(): string;
}

/** Starts log-writer.ts with `args`; its stdout is not read until `read` is called. */
function startWriter(args: readonly (string | number)[]): Writer {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@workforce-kit/source', writer, ...args.map(String)],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const stdout = child.stdout as NonNullable<ChildProcess['stdout']>;
  // Paused before the listener is attached, so that attaching it does not start the flow. (Node
  // resumes a child's paused stdout when it exits: read by this listener, nothing is lost.)
  stdout.pause();
  const received: Buffer[] = [];
  let slow = false;
  stdout.on('data', (chunk: Buffer) => {
    received.push(chunk);
    if (!slow) return;
    stdout.pause();
    setTimeout(() => stdout.resume(), 20);
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const ended = new Promise<void>((resolve) => stdout.once('end', resolve));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    received,
    read(pace) {
      slow = pace === 'slow';
      stdout.resume();
    },
    said: (word) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (stderr.split('\n').includes(word)) resolve();
        };
        child.stderr?.on('data', check);
        child.once('exit', () => reject(new Error(`exited before saying ${word}:\n${stderr}`)));
        check();
      }),
    done: Promise.all([exited, ended]).then(([code]) => code),
    stderr: () => stderr,
  };
}

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly n?: number;
  readonly pad?: string;
  readonly text?: string;
  readonly droppedLines?: number;
}

/** The lines received, decoded as strict UTF-8 (a character cut in two throws) and parsed. */
function linesOf(writer: Writer): LogLine[] {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(writer.received));
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as LogLine);
}

/** Expects `lines` to be the writer's lines 0 to count - 1, whole and in order. */
function expectNumbered(lines: readonly LogLine[], count: number): void {
  expect(lines.map((line) => line.n)).toEqual(Array.from({ length: count }, (_, n) => n));
  for (const line of lines) {
    expect(line).toMatchObject({ msg: 'line', pad: 'x'.repeat(150), text: 'café 🌍 ünïcödé' });
  }
}

describe('LogDestination', () => {
  it('writes every line, whole and in order, to a pipe read more slowly than it is written, then exits 0 on flush', async () => {
    // 8,000 lines (~1.8 MB) in one loop: the pipe fills at once (EAGAIN), the rest waits in
    // memory and goes out, 10 ms apart, as the reader takes it, in pieces cut anywhere.
    const writer = startWriter([8_000, 'flush']);
    await writer.said('logged');
    writer.read('slow');
    expect(await writer.done).toBe(0);
    expectNumbered(linesOf(writer), 8_000);
  });

  it('writes what waits for a slow reader when the process exits, in order after what went before', async () => {
    const writer = startWriter([8_000, 'exit']);
    await writer.said('logged');
    writer.read('slow');
    expect(await writer.done).toBe(3);
    expectNumbered(linesOf(writer), 8_000);
  });

  it.each([
    ['process.exit', 'exit', 3],
    ['an uncaught exception', 'throw', 1],
    ['nothing left to do', 'idle', 0],
  ] as const)(
    'writes the buffered lines out when the process ends by %s',
    async (_how, then, code) => {
      // Buffered until exit: nothing is due before (1 MiB, one hour).
      const writer = startWriter([200, then, 1024 * 1024, 3_600_000]);
      writer.read('fast');
      expect(await writer.done).toBe(code);
      expectNumbered(linesOf(writer), 200);
      if (then === 'throw') expect(writer.stderr()).toContain('thrown after logging');
    },
  );

  it('writes the buffered lines out on SIGTERM, when its handler exits (as the server does)', async () => {
    const writer = startWriter([200, 'sigterm', 1024 * 1024, 3_600_000]);
    writer.read('fast');
    await writer.said('ready');
    // Nothing was written before the signal: the lines that follow are the exit's.
    expect(Buffer.concat(writer.received).length).toBe(0);
    writer.child.kill('SIGTERM');
    expect(await writer.done).toBe(0);
    expectNumbered(linesOf(writer), 200);
  });

  it('drops the lines beyond its backlog cap while the reader is behind, and says how many once it catches up', async () => {
    // 20,000 lines (~4.6 MB, beyond any socket or pipe buffer's usual size) against a pipe not
    // read meanwhile and a 64 KiB cap: the first lines fill the pipe and the backlog, the rest
    // are dropped.
    const writer = startWriter([20_000, 'flush', 4096, 200, 64 * 1024]);
    await writer.said('logged');
    writer.read('fast');
    expect(await writer.done).toBe(0);
    const lines = linesOf(writer);
    const warning = lines.at(-1);
    const kept = lines.slice(0, -1);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(20_000);
    expectNumbered(kept, kept.length);
    expect(warning).toMatchObject({ level: 40, msg: 'log lines dropped' });
    expect(warning?.droppedLines).toBe(20_000 - kept.length);
  });
});
