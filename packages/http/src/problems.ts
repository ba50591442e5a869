import { type DomainError, formatRecordId } from '@workforce-kit/core';
import type { components } from '@workforce-kit/types';
import type { Logger } from './logger.js';

/** An RFC 9457 problem details body, as the API answers every error (the spec's `Problem`). */
export type Problem = components['schemas']['Problem'];
/** A problem's stable machine-readable `code`, one per condition (the spec lists them). */
export type ProblemCode = components['schemas']['ProblemCode'];
/** One offending field of a validation problem: its `path` and a `message`. */
export type ProblemFieldError = components['schemas']['ProblemFieldError'];

/** Seconds a client should wait after a 503 before retrying. */
export const RETRY_AFTER_SECONDS = 1;

/** The base of every problem `type` URI; the code in kebab case follows. */
export const PROBLEM_TYPE_BASE = 'https://workforce-kit.dev/problems/';

/** Every code of the spec, with its status and title. Keyed by the generated type: exhaustive. */
const KINDS: {
  readonly [code in ProblemCode]: { readonly status: number; readonly title: string };
} = {
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

/** The status of a problem code. */
export function problemStatus(code: ProblemCode): number {
  return KINDS[code].status;
}

/**
 * The RFC 9457 body of a problem: its `type`, `title` and `status` from the code, the occurrence's
 * `detail` (and `errors`), the path it happened at and the request's id.
 *
 * @param occurrence - what went wrong
 * @param requestId - the id of the request, as in its `X-Request-Id`
 * @param instance - the request's path, without its query string
 * @example
 * ```ts
 * problemBody({ code: 'NOT_FOUND', detail: 'No operation has this path.' }, requestId, '/labor/v1/x');
 * ```
 */
export function problemBody(
  occurrence: ProblemOccurrence,
  requestId: string,
  instance: string,
): Problem {
  const { code, detail, errors, extensions } = occurrence;
  const kind = KINDS[code];
  return {
    ...extensions,
    type: TYPES[code],
    title: kind.title,
    status: kind.status,
    detail,
    instance,
    code,
    requestId,
    ...(errors === undefined ? {} : { errors: [...errors] }),
  };
}

/**
 * What an identifier input accepts, in words (in place of the spec's regular expression), by what
 * its parser expected (`MalformedIdentifier.expected`).
 */
export const IDENTIFIER_MESSAGES = {
  guid: 'must be a platform GUID',
  'guid-or-external-id':
    'must be a platform GUID or an external identifier {namingAuthority}:{value}',
} as const;

/** A request input that failed validation. */
export interface InvalidInput {
  /** Where it is: `/params/shiftId`, `/headers/…`, `/query/…`, `/body/…`. */
  readonly path: string;
  readonly message: string;
  /** Whether the input is missing (rather than malformed). */
  readonly missing: boolean;
}

/**
 * The 400 of a request whose inputs failed validation: each input with its message. A missing
 * input "is required"; a malformed identifier says what it accepts ({@link IDENTIFIER_MESSAGES});
 * anything else has the validator's message.
 */
export function validationProblem(inputs: readonly InvalidInput[]): ProblemOccurrence {
  const errors = inputs.map(({ path, message, missing }) => ({
    path,
    message: missing ? 'is required' : message,
  }));
  return {
    code: 'VALIDATION_FAILED',
    detail: `The request has ${errors.length} invalid input${errors.length === 1 ? '' : 's'}.`,
    errors,
  };
}

/** The 500 every unexpected failure answers: nothing internal, the request id to quote. */
export const INTERNAL_ERROR: ProblemOccurrence = {
  code: 'INTERNAL_ERROR',
  detail: 'An unexpected error occurred. Quote the requestId to support.',
};

/**
 * The one mapping from the use cases' errors to HTTP: each error type has exactly one code (and
 * so one status). The switch is exhaustive: a new error type does not compile until it is mapped.
 * Nothing internal (a storage cause, a not-found reason) reaches the client. (A malformed
 * identifier never reaches a use case: the edge parses it first and answers it 400 at its input,
 * see identifier-inputs.ts.)
 */
export function domainProblem(error: DomainError): ProblemOccurrence {
  switch (error.type) {
    case 'EmployeeNotFound':
      return {
        code: 'EMPLOYEE_NOT_FOUND',
        detail: `No employee ${formatRecordId(error.employeeId)} at this restaurant.`,
      };
    case 'EmployeeNotArchived':
      return {
        code: 'EMPLOYEE_NOT_ARCHIVED',
        detail: `Employee ${error.employeeGuid} is not archived.`,
      };
    case 'ShiftNotFound':
      return {
        code: 'SHIFT_NOT_FOUND',
        detail: `No shift ${formatRecordId(error.shiftId)} at this restaurant.`,
      };
    case 'RestaurantNotFound':
      // The same words for every reason: nothing hints that another restaurant exists.
      return {
        code: 'RESTAURANT_NOT_FOUND',
        detail: 'No such restaurant is available in this context.',
      };
    case 'StorageUnavailable':
      return {
        code: 'STORAGE_UNAVAILABLE',
        detail: 'The store is unavailable; nothing was changed. Retry later.',
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      };
    case 'WriteContention':
      return {
        code: 'WRITE_CONTENTION',
        detail:
          'The record kept changing under this request; nothing was changed by it. Retry later.',
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      };
    case 'IdentityChangeRefused':
      // A defect, not the client's doing: a 500, logged (see logDomainError).
      return INTERNAL_ERROR;
    default: {
      const unmapped: never = error;
      return unmapped;
    }
  }
}

/**
 * Logs a use case's error as it deserves: a store that is down or a record that kept changing is
 * a warning; a refused identity change is a defect, an error. The client's errors are not logged.
 */
export function logDomainError(error: DomainError, log: Logger): void {
  switch (error.type) {
    case 'StorageUnavailable':
      log.warn({ err: error.cause, operation: error.operation }, error.type);
      return;
    case 'WriteContention':
      log.warn({ error }, error.type);
      return;
    case 'IdentityChangeRefused':
      log.error({ error }, 'a write would have changed the identity of a record');
      return;
    default:
      return;
  }
}
