/** The retry schedule of a delivery: exponential backoff with jitter, then the dead letters. */
export interface RetryPolicy {
  /** The delay after the first failed attempt. @default 1000 */
  readonly minDelayMs?: number;
  /** The longest delay. @default 3_600_000 (1 h) */
  readonly maxDelayMs?: number;
  /** Each delay is multiplied by a random factor in [1 - jitter, 1 + jitter]. @default 0.2 */
  readonly jitter?: number;
  /** A delivery that failed this many attempts is dead. @default 20 */
  readonly maxAttempts?: number;
  /** A delivery that fails when its event is older than this is dead. @default 86_400_000 (24 h) */
  readonly maxAgeMs?: number;
}

/** The defaults of {@link RetryPolicy}. */
export const RETRY_DEFAULTS: Required<RetryPolicy> = {
  minDelayMs: 1000,
  maxDelayMs: 3_600_000,
  jitter: 0.2,
  maxAttempts: 20,
  maxAgeMs: 86_400_000,
};

/**
 * The delay before the next attempt after `attempts` failed ones: `minDelayMs · 2^(attempts-1)`,
 * at most `maxDelayMs`, times a random factor in [1 - jitter, 1 + jitter] (so that deliveries
 * that failed together do not all come back together).
 *
 * @example
 * ```ts
 * retryDelayMs(1); // about 1 s; retryDelayMs(4): about 8 s; retryDelayMs(30): about 1 h
 * ```
 */
export function retryDelayMs(
  attempts: number,
  policy: RetryPolicy = {},
  random: () => number = Math.random,
): number {
  const { minDelayMs, maxDelayMs, jitter } = { ...RETRY_DEFAULTS, ...policy };
  const base = Math.min(maxDelayMs, minDelayMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.round(base * (1 - jitter + 2 * jitter * random()));
}
