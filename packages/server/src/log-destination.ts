import { closeSync, openSync, writeSync } from 'node:fs';

/** What {@link LogDestination} is given; every field has a default. */
export interface LogDestinationOptions {
  /** Where the lines go: a file descriptor, or a path (opened to append). @default 1 (stdout) */
  readonly dest?: number | string;
  /** Bytes that wait in memory before they are written. @default 4096 */
  readonly minLength?: number;
  /** Lines waiting fewer bytes than `minLength` are written after this long (ms). @default 200 */
  readonly flushIntervalMs?: number;
  /**
   * The most bytes that may wait in memory for a reader slower than the server; a line that comes
   * while they do is dropped and counted (see `onDropped`). @default 16 MiB
   */
  readonly maxPendingBytes?: number;
  /**
   * Told how many lines were dropped, once the backlog is down to half of `maxPendingBytes`
   * (the server logs a warning with the count).
   */
  readonly onDropped?: (lines: number) => void;
}

/** The most bytes one UTF-16 unit of a line takes in UTF-8 (a surrogate pair: 4 for 2 units). */
const MAX_BYTES_PER_UNIT = 3;
/** The buffers lines are written into, reused: more only while a slow reader holds a backlog. */
const CHUNK_BYTES = 16 * 1024;
/** After EAGAIN (a full pipe), the next attempt comes this much later. */
const RETRY_MS = 10;
/** At exit, the last write gives up when the reader took nothing for this long. */
const EXIT_PATIENCE_MS = 5000;

/** A buffer of lines: bytes [start, end) are still to be written. */
interface Chunk {
  readonly buffer: Buffer;
  start: number;
  end: number;
}

/** The destinations whose lines are written out when the process exits. */
const open = new Set<LogDestination>();
let exitHooked = false;

/** Blocks the thread for `ms`: the last write at exit, waiting on a full pipe's reader. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** EAGAIN: a non-blocking pipe or socket is full (EBUSY: likewise, on some systems). */
const isFull = (error: unknown) => {
  const { code } = error as NodeJS.ErrnoException;
  return code === 'EAGAIN' || code === 'EBUSY';
};

/**
 * The reference server's log destination, for pino: lines wait in memory, encoded, and are
 * written with one `write` once 4 KiB wait or every 200 ms, from the event loop's thread, which a
 * non-blocking stdout never blocks. Why not pino's own (sonic-boom): docs/operations.md, "Health
 * and logs".
 * - A partial write: the rest waits, from the byte it stopped at.
 * - EAGAIN or EBUSY: tried again 10 ms later; lines wait up to `maxPendingBytes`, and past it are
 *   dropped and counted (`onDropped`).
 * - EPIPE or another error: lines are discarded from then on, and stderr says so once.
 * - At exit, what waits is written out in order (up to 5 s without progress); a SIGKILL loses at
 *   most 4 KiB or 200 ms of lines.
 *
 * @example
 * ```ts
 * import { pino } from 'pino';
 *
 * const logger = pino({ level: 'info' }, new LogDestination());
 * logger.flush(() => console.log('every line written'));
 * ```
 */
export class LogDestination {
  readonly #fd: number;
  readonly #ownsFd: boolean;
  readonly #minLength: number;
  readonly #maxPending: number;
  readonly #onDropped: ((lines: number) => void) | undefined;
  readonly #timer: NodeJS.Timeout;
  /** The chunks with bytes to write, oldest first; lines go into the last one. */
  readonly #chunks: Chunk[] = [];
  /** A written-out chunk kept for the next one. */
  #spare: Chunk | undefined;
  /** Bytes waiting (in the chunks, not written yet). */
  #pending = 0;
  /** The next attempt after EAGAIN, while the reader is behind: no write is tried before it. */
  #retry: NodeJS.Timeout | undefined;
  #dropped = 0;
  #flushCallbacks: ((error?: Error) => void)[] = [];
  /** Set by a write error: lines are discarded from then on. */
  #failed = false;
  #ended = false;

  /** @param options - where the lines go and how they wait; see {@link LogDestinationOptions} */
  constructor(options: LogDestinationOptions = {}) {
    const { dest = 1 } = options;
    this.#ownsFd = typeof dest === 'string';
    this.#fd = typeof dest === 'string' ? openSync(dest, 'a') : dest;
    // Node opens stdout and stderr lazily; a pipe or socket is then set non-blocking (libuv).
    if (dest === 1) void process.stdout;
    if (dest === 2) void process.stderr;
    this.#minLength = options.minLength ?? 4096;
    this.#maxPending = options.maxPendingBytes ?? 16 * 1024 * 1024;
    this.#onDropped = options.onDropped;
    this.#timer = setInterval(() => this.flush(), options.flushIntervalMs ?? 200).unref();
    open.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => {
        for (const destination of open) destination.end();
      });
    }
  }

  /**
   * Takes one line (pino's JSON and its newline): copies it into the buffer, and writes the buffer
   * out once 4 KiB wait.
   *
   * @param line - the text to write
   * @returns false when the line was dropped (the backlog is full, or the destination failed)
   */
  write(line: string): boolean {
    if (this.#failed) return false;
    if (this.#pending >= this.#maxPending) {
      this.#dropped += 1;
      return false;
    }
    const room = line.length * MAX_BYTES_PER_UNIT;
    let chunk = this.#chunks.at(-1);
    if (chunk === undefined || chunk.buffer.length - chunk.end < room) {
      chunk = this.#newChunk(room);
    }
    const bytes = chunk.buffer.write(line, chunk.end);
    chunk.end += bytes;
    this.#pending += bytes;
    if (this.#ended) this.#writeOutSync();
    else if (this.#pending >= this.#minLength && this.#retry === undefined) this.#writeOut();
    return true;
  }

  /**
   * Writes out everything waiting, however little.
   *
   * @param callback - called once all of it is written (with the error that stopped it, if any)
   */
  flush(callback?: (error?: Error) => void): void {
    if (this.#failed || this.#ended) {
      if (callback !== undefined) process.nextTick(callback);
      return;
    }
    if (callback === undefined) {
      if (this.#retry === undefined) this.#writeOut();
      return;
    }
    this.#flushCallbacks.push(callback);
    // A flush waited on keeps the process alive until it is done (a retry waits 10 ms).
    if (this.#retry === undefined) this.#writeOut();
    else this.#retry.ref();
  }

  /**
   * Writes out what waits, waiting on a full pipe while its reader takes something (up to 5 s
   * without progress); from then on each line is written at once. Called when the process exits;
   * closes a file it opened.
   */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#timer);
    clearTimeout(this.#retry);
    this.#retry = undefined;
    open.delete(this);
    this.#writeOutSync();
    if (this.#dropped > 0) this.#reportDropped();
    if (this.#ownsFd) closeSync(this.#fd);
  }

  /** A chunk at the end of the list, with room for `room` bytes at least. */
  #newChunk(room: number): Chunk {
    const last = this.#chunks.at(-1);
    // An empty last chunk too small for a long line gives its place to a larger one.
    if (last !== undefined && last.start === last.end) this.#chunks.pop();
    let chunk = this.#spare;
    if (chunk !== undefined && chunk.buffer.length >= room) {
      this.#spare = undefined;
      chunk.start = 0;
      chunk.end = 0;
    } else {
      chunk = { buffer: Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, room)), start: 0, end: 0 };
    }
    this.#chunks.push(chunk);
    return chunk;
  }

  /**
   * Writes as much of what waits as the file takes now; what it does not take waits for a retry
   * 10 ms later. Settles the flushes once nothing waits.
   */
  #writeOut(): void {
    this.#retry = undefined;
    if (this.#failed) return;
    try {
      while (this.#pending > 0) {
        const chunk = this.#chunks[0] as Chunk;
        const written = writeSync(this.#fd, chunk.buffer, chunk.start, chunk.end - chunk.start);
        this.#wrote(chunk, written);
        if (chunk.start < chunk.end) break; // a partial write: the pipe is full
      }
    } catch (error) {
      if (!isFull(error)) {
        this.#fail(error as Error);
        return;
      }
    }
    if (this.#pending > 0) {
      this.#retry = setTimeout(() => this.#writeOut(), RETRY_MS);
      if (this.#flushCallbacks.length === 0) this.#retry.unref();
    } else {
      this.#settleFlushes();
    }
    if (this.#dropped > 0 && this.#pending <= this.#maxPending / 2) this.#reportDropped();
  }

  /** Tells `onDropped` how many lines were dropped since it was last told. */
  #reportDropped(): void {
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.#onDropped?.(dropped);
  }

  /** Writes out all that waits, waiting on a full pipe (up to 5 s without progress). */
  #writeOutSync(): void {
    let waitedMs = 0;
    while (this.#pending > 0 && !this.#failed) {
      const chunk = this.#chunks[0] as Chunk;
      try {
        this.#wrote(chunk, writeSync(this.#fd, chunk.buffer, chunk.start, chunk.end - chunk.start));
        waitedMs = 0;
      } catch (error) {
        if (!isFull(error) || waitedMs >= EXIT_PATIENCE_MS) {
          this.#fail(error as Error);
          return;
        }
        pause(RETRY_MS);
        waitedMs += RETRY_MS;
      }
    }
    this.#settleFlushes();
  }

  /** Takes `written` bytes off the oldest chunk; a chunk written out is kept for reuse. */
  #wrote(chunk: Chunk, written: number): void {
    chunk.start += written;
    this.#pending -= written;
    if (chunk.start < chunk.end) return;
    if (this.#chunks.length > 1) {
      this.#chunks.shift();
      this.#spare = chunk;
    } else {
      chunk.start = 0;
      chunk.end = 0;
    }
  }

  /** Discards the lines from now on, says why once on stderr, and settles the flushes. */
  #fail(error: Error): void {
    this.#failed = true;
    this.#chunks.length = 0;
    this.#pending = 0;
    clearInterval(this.#timer);
    open.delete(this);
    try {
      writeSync(2, `log lines can no longer be written, and are discarded: ${error.message}\n`);
    } catch {
      // stderr is gone too: nothing more to tell.
    }
    this.#settleFlushes(error);
  }

  #settleFlushes(error?: Error): void {
    const callbacks = this.#flushCallbacks;
    if (callbacks.length === 0) return;
    this.#flushCallbacks = [];
    for (const callback of callbacks) process.nextTick(callback, error);
  }
}
