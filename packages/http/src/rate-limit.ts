import { LRUCache } from 'lru-cache';
import { RateLimiterMemory } from 'rate-limiter-flexible';
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

/**
 * What the edge asks of a window's limiter: count a request of a key. A rate-limiter-flexible
 * limiter fits as it is (`RateLimiterRedis`, `RateLimiterPostgres`, …).
 */
export interface WindowCounter {
  /**
   * Resolves with the count while the key has points left; rejects with the count (not an
   * `Error`) when they are spent. Any other rejection is the limiter's failure.
   */
  consume(key: string): Promise<WindowCount>;
}

/** Rate limits per restaurant context (per client address when a request names none). */
export interface RateLimitOptions {
  /** Requests per second. @default 20 */
  readonly perSecond?: number;
  /** Requests per 15 minutes. @default 10000 */
  readonly per15Minutes?: number;
  /**
   * Makes the counter of a window. The default counts in memory, so the limits are per process;
   * return a shared one (a rate-limiter-flexible `RateLimiterPostgres`, `RateLimiterRedis`, …) to
   * share them between processes.
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

/**
 * The default limiter of a window: counts in this process's memory, for at most `maxKeys` keys.
 * rate-limiter-flexible keeps a key until its window ends (15 minutes for the long one), so
 * requests naming ever new restaurant contexts would grow memory without bound; here the least
 * recently counted key is dropped (and its count with it) once `maxKeys` are held.
 */
export function boundedMemoryCounter(
  window: RateLimitWindow,
  maxKeys: number,
): WindowCounter & { readonly size: number } {
  const limiter = new RateLimiterMemory({
    keyPrefix: window.name,
    points: window.points,
    duration: window.durationSeconds,
  });
  const keys = new LRUCache<string, true>({
    max: maxKeys,
    dispose: (_held, key, reason) => {
      if (reason === 'evict') void limiter.delete(key);
    },
  });
  return {
    consume(key) {
      keys.set(key, true);
      return limiter.consume(key);
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
  /** The window that refused the request, when it is refused. */
  readonly refusedBy?: RateLimitWindow['name'];
}

/** Counts requests by key and decides: let through, or 429. */
export interface RateLimiter {
  check(key: string, log: Logger): Promise<RateLimitDecision>;
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

/**
 * The rate limits, per second then per 15 minutes, each window one counter. A request refused by
 * the per-second window spends nothing of the 15-minute window, so that a burst of refused
 * requests cannot lock a restaurant out for 15 minutes. The `RateLimit-*` headers (IETF draft 6)
 * describe the window closest to running out (the fewest requests left), and on a 429 the window
 * that refused, whose `Retry-After` is also sent. A limiter that fails (its store is down) lets
 * the request through, and the failure is logged.
 */
export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const maxKeys = options.maxKeys ?? RATE_LIMIT_DEFAULTS.maxKeys;
  const makeCounter = options.limiter ?? ((window) => boundedMemoryCounter(window, maxKeys));
  const windows = (
    [
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
    ] as const
  ).map((window) => ({ window, counter: makeCounter(window) }));

  return {
    async check(key, log) {
      let tightest: { window: RateLimitWindow; count: WindowCount } | undefined;
      for (const { window, counter } of windows) {
        let count: WindowCount;
        try {
          count = await counter.consume(key);
        } catch (rejection) {
          if (!isCount(rejection)) {
            log.warn(
              { err: rejection, window: window.name },
              'rate limiter unavailable; request let through',
            );
            continue;
          }
          const retry = seconds(rejection.msBeforeNext);
          return {
            headers: headersOf(window, rejection),
            refused: {
              code: 'RATE_LIMITED',
              detail: `The rate limit of this restaurant context (${window.points} per ${window.name}) is spent; retry in ${retry} s.`,
              headers: { 'Retry-After': String(retry) },
            },
            refusedBy: window.name,
          };
        }
        if (tightest === undefined || count.remainingPoints < tightest.count.remainingPoints) {
          tightest = { window, count };
        }
      }
      return {
        headers: tightest === undefined ? {} : headersOf(tightest.window, tightest.count),
        refused: undefined,
      };
    },
  };
}
