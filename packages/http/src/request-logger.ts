import type { Logger } from './logger.js';

/**
 * The logger of one request: every line it writes carries the request's `requestId`, and the
 * `bindings` given (the `traceId` of a traced request). The child logger is made on the first
 * line, so that a request that logs nothing (most) costs nothing.
 *
 * @example
 * ```ts
 * const log = new RequestLogger(logger, requestId, telemetry?.logBindings);
 * log.warn({ timeoutMs }, 'request timed out'); // {"requestId":"…","traceId":"…","timeoutMs":…}
 * ```
 */
export class RequestLogger implements Logger {
  #child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    readonly requestId: string,
    private readonly bindings?: Readonly<Record<string, unknown>>,
  ) {}

  get #log(): Logger {
    this.#child ??= this.parent.child(
      this.bindings === undefined
        ? { requestId: this.requestId }
        : { requestId: this.requestId, ...this.bindings },
    );
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
