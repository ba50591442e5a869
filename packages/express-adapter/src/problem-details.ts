import type { components } from '@workforce-kit/types';
import type { Response } from 'express';
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

/** The HTTP status of a problem code. */
export function statusOf(code: ProblemCode): number {
  return KINDS[code].status;
}

/** What a caller says about one occurrence of a problem; the rest follows from the code. */
export interface ProblemOccurrence {
  readonly code: ProblemCode;
  readonly detail: string;
  readonly errors?: readonly ProblemFieldError[];
  /** Response headers the problem needs (`Retry-After`, `Allow`, `WWW-Authenticate`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Sends an RFC 9457 problem details response (`application/problem+json`) with the request id.
 * Does nothing when the response has started (a timeout answered first).
 */
export function sendProblem(res: Response, requestId: string, occurrence: ProblemOccurrence): void {
  if (res.headersSent) return;
  const { code, detail, errors, headers } = occurrence;
  const kind = KINDS[code];
  const body: Problem = {
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
