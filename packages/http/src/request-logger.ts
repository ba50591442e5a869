import type { Logger } from './logger.js';

/**
 * The logger of one request: every line it writes carries the request's `requestId`. The child
 * logger is made on the first line, so that a request that logs nothing (most) costs nothing.
 *
 * @example
 * ```ts
 * const log = new RequestLogger(logger, requestId);
 * log.warn({ timeoutMs }, 'request timed out'); // {"requestId":"…","timeoutMs":…}
 * ```
 */
export class RequestLogger implements Logger {
  #child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    readonly requestId: string,
  ) {}

  get #log(): Logger {
    this.#child ??= this.parent.child({ requestId: this.requestId });
    return this.#child;
  }

  info(...line: Parameters<Logger['info']>): void {
    this.#log.info(...line);
  }

  warn(...line: Parameters<Logger['warn']>): void {
    this.#log.warn(...line);
  }

  error(...line: Parameters<Logger['error']>): void {
    this.#log.error(...line);
  }

  child(bindings: Record<string, unknown>): Logger {
    return this.#log.child(bindings);
  }
}
