import { type DomainError, formatRecordId, type IdentifierField } from '@workforce-kit/core';
import type { ProblemOccurrence } from './problem-details.js';

/** Seconds a client should wait after a 503 before retrying. */
export const RETRY_AFTER_SECONDS = 1;

/** Where each identifier the core parses sits in a request, as the `errors[].path` of a 400. */
const FIELD_PATHS: { readonly [field in IdentifierField]: string } = {
  employeeId: '/params/employeeId',
  shiftId: '/params/shiftId',
  restaurantContext: '/headers/platform-restaurant-external-id',
};

/** What an identifier input accepts, in words (in place of the spec's regular expression). */
export const IDENTIFIER_MESSAGES = {
  guid: 'must be a platform GUID',
  'guid-or-external-id':
    'must be a platform GUID or an external identifier {namingAuthority}:{value}',
} as const;

/** A request input that failed validation, as the validator reports it. */
export interface InvalidInput {
  readonly path: string;
  readonly message: string;
  /** Whether the input is missing (rather than malformed). */
  readonly missing: boolean;
}

/**
 * The 400 of a request whose inputs failed validation: each input with a readable message. A
 * missing input "is required"; a malformed identifier says what it accepts (`messages`, by input
 * path, from the operation's spec); anything else keeps the validator's message.
 */
export function validationProblem(
  inputs: readonly InvalidInput[],
  messages: ReadonlyMap<string, string>,
): ProblemOccurrence {
  const errors = inputs.map(({ path, message, missing }) => ({
    path,
    message: missing ? 'is required' : (messages.get(path) ?? message),
  }));
  return {
    code: 'VALIDATION_FAILED',
    detail: `The request has ${errors.length} invalid input${errors.length === 1 ? '' : 's'}.`,
    errors,
  };
}

/**
 * The one mapping from the core's errors to HTTP: each error type has exactly one code (and so
 * one status). The switch is exhaustive: a new error type does not compile until it is mapped.
 * Nothing internal (a storage cause, a not-found reason) reaches the client.
 */
export function toProblem(error: DomainError): ProblemOccurrence {
  switch (error.type) {
    case 'MalformedIdentifier':
      return {
        code: 'VALIDATION_FAILED',
        detail: 'The request has 1 invalid input.',
        errors: [{ path: FIELD_PATHS[error.field], message: IDENTIFIER_MESSAGES[error.expected] }],
      };
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
    default: {
      const unmapped: never = error;
      return unmapped;
    }
  }
}
