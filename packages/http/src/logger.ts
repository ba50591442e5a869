/**
 * What the edge logs through: the four methods it calls. A pino logger fits as it is; so does any
 * logger with `info`, `warn`, `error` and `child`.
 *
 * @example
 * ```ts
 * import { pino } from 'pino';
 *
 * const logger: Logger = pino({ level: 'info' });
 * ```
 */
export interface Logger {
  /** Logs at level info: `details` as fields, then the message. */
  info(details: object, message?: string): void;
  /** Logs at level warn: `details` as fields, then the message. */
  warn(details: object, message?: string): void;
  /** Logs at level error: `details` as fields, then the message. */
  error(details: object, message?: string): void;
  /** A logger whose every line carries `bindings` (the request id). */
  child(bindings: Record<string, unknown>): Logger;
  /** Whether `info` writes anything (the per-request log is skipped when not). @default true */
  isLevelEnabled?(level: string): boolean;
}

/**
 * What has a logger at hand when a line is to be written: a request's state, which makes its
 * logger (every line with the request's id) only then.
 */
export interface LogSource {
  readonly log: Logger;
}
