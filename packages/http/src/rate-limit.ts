import {
  isThenable,
  type MaybeAsync,
  type RateLimitWindow,
  type Thenable,
  type WindowCount,
  type WindowCounter,
  type WindowDecision,
} from '@workforce-kit/core';
import { LRUCache } from 'lru-cache';
import type { LogSource } from './logger.js';
import type { ProblemOccurrence } from './problems.js';

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
}

/**
 * The default counter of a window: a fixed window per key, from its first request, counted in
 * this process's memory and answered at once. At most `maxKeys` keys are held: past it, the least
 * recently counted key is dropped with its count, so that requests naming ever new restaurant
 * contexts cannot grow memory without bound. A refused request is not counted.
 */
export class MemoryWindowCounter implements WindowCounter {
  readonly #points: number;
  readonly #durationMs: number;
  readonly #keys: LRUCache<string, KeyWindow>;
  /** The decision `consumeNow` answers, written in place: its caller reads it at once. */
  readonly #decision = { count: { remainingPoints: 0, msBeforeNext: 0 }, spent: false };

  constructor(window: RateLimitWindow, maxKeys: number) {
    this.#points = window.points;
    this.#durationMs = window.durationSeconds * 1000;
    this.#keys = new LRUCache({ max: maxKeys });
  }

  /** How many keys it holds. */
  get size(): number {
    return this.#keys.size;
  }

  /** Counts a request of `key`; the answer is valid until the next call. */
  consumeNow(key: string): WindowDecision {
    const now = Date.now();
    let held = this.#keys.get(key, KEY_GET);
    if (held === undefined || held.resetsAt <= now) {
      held = { counted: 0, resetsAt: now + this.#durationMs };
      this.#keys.set(key, held);
    }
    const decision = this.#decision;
    decision.spent = held.counted >= this.#points;
    if (!decision.spent) held.counted += 1;
    decision.count.remainingPoints = this.#points - held.counted;
    decision.count.msBeforeNext = held.resetsAt - now;
    return decision;
  }

  consume(key: string): Promise<WindowCount> {
    const { count, spent } = this.consumeNow(key);
    const copy = { ...count };
    return spent ? Promise.reject(copy) : Promise.resolve(copy);
  }
}

/**
 * A request's rate-limit decision: the `RateLimit-*` values (as the headers carry them) of the
 * window closest to running out, or of the one that refused; and the 429 when it is refused.
 */
export interface RateLimitDecision {
  /** The window's points: `RateLimit-Limit`. */
  readonly limit: string;
  /** `RateLimit-Remaining`. */
  readonly remaining: string;
  /** Seconds until the window ends: `RateLimit-Reset` (and `Retry-After` on a 429). */
  readonly reset: string;
  /** The 429 of a refused request. */
  readonly refused: ProblemOccurrence | undefined;
}

/**
 * Counts requests by key and decides: let through, or 429. `undefined` lets the request through
 * with no `RateLimit-*` headers (no window could count it). At once while every window answers at
 * once; else a promise.
 */
export interface RateLimiter {
  check(key: string, request: LogSource): MaybeAsync<RateLimitDecision | undefined>;
}

/**
 * The limiter's verdict so far on one request, filled window by window. Its header values are kept
 * as text, made once for the window that describes the request.
 */
class Decision implements RateLimitDecision {
  /** `''` until a window counted the request (then it has no headers). */
  limit = '';
  remaining = '';
  reset = '';
  refused: ProblemOccurrence | undefined;
  /** The requests left in the window that describes it, to compare the next window's with. */
  least = 0;

  /** Takes a window's count: the window with the fewest requests left describes the request. */
  allow(counted: CountedWindow, count: WindowCount): void {
    if (this.limit !== '' && count.remainingPoints >= this.least) return;
    describe(this, counted, count);
  }

  /** The window had no point left: the 429, described by that window. */
  refuse(counted: CountedWindow, count: WindowCount): void {
    const { window } = counted;
    const retry = seconds(count.msBeforeNext);
    describe(this, counted, count);
    this.refused = {
      code: 'RATE_LIMITED',
      detail: `The rate limit of this restaurant context (${window.points} per ${window.name}) is spent; retry in ${retry} s.`,
      headers: { 'Retry-After': String(retry) },
    };
  }
}

/** The decision described by a window's count. */
function describe(decision: Decision, { limit }: CountedWindow, count: WindowCount): void {
  decision.limit = limit;
  decision.least = count.remainingPoints;
  decision.remaining = String(count.remainingPoints);
  decision.reset = String(seconds(count.msBeforeNext));
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** A counter's failure (its store is down): the request is let through, and it is logged. */
class Unavailable {
  constructor(readonly cause: unknown) {}
}

function isCount(value: unknown): value is WindowCount {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Error) &&
    typeof (value as WindowCount).msBeforeNext === 'number'
  );
}

/** A window's decision through its `consume` promise (a `consume` that throws is a failure too). */
function consumed(counter: WindowCounter, key: string): MaybeAsync<WindowDecision | Unavailable> {
  let counting: Promise<WindowCount>;
  try {
    counting = counter.consume(key);
  } catch (failure) {
    return new Unavailable(failure);
  }
  return counting.then(
    (count) => ({ count, spent: false }),
    (rejection: unknown) =>
      isCount(rejection) ? { count: rejection, spent: true } : new Unavailable(rejection),
  );
}

/** A window's decision at once when its counter can make it, else through `consume`. */
function decisionOf(counter: WindowCounter, key: string): MaybeAsync<WindowDecision | Unavailable> {
  let decided: WindowDecision | undefined;
  try {
    decided = counter.consumeNow?.(key);
  } catch (failure) {
    return new Unavailable(failure);
  }
  return decided ?? consumed(counter, key);
}

/** What {@link createRateLimiter} is told besides the limits. */
export interface RateLimiterHooks {
  /** Called with the window that refused a request (the metrics count them). */
  readonly onRefusal?: (window: RateLimitWindow['name']) => void;
}

interface CountedWindow {
  readonly window: RateLimitWindow;
  /** Its points, as `RateLimit-Limit` says them. */
  readonly limit: string;
  readonly counter: WindowCounter;
}

/**
 * The rate limits: each request counted in each window in turn, per second then per 15 minutes, by
 * the window's counter (in memory, or the `limiter` given). Every counter is asked the same way:
 * at once through `consumeNow` when it can answer so (the in-memory one always can), else through
 * `consume`, awaited; the request waits only from the first window that cannot answer at once. A
 * request refused by the per-second window spends nothing of the 15-minute window, so that a
 * burst of refused requests cannot lock a restaurant out for 15 minutes. The `RateLimit-*` values
 * (IETF draft 6) describe the window closest to running out, and on a 429 the window that refused.
 * A counter that fails (its store is down) lets the request through, and the failure is logged.
 */
class WindowedRateLimiter implements RateLimiter {
  readonly #windows: readonly CountedWindow[];
  readonly #hooks: RateLimiterHooks;

  constructor(windows: readonly CountedWindow[], hooks: RateLimiterHooks) {
    this.#windows = windows;
    this.#hooks = hooks;
  }

  check(key: string, request: LogSource): MaybeAsync<RateLimitDecision | undefined> {
    return this.#countFrom(0, key, request, new Decision());
  }

  /** Counts the request in the windows from `first` on: at once while each answers at once. */
  #countFrom(
    first: number,
    key: string,
    request: LogSource,
    decision: Decision,
  ): MaybeAsync<RateLimitDecision | undefined> {
    const windows = this.#windows;
    for (let index = first; index < windows.length; index += 1) {
      const counted = windows[index] as CountedWindow;
      const decided = decisionOf(counted.counter, key);
      if (isThenable(decided)) return this.#later(decided, index, key, request, decision);
      if (!this.#take(counted, decided, request, decision)) return decision;
    }
    return decision.limit === '' ? undefined : decision;
  }

  /** Goes on from window `index` once its counter's decision settles. */
  #later(
    decided: Thenable<WindowDecision | Unavailable>,
    index: number,
    key: string,
    request: LogSource,
    decision: Decision,
  ): MaybeAsync<RateLimitDecision | undefined> {
    const counted = this.#windows[index] as CountedWindow;
    return decided.then((later) =>
      this.#take(counted, later, request, decision)
        ? this.#countFrom(index + 1, key, request, decision)
        : decision,
    );
  }

  /** Takes a window's decision; whether the request goes on to the next window. */
  #take(
    counted: CountedWindow,
    decided: WindowDecision | Unavailable,
    request: LogSource,
    decision: Decision,
  ): boolean {
    if (decided instanceof Unavailable) {
      request.log.warn(
        { err: decided.cause, window: counted.window.name },
        'rate limiter unavailable; request let through',
      );
      return true;
    }
    if (!decided.spent) {
      decision.allow(counted, decided.count);
      return true;
    }
    decision.refuse(counted, decided.count);
    this.#hooks.onRefusal?.(counted.window.name);
    return false;
  }
}

/**
 * The rate limits of the options, per second then per 15 minutes: each window counted in memory
 * (per process), or by the `limiter` given (shared).
 *
 * @param options - the limits, and the counter of a window
 * @param hooks - what is told of refusals
 * @example
 * ```ts
 * const limiter = createRateLimiter({ perSecond: 20 }, { onRefusal: (window) => refusals.inc() });
 * const decision = await limiter.check(`restaurant:${guid}`, { log });
 * ```
 */
export function createRateLimiter(
  options: RateLimitOptions,
  hooks: RateLimiterHooks = {},
): RateLimiter {
  const maxKeys = options.maxKeys ?? RATE_LIMIT_DEFAULTS.maxKeys;
  const windows: readonly RateLimitWindow[] = [
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
  ];
  const counterOf =
    options.limiter ?? ((window: RateLimitWindow) => new MemoryWindowCounter(window, maxKeys));
  return new WindowedRateLimiter(
    windows.map((window) => ({ window, limit: String(window.points), counter: counterOf(window) })),
    hooks,
  );
}
