import { describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../src/group-commit.js';

interface Change {
  readonly key: string;
  readonly value: number;
}

/** A commit that holds each batch until the test releases it, and records the batches. */
function heldCommits() {
  const batches: Change[][] = [];
  const releases: ((fail?: unknown) => void)[] = [];
  const commit = (changes: readonly Change[]) => {
    batches.push([...changes]);
    return new Promise<number[]>((resolve, reject) => {
      releases.push((fail) =>
        fail === undefined ? resolve(changes.map((change) => change.value * 10)) : reject(fail),
      );
    });
  };
  /** Releases the batch in flight (the oldest one sent and not released). */
  const release = (fail?: unknown) => releases.shift()?.(fail);
  /** Waits until `count` batches were sent. */
  const sent = (count: number) => vi.waitFor(() => expect(batches).toHaveLength(count));
  return { batches, commit, release, sent };
}

const change = (key: string, value: number): Change => ({ key, value });

describe('GroupCommit', () => {
  it('sends a change at once when no write is in flight, and what queued meanwhile in the next batch', async () => {
    const { batches, commit, release, sent } = heldCommits();
    const sizes: number[] = [];
    const group = new GroupCommit({
      commit,
      keyOf: (c: Change) => c.key,
      maxBatchSize: 64,
      onBatch: (size) => sizes.push(size),
    });

    const first = group.submit(change('a', 1));
    expect(batches).toEqual([[change('a', 1)]]);
    const queued = [group.submit(change('b', 2)), group.submit(change('c', 3))];
    expect(batches).toHaveLength(1);

    release();
    expect(await first).toBe(10);
    await sent(2);
    expect(batches[1]).toEqual([change('b', 2), change('c', 3)]);
    release();
    expect(await Promise.all(queued)).toEqual([20, 30]);
    expect(sizes).toEqual([1, 2]);
  });

  it('takes the next batch once the event loop has run what was ready when a write ended', async () => {
    // PGlite runs a statement on this thread: what arrived meanwhile is handled after it.
    const { batches, commit, release, sent } = heldCommits();
    const group = new GroupCommit({ commit, keyOf: (c: Change) => c.key, maxBatchSize: 64 });
    const changes = [group.submit(change('a', 1)), group.submit(change('b', 2))];
    let late: Promise<number> | undefined;

    release();
    setImmediate(() => {
      late = group.submit(change('c', 3));
    });
    await sent(2);
    release();
    expect(await Promise.all([...changes, late])).toEqual([10, 20, 30]);
    expect(batches).toEqual([[change('a', 1)], [change('b', 2), change('c', 3)]]);
  });

  it('puts changes of one key in separate batches, in their order, and caps a batch', async () => {
    const { batches, commit, release, sent } = heldCommits();
    const group = new GroupCommit({ commit, keyOf: (c: Change) => c.key, maxBatchSize: 3 });

    const all = [
      group.submit(change('a', 1)),
      group.submit(change('a', 2)),
      group.submit(change('b', 3)),
      group.submit(change('a', 4)),
      group.submit(change('c', 5)),
      group.submit(change('d', 6)),
      group.submit(change('e', 7)),
    ];
    for (let batch = 1; batch <= 3; batch++) {
      await sent(batch);
      release();
    }

    expect(batches).toEqual([
      [change('a', 1)],
      // a:2 goes first; the later a:4 waits behind it; three at most.
      [change('a', 2), change('b', 3), change('c', 5)],
      [change('a', 4), change('d', 6), change('e', 7)],
    ]);
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50, 60, 70]);
  });

  it('sends a batch the database refused again change by change, failing only the change at fault', async () => {
    const refused = Object.assign(new Error('invalid input syntax for type uuid'), {
      code: '22P02',
    });
    const batches: Change[][] = [];
    const group = new GroupCommit({
      commit: async (changes: readonly Change[]) => {
        batches.push([...changes]);
        if (changes.some((c) => c.value < 0)) throw refused;
        return changes.map((c) => c.value);
      },
      keyOf: (c: Change) => c.key,
      maxBatchSize: 64,
    });
    const first = group.submit(change('a', 1));
    const rest = [
      group.submit(change('b', 2)),
      group.submit(change('c', -1)),
      group.submit(change('d', 4)),
    ];

    expect(await first).toBe(1);
    const settled = await Promise.allSettled(rest);
    expect(settled).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: refused },
      { status: 'fulfilled', value: 4 },
    ]);
    expect(batches.map((batch) => batch.map((c) => c.key))).toEqual([
      ['a'],
      ['b', 'c', 'd'],
      ['b'],
      ['c'],
      ['d'],
    ]);
  });

  it('fails a whole batch once when the connection or the server failed, not change by change', async () => {
    const { batches, commit, release, sent } = heldCommits();
    const group = new GroupCommit({ commit, keyOf: (c: Change) => c.key, maxBatchSize: 64 });
    const first = group.submit(change('a', 1));
    await sent(1);
    const rest = Promise.allSettled([group.submit(change('b', 2)), group.submit(change('c', 3))]);
    release();
    await first;
    await sent(2);

    const lost = Object.assign(new Error('terminating connection'), { code: '57P01' });
    release(lost);
    expect(await rest).toEqual([
      { status: 'rejected', reason: lost },
      { status: 'rejected', reason: lost },
    ]);
    expect(batches).toHaveLength(2);

    // The next change is sent again.
    const after = group.submit(change('d', 4));
    await sent(3);
    release();
    expect(await after).toBe(40);
  });

  it('refuses a batch size that is not a whole number of at least 1', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) {
      expect(
        () => new GroupCommit({ commit: async () => [], keyOf: () => '', maxBatchSize: size }),
      ).toThrow(RangeError);
    }
  });

  it('writes on when the batch-size callback throws', async () => {
    const group = new GroupCommit({
      commit: async (changes: readonly Change[]) => changes.map((c) => c.value),
      keyOf: (c: Change) => c.key,
      maxBatchSize: 64,
      onBatch: () => {
        throw new Error('metric broken');
      },
    });
    expect(await Promise.all([group.submit(change('a', 1)), group.submit(change('b', 2))])).toEqual(
      [1, 2],
    );
  });
});
