import type { Logger } from './logger.js';

/**
 * The logger of one request: every line it writes carries the request's `requestId`, and the
 * `bindings` given (the `traceId` of a traced request). No child logger is made: each line is the
 * parent's, with the request's fields first, which prints as a child's would (a pino child costs
 * more to make than the one line most requests write).
 *
 * @example
 * ```ts
 * const log = new RequestLogger(logger, requestId, telemetry.logBindings);
 * log.warn({ timeoutMs: 30_000 }, 'request timed out'); // {"requestId":"…","traceId":"…","timeoutMs":…}
 * ```
 */
export class RequestLogger implements Logger {
  readonly #fields: Readonly<Record<string, unknown>>;

  constructor(
    private readonly parent: Logger,
    readonly requestId: string,
    bindings?: Readonly<Record<string, unknown>>,
  ) {
    this.#fields = bindings === undefined ? { requestId } : { requestId, ...bindings };
  }

  info(details: object, message?: string): void {
    this.parent.info({ ...this.#fields, ...details }, message);
  }

  warn(details: object, message?: string): void {
    this.parent.warn({ ...this.#fields, ...details }, message);
  }

  error(details: object, message?: string): void {
    this.parent.error({ ...this.#fields, ...details }, message);
  }

  child(bindings: Record<string, unknown>): Logger {
    return this.parent.child({ ...this.#fields, ...bindings });
  }
}
