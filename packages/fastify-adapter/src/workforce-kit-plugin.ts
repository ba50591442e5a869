import { type IncomingMessage, maxHeaderSize } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import {
  type ApiOperation,
  type ApiOptions,
  authorizeRequest,
  createApi,
  createSchemaCompiler,
  domainProblem,
  INTERNAL_ERROR,
  isJsonMediaType,
  type Logger,
  logDomainError,
  type ProblemOccurrence,
  problemBody,
  problemStatus,
  RESTAURANT_HEADER,
  RETRY_AFTER_SECONDS,
  RequestDeadlines,
  RequestLogger,
  type RequestTelemetry,
  redactedUrl,
  requestSchemas,
  validationProblem,
} from '@workforce-kit/http';
import { openapiDocument } from '@workforce-kit/types';
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
  onRequestHookHandler,
  preParsingHookHandler,
} from 'fastify';
import { requestIdOf } from './host-helpers.js';

/** Options of {@link workforceKit}: those of every adapter, documented on `ApiOptions`. */
export type WorkforceKitOptions = ApiOptions;

/** What the plugin knows of a request it took. */
class RequestState {
  /** The request's logger: every line carries the request id. */
  readonly log: RequestLogger;
  rateLimitKey = '';

  constructor(
    readonly requestId: string,
    logger: Logger,
    /** Its metrics and span, when the API has metrics or tracing. */
    readonly telemetry: RequestTelemetry | undefined,
  ) {
    this.log = new RequestLogger(logger, requestId, telemetry?.logBindings);
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    workforceKit: RequestState | null;
  }
  interface FastifyContextConfig {
    /** The operation of a route of the plugin's (none for its 404 and 405 routes). */
    workforceKitOperation?: ApiOperation;
  }
}

/** A raw request whose URL had a segment that does not percent-decode (see {@link rewriteUrl}). */
const UNDECODABLE = Symbol('workforce-kit undecodable path');
type MarkedRequest = IncomingMessage & { [UNDECODABLE]?: string };

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `rewriteUrl` option for the Fastify instance: a path segment that does not percent-decode
 * is taken literally (its `%` escaped), so that the request reaches the plugin, which checks the
 * token first and then refuses the segment with 400 `VALIDATION_FAILED`, as the Express router
 * does. Without it, Fastify answers such a URL itself, with its own 400, before any hook runs.
 * {@link fastifyOptions} holds it, with the router options the plugin needs.
 *
 * @example
 * ```ts
 * const app = Fastify({ rewriteUrl, routerOptions: { maxParamLength: LONGEST_PATH_PARAMETER } });
 * await app.register(workforceKit, { store, auth });
 * ```
 */
export function rewriteUrl(req: IncomingMessage): string {
  const url = req.url ?? '/';
  if (!url.includes('%')) return url;
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const segments = path.split('/');
  if (segments.every(decodes)) return url;
  (req as MarkedRequest)[UNDECODABLE] = path;
  const escaped = segments
    .map((segment) => (decodes(segment) ? segment : segment.replaceAll('%', '%25')))
    .join('/');
  return query < 0 ? escaped : `${escaped}${url.slice(query)}`;
}

/**
 * The longest path parameter an operation must be routed, in UTF-16 code units (what Fastify's
 * `maxParamLength` counts): an external identifier, whose naming authority is at most 16
 * characters, then `:`, then at most 256 characters, each of which may take two code units.
 */
export const LONGEST_PATH_PARAMETER = 16 + 1 + 2 * 256;

/**
 * The options of the Fastify instance that the API needs and a plugin cannot set itself:
 * {@link rewriteUrl}, and a router `maxParamLength` that no path segment Node accepts can exceed
 * (Node's `maxHeaderSize`, which bounds the request line), so that every path parameter reaches
 * its operation and is answered as the Express router answers it. Fastify's default, 100, is
 * shorter than an external identifier may be: the plugin refuses to register on such an instance.
 *
 * @example
 * ```ts
 * const app = Fastify({ ...fastifyOptions, logger: true });
 * await app.register(workforceKit, { store, auth });
 * ```
 */
export const fastifyOptions = {
  rewriteUrl,
  routerOptions: { maxParamLength: maxHeaderSize },
} as const;

/**
 * Fastify's router routes no path parameter longer than its `maxParamLength`: such a request
 * falls to the API's 404 (or the host's), even for an identifier the API accepts. Asks the router,
 * once the operations are registered, whether a parameter of {@link LONGEST_PATH_PARAMETER}
 * characters reaches each of them.
 *
 * @throws when it does not: at registration, never per request
 */
function assertLongParametersRoute(
  fastify: FastifyInstance,
  operations: readonly ApiOperation[],
): void {
  const long = 'x'.repeat(LONGEST_PATH_PARAMETER);
  for (const operation of operations) {
    if (operation.pathParams.length === 0) continue;
    const url = `${fastify.prefix}${operation.path.replace(/\{[^}]+\}/g, long)}`;
    const found = fastify.findRoute({ method: operation.method, url });
    if (found === null || !operation.pathParams.every((name) => found.params[name] === long)) {
      throw new Error(
        `This Fastify instance does not route a path parameter of ${LONGEST_PATH_PARAMETER} characters (an external identifier may be that long) to ${operation.id}: create it with Fastify({ ...fastifyOptions }), or with routerOptions.maxParamLength of at least ${LONGEST_PATH_PARAMETER}.`,
      );
    }
  }
}

/**
 * Whether a segment of the request's path did not percent-decode (and {@link rewriteUrl} took it
 * literally), for a host route to refuse it as the plugin does.
 */
export function hasUndecodablePath(request: FastifyRequest): boolean {
  return (request.raw as MarkedRequest)[UNDECODABLE] !== undefined;
}

/** The constrained path parameter of a request that did not percent-decode, if any. */
function undecodableParam(operation: ApiOperation, request: FastifyRequest): string | undefined {
  const raw = (request.raw as MarkedRequest)[UNDECODABLE];
  if (raw === undefined) return undefined;
  const template = operation.path.split('/');
  // The plugin may be registered under a prefix: the template's segments end the path.
  const segments = raw.split('/').slice(-template.length);
  return operation.pathParams.find(
    (name) =>
      !operation.unconstrainedParams.has(name) &&
      !decodes(segments[template.indexOf(`{${name}}`)] ?? ''),
  );
}

/** The answer to a path under the API's prefixes that names no operation. */
const NO_OPERATION: ProblemOccurrence = {
  code: 'NOT_FOUND',
  detail: 'No operation has this path.',
};

/** `/labor/v1/shifts/{shiftId}` as Fastify writes it: `/labor/v1/shifts/:shiftId`. */
const fastifyPath = (template: string) => template.replace(/\{([^}]+)\}/g, ':$1');

/** A body error of the parser or the inflater, as the problem it answers. */
function bodyProblem(error: { code?: string; statusCode?: number }): ProblemOccurrence | undefined {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
    return { code: 'PAYLOAD_TOO_LARGE', detail: 'The request body is too large.' };
  }
  if (error.code === 'WORKFORCE_KIT_ENCODING') {
    return { code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'The body encoding is not supported.' };
  }
  if (error.code === 'WORKFORCE_KIT_JSON') {
    return { code: 'MALFORMED_JSON', detail: 'The request body is not valid JSON.' };
  }
  // A decoder's error (zlib's Z_DATA_ERROR, brotli's), or a body cut short.
  if (
    error.code?.startsWith('Z_') ||
    error.code?.startsWith('ERR__') ||
    error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH'
  ) {
    return { code: 'MALFORMED_JSON', detail: 'The request body cannot be read as JSON.' };
  }
  return undefined;
}

function withCode(message: string, code: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/**
 * Inflates a compressed body as it arrives (gzip, deflate, br), counting the bytes received so
 * that Fastify can check them against `Content-Length`; the body limit then applies to the
 * inflated body, as Express's body parser applies it.
 */
function inflated(payload: NodeJS.ReadableStream, encoding: string): NodeJS.ReadableStream {
  const inflater =
    encoding === 'gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : createBrotliDecompress();
  const counted = Object.assign(
    new Transform({
      transform(chunk: Buffer, _encoding: string, done: TransformCallback) {
        counted.receivedEncodedLength += chunk.length;
        done(null, chunk);
      },
    }),
    { receivedEncodedLength: 0 },
  );
  payload.pipe(counted);
  counted.pipe(inflater);
  counted.on('error', (error) => inflater.destroy(error));
  return Object.defineProperty(inflater, 'receivedEncodedLength', {
    get: () => counted.receivedEncodedLength,
  });
}

async function plugin(fastify: FastifyInstance, options: WorkforceKitOptions): Promise<void> {
  const api = createApi(options);
  const compile = createSchemaCompiler(openapiDocument);
  fastify.setValidatorCompiler(({ schema, httpPart }) =>
    compile(
      schema as Record<string, unknown>,
      (httpPart ?? 'body') as 'params' | 'headers' | 'querystring' | 'body',
    ),
  );
  fastify.decorateRequest('workforceKit', null);
  const stateOf = (request: FastifyRequest) => request.workforceKit as RequestState;

  /**
   * Answers a problem, and stops the request's clock. With `validateResponses`, a problem the spec
   * does not document for the operation becomes a logged 500.
   */
  function problem(
    request: FastifyRequest,
    reply: FastifyReply,
    occurrence: ProblemOccurrence,
    operation?: ApiOperation,
  ): FastifyReply {
    deadlines.finish(reply);
    if (reply.sent) return reply;
    const state = stateOf(request);
    // The path as sent: `url` is the one rewriteUrl gave for routing.
    const instance = request.originalUrl.split('?')[0] ?? '';
    let body = problemBody(occurrence, state.requestId, instance);
    const mismatch = operation && api.responseValidator?.(operation, body.status, body);
    if (mismatch !== undefined) {
      state.log.error({ mismatch }, 'the response does not match the spec');
      body = problemBody(INTERNAL_ERROR, state.requestId, instance);
    } else if (occurrence.headers !== undefined) {
      reply.headers(occurrence.headers);
    }
    return reply
      .code(problemStatus(body.code))
      .type('application/problem+json; charset=utf-8')
      .send(JSON.stringify(body));
  }

  const deadlines = new RequestDeadlines<FastifyReply>(api.requestTimeoutMs, (reply) => {
    if (reply.sent) return;
    stateOf(reply.request).log.warn({ timeoutMs: api.requestTimeoutMs }, 'request timed out');
    problem(reply.request, reply, {
      code: 'REQUEST_TIMEOUT',
      detail: `The request was not answered within ${api.requestTimeoutMs} ms; a change it asked for may still complete.`,
      // The connection closes after the answer: a body still arriving is not read on.
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS), Connection: 'close' },
    });
  });

  /** The API's prefixes under the plugin's own (`/api/labor/v1`, …). */
  const owned = api.prefixes.map((prefix) => `${fastify.prefix}${prefix}`);

  /** Every request of the plugin's routes: its id, headers, deadline and log line. */
  fastify.addHook('onRequest', async (request, reply) => {
    // A path that the host's router options (caseSensitive: false, ignoreDuplicateSlashes) route
    // here but that is not under the API's prefixes as sent (`/LABOR/v1/…`, `//labor/v1/…`) is
    // not the API's, as Express's case-sensitive router sees it: the host's 404.
    const path = request.url.split('?')[0] ?? '';
    if (!owned.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) {
      reply.callNotFound();
      return reply;
    }
    // The id the host gave the request (its requestIds hook), else one of the plugin's.
    const requestId = requestIdOf(request, reply);
    const operation = request.routeOptions.config.workforceKitOperation;
    const telemetry = api.telemetry?.start(operation, request.method, request.headers, requestId);
    if (telemetry !== undefined) reply.raw.once('close', () => telemetry.end(reply.raw));
    const state = new RequestState(requestId, api.logger, telemetry);
    request.workforceKit = state;
    reply.headers({
      // Answers carry personal data (employees) and are never to be cached or sniffed.
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    deadlines.start(reply);
    if (api.logRequests) {
      const started = performance.now();
      reply.raw.once('close', () => {
        state.log.info(
          {
            method: request.method,
            path: redactedUrl(request.originalUrl),
            status: reply.statusCode,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
      });
    }
  });

  /**
   * Bodies: JSON only (the media type was checked before). An empty body is none; a leading byte
   * order mark is ignored (RFC 8259 allows that, and Express's body parser drops it); a body that
   * does not parse is 400.
   */
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: api.bodyLimitBytes },
    (_request, body, done) => {
      const text = (body as string).replace(/^\uFEFF/, '');
      if (text === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch {
        done(withCode('The request body is not valid JSON.', 'WORKFORCE_KIT_JSON'), undefined);
      }
    },
  );

  /** The bearer token (401, 403 without the scope), and the restaurant it may act for (403). */
  const authorize =
    (operation: ApiOperation): onRequestHookHandler =>
    async (request, reply) => {
      const state = stateOf(request);
      const permission = await authorizeRequest(
        api.verifier,
        {
          authorization: request.headers.authorization,
          restaurantContext: request.headers[RESTAURANT_HEADER],
          // The socket's address, as the Express router counts it: not request.ip, which the
          // host's trustProxy would take from a header the client may set.
          address: request.socket.remoteAddress,
        },
        operation.scope,
        state.log,
      );
      if (permission.problem !== undefined) {
        return problem(request, reply, permission.problem, operation);
      }
      state.rateLimitKey = permission.rateLimitKey;
      return undefined;
    };

  /** The rate limits of the restaurant context (or the client's address): 429. */
  const rateLimit =
    (operation: ApiOperation): onRequestHookHandler =>
    async (request, reply) => {
      const state = stateOf(request);
      const decision = await api.rateLimiter?.check(state.rateLimitKey, state.log);
      if (decision === undefined) return undefined;
      reply.headers(decision.headers);
      return decision.refused === undefined
        ? undefined
        : problem(request, reply, decision.refused, operation);
    };

  /** An operation with a body takes `application/json` (UTF-8) only: 415. */
  const mediaType =
    (operation: ApiOperation): onRequestHookHandler =>
    async (request, reply) => {
      if (isJsonMediaType(request.headers['content-type'])) return undefined;
      const refusal = {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        detail: 'Content-Type must be application/json.',
      } as const;
      return problem(request, reply, refusal, operation);
    };

  /**
   * A route that takes no body never reads one (an operation without a body, a 405, the 404):
   * Fastify then neither parses nor inflates it, and a body it could not read changes nothing.
   */
  const ignoreBody: onRequestHookHandler = async (request) => {
    delete request.headers['content-type'];
    delete request.headers['content-length'];
    delete request.headers['transfer-encoding'];
    delete request.headers['content-encoding'];
  };

  /**
   * A request reaches a route only on the route's own path as Express's strict, case-sensitive
   * router matches it: segment for segment, no parameter empty. Fastify's router also routes an
   * empty parameter (`/labor/v1/shifts/`, `/labor/v1/employees//unarchive`) and, when the host's
   * router options ask for it, a trailing or doubled slash or another case; such a path names no
   * operation: the API's 404, before anything else is checked.
   */
  const strictPath = (template: string): onRequestHookHandler => {
    const expected = `${fastify.prefix}${template}`.split('/');
    return async (request, reply) => {
      const segments = (request.url.split('?')[0] ?? '').split('/');
      const same =
        segments.length === expected.length &&
        expected.every((part, i) =>
          part.startsWith('{') ? segments[i] !== '' : segments[i] === part,
        );
      return same ? undefined : problem(request, reply, NO_OPERATION);
    };
  };

  /**
   * A compressed body is inflated as it arrives (gzip, deflate, br); another coding is 415. An
   * empty Content-Encoding names no coding, as `identity` does.
   */
  const inflate: preParsingHookHandler = async (request, _reply, payload) => {
    const encoding = request.headers['content-encoding']?.toLowerCase();
    if (encoding === undefined || encoding === '' || encoding === 'identity') return payload;
    if (encoding === 'gzip' || encoding === 'deflate' || encoding === 'br') {
      return inflated(payload, encoding);
    }
    throw withCode('The body encoding is not supported.', 'WORKFORCE_KIT_ENCODING');
  };

  for (const operation of api.operations) {
    const validate = api.requestValidators.get(operation.id);
    const onRequest = [strictPath(operation.path), authorize(operation)];
    if (api.rateLimiter !== undefined) onRequest.push(rateLimit(operation));
    onRequest.push(operation.bodySchema === undefined ? ignoreBody : mediaType(operation));

    fastify.route({
      method: operation.method,
      url: fastifyPath(operation.path),
      // HEAD answers as GET does, whatever the instance's exposeHeadRoutes.
      exposeHeadRoute: true,
      config: { workforceKitOperation: operation },
      schema: requestSchemas(operation),
      // Validation failures are answered as the API's problems, listing every bad input.
      attachValidation: true,
      onRequest,
      ...(operation.bodySchema === undefined ? {} : { preParsing: inflate }),
      handler: async (request, reply) => {
        // Answered already (the request timed out while its body or a check was pending): the
        // client was told it failed, so its change must not start.
        if (reply.sent) return reply;
        const state = stateOf(request);
        const params = request.params as Record<string, string>;
        const bad = undecodableParam(operation, request);
        if (bad !== undefined) {
          const input = {
            path: `/params/${bad}`,
            message: 'is not valid percent-encoding',
            missing: false,
          };
          return problem(request, reply, validationProblem([input], new Map()), operation);
        }
        if (request.validationError !== undefined) {
          // Fastify reports the first part that failed; the validator lists every bad input.
          const check = validate?.({
            params,
            headers: request.headers,
            query: request.query as Record<string, unknown>,
            body: request.body,
          });
          const invalid = check === undefined || check.valid ? [] : check.invalid;
          return problem(
            request,
            reply,
            validationProblem(invalid, operation.identifierMessages),
            operation,
          );
        }
        const restaurantContext = request.headers[RESTAURANT_HEADER];
        const result = await api.run(operation.id, {
          params,
          query: request.query as Record<string, unknown>,
          restaurantContext: typeof restaurantContext === 'string' ? restaurantContext : '',
          requestId: state.requestId,
          telemetry: state.telemetry,
        });
        if (result.error !== undefined) {
          logDomainError(result.error, state.log);
          return problem(request, reply, domainProblem(result.error), operation);
        }
        api.emit(result.events, state.log);
        deadlines.finish(reply);
        if (reply.sent) return reply;
        const mismatch = api.responseValidator?.(operation, 200, result.body);
        if (mismatch !== undefined) {
          state.log.error({ mismatch }, 'the response does not match the spec');
          return problem(request, reply, INTERNAL_ERROR, operation);
        }
        return reply
          .code(200)
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(result.body));
      },
    });
  }

  // Every method this Fastify instance routes, TRACE and QUERY too. A method it does not know
  // (SEARCH, PROPFIND, …) never reaches a route: the host's 404, unless the host adds it with
  // `addHttpMethod` before it registers the plugin.
  const methods = fastify.supportedMethods as HTTPMethods[];
  for (const { template, allow } of api.paths) {
    const own = new Set(allow.split(', '));
    fastify.route({
      method: methods.filter((method) => !own.has(method)),
      url: fastifyPath(template),
      onRequest: [strictPath(template), ignoreBody],
      handler: async (request, reply) =>
        problem(request, reply, {
          code: 'METHOD_NOT_ALLOWED',
          detail: `${request.method} is not supported here; use ${allow}.`,
          headers: { Allow: allow },
        }),
    });
  }
  for (const prefix of api.prefixes) {
    for (const url of [prefix, `${prefix}/*`]) {
      fastify.route({
        method: methods,
        url,
        onRequest: ignoreBody,
        handler: async (request, reply) => problem(request, reply, NO_OPERATION),
      });
    }
  }

  assertLongParametersRoute(fastify, api.operations);

  fastify.setErrorHandler((error, request, reply) => {
    const refusal = bodyProblem(error as { code?: string; statusCode?: number });
    if (refusal !== undefined) return problem(request, reply, refusal);
    stateOf(request).log.error(
      { err: error, method: request.method, path: request.originalUrl.split('?')[0] },
      'unexpected error',
    );
    return problem(request, reply, INTERNAL_ERROR);
  });
}

/**
 * The workforce-kit API as a Fastify 5 plugin: the operations of the OpenAPI contract over any
 * store that implements the core's ports, each a Fastify route whose request schemas are the
 * spec's (compiled once, by Fastify's schema compilation, with the spec's component schemas at
 * hand). The same options, problem details, headers and statuses as the Express router: per
 * request, request id and timeout; bearer authentication (401) and scope (403); the restaurant
 * the token may act for (403); rate limits (429); media type (415) and body (413, 400);
 * validation (400); the use case. A known path with another method is 405 with `Allow`; an
 * unknown path under the API's prefixes 404; any other path is the host's. The plugin is
 * encapsulated: its hooks, body parser, validator compiler, error handler and request decorator
 * apply to its own routes only. Register it under any `prefix`.
 *
 * What it needs of the Fastify instance, which a plugin cannot set: create the instance with
 * {@link fastifyOptions} (`Fastify({ ...fastifyOptions, logger: true })`), which holds
 * {@link rewriteUrl} and a router `maxParamLength` past the longest identifier. The plugin refuses
 * to register on an instance whose router would not route an identifier of
 * {@link LONGEST_PATH_PARAMETER} characters. The instance's other router options (case
 * insensitivity, trailing or doubled slashes) do not widen the API's paths, `exposeHeadRoutes`
 * does not take HEAD away, and `trustProxy` does not change the address the rate limits count.
 *
 * Where Fastify answers differently from the Express router, because the instance decides:
 * - without `rewriteUrl`, Fastify answers a path that does not percent-decode itself, with its
 *   own 400 (not problem details, no request id), before the token is checked; with it, the
 *   plugin answers as Express does (401 without a token, then 400 `VALIDATION_FAILED`, or 404
 *   for `restaurantGUID`).
 * - a method the instance does not route (Fastify routes GET, HEAD, POST, PUT, DELETE, PATCH,
 *   OPTIONS, TRACE and QUERY; not SEARCH, PROPFIND, …) never reaches the plugin: the host's 404,
 *   where Express answers 405. Add it with `app.addHttpMethod` before registering the plugin to
 *   get the 405.
 * - the instance's `useSemicolonDelimiter` and `querystringParser` apply to the API's requests
 *   too: with `useSemicolonDelimiter`, `;` starts the query string of an API path as well.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { createMemoryStore } from '@workforce-kit/core';
 * import { createJwtVerifier, fastifyOptions, workforceKit } from '@workforce-kit/fastify-adapter';
 *
 * const app = Fastify({ ...fastifyOptions, logger: true });
 * await app.register(workforceKit, { prefix: '/api', store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) });
 * await app.listen({ port: 8080 });
 * ```
 */
export const workforceKit: FastifyPluginAsync<WorkforceKitOptions> = plugin;
