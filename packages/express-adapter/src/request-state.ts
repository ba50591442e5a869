import type { Response } from 'express';
import type { Logger } from 'pino';
import type { Principal } from './auth/access-token.js';

/** What the router learns about a request as it goes, kept on `res.locals`. */
export class RequestState {
  principal: Principal | undefined;
  /** The context restaurant the principal may act for, when the request names one. */
  rateLimitKey: string | undefined;
  #log: Logger | undefined;

  constructor(
    readonly requestId: string,
    private readonly logger: Logger,
  ) {}

  /** The request's logger: every line carries the request id. Made on first use. */
  get log(): Logger {
    this.#log ??= this.logger.child({ requestId: this.requestId });
    return this.#log;
  }
}

const KEY = 'workforceKit';

export function initRequestState(res: Response, state: RequestState): RequestState {
  res.locals[KEY] = state;
  return state;
}

export function requestState(res: Response): RequestState {
  return res.locals[KEY] as RequestState;
}
