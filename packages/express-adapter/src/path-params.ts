import type { OperationSpec } from './operations.js';
import type { ProblemCode, ProblemFieldError } from './problem-details.js';

/**
 * Percent-decodes the path parameters. A value that does not decode is a malformed input (400),
 * but for a parameter the spec leaves unconstrained (`restaurantGUID`: any string, and anything
 * that is not a GUID is simply not found), which keeps its raw value.
 */
export function decodeParams(
  raw: Readonly<Record<string, string>>,
  operation: OperationSpec,
):
  | { values: Record<string, string> }
  | { error: { code: ProblemCode; detail: string; errors: ProblemFieldError[] } } {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      values[name] = value.includes('%') ? decodeURIComponent(value) : value;
    } catch {
      if (operation.unconstrainedParams.has(name)) {
        values[name] = value;
        continue;
      }
      return {
        error: {
          code: 'VALIDATION_FAILED',
          detail: 'The request has 1 invalid input.',
          errors: [{ path: `/params/${name}`, message: 'is not valid percent-encoding' }],
        },
      };
    }
  }
  return { values };
}
