import { requestIdFrom } from '@workforce-kit/http/adapter';
import type { Request, RequestHandler, Response } from 'express';

const LOCALS_KEY = 'workforceKitRequestId';

/** The id the host's {@link requestIds} gave a request, if it did. */
export function assignedRequestId(res: Response): string | undefined {
  const assigned: unknown = res.locals[LOCALS_KEY];
  return typeof assigned === 'string' ? assigned : undefined;
}

/**
 * The id of a request: the one it was already given (by {@link requestIds} or the router), else a
 * sane incoming `X-Request-Id`, else a new UUID. A new id is set on the response's
 * `X-Request-Id` header and kept for the rest of the request.
 */
export function requestIdOf(req: Request, res: Response): string {
  const assigned = assignedRequestId(res);
  if (assigned !== undefined) return assigned;
  const id = requestIdFrom(req.headers['x-request-id']);
  res.locals[LOCALS_KEY] = id;
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * Express middleware that gives every request of the host app a request id, by the router's
 * rules (a sane incoming `X-Request-Id` is reused): the `X-Request-Id` response header, and the
 * `requestId` of any problem the app answers with `sendProblem` or `problemHandler`. Mount it
 * first; the router then uses the same id.
 *
 * @returns the middleware
 * @example
 * ```ts
 * app.use(requestIds());
 * app.get('/healthz', (_req, res) => res.json({ status: 'ok' })); // answers with X-Request-Id
 * ```
 */
export function requestIds(): RequestHandler {
  return (req, res, next) => {
    requestIdOf(req, res);
    next();
  };
}
