import type {
  RateLimitWindow,
  WindowCount,
  WindowCounter,
  WindowDecision,
} from '@workforce-kit/core';
import { LRUCache } from 'lru-cache';
import { GroupCommit } from './group-commit.js';
import type { SqlClient } from './sql-client.js';
import { StatementRunner } from './statement-runner.js';

/**
 * A window's counter over leased points: the core's `WindowCounter`, whose `consumeNow` it always
 * offers.
 */
export interface LeasedWindowCounter extends WindowCounter {
  /**
   * Counts a request of `key`, claiming points from the database first when this process holds
   * none: resolves with the count, rejects with it (not an `Error`) when the window has no point
   * left, and with an `Error` when the database fails.
   * @param key - the restaurant context (or client address)
   * @returns the count after the request
   */
  consume(key: string): Promise<WindowCount>;
  /**
   * Counts a request of `key` from the points this process holds, at once: `undefined`, having
   * counted nothing, when it holds none for the current window and must claim them (`consume`).
   * @param key - the restaurant context (or client address)
   * @returns the decision, or `undefined`
   */
  consumeNow(key: string): WindowDecision | undefined;
}

/** Options of {@link createPostgresRateLimits}. */
export interface PostgresRateLimitsOptions {
  /**
   * The PostgreSQL server (a `pg.Pool`) whose `workforce_kit_rate_limits` table the processes
   * share: the store's migrations create it (open the store, or `migrate`, first).
   */
  readonly client: SqlClient;
  /**
   * Sends the claims as a named prepared statement (`{ name, text, values }`), which a `pg.Pool`
   * takes; see the store's option of the same name.
   * @default false
   */
  readonly namedStatements?: boolean;
  /**
   * How long a lease should last at the rate a process has been admitting a key: a claim asks
   * for about this long's worth of requests (at least 1, at most `maxLeaseShare` of the
   * window), and the next claim is sent when half of it is used. Longer means fewer statements
   * and more points held unused by a process whose traffic stops.
   * @default 1000
   */
  readonly leaseMs?: number;
  /**
   * The most of a window's points one process holds at once, as a share of them (at least one
   * point): what a restaurant can be refused while other processes hold them unused, per
   * process, and what a killed process takes with it for the rest of the window.
   * @default 0.1
   */
  readonly maxLeaseShare?: number;
  /**
   * How many keys (restaurant contexts, client addresses) each window's leases hold in this
   * process; past it, the least recently used key's lease is dropped (its unused points with it).
   * @default 10000
   */
  readonly maxKeys?: number;
}

/** The defaults of {@link PostgresRateLimitsOptions}. */
export const RATE_LIMIT_LEASE_DEFAULTS = {
  leaseMs: 1000,
  maxLeaseShare: 0.1,
  maxKeys: 10_000,
} as const;

/** Rate limits shared by the processes of one PostgreSQL server, counted from leased points. */
export interface PostgresRateLimits {
  /**
   * The counter of a window: give it as `RateLimitOptions.limiter` of `@workforce-kit/http`.
   * @param window - the window's name, points and duration
   * @returns its counter
   */
  limiter(window: RateLimitWindow): LeasedWindowCounter;
  /** Stops the periodic removal of expired rows; claims after it fail. The client stays open. */
  close(): void;
}

/**
 * Rate-limit windows shared by every process of a PostgreSQL server, decided in each process from
 * points leased from the database. A window's count of a key is a row of
 * `workforce_kit_rate_limits` (migration 005; rate-limiter-flexible's `RateLimiterPostgres` layout
 * and key, `<window>:<key>`, so that both can count in it at once). A process claims points from
 * the row, and admits requests from those it holds without asking the database again: a request
 * is decided at once (`consumeNow`) while the process holds a point of the key's current window,
 * or knows that the window has none left. A claim is granted only the points the window has left,
 * so the processes together never admit more than the window's points. The claims of all keys and
 * windows are batched as the store's writes are (one statement in flight; those that arrive
 * meanwhile go in the next), and the next lease of a key is claimed when half of the current one
 * is used (unless what is held lasts out half of what is left of the window), so that under
 * steady load a request waits only when a window starts. A lease is sized to last about `leaseMs`
 * at the rate the process has been admitting the key, and holds at most `maxLeaseShare` of the
 * window's points: points held unused by a process, or taken away by a killed one, are not
 * admitted elsewhere in that window. Windows are fixed, from the request that finds the row
 * expired, timed by the processes' clocks (keep them in step). Rows expired for an hour are
 * removed every five minutes.
 *
 * @param options - the database, and how leases are sized
 * @returns the window counters, and `close`
 * @example
 * ```ts
 * const limits = createPostgresRateLimits({ client: pool, namedStatements: true });
 * const router = createRouter({ store, auth, rateLimit: { limiter: limits.limiter } });
 * ```
 */
export function createPostgresRateLimits(options: PostgresRateLimitsOptions): PostgresRateLimits {
  const leaseMs = options.leaseMs ?? RATE_LIMIT_LEASE_DEFAULTS.leaseMs;
  const share = options.maxLeaseShare ?? RATE_LIMIT_LEASE_DEFAULTS.maxLeaseShare;
  const maxKeys = options.maxKeys ?? RATE_LIMIT_LEASE_DEFAULTS.maxKeys;
  if (!(leaseMs > 0 && Number.isFinite(leaseMs))) {
    throw new RangeError(`leaseMs must be a positive number of milliseconds, not ${leaseMs}`);
  }
  if (!(share > 0 && share <= 1)) {
    throw new RangeError(`maxLeaseShare must be more than 0 and at most 1, not ${share}`);
  }
  if (!(Number.isInteger(maxKeys) && maxKeys >= 1)) {
    throw new RangeError(`maxKeys must be a whole number of at least 1, not ${maxKeys}`);
  }
  const statements = new StatementRunner(options.client, options.namedStatements ?? false);

  const claims = new GroupCommit<Claim, ClaimRow>({
    commit: async (batch) => {
      if (statements.closed) throw new Error('the rate limits are closed');
      const now = Date.now();
      const keys: string[] = [];
      const wants: number[] = [];
      const durations: number[] = [];
      for (const claim of batch) {
        claim.want = claim.window.wantOf(claim.lease, now);
        keys.push(claim.lease.row);
        wants.push(claim.want);
        durations.push(claim.window.durationMs);
      }
      const { rows } = await statements.run(CLAIM, [keys, wants, durations, now]);
      const byKey = new Map((rows as ClaimRow[]).map((row) => [row.key, row]));
      return batch.map((claim) => byKey.get(claim.lease.row));
    },
    keyOf: (claim) => claim.lease.row,
    maxBatchSize: MAX_CLAIMS_PER_STATEMENT,
  });

  // What rate-limiter-flexible's clearExpiredByTimeout does: rows expired an hour ago, every 5 min.
  const cleaner = setInterval(() => {
    statements.run(CLEAR, [Date.now() - 3_600_000]).catch(() => {
      // Not critical: the next round removes them.
    });
  }, 300_000);
  cleaner.unref();

  return {
    limiter: (window) =>
      new LeasedWindow(window, { leaseMs, share, maxKeys }, (claim) => claims.submit(claim)),
    close() {
      statements.close();
      clearInterval(cleaner);
    },
  };
}

/** The options of every read of a lease, given so that lru-cache makes no default `{}`. */
const LEASE_GET: LRUCache.GetOptions<string, Lease, unknown> = {};

/** The most keys one claim statement carries. */
const MAX_CLAIMS_PER_STATEMENT = 256;
/** The most points one claim asks for (the table's counts are 32-bit integers). */
const MAX_CLAIM = 2 ** 20;

/**
 * One statement for a batch of claims, one row each (distinct keys), in key order so that the
 * processes lock rows in one order. rate-limiter-flexible's upsert, with `want` points: a row whose
 * window has ended starts a new one at `want`; otherwise `want` is added. What a claim is granted
 * is computed from the count it returns: the points the window had left before it, at most `want`.
 */
const CLAIM = `INSERT INTO workforce_kit_rate_limits AS held (key, points, expire)
SELECT claim.key, claim.want, $4::bigint + claim.duration
FROM unnest($1::varchar[], $2::integer[], $3::bigint[]) AS claim (key, want, duration)
ORDER BY claim.key
ON CONFLICT (key) DO UPDATE SET
  points = CASE WHEN held.expire <= $4::bigint THEN EXCLUDED.points ELSE held.points + EXCLUDED.points END,
  expire = CASE WHEN held.expire <= $4::bigint THEN EXCLUDED.expire ELSE held.expire END
RETURNING key, points, expire::float8 AS expire`;
const CLEAR = 'DELETE FROM workforce_kit_rate_limits WHERE expire < $1';

/** A key's row after a claim. */
interface ClaimRow {
  readonly key: string;
  readonly points: number;
  readonly expire: number;
}

/** A claim queued for its statement: its points are decided when it is sent. */
interface Claim {
  readonly window: LeasedWindow;
  readonly lease: Lease;
  want: number;
}

/** What a process holds of a key's window. */
interface Lease {
  /** The row's key: `<window>:<key>`. */
  readonly row: string;
  /** Points claimed and not used yet, in the window that ends at `expire`. */
  left: number;
  /** When the window of the points held ends (ms since the epoch; 0 before the first claim). */
  expire: number;
  /** The database had no point left for this window at the last claim. */
  spent: boolean;
  /** The points the database had left after the last claim (for `RateLimit-Remaining`). */
  remaining: number;
  /** The points a claim tops the lease up to. */
  size: number;
  /** When the last claim was sent, and how many points were used since. */
  claimedAt: number;
  used: number;
  /** Requests waiting for a claim. */
  waiting: number;
  /** The claim queued or in flight. */
  claim: Promise<void> | undefined;
}

class LeasedWindow implements LeasedWindowCounter {
  readonly durationMs: number;
  readonly #points: number;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #maxLease: number;
  readonly #leases: LRUCache<string, Lease>;
  readonly #submit: (claim: Claim) => Promise<ClaimRow>;

  constructor(
    window: RateLimitWindow,
    sizing: { readonly leaseMs: number; readonly share: number; readonly maxKeys: number },
    submit: (claim: Claim) => Promise<ClaimRow>,
  ) {
    this.durationMs = window.durationSeconds * 1000;
    this.#points = window.points;
    this.#prefix = `${window.name}:`;
    this.#leaseMs = sizing.leaseMs;
    this.#maxLease = Math.min(MAX_CLAIM, Math.max(1, Math.floor(window.points * sizing.share)));
    this.#leases = new LRUCache({ max: sizing.maxKeys });
    this.#submit = submit;
  }

  consumeNow(key: string): WindowDecision | undefined {
    const lease = this.#leases.get(key, LEASE_GET);
    return lease === undefined ? undefined : this.#take(lease, Date.now());
  }

  consume(key: string): Promise<WindowCount> {
    const decided = this.consumeNow(key);
    if (decided === undefined) return this.#claimAndTake(key);
    return decided.spent ? Promise.reject(decided) : Promise.resolve(decided);
  }

  /** The points a claim of `lease` asks for, sent now: sizes the lease from its recent use. */
  wantOf(lease: Lease, now: number): number {
    if (lease.claimedAt > 0) {
      // About leaseMs' worth at the rate since the last claim; growing at most twofold a claim.
      const since = Math.max(1, now - lease.claimedAt);
      const lasting = Math.ceil((lease.used * this.#leaseMs) / since);
      lease.size = Math.max(1, Math.min(lasting, lease.size * 2, this.#maxLease));
    }
    lease.claimedAt = now;
    lease.used = 0;
    const held = now < lease.expire ? lease.left : 0;
    return Math.min(this.#maxLease, Math.max(lease.size - held, lease.waiting, 1));
  }

  /** A request of `lease`'s key from what this process holds; `undefined` if it must claim. */
  #take(lease: Lease, now: number): WindowDecision | undefined {
    if (now >= lease.expire) return undefined;
    const msBeforeNext = lease.expire - now;
    if (lease.left > 0) {
      lease.left -= 1;
      lease.used += 1;
      if (
        lease.claim === undefined &&
        !lease.spent &&
        lease.left <= lease.size >> 1 &&
        // What is held would not last half of what is left of the window, at the rate since the
        // last claim (else a lease claimed now would mostly end unused with the window; should
        // what is held run out before the window ends, the next request claims).
        2 * lease.left * Math.max(1, now - lease.claimedAt) < lease.used * msBeforeNext
      ) {
        // The next lease, before this one runs out; its failure is the next waiting request's.
        this.#claim(lease).catch(() => undefined);
      }
      return { remainingPoints: lease.remaining + lease.left, msBeforeNext, spent: false };
    }
    if (lease.spent) return { remainingPoints: 0, msBeforeNext, spent: true };
    return undefined;
  }

  async #claimAndTake(key: string): Promise<WindowCount> {
    for (;;) {
      let lease = this.#leases.get(key, LEASE_GET);
      if (lease === undefined) {
        lease = {
          row: this.#prefix + key,
          left: 0,
          expire: 0,
          spent: false,
          remaining: this.#points,
          size: 1,
          claimedAt: 0,
          used: 0,
          waiting: 0,
          claim: undefined,
        };
        this.#leases.set(key, lease);
      }
      lease.waiting += 1;
      try {
        await (lease.claim ?? this.#claim(lease));
      } finally {
        lease.waiting -= 1;
      }
      // Granted points, or a spent window; else (others waiting took them, or the window ended
      // meanwhile) claim again: each claim grants a point or finds the window spent.
      const decided = this.#take(lease, Date.now());
      if (decided !== undefined) {
        if (decided.spent) return Promise.reject(decided);
        return decided;
      }
    }
  }

  #claim(lease: Lease): Promise<void> {
    const claim: Claim = { window: this, lease, want: 0 };
    const claimed = this.#submit(claim)
      .then((row) => this.#granted(lease, claim.want, row))
      .finally(() => {
        if (lease.claim === claimed) lease.claim = undefined;
      });
    lease.claim = claimed;
    return claimed;
  }

  #granted(lease: Lease, want: number, row: ClaimRow): void {
    const points = Number(row.points);
    const expire = Number(row.expire);
    // The window's points before this claim were `points - want`; it had the rest to grant.
    const granted = Math.max(0, Math.min(want, this.#points - (points - want)));
    // Points held of an earlier window are gone with it.
    if (expire !== lease.expire) lease.left = 0;
    lease.expire = expire;
    lease.left += granted;
    lease.remaining = Math.max(0, this.#points - points);
    lease.spent = points >= this.#points;
  }
}
