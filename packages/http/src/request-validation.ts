import type { Guid } from '@workforce-kit/core';
import type { OpenApiDocument } from '@workforce-kit/types';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { err, ok, type Result } from 'neverthrow';
import {
  compileIdentifierInputs,
  isIdentifierInput,
  type PathIdentifiers,
  PathInputs,
} from './identifier-inputs.js';
import type { ApiOperation, OperationParameter } from './operations.js';
import type { InvalidInput } from './problems.js';

// ajv-formats is CommonJS: Node's default import is its module.exports, the plugin, which also
// holds itself as `default` (what the types describe).
const addFormats = addFormatsModule.default;

/** The parts of a request the spec constrains, as the framework parsed them. */
export interface RequestParts {
  /** The path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The headers, names in lower case (as Node gives them). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The query parameters, as parsed (a repeated one is an array). */
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
  /**
   * The context restaurant, as `contextRestaurant` (auth/authorize.ts) parsed it from its header:
   * `undefined` when the header is missing or not a GUID.
   */
  readonly restaurant: Guid | undefined;
}

/**
 * The inputs of a valid request, what its use case is given: the context restaurant, the path's
 * parameters (each identifier parsed by the core's parser: {@link PathInputs}) and the query, its
 * values coerced to the spec's types (`"true"` is `true`).
 */
export class ValidInputs extends PathInputs {
  constructor(
    readonly restaurant: Guid,
    params: Readonly<Record<string, string>>,
    identifiers: PathIdentifiers,
    readonly query: Readonly<Record<string, unknown>>,
  ) {
    super(params, identifiers);
  }
}

/** The outcome of validating a request: its inputs, or what is wrong with them. */
export type RequestCheck = Result<ValidInputs, readonly InvalidInput[]>;

/**
 * Validates the requests of one operation against the spec, given the parts of
 * {@link RequestParts} one by one (no object made per request to hold them).
 */
export type RequestValidator = (
  params: RequestParts['params'],
  headers: RequestParts['headers'],
  query: RequestParts['query'],
  body: RequestParts['body'],
  restaurant: RequestParts['restaurant'],
) => RequestCheck;

/** A query with no parameter: validated as it is (coercion has nothing to change in it). */
const NO_PARAMETERS: Readonly<Record<string, unknown>> = Object.freeze({});

function hasNoKeys(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

const SPEC_ID = 'workforce-kit-spec';
const COMPONENT_SCHEMAS = '#/components/schemas/';

/**
 * A schema of the spec, ready to compile on its own: each `#/components/schemas/X` reference in
 * it points at `X` in the spec's schemas, which {@link specAjv} holds as `$defs` of one schema.
 */
export function compilable<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(compilable) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith(COMPONENT_SCHEMAS)
        ? `${SPEC_ID}#/$defs/${item.slice(COMPONENT_SCHEMAS.length)}`
        : compilable(item),
    ]),
  ) as T;
}

/**
 * An ajv for the spec: JSON Schema 2020-12 (OpenAPI 3.1's dialect), its formats, every input
 * error reported at once, and the spec's component schemas. `coerce`: query strings become the
 * spec's booleans and numbers.
 */
export function specAjv(document: OpenApiDocument, coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    coerceTypes: coerce,
    strict: true,
    // The spec is checked against its meta-schemas when it changes (`pnpm spec:lint`), not again
    // at every start: that took a quarter of a second.
    validateSchema: false,
    // OpenAPI's own annotation, beside JSON Schema's `examples`.
    keywords: ['example'],
  });
  addFormats(ajv);
  ajv.addSchema({ $id: SPEC_ID, $defs: compilable(document.components?.schemas ?? {}) });
  return ajv;
}

type Part = 'params' | 'headers' | 'query';

/** A JSON schema of a part of a request, ready to compile with {@link specAjv}. */
export type PartSchema = Readonly<Record<string, unknown>>;

/** The schema of one part of an operation's request: its parameters of that place. */
function partSchema(parameters: readonly OperationParameter[], part: Part): PartSchema {
  const place = { params: 'path', headers: 'header', query: 'query' } as const;
  const own = parameters.filter((p) => p.in === place[part]);
  const name = (p: OperationParameter) => (part === 'headers' ? p.name.toLowerCase() : p.name);
  return {
    type: 'object',
    properties: Object.fromEntries(own.map((p) => [name(p), compilable(p.schema)])),
    required: own.filter((p) => p.required).map(name),
    // Unknown query parameters are refused, as the spec says; other headers are anyone's.
    additionalProperties: part !== 'query',
  };
}

/**
 * The schemas ajv checks an operation's request against, part by part, as the spec states them:
 * path parameters, headers (names in lower case), query (unknown parameters refused) and body.
 * The identifier inputs are left out: the core's parsers check them (identifier-inputs.ts).
 *
 * @example
 * ```ts
 * const compile = createSchemaCompiler(openapiDocument);
 * const query = compile(requestSchemas(operation).querystring, 'querystring');
 * ```
 */
export function requestSchemas(operation: ApiOperation): {
  readonly params: PartSchema;
  readonly headers: PartSchema;
  readonly querystring: PartSchema;
  readonly body?: PartSchema;
} {
  const checked = operation.parameters.filter((p) => !isIdentifierInput(p));
  return {
    params: partSchema(checked, 'params'),
    headers: partSchema(checked, 'headers'),
    querystring: partSchema(checked, 'query'),
    ...(operation.bodySchema === undefined ? {} : { body: compilable(operation.bodySchema) }),
  };
}

/**
 * A compiler of request schemas with the spec's component schemas at hand, as both adapters
 * validate: query values coerced to the spec's types, every other part taken as sent.
 */
export function createSchemaCompiler(
  document: OpenApiDocument,
): (schema: PartSchema, part: 'params' | 'headers' | 'querystring' | 'body') => ValidateFunction {
  const strings = specAjv(document, false);
  const coercing = specAjv(document, true);
  return (schema, part) => (part === 'querystring' ? coercing : strings).compile(schema);
}

/** What a validator is given beside the data: where it is, and the dynamic anchors in scope. */
type CallContext = NonNullable<Parameters<ValidateFunction>[1]>;

/**
 * The context of a validator called on a request's part, made once: `Ajv2020`'s generated code
 * makes a `dynamicAnchors` object on every call given none, which only a schema with a
 * `$dynamicAnchor` (or `$recursiveAnchor`) writes to. Left out, the other fields take ajv's
 * defaults for a call at the top (`rootData` is the data).
 */
const SHARED_CONTEXT = { dynamicAnchors: Object.freeze({}) } as CallContext;

/** Whether a schema, or a schema within it, names a dynamic anchor for ajv to write down. */
function hasDynamicAnchor(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  return Object.entries(schema).some(
    ([key, value]) =>
      key === '$dynamicAnchor' || key === '$recursiveAnchor' || hasDynamicAnchor(value),
  );
}

/** Whether a parameter's schema is `{ type: 'string' }`, and nothing more. */
function isPlainString(schema: unknown): boolean {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    Object.keys(schema).length === 1 &&
    'type' in schema &&
    schema.type === 'string'
  );
}

/** One ajv error as an input of the request: where it is, and what is wrong. */
function inputOf(part: string, error: ErrorObject): InvalidInput {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required') {
    return { path: `/${part}/${params.missingProperty}`, message: 'is required', missing: true };
  }
  if (error.keyword === 'additionalProperties') {
    const name = String(params.additionalProperty);
    return {
      path: `/${part}/${name}`,
      message: `Unknown query parameter '${name}'`,
      missing: false,
    };
  }
  return {
    path: `/${part}${error.instancePath}`,
    message: error.message ?? 'is invalid',
    missing: false,
  };
}

/** Each input once (a GUID that misses both `format` and `pattern` is one bad input). */
function collect(
  invalid: InvalidInput[],
  part: string,
  errors: readonly ErrorObject[] | null | undefined,
): void {
  for (const error of errors ?? []) {
    const input = inputOf(part, error);
    if (!invalid.some((seen) => seen.path === input.path)) invalid.push(input);
  }
}

/**
 * Compiles, once, a validator per operation from the spec: path parameters, headers, query (its
 * values coerced) and body, each against the schemas the spec gives them; the identifier inputs
 * by the core's parsers, the others by ajv. The invalid inputs are listed in request order: path
 * parameters, headers, query, body.
 *
 * @param document - the spec
 * @param operations - its operations, as {@link readOperations} read them
 * @returns the validator of each operation, by id
 */
export function compileRequestValidators(
  document: OpenApiDocument,
  operations: readonly ApiOperation[],
): ReadonlyMap<string, RequestValidator> {
  const compile = createSchemaCompiler(document);
  // A spec with a dynamic anchor has each call make its own, as ajv does by default.
  const context = hasDynamicAnchor(document) ? undefined : SHARED_CONTEXT;
  return new Map(
    operations.map((operation) => {
      const identifiers = compileIdentifierInputs(operation);
      const schemas = requestSchemas(operation);
      const params = compile(schemas.params, 'params');
      // The route table gives every path parameter, as a string: a schema that asks no more of
      // them passes every routed request, and is not asked again per request.
      const checksParams = Object.values(schemas.params.properties ?? {}).some(
        (parameter) => !isPlainString(parameter),
      );
      const headers = compile(schemas.headers, 'headers');
      const query = compile(schemas.querystring, 'querystring');
      // Whether a request without a query passes the query schema is the same for every one.
      const emptyQuery = query({});
      const body = schemas.body === undefined ? undefined : compile(schemas.body, 'body');
      const validator: RequestValidator = (
        sentParams,
        sentHeaders,
        sentQuery,
        sentBody,
        authorized,
      ) => {
        const path = identifiers.path(sentParams);
        // Coerced in a copy: the caller's query stays as parsed.
        const coerced = hasNoKeys(sentQuery) ? NO_PARAMETERS : { ...sentQuery };
        if (
          path.isOk() &&
          authorized !== undefined &&
          (!checksParams || params(sentParams, context)) &&
          headers(sentHeaders, context) &&
          (coerced === NO_PARAMETERS ? emptyQuery : query(coerced, context)) &&
          (body === undefined || sentBody === undefined || body(sentBody, context))
        ) {
          return ok(new ValidInputs(authorized, sentParams, path.value, coerced));
        }
        // Some input is invalid: run each check again to collect every bad input, in request order.
        const invalid: InvalidInput[] = [];
        if (path.isErr()) invalid.push(...path.error);
        if (!params(sentParams)) collect(invalid, 'params', params.errors);
        const restaurant = identifiers.restaurant(authorized, sentHeaders);
        if (restaurant.isErr()) invalid.push(restaurant.error);
        if (!headers(sentHeaders)) collect(invalid, 'headers', headers.errors);
        if (!query({ ...sentQuery })) collect(invalid, 'query', query.errors);
        if (body !== undefined && sentBody !== undefined && !body(sentBody)) {
          collect(invalid, 'body', body.errors);
        }
        return err(invalid);
      };
      return [operation.id, validator];
    }),
  );
}
