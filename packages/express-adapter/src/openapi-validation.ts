/*
 * Request (and, in tests, response) validation with express-openapi-validator, compiled once.
 *
 * The validator's public `middleware()` is built for an app it owns: per request it re-compiles a
 * path-to-regexp matcher for every route until one matches, matches on `req.originalUrl` (so a
 * router mounted under a prefix never matches), installs `app.param` handlers on the host's app,
 * and keeps one compiled validator per Content-Type value a client sends (an unbounded cache).
 * The router already knows the operation of each request, so it drives the validator's own
 * `RequestValidator` and `ResponseValidator` with route metadata computed here, once, and warms
 * every operation's validator at start-up. These are the classes `middleware()` itself composes;
 * the package version is pinned exactly because they are not its documented API.
 */
import type { OpenApiDocument } from '@workforce-kit/types';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
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
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator.js';

/** The content type every validated request of an operation carries after normalization. */
export type NormalizedContentType = 'application/json' | undefined;

/** Validates the requests (and optionally responses) of one operation. */
export interface OperationValidator {
  /** Throws (or passes to `next`) the validator's 400 error when the request does not match. */
  validateRequest(
    req: Request,
    res: Response,
    next: NextFunction,
    pathParams: Record<string, string>,
  ): void;
  /** Installs the response check on `res.json`, when responses are validated. */
  readonly validateResponse: RequestHandler | undefined;
}

type Metadata = OpenApiRequestMetadata & { _responseSchema?: OpenAPIV3.OperationObject };
type Paths = Record<string, Record<string, OpenAPIV3.OperationObject> | undefined>;
type RequestWithOpenApi = Request & { openapi?: Metadata };

/**
 * Loads and compiles the document, and returns a validator per operation (`METHOD /openapi/path`).
 *
 * @param contentTypes - the normalized Content-Type of each operation's requests, to warm up
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
    const base: Metadata = {
      expressRoute: route.expressRoute,
      openApiRoute: route.openApiRoute,
      pathParams: {},
      schema: operation(spec.apiDoc),
      serial: spec.serial,
      ...(options.validateResponses ? { _responseSchema: operation(apiDocRes) } : {}),
    };
    const validator: OperationValidator = {
      validateRequest(req, res, next, pathParams) {
        (req as RequestWithOpenApi).openapi = { ...base, pathParams };
        requests.validate(req as never, res, next);
      },
      validateResponse,
    };
    warmUp(validator, route.method.toUpperCase(), contentTypes.get(key));
    validators.set(key, validator);
  }
  return validators;
}

/**
 * Builds the operation's compiled validator now (the validator builds it on the first request
 * with a given method, route and content type), by validating a request that carries nothing.
 */
function warmUp(
  validator: OperationValidator,
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
    path: '/',
    cookies: undefined,
    body: undefined,
  };
  try {
    validator.validateRequest(probe as unknown as Request, {} as Response, () => {}, {});
  } catch {
    // The empty probe fails validation (missing headers); the compiled validator is cached now.
  }
}
