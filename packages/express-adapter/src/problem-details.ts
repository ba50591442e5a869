import type { Logger, ProblemOccurrence } from '@workforce-kit/http';
import { INTERNAL_ERROR, problemBody, problemStatus } from '@workforce-kit/http/adapter';
import type { ErrorRequestHandler, Response } from 'express';
import { sendJson } from './json-response.js';
import { problemOf } from './parser-errors.js';
import { requestIdOf } from './request-id.js';

/**
 * Writes an RFC 9457 problem details response (`application/problem+json`) with the request id.
 * Does nothing when the response has started (a timeout answered first).
 */
export function writeProblem(
  res: Response,
  requestId: string,
  occurrence: ProblemOccurrence,
): void {
  if (res.headersSent) return;
  const body = problemBody(occurrence, requestId, res.req.originalUrl.split('?')[0] ?? '');
  if (occurrence.headers !== undefined) res.set(occurrence.headers);
  // Written as the 200s are (no ETag): an error is not revalidated either.
  sendJson(res, body, problemStatus(occurrence.code), 'application/problem+json; charset=utf-8');
}

/**
 * Answers with problem details, as the router does: the status, `type` and `title` of the code,
 * the `detail` given, and the request's id (the one `requestIds` or the router gave it, else a
 * new one, also set in `X-Request-Id`). Does nothing when the response has started. For the host
 * app's own routes, so that every error of a service has one form.
 *
 * @param res - the response to answer
 * @param occurrence - the code, the detail, and any field errors or headers
 * @example
 * ```ts
 * app.post('/login', (req, res) => {
 *   if (typeof req.body?.clientId !== 'string') {
 *     return sendProblem(res, { code: 'VALIDATION_FAILED', detail: 'Send a clientId.' });
 *   }
 *   res.json({ ok: true });
 * });
 * ```
 */
export function sendProblem(res: Response, occurrence: ProblemOccurrence): void {
  writeProblem(res, requestIdOf(res.req, res), occurrence);
}

/** Options of {@link problemHandler}. */
export interface ProblemHandlerOptions {
  /** Where an unexpected error is logged, with the request id the client got. */
  readonly logger: Pick<Logger, 'error'>;
}

/**
 * Express error middleware for the host app: a body the body parsers refused becomes its problem
 * (400 `MALFORMED_JSON`, 413 `PAYLOAD_TOO_LARGE`, 415 `UNSUPPORTED_MEDIA_TYPE` for an unknown
 * charset or `Content-Encoding`), a path that does not percent-decode a 400, and anything else a
 * 500 `INTERNAL_ERROR` that shows nothing internal; the error is logged under the request id the
 * client got. Mount it last.
 *
 * @example
 * ```ts
 * app.use(problemHandler({ logger }));
 * ```
 */
export function problemHandler(options: ProblemHandlerOptions): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const requestId = requestIdOf(req, res);
    const occurrence = problemOf(error);
    if (occurrence !== undefined) {
      writeProblem(res, requestId, occurrence);
      return;
    }
    options.logger.error(
      { err: error, requestId, method: req.method, path: req.path },
      'unexpected error',
    );
    writeProblem(res, requestId, INTERNAL_ERROR);
  };
}
