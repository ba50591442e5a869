/** Options of a {@link GroupCommit}. */
export interface GroupCommitOptions<Change, Outcome> {
  /**
   * Writes a batch (one statement); resolves with one outcome per change, in the order given, once
   * the batch is committed (a change without one fails).
   */
  readonly commit: (changes: readonly Change[]) => Promise<readonly (Outcome | undefined)[]>;
  /**
   * The record a change writes: changes of one key go to separate batches.
   * @default none: reads, which any batch may hold together
   */
  readonly keyOf?: (change: Change) => string;
  /** The most changes one statement carries. */
  readonly maxBatchSize: number;
  /** Told the size of each batch sent (for metrics). @default none */
  readonly onBatch?: (size: number) => void;
}

/**
 * Group commit: one write in flight at a time; the changes that arrive meanwhile queue, and the
 * next write carries all of them (up to `maxBatchSize`). No timer: a change that finds no write in
 * flight is sent at once, alone; under load a batch is whatever queued during the previous write.
 *
 * Each change keeps its own outcome: `commit` answers one outcome per change, in the order given.
 * Reads batch the same way (the restaurants a PostgreSQL server's store reads: each read is sent
 * after its request arrived, so none answers from before it), with no key: any may share a batch.
 * Two changes with the same key (one record) never share a batch: the later one waits for the
 * next, so each is decided against what the earlier one left. A batch that the database refuses as
 * a whole (a statement error that one change may have caused: a bad value, a broken constraint, a
 * deadlock) is sent again change by change, so that only the change at fault fails; a failure of
 * the connection or of the server fails the batch's changes alike, sent once.
 */
export class GroupCommit<Change, Outcome> {
  readonly #queue: Queued<Change, Outcome>[] = [];
  readonly #commit: GroupCommitOptions<Change, Outcome>['commit'];
  readonly #keyOf: ((change: Change) => string) | undefined;
  readonly #maxBatchSize: number;
  readonly #onBatch: ((size: number) => void) | undefined;
  #inFlight = false;

  constructor(options: GroupCommitOptions<Change, Outcome>) {
    const { maxBatchSize } = options;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new RangeError(
        `maxBatchSize must be a whole number of at least 1, not ${maxBatchSize}`,
      );
    }
    this.#commit = options.commit;
    this.#keyOf = options.keyOf;
    this.#maxBatchSize = maxBatchSize;
    this.#onBatch = options.onBatch;
  }

  /** Queues a change; resolves with its outcome once its batch is committed, rejects if it failed. */
  submit(change: Change): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      this.#queue.push({ change, resolve, reject });
      if (!this.#inFlight) void this.#drain();
    });
  }

  /**
   * Sends batches until the queue is empty, one at a time. After each, the next batch is taken
   * once the event loop has run what was ready (`setImmediate`: the I/O received meanwhile, not a
   * wait of any length): PGlite runs a statement on this thread, so the requests that arrive
   * while it runs reach the store only after it ends. Taken at once, each change would go alone.
   */
  async #drain(): Promise<void> {
    this.#inFlight = true;
    try {
      for (let batch = this.#take(); batch.length > 0; batch = this.#take()) {
        await this.#send(batch);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.#inFlight = false;
    }
  }

  /** The next batch: queued changes in arrival order, at most one per key; the rest stay queued. */
  #take(): Queued<Change, Outcome>[] {
    const queue = this.#queue;
    if (queue.length <= 1) return queue.splice(0, queue.length);
    const keyOf = this.#keyOf;
    if (keyOf === undefined) return queue.splice(0, this.#maxBatchSize);
    const batch: Queued<Change, Outcome>[] = [];
    const keys = new Set<string>();
    let kept = 0;
    for (const queued of queue) {
      const key = keyOf(queued.change);
      if (batch.length < this.#maxBatchSize && !keys.has(key)) {
        keys.add(key);
        batch.push(queued);
      } else {
        // Stays queued, in order; a later change of the same key stays behind it too.
        keys.add(key);
        queue[kept++] = queued;
      }
    }
    queue.length = kept;
    return batch;
  }

  async #send(batch: readonly Queued<Change, Outcome>[]): Promise<void> {
    try {
      this.#onBatch?.(batch.length);
    } catch {
      // A metric that fails is not the write's failure.
    }
    let outcomes: readonly (Outcome | undefined)[];
    try {
      outcomes = await this.#commit(batch.map((queued) => queued.change));
    } catch (error) {
      if (batch.length === 1 || !isStatementError(error)) {
        for (const queued of batch) queued.reject(error);
        return;
      }
      // One change may have caused it: each alone, so that only that one fails.
      for (const queued of batch) await this.#send([queued]);
      return;
    }
    batch.forEach((queued, index) => {
      const outcome = outcomes[index];
      if (outcome === undefined) queued.reject(new Error('the batch write returned no outcome'));
      else queued.resolve(outcome);
    });
  }
}

interface Queued<Change, Outcome> {
  readonly change: Change;
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * SQLSTATE classes of failures that are not the statement's: the connection (08), the server's
 * resources (53), an operator or a timeout cancelling it (57), the system (58), an internal error
 * (XX). Sending a batch's changes one by one would only fail again, each after as long.
 */
const NOT_THE_STATEMENT = new Set(['08', '53', '57', '58', 'XX']);

/** Whether PostgreSQL refused the statement itself, for a reason one of its changes may hold. */
function isStatementError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    /^[0-9A-Z]{5}$/.test(code) &&
    !NOT_THE_STATEMENT.has(code.slice(0, 2))
  );
}
