import type { Response } from 'express';
import type { Logger } from 'pino';
import type { Principal } from './auth/access-token.js';
import type { RequestDeadlines } from './request-deadlines.js';

/** What the router learns about a request as it goes, kept on `res.locals`. */
export class RequestState {
  principal: Principal | undefined;
  /** The context restaurant the principal may act for, when the request names one. */
  rateLimitKey: string | undefined;
  #log: Logger | undefined;

  /**
   * @param requestId - the request's id
   * @param rawParams - the path parameters of the matched operation, still percent-encoded
   * @param deadlines - where the request's timeout runs until it is answered
   */
  constructor(
    readonly requestId: string,
    readonly rawParams: Readonly<Record<string, string>>,
    private readonly logger: Logger,
    private readonly res: Response,
    private readonly deadlines: RequestDeadlines<Response>,
  ) {}

  /** The response is sent: its timeout stops. */
  finish(): void {
    this.deadlines.finish(this.res);
  }

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

/** The state of a request the router has taken, or `undefined` for one it has not. */
export function findRequestState(res: Response): RequestState | undefined {
  return res.locals[KEY] as RequestState | undefined;
}
