import {
  type Guid,
  isThenable,
  type MaybeAsync,
  type RateLimitWindow,
  runSteps,
  type StepList,
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

  constructor(window: RateLimitWindow, maxKeys: number) {
    this.#points = window.points;
    this.#durationMs = window.durationSeconds * 1000;
    this.#keys = new LRUCache({ max: maxKeys });
  }

  /** How many keys it holds. */
  get size(): number {
    return this.#keys.size;
  }

  /** Counts a request of `key`: a new decision, the caller's to keep. */
  consumeNow(key: string): WindowDecision {
    const now = Date.now();
    let held = this.#keys.get(key, KEY_GET);
    if (held === undefined || held.resetsAt <= now) {
      held = { counted: 0, resetsAt: now + this.#durationMs };
      this.#keys.set(key, held);
    }
    const spent = held.counted >= this.#points;
    if (!spent) held.counted += 1;
    // `| 0`: a window's milliseconds fit an int32, so the decision holds a small integer, not a
    // boxed number.
    const msBeforeNext = (held.resetsAt - now) | 0;
    return { remainingPoints: this.#points - held.counted, msBeforeNext, spent };
  }

  consume(key: string): Promise<WindowCount> {
    const decided = this.consumeNow(key);
    return decided.spent ? Promise.reject(decided) : Promise.resolve(decided);
  }
}

/** A window the rate limits count in: its counter, and its points as `RateLimit-Limit` says them. */
interface CountedWindow {
  readonly window: RateLimitWindow;
  readonly limit: string;
  readonly counter: WindowCounter;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * A request's rate-limit decision: the window that describes it (the one closest to running out,
 * or the one that refused it) and its count there. The `RateLimit-*` values are made from them
 * when an answer is written.
 */
export class RateLimitDecision {
  constructor(
    readonly counted: CountedWindow,
    readonly count: WindowDecision,
  ) {}

  /** `RateLimit-Limit`: the window's points. */
  get limit(): string {
    return this.counted.limit;
  }

  /** `RateLimit-Remaining`. */
  get remaining(): string {
    return String(this.count.remainingPoints);
  }

  /** `RateLimit-Reset`: seconds until the window ends (and `Retry-After` on a 429). */
  get reset(): string {
    return String(seconds(this.count.msBeforeNext));
  }

  /** The 429 of a refused request; `undefined` when it was let through. */
  refusal(): ProblemOccurrence | undefined {
    if (!this.count.spent) return undefined;
    const { window } = this.counted;
    const retry = seconds(this.count.msBeforeNext);
    return {
      code: 'RATE_LIMITED',
      detail: `The rate limit of this restaurant context (${window.points} per ${window.name}) is spent; retry in ${retry} s.`,
      headers: { 'Retry-After': String(retry) },
    };
  }
}

/**
 * The key of each restaurant counted lately, made once: a request's key is looked up, where
 * making it would make a string and, for the counters' maps, a flat copy of it.
 */
const RESTAURANT_KEYS = new LRUCache<Guid, string>({ max: RATE_LIMIT_DEFAULTS.maxKeys });
const RESTAURANT_KEY_GET: LRUCache.GetOptions<Guid, string, unknown> = {};

/**
 * The key the rate limits count a request against: its restaurant context, else (a request that
 * names none usable, which validation then refuses) the client's address.
 *
 * @param restaurant - the context restaurant the request may act for
 * @param address - the client's address: the socket's, not one a header claims
 */
export function rateLimitKey(restaurant: Guid | undefined, address: string | undefined): string {
  if (restaurant === undefined) return `ip:${address ?? 'unknown'}`;
  let key = RESTAURANT_KEYS.get(restaurant, RESTAURANT_KEY_GET);
  if (key === undefined) {
    key = `restaurant:${restaurant}`;
    RESTAURANT_KEYS.set(restaurant, key);
  }
  return key;
}

/** What the rate limits count a request by: the key its windows count, and its log. */
export interface RateLimitSubject extends LogSource {
  /** The restaurant context, else the client's address: {@link rateLimitKey}. */
  readonly rateLimitKey: string;
}

/**
 * Counts requests by key and decides: let through, or 429. `undefined` lets the request through
 * with no `RateLimit-*` headers (no window could count it). At once while every window answers at
 * once; else a promise.
 */
export interface RateLimiter {
  check(request: RateLimitSubject): MaybeAsync<RateLimitDecision | undefined>;
}

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
    ({ remainingPoints, msBeforeNext }) => ({ remainingPoints, msBeforeNext, spent: false }),
    (rejection: unknown) =>
      isCount(rejection)
        ? {
            remainingPoints: rejection.remainingPoints,
            msBeforeNext: rejection.msBeforeNext,
            spent: true,
          }
        : new Unavailable(rejection),
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

type Counting = MaybeAsync<RateLimitDecision | undefined>;

/**
 * The step of one window: the request counted in it (at once when its counter can), and the
 * decision so far taken on. A counter that fails lets the request through, logged; a window with
 * no point left refuses it; else the window with fewer requests left describes it.
 */
function countIn(
  counted: CountedWindow,
  hooks: RateLimiterHooks,
): (decision: RateLimitDecision | undefined, request: RateLimitSubject) => Counting {
  const take = (
    decision: RateLimitDecision | undefined,
    decided: WindowDecision | Unavailable,
    request: RateLimitSubject,
  ): RateLimitDecision | undefined => {
    if (decided instanceof Unavailable) {
      request.log.warn(
        { err: decided.cause, window: counted.window.name },
        'rate limiter unavailable; request let through',
      );
      return decision;
    }
    if (decided.spent) {
      hooks.onRefusal?.(counted.window.name);
      return new RateLimitDecision(counted, decided);
    }
    return decision === undefined || decided.remainingPoints < decision.count.remainingPoints
      ? new RateLimitDecision(counted, decided)
      : decision;
  };
  return (decision, request) => {
    const decided = decisionOf(counted.counter, request.rateLimitKey);
    return isThenable(decided)
      ? decided.then((later) => take(decision, later, request))
      : take(decision, decided, request);
  };
}

const isRefusal = (decision: RateLimitDecision | undefined) => decision?.count.spent === true;

/**
 * The rate limits of the options: each request counted in each window in turn, per second then per
 * 15 minutes, by the window's counter (in memory, per process; or the `limiter` given, shared).
 * Every counter is asked the same way: at once through `consumeNow` when it can answer so (the
 * in-memory one always can), else through `consume`, awaited; the request waits only from the
 * first window that cannot answer at once. A request refused by the per-second window spends
 * nothing of the 15-minute window, so that a burst of refused requests cannot lock a restaurant
 * out for 15 minutes. The `RateLimit-*` values (IETF draft 6) describe the window closest to
 * running out, and on a 429 the window that refused. A counter that fails (its store is down) lets
 * the request through, and the failure is logged.
 *
 * @param options - the limits, and the counter of a window
 * @param hooks - what is told of refusals
 * @example
 * ```ts
 * const limiter = createRateLimiter({ perSecond: 20 }, { onRefusal: (window) => refusals.inc() });
 * const decision = await limiter.check({ rateLimitKey: rateLimitKey(restaurant, address), log });
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
  const list: StepList<RateLimitDecision | undefined, RateLimitSubject> = {
    steps: windows.map((window) =>
      countIn({ window, limit: String(window.points), counter: counterOf(window) }, hooks),
    ),
    isDone: isRefusal,
  };
  return { check: (request) => runSteps(list, undefined, request) };
}
