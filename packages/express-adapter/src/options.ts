import type { Clock, IdSource, RecordedEvent, WorkforceStore } from '@workforce-kit/core';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AccessTokenVerifier } from './auth/access-token.js';

/** The ports the router reads and writes through: any store that implements the core's ports. */
export type RouterStore = Pick<WorkforceStore, 'employees' | 'shifts' | 'restaurants'>;

/** One rate-limit window, as the router asks a limiter for it. */
export interface RateLimitWindow {
  readonly name: 'second' | '15 minutes';
  /** Requests allowed per window. */
  readonly points: number;
  readonly durationSeconds: number;
}

/** Rate limits per restaurant context (per client address when a request names none). */
export interface RateLimitOptions {
  /** Requests per second. @default 20 */
  readonly perSecond?: number;
  /** Requests per 15 minutes. @default 10000 */
  readonly per15Minutes?: number;
  /**
   * Makes the counter of a window: a rate-limiter-flexible limiter with the window's points and
   * duration. The default counts in memory, so the limits are per process; return a shared one
   * (`RateLimiterPostgres`, `RateLimiterRedis`, …) to share them between processes.
   * @default a RateLimiterMemory per window
   * @example
   * ```ts
   * limiter: (w) => new RateLimiterRedis({ storeClient: redis, keyPrefix: w.name, points: w.points, duration: w.durationSeconds })
   * ```
   */
  readonly limiter?: (window: RateLimitWindow) => RateLimiterAbstract;
  /**
   * How many keys (restaurant contexts, client addresses) the default in-memory limiters hold per
   * window. Past it, the least recently seen key's count is dropped, so that no sequence of
   * requests grows memory without bound. A shared `limiter` is its store's to bound.
   * @default 10000
   */
  readonly maxKeys?: number;
}

/** Options of `createRouter`. */
export interface RouterOptions {
  /** The store: the core's repositories. */
  readonly store: RouterStore;
  /** Verifies bearer tokens: `createJwtVerifier(...)`, or your own {@link AccessTokenVerifier}. */
  readonly auth: AccessTokenVerifier;
  /** Validate every response against the spec (a 500 when one does not match). @default false */
  readonly validateResponses?: boolean;
  /** Rate limits, or `false` for none. @default { perSecond: 20, per15Minutes: 10000 } */
  readonly rateLimit?: RateLimitOptions | false;
  /** Largest request body, in bytes. @default 16384 */
  readonly bodyLimitBytes?: number;
  /** A request not answered in this time gets 503 `REQUEST_TIMEOUT`. @default 10000 */
  readonly requestTimeoutMs?: number;
  /**
   * Called with each event after its change is committed (not awaited; a failure is logged).
   * @default none
   */
  readonly onEvent?: (event: RecordedEvent) => void | Promise<void>;
  /** A pino logger; every line of a request carries its `requestId`. @default pino at level 'warn' */
  readonly logger?: Logger;
  /** The time source of state changes. @default the system clock */
  readonly clock?: Clock;
  /** The source of event ids. @default crypto.randomUUID */
  readonly ids?: IdSource;
  /** Attempts of a use case on a contended record before 503 `WRITE_CONTENTION`. @default 8 */
  readonly maxAttempts?: number;
}

export const DEFAULTS = {
  validateResponses: false,
  perSecond: 20,
  per15Minutes: 10_000,
  bodyLimitBytes: 16 * 1024,
  requestTimeoutMs: 10_000,
  rateLimitMaxKeys: 10_000,
  logLevel: 'warn',
} as const;
