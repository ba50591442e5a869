/*
 * Request (and, in tests, response) validation with express-openapi-validator, compiled once.
 *
 * The validator's public `middleware()` is built for an app it owns: per request it re-compiles a
 * path-to-regexp matcher for every route until one matches, matches on `req.originalUrl` (so a
 * router mounted under a prefix never matches), installs `app.param` handlers on the host's app,
 * and keeps one compiled validator per Content-Type value a client sends (an unbounded cache).
 * Its per-route middleware then re-derives, on every request, what depends only on the route
 * (each parameter's dereferenced schema and serialization style, a legacy parse of the URL);
 * profiling put that at about 15 µs a request, more than the rest of the stack.
 *
 * So the router drives the validator's own parts: its `RequestValidator` compiles each
 * operation's parameter and body schemas, with its ajv configuration (formats, coercion), at
 * start-up; the compiled functions are then called per request, with the query rules of its
 * per-route middleware (no unknown or empty parameters). Its parameter deserialization step is
 * left out. For this spec's path and header parameters (plain strings) that step is the
 * identity; for query strings it is not, and the difference is deliberate:
 * - it rewrites names with brackets (`foo[bar]` becomes `foo`) and drops names that start with
 *   one (`[a]=1` then passes as if absent); here every such name is an unknown parameter, a 400,
 *   as the spec says of unknown parameters;
 * - it refuses unencoded reserved characters in `includeArchived` first; here the same value is
 *   refused by the boolean type instead (the decision is the same, the reported input may differ
 *   when another input is also bad).
 * A property test (test/validation-agreement.test.ts) holds the two decisions equal on generated
 * requests, these cases apart. Responses are validated by its `ResponseValidator`, unchanged.
 * These classes are not its documented API, so the version is pinned exactly, and a change in
 * them fails at start-up, not silently.
 */
import type { OpenApiDocument } from '@workforce-kit/types';
import type { Request, RequestHandler, Response } from 'express';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
import type {
  OpenAPIV3,
  OpenApiRequestMetadata,
  ValidateResponseOpts,
} from 'express-openapi-validator/dist/framework/types.js';
import {
  RequestValidator,
  ResponseValidator,
} from 'express-openapi-validator/dist/middlewares/index.js';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import {
  ajvErrorsToValidatorError,
  augmentAjvErrors,
} from 'express-openapi-validator/dist/middlewares/util.js';
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator.js';
import type { InvalidInput } from './to-problem.js';

/** The content type every validated request of an operation carries after normalization. */
export type NormalizedContentType = 'application/json' | undefined;

/** A request that failed validation: one entry per bad input. */
export interface ValidationFailure {
  readonly errors: readonly InvalidInput[];
}

/** The parts of a request the validator checks. */
export interface RequestParts {
  readonly params: Readonly<Record<string, string>>;
  readonly headers: Request['headers'];
  readonly query: Record<string, unknown>;
  readonly body: unknown;
}

/** Validates the requests (and optionally responses) of one operation. */
export interface OperationValidator {
  /**
   * Validates a request's parts; on success the query is coerced in place (`"true"` becomes
   * `true`).
   */
  validate(parts: RequestParts): ValidationFailure | undefined;
  /** Installs the response check on `res.json`, when responses are validated. */
  readonly validateResponse: RequestHandler | undefined;
}

type Metadata = OpenApiRequestMetadata & { _responseSchema?: OpenAPIV3.OperationObject };
/** An ajv validation function, as the validator compiles it. */
type ValidateFunction = ((data: unknown) => boolean) & {
  readonly schema: unknown;
  readonly errors?: Parameters<typeof augmentAjvErrors>[0] | null;
};
type Paths = Record<string, Record<string, OpenAPIV3.OperationObject> | undefined>;
/** What the validator's RequestValidator holds: the ajv instances it compiles into. */
interface CompiledInto {
  readonly ajv: { getSchema(key: string): ValidateFunction | undefined };
  readonly ajvBody: { getSchema(key: string): ValidateFunction | undefined };
}
interface QuerySchema {
  readonly properties?: Record<string, unknown>;
  readonly allowEmptyValue?: ReadonlySet<string>;
}

/**
 * Loads and compiles the document, and returns a validator per operation (`METHOD /openapi/path`).
 *
 * @param contentTypes - the normalized Content-Type of each operation's requests
 */
export async function compileValidation(
  document: OpenApiDocument,
  options: { readonly validateResponses: boolean },
  contentTypes: ReadonlyMap<string, NormalizedContentType>,
): Promise<ReadonlyMap<string, OperationValidator>> {
  const responseOptions: ValidateResponseOpts = { removeAdditional: false, coerceTypes: false };
  const engine = new OpenApiValidator({
    apiSpec: document as unknown as OpenAPIV3.DocumentV3_1,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: options.validateResponses ? responseOptions : false,
    validateSecurity: false,
    validateFormats: true,
    useRequestUrl: true,
  });
  const spec = await new OpenApiSpecLoader({
    apiDoc: structuredClone(document) as unknown as OpenAPIV3.DocumentV3_1,
    validateApiSpec: true,
    $refParser: { mode: 'bundle' },
  }).load();
  const { apiDocRes } = new SchemaPreprocessor(
    spec.apiDoc,
    engine.ajvOpts.preprocessor,
    engine.options.validateResponses as ValidateResponseOpts,
  ).preProcess();
  const requests = new RequestValidator(spec.apiDoc, engine.ajvOpts.request);
  const compiled = requests as unknown as CompiledInto;
  const validateResponse = options.validateResponses
    ? (new ResponseValidator(
        apiDocRes,
        engine.ajvOpts.response,
        responseOptions,
        spec.serial,
      ).validate() as RequestHandler)
    : undefined;

  const validators = new Map<string, OperationValidator>();
  for (const route of spec.routes) {
    const key = `${route.method.toUpperCase()} ${route.openApiRoute}`;
    const method = route.method.toLowerCase();
    const operation = (doc: OpenAPIV3.DocumentV3_1 | OpenAPIV3.DocumentV3) =>
      (doc.paths as Paths)[route.openApiRoute]?.[method] as OpenAPIV3.OperationObject;
    const metadata: Metadata = {
      expressRoute: route.expressRoute,
      openApiRoute: route.openApiRoute,
      pathParams: {},
      schema: operation(spec.apiDoc),
      serial: spec.serial,
      ...(options.validateResponses ? { _responseSchema: operation(apiDocRes) } : {}),
    };
    const contentType = contentTypes.get(key);
    compileRoute(requests, metadata, route.method.toUpperCase(), contentType);
    const cacheKey = `${route.method.toUpperCase()}-${route.expressRoute}-${contentType ?? 'not_provided'}`;
    const general = compiled.ajv.getSchema(cacheKey);
    const body = compiled.ajvBody.getSchema(cacheKey);
    if (general === undefined || body === undefined) {
      throw new Error(
        `express-openapi-validator did not compile ${key} as expected (is it the pinned version?)`,
      );
    }
    const querySchema = ((general.schema as { properties?: { query?: QuerySchema } }).properties
      ?.query ?? {}) as QuerySchema;
    validators.set(key, {
      validate(parts) {
        const unknown = queryFailure(parts.query, querySchema);
        if (unknown !== undefined) return unknown;
        const data = { ...parts, cookies: undefined };
        if (general(data) && body(data)) return undefined;
        const errors = augmentAjvErrors([...(general.errors ?? []), ...(body.errors ?? [])]);
        const { errors: fields } = ajvErrorsToValidatorError(400, errors);
        return {
          errors: fields.map(({ path, message, errorCode }) => ({
            path: path.startsWith('/') ? path : `/${path.replace(/^\./, '').replaceAll('.', '/')}`,
            message: message ?? 'is invalid',
            missing: errorCode === 'required.openapi.validation',
          })),
        };
      },
      validateResponse:
        validateResponse &&
        ((req, res, next) => {
          (req as Request & { openapi?: Metadata }).openapi = metadata;
          validateResponse(req, res, next);
        }),
    });
  }
  return validators;
}

/** The query rules of the validator's middleware: no unknown parameter, no empty value. */
function queryFailure(
  query: Record<string, unknown>,
  schema: QuerySchema,
): ValidationFailure | undefined {
  for (const name of Object.keys(query)) {
    if (schema.properties === undefined || !Object.hasOwn(schema.properties, name)) {
      return {
        errors: [
          { path: `/query/${name}`, message: `Unknown query parameter '${name}'`, missing: false },
        ],
      };
    }
    if (query[name] === '' && !schema.allowEmptyValue?.has(name)) {
      return {
        errors: [
          {
            path: `/query/${name}`,
            message: `Empty value found for query parameter '${name}'`,
            missing: false,
          },
        ],
      };
    }
  }
  return undefined;
}

/**
 * Makes the validator compile an operation's schemas now: it does so on the first request with a
 * given method, route and content type, so a request that carries nothing is run through it once.
 */
function compileRoute(
  requests: RequestValidator,
  metadata: Metadata,
  method: string,
  contentType: NormalizedContentType,
): void {
  const headers: Record<string, string> =
    contentType === undefined ? {} : { 'content-type': contentType };
  const probe = {
    method,
    headers,
    query: {},
    params: {},
    url: '/',
    originalUrl: '/',
    path: '/',
    openapi: metadata,
  };
  try {
    requests.validate(probe as never, {} as Response, () => {});
  } catch {
    // The empty probe fails validation (missing headers); its compiled schemas are kept.
  }
}
