/** One rate-limit window, as the edge asks a counter for it. */
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
 * A window's count of a key after a request, answered at once, and whether it refused the
 * request. Each is a new object, the caller's to keep.
 */
export interface WindowDecision extends WindowCount {
  /** The window had no point left: the request is refused (and was not counted). */
  readonly spent: boolean;
}

/**
 * The port of a rate-limit window: count a request of a key. A rate-limiter-flexible limiter fits
 * as it is (`RateLimiterRedis`, `RateLimiterPostgres`, …). A counter that can often decide from
 * what it holds (leased or cached counts) also offers `consumeNow`, so that the request is decided
 * without a promise. `@workforce-kit/http` counts through it; `@workforce-kit/postgres` implements
 * it over a shared table.
 *
 * @example
 * ```ts
 * const counter: WindowCounter = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'second', points: 20, duration: 1 });
 * const count = await counter.consume('restaurant:b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b');
 * ```
 */
export interface WindowCounter {
  /**
   * Resolves with the count while the key has points left; rejects with the count (not an
   * `Error`) when they are spent. Any other rejection is the counter's failure.
   */
  consume(key: string): Promise<WindowCount>;
  /**
   * Optional: counts a request of `key` at once, when the counter can decide from what it holds;
   * `undefined` when it cannot, having counted nothing, and the edge then calls `consume`. A
   * throw is the counter's failure, as a rejection of `consume` is.
   *
   * @param key - the restaurant context (or the client's address)
   * @returns the decision, or `undefined` to be asked through `consume`
   * @example
   * ```ts
   * const decided = counter.consumeNow?.(key);
   * const count = decided === undefined ? await counter.consume(key) : decided;
   * ```
   */
  consumeNow?(key: string): WindowDecision | undefined;
}
