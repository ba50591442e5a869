// Rate limits shared through a PostgreSQL server from leased points: several limiters on one
// database (each with its own pool, as processes have) never admit more than a window's points
// between them, decide at once from what they hold, and cost a statement per lease, not per
// request. Processes really killed: test/scale-out/shared-rate-limit.test.ts.
import type { WindowCount } from '@workforce-kit/core';
import pg from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  createPostgresRateLimits,
  type LeasedWindowCounter,
  migrate,
  type PostgresRateLimitsOptions,
  type SqlClient,
} from '../src/index.js';
import { createDatabase } from '../src/testing/index.js';
import { POSTGRES_SERVERS } from './support.js';

const LONG = { name: '15 minutes', points: 50, durationSeconds: 900 } as const;

/** A database with the store's tables; pools on it are ended when the test ends. */
async function database(server: string): Promise<{ url: string; pool: () => pg.Pool }> {
  const url = await createDatabase(server);
  const pools: pg.Pool[] = [];
  const pool = () => {
    const opened = new pg.Pool({ connectionString: url, max: 4 });
    pools.push(opened);
    return opened;
  };
  await migrate(pool());
  onTestFinished(async () => {
    await Promise.all(pools.map((each) => each.end()));
  });
  return { url, pool };
}

/** A client that counts the statements it runs. */
function counted(client: SqlClient): { client: SqlClient; statements: () => number } {
  let statements = 0;
  return {
    client: {
      query(text, params) {
        statements += 1;
        return client.query(text, params);
      },
    },
    statements: () => statements,
  };
}

/** A "process": its own pool and limits; closed when the test ends. */
function process(
  pool: pg.Pool,
  options: Partial<PostgresRateLimitsOptions> = {},
): { limits: ReturnType<typeof createPostgresRateLimits>; statements: () => number } {
  const { client, statements } = counted(pool);
  const limits = createPostgresRateLimits({ client, ...options });
  onTestFinished(() => limits.close());
  return { limits, statements };
}

type Outcome = 'admitted' | 'refused';

/** A request as the edge makes it: at once when the counter can, else awaited. */
async function request(counter: LeasedWindowCounter, key: string): Promise<Outcome> {
  const now = counter.consumeNow(key);
  if (now !== undefined) return now.spent ? 'refused' : 'admitted';
  try {
    await counter.consume(key);
    return 'admitted';
  } catch (rejection) {
    if (rejection instanceof Error) throw rejection;
    return 'refused';
  }
}

const tally = (outcomes: readonly Outcome[]) => ({
  admitted: outcomes.filter((o) => o === 'admitted').length,
  refused: outcomes.filter((o) => o === 'refused').length,
});

/** The most points one process holds of a window: a tenth of them, at least one. */
const maxLease = (points: number) => Math.max(1, Math.floor(points / 10));

for (const server of POSTGRES_SERVERS) {
  describe(`rate limits leased from a ${server.name}`, () => {
    it('admit at most the window’s points between four processes, and refuse the rest', async () => {
      const db = await database(server.url);
      const counters = Array.from({ length: 4 }, () => process(db.pool()).limits.limiter(LONG));
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          request(counters[i % 4] as LeasedWindowCounter, 'r1'),
        ),
      );
      const { admitted, refused } = tally(outcomes);
      expect(admitted + refused).toBe(200);
      expect(admitted).toBeLessThanOrEqual(LONG.points);
      // Refused only while the others held at most a lease each, unused.
      expect(admitted).toBeGreaterThanOrEqual(LONG.points - 3 * maxLease(LONG.points));
      // Another key is counted apart.
      expect(await request(counters[0] as LeasedWindowCounter, 'r2')).toBe('admitted');
    });

    it('decide at once from the points held, with a statement per lease rather than per request', async () => {
      const db = await database(server.url);
      const { limits, statements } = process(db.pool(), { leaseMs: 60_000 });
      const counter = limits.limiter({ name: 'second', points: 1_000_000, durationSeconds: 900 });
      let atOnce = 0;
      for (let i = 0; i < 2_000; i += 1) {
        const now = counter.consumeNow('r1');
        if (now === undefined) await counter.consume('r1');
        else {
          expect(now.spent).toBe(false);
          atOnce += 1;
        }
      }
      // Each lease doubles the last (it was used well within leaseMs): about log2(2000) claims.
      expect(statements()).toBeLessThanOrEqual(24);
      // A request waits only for a claim, and one at a time: the others were decided at once.
      expect(atOnce).toBeGreaterThanOrEqual(2_000 - statements());
      const count = counter.consumeNow('r1') as WindowCount;
      expect(count.remainingPoints).toBeGreaterThan(1_000_000 - 2_000 - 2 * maxLease(1_000_000));
      expect(count.msBeforeNext).toBeGreaterThan(0);
      expect(count.msBeforeNext).toBeLessThanOrEqual(900_000);
    });

    it('claim the leases of many keys and windows in one statement while one is in flight', async () => {
      const db = await database(server.url);
      const { limits, statements } = process(db.pool());
      const windows = [limits.limiter(LONG), limits.limiter({ ...LONG, name: 'second' })];
      const keys = Array.from({ length: 50 }, (_, i) => `r${i}`);
      const counts = await Promise.all(
        keys.flatMap((key) => windows.map((window) => window.consume(key))),
      );
      expect(counts).toHaveLength(100);
      // The first claim went alone; the 99 queued meanwhile went together.
      expect(statements()).toBe(2);
    });

    it('refuse at once, without a statement, once the window is spent; and start afresh when it ends', async () => {
      const db = await database(server.url);
      const { limits, statements } = process(db.pool());
      const counter = limits.limiter({ name: 'second', points: 3, durationSeconds: 1 });
      const first = await Promise.all([1, 2, 3, 4, 5].map(() => request(counter, 'r1')));
      expect(tally(first)).toEqual({ admitted: 3, refused: 2 });
      const spentAfter = statements();
      const refusal = counter.consumeNow('r1');
      expect(refusal).toMatchObject({ spent: true, remainingPoints: 0 });
      for (let i = 0; i < 100; i += 1) expect(counter.consumeNow('r1')?.spent).toBe(true);
      expect(statements()).toBe(spentAfter);
      // The window is a second from its first claim: once it has ended, three more pass.
      await vi.waitFor(() => expect(counter.consumeNow('r1')).toBeUndefined(), {
        timeout: 5_000,
        interval: 50,
      });
      const next = await Promise.all([1, 2, 3, 4].map(() => request(counter, 'r1')));
      expect(tally(next)).toEqual({ admitted: 3, refused: 1 });
    });

    it('lose at most a lease with a process that stops: the others still admit the rest', async () => {
      const db = await database(server.url);
      const gone = process(db.pool()).limits.limiter(LONG);
      // Sequential requests: each lease twice the last, up to a tenth of the window.
      for (let i = 0; i < 7; i += 1) expect(await request(gone, 'r1')).toBe('admitted');
      // The process stops here, with what it leased and did not use; another takes over.
      const survivor = process(db.pool()).limits.limiter(LONG);
      const outcomes: Outcome[] = [];
      for (let i = 0; i < LONG.points; i += 1) outcomes.push(await request(survivor, 'r1'));
      const { admitted } = tally(outcomes);
      expect(7 + admitted).toBeLessThanOrEqual(LONG.points);
      expect(7 + admitted).toBeGreaterThanOrEqual(LONG.points - maxLease(LONG.points));
    });

    it('share the count with rate-limiter-flexible’s upsert on the same row', async () => {
      const db = await database(server.url);
      const pool = db.pool();
      const counter = process(pool).limits.limiter(LONG);
      // What RateLimiterPostgres runs for a request (its `_upsert`), from another process.
      const upsert = async () => {
        const now = Date.now();
        const { rows } = await pool.query<{ points: number }>(
          `INSERT INTO workforce_kit_rate_limits VALUES ($1, $2, $3)
         ON CONFLICT(key) DO UPDATE SET
           points = CASE WHEN workforce_kit_rate_limits.expire <= $4 THEN $2 ELSE workforce_kit_rate_limits.points + ($2) END,
           expire = CASE WHEN workforce_kit_rate_limits.expire <= $4 THEN $3 ELSE workforce_kit_rate_limits.expire END
         RETURNING points, expire`,
          ['15 minutes:r1', 1, now + 900_000, now],
        );
        return (rows[0]?.points ?? Number.POSITIVE_INFINITY) <= LONG.points
          ? 'admitted'
          : 'refused';
      };
      const outcomes = await Promise.all(
        Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? request(counter, 'r1') : upsert())),
      );
      const { admitted } = tally(outcomes);
      expect(admitted).toBeLessThanOrEqual(LONG.points);
      expect(admitted).toBeGreaterThanOrEqual(LONG.points - maxLease(LONG.points));
    });

    it('fail a claim with the database’s error, and keep deciding from the points held', async () => {
      const db = await database(server.url);
      const pool = db.pool();
      let down = false;
      const limits = createPostgresRateLimits({
        client: {
          query: (text, params) =>
            down ? Promise.reject(new Error('connection refused')) : pool.query(text, params),
        },
        leaseMs: 60_000,
      });
      onTestFinished(() => limits.close());
      const counter = limits.limiter({ ...LONG, points: 1_000 });
      for (let i = 0; i < 10; i += 1) await request(counter, 'r1');
      // No claim in flight: the lease holds what its last claim gave, less what was used since.
      await vi.waitFor(() => expect(pool.totalCount).toBe(pool.idleCount));
      down = true;
      // What it holds still answers (at least half a lease, claimed before the last was used up).
      expect(counter.consumeNow('r1')).toMatchObject({ spent: false });
      await expect(counter.consume('r-new')).rejects.toThrow('connection refused');
      down = false;
      expect(await request(counter, 'r-new')).toBe('admitted');
    });

    it('refuse options that cannot work', () => {
      const client = { query: () => Promise.resolve({ rows: [] }) };
      expect(() => createPostgresRateLimits({ client, leaseMs: 0 })).toThrow(RangeError);
      expect(() => createPostgresRateLimits({ client, maxLeaseShare: 1.5 })).toThrow(RangeError);
      expect(() => createPostgresRateLimits({ client, maxKeys: 0 })).toThrow(RangeError);
    });
  });
}
