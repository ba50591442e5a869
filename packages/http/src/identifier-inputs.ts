/**
 * The identifier inputs of a request, each parsed once, by the core's parser, where the edge takes
 * the request in: the path parameters the spec gives a `GuidInput` or `RecordIdInput` schema
 * (`parseGuid`, `parseRecordId`), and the context restaurant, which `contextRestaurant`
 * (auth/authorize.ts) parsed from its header. ajv does not check them (request-validation.ts leaves
 * them out of its schemas); the use cases take what the parsers made.
 */
import {
  type Guid,
  type MalformedIdentifier,
  parseGuid,
  parseRecordId,
  type RecordIdentifier,
} from '@workforce-kit/core';
import { err, ok, type Result } from 'neverthrow';
import { RESTAURANT_HEADER } from './auth/authorize.js';
import type { ApiOperation, OperationParameter } from './operations.js';
import { IDENTIFIER_MESSAGES, type InvalidInput } from './problems.js';

type Parser = (
  value: string,
  field: string,
) => Result<Guid | RecordIdentifier, MalformedIdentifier>;

/** The core's parser of each identifier schema of the spec. */
const PARSERS: ReadonlyMap<string, Parser> = new Map<string, Parser>([
  ['#/components/schemas/GuidInput', parseGuid],
  ['#/components/schemas/RecordIdInput', parseRecordId],
]);

/** Where the restaurant header is named in a 400's `errors`. */
const RESTAURANT_INPUT = `/headers/${RESTAURANT_HEADER}`;

/** Whether the spec gives a parameter an identifier schema: the core's parser checks it, not ajv. */
export function isIdentifierInput(parameter: OperationParameter): boolean {
  return PARSERS.has(String(parameter.schema.$ref));
}

/** A missing input, as ajv would name it. */
const missing = (path: string): InvalidInput => ({ path, message: 'is required', missing: true });

/** A malformed identifier as an input of the request: where it is (its `field`), what it accepts. */
const malformed = (error: MalformedIdentifier): InvalidInput => ({
  path: error.field,
  message: IDENTIFIER_MESSAGES[error.expected],
  missing: false,
});

/** The identifiers of a request's path, each parsed by the core's parser, by parameter name. */
export type PathIdentifiers = Readonly<Record<string, Guid | RecordIdentifier>>;

/**
 * An operation's path parameters: percent-decoded, each identifier parsed. The operation runner
 * reads what its use case takes; a parameter the spec does not give the operation is a defect
 * (the runner and the spec disagree): it throws, and the request is a logged 500.
 */
export class PathInputs {
  constructor(
    private readonly values: Readonly<Record<string, string>>,
    private readonly identifiers: PathIdentifiers,
  ) {}

  /** A parameter the spec leaves a plain string, as sent: `restaurantGUID`. */
  text(name: string): string {
    const value = this.values[name];
    if (value === undefined) throw new Error(`the operation has no path parameter ${name}`);
    return value;
  }

  /** A `GuidInput` parameter, parsed: unarchive's `employeeId`. */
  guid(name: string): Guid {
    const value = this.identifiers[name];
    if (typeof value !== 'string') throw new Error(`${name} is not a GuidInput of the operation`);
    return value;
  }

  /** A `RecordIdInput` parameter, parsed: `shiftId`, archive's `employeeId`. */
  recordId(name: string): RecordIdentifier {
    const value = this.identifiers[name];
    if (typeof value !== 'object') {
      throw new Error(`${name} is not a RecordIdInput of the operation`);
    }
    return value;
  }
}

/** The path of an operation without identifiers: one answer, as it holds nothing of a request's. */
const NO_IDENTIFIERS: Result<PathIdentifiers, InvalidInput[]> = ok(Object.freeze({}));

/** The identifier inputs of one operation's requests. */
export interface IdentifierInputs {
  /** The path's identifiers, each parsed, or the malformed ones in the path's order. */
  readonly path: (
    params: Readonly<Record<string, string>>,
  ) => Result<PathIdentifiers, InvalidInput[]>;
  /**
   * The context restaurant, as `contextRestaurant` (auth/authorize.ts) parsed it from its header,
   * or the header as an invalid input: missing, or not a GUID.
   */
  readonly restaurant: (
    parsed: Guid | undefined,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ) => Result<Guid, InvalidInput>;
}

function contextRestaurant(
  parsed: Guid | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Result<Guid, InvalidInput> {
  if (parsed !== undefined) return ok(parsed);
  return err(
    headers[RESTAURANT_HEADER] === undefined
      ? missing(RESTAURANT_INPUT)
      : { path: RESTAURANT_INPUT, message: IDENTIFIER_MESSAGES.guid, missing: false },
  );
}

/**
 * Compiles, once, the identifier inputs of an operation from the schemas the spec gives its
 * parameters.
 *
 * @throws when the spec has an identifier input the edge does not parse (one in the query, or a
 *   header other than the restaurant's), or an operation without the restaurant header: at
 *   start-up, never per request
 * @example
 * ```ts
 * const inputs = compileIdentifierInputs(operation); // DELETE /labor/v1/shifts/{shiftId}
 * inputs.path({ shiftId: 'SCHEDULER:42' }); // ok({ shiftId: { kind: 'externalId', … } })
 * inputs.path({ shiftId: 'shift 42' }); // err([{ path: '/params/shiftId', message: 'must be a platform GUID or …' }])
 * ```
 */
export function compileIdentifierInputs(operation: ApiOperation): IdentifierInputs {
  const identifiers = operation.parameters.filter(isIdentifierInput);
  const header = operation.parameters.find(
    (p) => p.in === 'header' && p.name.toLowerCase() === RESTAURANT_HEADER,
  );
  if (header?.schema.$ref !== '#/components/schemas/GuidInput' || !header.required) {
    throw new Error(`${operation.id} must take the restaurant header, a required GuidInput`);
  }
  const other = identifiers.find((p) => p !== header && p.in !== 'path');
  if (other !== undefined) {
    throw new Error(`${operation.id}: the identifier input ${other.name} is not parsed here`);
  }
  const inPath = identifiers.flatMap((p) => {
    const parse = PARSERS.get(String(p.schema.$ref));
    return p.in === 'path' && parse !== undefined
      ? [{ name: p.name, field: `/params/${p.name}`, parse }]
      : [];
  });
  return {
    path(params) {
      if (inPath.length === 0) return NO_IDENTIFIERS;
      const parsed: Record<string, Guid | RecordIdentifier> = {};
      let invalid: InvalidInput[] | undefined;
      for (const { name, field, parse } of inPath) {
        const value = params[name];
        if (value === undefined) {
          invalid ??= [];
          invalid.push(missing(field));
          continue;
        }
        const result = parse(value, field);
        if (result.isOk()) {
          parsed[name] = result.value;
        } else {
          invalid ??= [];
          invalid.push(malformed(result.error));
        }
      }
      return invalid !== undefined ? err(invalid) : ok(parsed);
    },
    restaurant: contextRestaurant,
  };
}
