import type { MaybeAsync } from '@workforce-kit/core';
import { LRUCache } from 'lru-cache';
import type { Logger } from './logger.js';
import type { ProblemOccurrence } from './problems.js';

/** One rate-limit window, as the edge asks a limiter for it. */
export interface RateLimitWindow {
  readonly name: 'second' | '15 minutes';
  /** Requests allowed per window. */
  readonly points: number;
  readonly durationSeconds: number;
}

/** A window's count of a key after a request: what is left, and when it resets. */
export interface WindowCount {
  readonly remainingPoints: number;
  readonly msBeforeNext: number;
}

/** A window's count of a key after a request, answered at once: the count, and whether it was refused. */
export interface WindowDecision {
  readonly count: WindowCount;
  /** The window had no point left: the request is refused (and was not counted). */
  readonly spent: boolean;
}

/**
 * What the edge asks of a window's limiter: count a request of a key. A rate-limiter-flexible
 * limiter fits as it is (`RateLimiterRedis`, `RateLimiterPostgres`, …). A limiter that can often
 * decide from what it holds (leased or cached counts) also offers `consumeNow`, so that the
 * request is decided without a promise.
 */
export interface WindowCounter {
  /**
   * Resolves with the count while the key has points left; rejects with the count (not an
   * `Error`) when they are spent. Any other rejection is the limiter's failure.
   */
  consume(key: string): Promise<WindowCount>;
  /**
   * Optional: counts a request of `key` at once, when the limiter can decide from what it holds;
   * `undefined` when it cannot, having counted nothing, and the edge then calls `consume`. A
   * throw is the limiter's failure, as a rejection of `consume` is.
   *
   * @param key - the restaurant context (or the client's address)
   * @returns the decision, or `undefined` to be asked through `consume`
   * @example
   * ```ts
   * const decided = counter.consumeNow?.(key);
   * const count = decided === undefined ? await counter.consume(key) : decided.count;
   * ```
   */
  consumeNow?(key: string): WindowDecision | undefined;
}

/** Rate limits per restaurant context (per client address when a request names none). */
export interface RateLimitOptions {
  /** Requests per second. @default 20 */
  readonly perSecond?: number;
  /** Requests per 15 minutes. @default 10000 */
  readonly per15Minutes?: number;
  /**
   * Makes the counter of a window. The default counts in memory (at once, without a promise), so
   * the limits are per process; return a shared one (`@workforce-kit/postgres`'s
   * `createPostgresRateLimits`, or a rate-limiter-flexible `RateLimiterRedis`, …) to share them
   * between processes. A counter with `consumeNow` decides without a promise when it can.
   * @default a bounded in-memory counter per window
   * @example
   * ```ts
   * limiter: (w) => new RateLimiterRedis({ storeClient: redis, keyPrefix: w.name, points: w.points, duration: w.durationSeconds })
   * ```
   */
  readonly limiter?: (window: RateLimitWindow) => WindowCounter;
  /**
   * How many keys (restaurant contexts, client addresses) the default in-memory limiters hold per
   * window. Past it, the least recently seen key's count is dropped, so that no sequence of
   * requests grows memory without bound. A shared `limiter` is its store's to bound.
   * @default 10000
   */
  readonly maxKeys?: number;
}

/** The defaults of {@link RateLimitOptions}: 20 a second and 10,000 per 15 minutes per restaurant. */
export const RATE_LIMIT_DEFAULTS = {
  perSecond: 20,
  per15Minutes: 10_000,
  maxKeys: 10_000,
} as const;

/** The options of every read of a key's window, given so that lru-cache makes no default `{}`. */
const KEY_GET: LRUCache.GetOptions<string, KeyWindow, unknown> = {};

/** What the default in-memory counter keeps of a key: its requests in the window, and its end. */
interface KeyWindow {
  counted: number;
  readonly resetsAt: number;
  /** Whether the request last counted found no point left (and so was not counted). */
  spent: boolean;
}

/** A counter that answers at once, in this process's memory. */
export interface MemoryWindowCounter {
  /** Counts a request of `key`: the count after it, and whether the window had no point left. */
  consume(key: string): WindowDecision;
  /**
   * Counts a request of `key` at `now`, as `consume` does, and answers with the key's window as the
   * counter holds it (read at once; no object made for the answer).
   */
  count(key: string, now: number): Readonly<KeyWindow>;
  /** How many keys it holds. */
  readonly size: number;
}

/**
 * The default limiter of a window: a fixed window per key, from its first request, counted in
 * this process's memory and answered at once (no promise, no timer per key). At most `maxKeys`
 * keys are held: past it, the least recently counted key is dropped, and its count with it, so
 * that requests naming ever new restaurant contexts cannot grow memory without bound. A refused
 * request is not counted (a key's count stops at the window's points).
 */
export function memoryWindowCounter(window: RateLimitWindow, maxKeys: number): MemoryWindowCounter {
  const durationMs = window.durationSeconds * 1000;
  const keys = new LRUCache<string, KeyWindow>({ max: maxKeys });
  const count = (key: string, now: number): KeyWindow => {
    let held = keys.get(key, KEY_GET);
    if (held === undefined || held.resetsAt <= now) {
      held = { counted: 0, resetsAt: now + durationMs, spent: false };
      keys.set(key, held);
    }
    held.spent = held.counted >= window.points;
    if (!held.spent) held.counted += 1;
    return held;
  };
  return {
    count,
    consume(key) {
      const now = Date.now();
      const held = count(key, now);
      return {
        count: { remainingPoints: window.points - held.counted, msBeforeNext: held.resetsAt - now },
        spent: held.spent,
      };
    },
    get size() {
      return keys.size;
    },
  };
}

/** A request's rate-limit answer: the `RateLimit-*` headers, and the 429 when it is refused. */
export interface RateLimitDecision {
  readonly headers: Readonly<Record<string, string>>;
  readonly refused: ProblemOccurrence | undefined;
}

/**
 * Counts requests by key and decides: let through, or 429. The default in-memory limits decide at
 * once; so does a shared limiter whose windows answer `consumeNow`, when they can. Otherwise the
 * decision is a promise.
 */
export interface RateLimiter {
  check(key: string, log: Logger): MaybeAsync<RateLimitDecision>;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function headersOf(window: RateLimitWindow, count: WindowCount): Record<string, string> {
  return {
    'RateLimit-Limit': String(window.points),
    'RateLimit-Remaining': String(count.remainingPoints),
    'RateLimit-Reset': String(seconds(count.msBeforeNext)),
  };
}

function isCount(value: unknown): value is WindowCount {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Error) &&
    typeof (value as WindowCount).msBeforeNext === 'number'
  );
}

/** The 429 of the window that refused, described by its headers. */
function refusal(window: RateLimitWindow, count: WindowCount): RateLimitDecision {
  const retry = seconds(count.msBeforeNext);
  return {
    headers: headersOf(window, count),
    refused: {
      code: 'RATE_LIMITED',
      detail: `The rate limit of this restaurant context (${window.points} per ${window.name}) is spent; retry in ${retry} s.`,
      headers: { 'Retry-After': String(retry) },
    },
  };
}

/** Let through, described by the window closest to running out. */
function allowed(tightest: Counted | undefined): RateLimitDecision {
  return {
    headers: tightest === undefined ? {} : headersOf(tightest.window, tightest.count),
    refused: undefined,
  };
}

interface Counted {
  readonly window: RateLimitWindow;
  readonly count: WindowCount;
}

const tighter = (tightest: Counted | undefined, next: Counted): Counted =>
  tightest === undefined || next.count.remainingPoints < tightest.count.remainingPoints
    ? next
    : tightest;

/** What {@link createRateLimiter} is told besides the limits. */
export interface RateLimiterHooks {
  /** Called with the window that refused a request (the metrics count them). */
  readonly onRefusal?: (window: RateLimitWindow['name']) => void;
}

/**
 * The rate limits, per second then per 15 minutes, each window one counter. A request refused by
 * the per-second window spends nothing of the 15-minute window, so that a burst of refused
 * requests cannot lock a restaurant out for 15 minutes. The `RateLimit-*` headers (IETF draft 6)
 * describe the window closest to running out (the fewest requests left), and on a 429 the window
 * that refused, whose `Retry-After` is also sent. With the default in-memory counters the decision
 * is made at once; with `limiter`'s (a shared store), it is made at once while each window's
 * `consumeNow` answers, and awaited from the first window that cannot (through its `consume`). A
 * limiter that fails (its store is down) lets the request through, and the failure is logged.
 */
export function createRateLimiter(
  options: RateLimitOptions,
  hooks: RateLimiterHooks = {},
): RateLimiter {
  const maxKeys = options.maxKeys ?? RATE_LIMIT_DEFAULTS.maxKeys;
  const windows = [
    {
      name: 'second',
      points: options.perSecond ?? RATE_LIMIT_DEFAULTS.perSecond,
      durationSeconds: 1,
    },
    {
      name: '15 minutes',
      points: options.per15Minutes ?? RATE_LIMIT_DEFAULTS.per15Minutes,
      durationSeconds: 15 * 60,
    },
  ] as const satisfies readonly RateLimitWindow[];
  const refused = (window: RateLimitWindow, count: WindowCount) => {
    hooks.onRefusal?.(window.name);
    return refusal(window, count);
  };

  const { limiter } = options;
  if (limiter === undefined) {
    const counted = windows.map((window) => ({
      window,
      counter: memoryWindowCounter(window, maxKeys),
      limit: String(window.points),
    }));
    // Read from the counters' own windows: a request that is let through makes its headers and
    // its decision, and nothing else.
    return {
      check(key) {
        const now = Date.now();
        let limit = '';
        let remaining = Number.POSITIVE_INFINITY;
        let resetsAt = 0;
        for (const { window, counter, limit: points } of counted) {
          const held = counter.count(key, now);
          const left = window.points - held.counted;
          if (held.spent) {
            return refused(window, { remainingPoints: left, msBeforeNext: held.resetsAt - now });
          }
          if (left < remaining) {
            limit = points;
            remaining = left;
            resetsAt = held.resetsAt;
          }
        }
        return {
          headers: {
            'RateLimit-Limit': limit,
            'RateLimit-Remaining': String(remaining),
            'RateLimit-Reset': String(seconds(resetsAt - now)),
          },
          refused: undefined,
        };
      },
    };
  }

  const shared = windows.map((window) => ({ window, counter: limiter(window) }));
  const unavailable = (log: Logger, window: RateLimitWindow, failure: unknown) => {
    log.warn(
      { err: failure, window: window.name },
      'rate limiter unavailable; request let through',
    );
  };
  /** The windows from `first` on, each awaited: what `check` does once one cannot answer at once. */
  const awaited = async (
    key: string,
    log: Logger,
    first: number,
    counted: Counted | undefined,
  ): Promise<RateLimitDecision> => {
    let tightest = counted;
    for (let index = first; index < shared.length; index += 1) {
      const { window, counter } = shared[index] as (typeof shared)[number];
      let count: WindowCount;
      try {
        count = await counter.consume(key);
      } catch (rejection) {
        if (!isCount(rejection)) {
          unavailable(log, window, rejection);
          continue;
        }
        return refused(window, rejection);
      }
      tightest = tighter(tightest, { window, count });
    }
    return allowed(tightest);
  };
  return {
    check(key, log) {
      let tightest: Counted | undefined;
      for (let index = 0; index < shared.length; index += 1) {
        const { window, counter } = shared[index] as (typeof shared)[number];
        if (counter.consumeNow === undefined) return awaited(key, log, index, tightest);
        let decided: WindowDecision | undefined;
        try {
          decided = counter.consumeNow(key);
        } catch (failure) {
          unavailable(log, window, failure);
          continue;
        }
        if (decided === undefined) return awaited(key, log, index, tightest);
        if (decided.spent) return refused(window, decided.count);
        tightest = tighter(tightest, { window, count: decided.count });
      }
      return allowed(tightest);
    },
  };
}
