import type { OpenApiDocument } from '@workforce-kit/types';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { ApiOperation } from './operations.js';
import { compilable, specAjv } from './request-validation.js';

/**
 * Checks an answer against what the spec documents for its operation: why it does not match, or
 * `undefined` when it does. For tests (`validateResponses`): a mismatch becomes a 500.
 */
export type ResponseValidator = (
  operation: ApiOperation,
  status: number,
  body: unknown,
) => string | undefined;

/** Compiles, once, the schema of every documented response of every operation. */
export function compileResponseValidator(
  document: OpenApiDocument,
  operations: readonly ApiOperation[],
): ResponseValidator {
  const ajv = specAjv(document, false);
  const compiled = new Map<string, ValidateFunction | null>();
  for (const operation of operations) {
    for (const [status, schema] of operation.responses) {
      compiled.set(
        `${operation.id} ${status}`,
        schema === undefined ? null : ajv.compile(compilable(schema)),
      );
    }
  }
  return (operation, status, body) => {
    const validate = compiled.get(`${operation.id} ${status}`);
    if (validate === undefined) return `${status} is not a documented status of ${operation.id}`;
    if (validate === null || validate(body)) return undefined;
    return `the ${status} body of ${operation.id} does not match the spec: ${ajv.errorsText(validate.errors)}`;
  };
}
