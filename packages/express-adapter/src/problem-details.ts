import type { components } from '@workforce-kit/types';
import type { ErrorRequestHandler, Response } from 'express';
import { problemOf } from './parser-errors.js';
import { requestIdOf } from './request-id.js';
import { findRequestState } from './request-state.js';

export type Problem = components['schemas']['Problem'];
export type ProblemCode = components['schemas']['ProblemCode'];
export type ProblemFieldError = components['schemas']['ProblemFieldError'];

interface ProblemKind {
  readonly status: number;
  readonly title: string;
}

/** Every code of the spec, with its status and title. Keyed by the generated type: exhaustive. */
const KINDS: { readonly [code in ProblemCode]: ProblemKind } = {
  VALIDATION_FAILED: { status: 400, title: 'Request validation failed' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON body' },
  EMPLOYEE_NOT_ARCHIVED: { status: 400, title: 'Employee is not archived' },
  INVALID_TOKEN: { status: 401, title: 'Invalid access token' },
  INVALID_CLIENT: { status: 401, title: 'Invalid client credentials' },
  INSUFFICIENT_SCOPE: { status: 403, title: 'Insufficient scope' },
  RESTAURANT_NOT_PERMITTED: { status: 403, title: 'Restaurant not permitted' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  EMPLOYEE_NOT_FOUND: { status: 404, title: 'Employee not found' },
  SHIFT_NOT_FOUND: { status: 404, title: 'Shift not found' },
  RESTAURANT_NOT_FOUND: { status: 404, title: 'Restaurant not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, title: 'Internal server error' },
  STORAGE_UNAVAILABLE: { status: 503, title: 'Storage unavailable' },
  REQUEST_TIMEOUT: { status: 503, title: 'Request timeout' },
  WRITE_CONTENTION: { status: 503, title: 'Write contention' },
  AUTH_UNAVAILABLE: { status: 503, title: 'Token verification unavailable' },
};

/** The base of every problem `type` URI; the code in kebab case follows. */
export const PROBLEM_TYPE_BASE = 'https://workforce-kit.dev/problems/';

const TYPES = Object.fromEntries(
  Object.keys(KINDS).map((code) => [
    code,
    `${PROBLEM_TYPE_BASE}${code.toLowerCase().replaceAll('_', '-')}`,
  ]),
) as { readonly [code in ProblemCode]: string };

/**
 * One occurrence of a problem, as the code that answers it describes it; the status, `title` and
 * `type` follow from the code.
 */
export interface ProblemOccurrence {
  readonly code: ProblemCode;
  /** What went wrong in this request, in words for the client (never internal details). */
  readonly detail: string;
  /** The offending inputs of a `VALIDATION_FAILED`. */
  readonly errors?: readonly ProblemFieldError[];
  /** Response headers the problem needs (`Retry-After`, `Allow`, `WWW-Authenticate`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Extension members of the body (RFC 9457 section 3.2), such as OAuth 2.0's `error` and
   * `error_description` for a token endpoint. They cannot replace the standard members.
   */
  readonly extensions?: Readonly<Record<string, string>>;
}

/**
 * Sends an RFC 9457 problem details response (`application/problem+json`) with the request id.
 * Does nothing when the response has started (a timeout answered first).
 */
export function writeProblem(
  res: Response,
  requestId: string,
  occurrence: ProblemOccurrence,
): void {
  if (res.headersSent) return;
  const { code, detail, errors, headers, extensions } = occurrence;
  const kind = KINDS[code];
  const body: Problem = {
    ...extensions,
    type: TYPES[code],
    title: kind.title,
    status: kind.status,
    detail,
    instance: res.req.originalUrl.split('?')[0] ?? '',
    code,
    requestId,
    ...(errors === undefined ? {} : { errors: [...errors] }),
  };
  if (headers !== undefined) res.set(headers);
  res.status(kind.status).type('application/problem+json').json(body);
  findRequestState(res)?.finish();
}

/**
 * Answers with problem details, as the router does: the status, `type` and `title` of the code,
 * the `detail` given, and the request's id (the one {@link requestIds} or the router gave it,
 * else a new one, also set in `X-Request-Id`). Does nothing when the response has started.
 * For the host app's own routes, so that every error of a service has one form.
 *
 * @param res - the response to answer
 * @param occurrence - the code, the detail, and any field errors or headers
 * @example
 * ```ts
 * app.post('/login', (req, res) => {
 *   if (!valid(req.body)) return sendProblem(res, { code: 'VALIDATION_FAILED', detail: 'Send a clientId.' });
 * });
 * ```
 */
export function sendProblem(res: Response, occurrence: ProblemOccurrence): void {
  writeProblem(res, requestIdOf(res.req, res), occurrence);
}

/** Options of {@link problemHandler}. */
export interface ProblemHandlerOptions {
  /** Where an unexpected error is logged, with the request id the client got. */
  readonly logger: { error(details: object, message: string): void };
}

/**
 * Express error middleware for the host app: a body the body parsers refused becomes its problem
 * (400 `MALFORMED_JSON`, 413 `PAYLOAD_TOO_LARGE`, 415 `UNSUPPORTED_MEDIA_TYPE` for an unknown
 * charset or `Content-Encoding`), and anything else a 500 `INTERNAL_ERROR` that shows nothing
 * internal; the error is logged under the request id the client got. Mount it last.
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
    writeProblem(res, requestId, {
      code: 'INTERNAL_ERROR',
      detail: 'An unexpected error occurred. Quote the requestId to support.',
    });
  };
}
