import {
  type ApiOperation,
  type ApiOptions,
  authorizeRequest,
  createApi,
  domainProblem,
  INTERNAL_ERROR,
  isJsonMediaType,
  logDomainError,
  type ProblemOccurrence,
  problemBody,
  RESTAURANT_HEADER,
  RETRY_AFTER_SECONDS,
  RequestDeadlines,
  RequestLogger,
  type RequestTelemetry,
  redactedUrl,
  validationProblem,
} from '@workforce-kit/http';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { sendJson } from './json-response.js';
import { problemOf } from './parser-errors.js';
import { problemHandler, writeProblem } from './problem-details.js';
import { requestIdOf } from './request-id.js';

/** Options of {@link createRouter}: those of every adapter, documented on `ApiOptions`. */
export type RouterOptions = ApiOptions;

/** The router of {@link createRouter}: an Express router. */
export type WorkforceRouter = Router & {
  /** Resolves when the router can serve: at once, since the spec is compiled on creation. */
  readonly ready: Promise<void>;
};

/** What the router knows of a request it took, kept on `res.locals`. */
interface RequestState {
  readonly requestId: string;
  /** The request's logger: every line carries the request id. */
  readonly log: RequestLogger;
  /** Whether a path segment did not percent-decode (routing then took it literally). */
  readonly undecodable: boolean;
  /** Its metrics and span, when the API has metrics or tracing. */
  readonly telemetry: RequestTelemetry | undefined;
}

const STATE = 'workforceKit';
const UNDECODABLE = 'workforceKitUndecodable';
const stateOf = (res: Response): RequestState => res.locals[STATE] as RequestState;

const UNSUPPORTED_MEDIA_TYPE: ProblemOccurrence = {
  code: 'UNSUPPORTED_MEDIA_TYPE',
  detail: 'Content-Type must be application/json.',
};

/** `/labor/v1/shifts/{shiftId}` as Express writes it: `/labor/v1/shifts/:shiftId`. */
const expressPath = (template: string) => template.replace(/\{([^}]+)\}/g, ':$1');

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * Express decodes path parameters as it routes, and a segment that does not percent-decode
 * would be an error before any check ran. Such a segment is taken literally for routing (its `%`
 * escaped); the validation step then refuses it for a parameter the spec constrains.
 */
function escapeUndecodable(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const escaped = path
    .split('/')
    .map((segment) => (decodes(segment) ? segment : segment.replaceAll('%', '%25')))
    .join('/');
  return query < 0 ? escaped : `${escaped}${url.slice(query)}`;
}

/** The constrained path parameter of a request that did not percent-decode, if any. */
function undecodableParam(operation: ApiOperation, req: Request): string | undefined {
  const template = operation.path.split('/');
  const raw = (req.originalUrl.split('?')[0] ?? '').slice(req.baseUrl.length).split('/');
  return operation.pathParams.find(
    (name) =>
      !operation.unconstrainedParams.has(name) &&
      !decodes(raw[template.indexOf(`{${name}}`)] ?? ''),
  );
}

const NO_QUERY: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Creates the Express router of the workforce-kit API: the operations of `openapi/openapi.yaml`
 * over any store that implements the core's ports, each registered with Express's own routing.
 * Every request under the API's prefixes goes, in this order: request id, response headers and
 * timeout; bearer authentication (401) and scope (403); the restaurant the token may act for
 * (403); rate limits (429); media type (415) and body (413, 400); validation against the spec
 * (400); the use case. Every error is problem details with a `code` and the `requestId`. A known
 * path with another method is 405 with `Allow`; an unknown path under the prefixes 404. Paths
 * outside the API are left to the host.
 *
 * @param options - the store, the token verifier and the limits; see `ApiOptions`
 * @returns the router
 * @throws when the spec cannot be compiled: at creation, never per request
 * @example
 * ```ts
 * import express from 'express';
 * import { createMemoryStore } from '@workforce-kit/core';
 * import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
 *
 * const app = express();
 * app.use(createRouter({ store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) }));
 * app.listen(8080);
 * ```
 */
export function createRouter(options: RouterOptions): WorkforceRouter {
  const api = createApi(options);
  const parseJson = express.json({ limit: api.bodyLimitBytes, strict: false });
  const handleError = problemHandler({ logger: api.logger });
  const prefixes = [...api.prefixes];
  const ownsPath = (url: string) => prefixes.some((prefix) => url.startsWith(`${prefix}/`));

  /**
   * Answers a problem, and stops the request's clock. With `validateResponses`, a problem the spec
   * does not document for the operation becomes a logged 500.
   */
  function problem(res: Response, occurrence: ProblemOccurrence, operation?: ApiOperation): void {
    const state = stateOf(res);
    const body = operation && api.responseValidator && problemBody(occurrence, state.requestId, '');
    const mismatch = body && api.responseValidator?.(operation, body.status, body);
    if (mismatch) state.log.error({ mismatch }, 'the response does not match the spec');
    writeProblem(res, state.requestId, mismatch ? INTERNAL_ERROR : occurrence);
    deadlines.finish(res);
  }

  const deadlines = new RequestDeadlines<Response>(api.requestTimeoutMs, (res) => {
    if (res.writableEnded) return;
    stateOf(res).log.warn({ timeoutMs: api.requestTimeoutMs }, 'request timed out');
    writeProblem(res, stateOf(res).requestId, {
      code: 'REQUEST_TIMEOUT',
      detail: `The request was not answered within ${api.requestTimeoutMs} ms; a change it asked for may still complete.`,
      // The connection closes after the answer: a body still arriving is not read on.
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS), Connection: 'close' },
    });
  });

  /** Every request the router takes: its id, headers, deadline and log line. */
  function begin(
    req: Request,
    res: Response,
    undecodable: boolean,
    operation?: ApiOperation,
  ): RequestState {
    const requestId = requestIdOf(req, res);
    const telemetry = api.telemetry?.start(operation, req.method, req.headers, requestId);
    if (telemetry !== undefined) res.once('close', () => telemetry.end(res));
    const state: RequestState = {
      requestId,
      log: new RequestLogger(api.logger, requestId, telemetry?.logBindings),
      undecodable,
      telemetry,
    };
    res.locals[STATE] = state;
    // Answers carry personal data (employees) and are never to be cached or sniffed.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    deadlines.start(res);
    if (api.logRequests) {
      const started = performance.now();
      res.once('close', () => {
        state.log.info(
          {
            method: req.method,
            path: redactedUrl(req.originalUrl),
            status: res.statusCode,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
      });
    }
    return state;
  }

  /** The JSON body (413, 400): the problem that refuses it, if any. */
  function readBody(req: Request, res: Response): Promise<ProblemOccurrence | undefined> {
    return new Promise((resolve, reject) => {
      parseJson(req, res, (error?: unknown) => {
        if (error === undefined) return resolve(undefined);
        const refusal = problemOf(error);
        if (refusal === undefined) reject(error);
        else resolve(refusal);
      });
    });
  }

  /**
   * An operation's request, top to bottom: the bearer token (401, 403 without the scope), the
   * restaurant it may act for (403), the rate limits (429), the media type (415) and the body
   * (413, 400), validation against the spec (400), then the use case: 200, or its problem.
   */
  async function serve(operation: ApiOperation, req: Request, res: Response): Promise<void> {
    const state = stateOf(res);
    const permission = await authorizeRequest(
      api.verifier,
      {
        authorization: req.headers.authorization,
        restaurantContext: req.headers[RESTAURANT_HEADER],
        address: req.socket.remoteAddress,
      },
      operation.scope,
      state.log,
    );
    if (permission.problem !== undefined) return problem(res, permission.problem, operation);

    if (api.rateLimiter !== undefined) {
      const decision = await api.rateLimiter.check(permission.rateLimitKey, state.log);
      res.set(decision.headers);
      if (decision.refused !== undefined) return problem(res, decision.refused, operation);
    }

    if (operation.bodySchema !== undefined) {
      if (!isJsonMediaType(req.headers['content-type'])) {
        return problem(res, UNSUPPORTED_MEDIA_TYPE, operation);
      }
      // An empty body (most unarchives) is none.
      if (req.headers['content-length'] !== '0') {
        const refusal = await readBody(req, res);
        if (refusal !== undefined) return problem(res, refusal, operation);
      }
    }
    // Answered already (the request timed out while its body or a check was pending): the
    // client was told it failed, so its change must not start.
    if (res.headersSent) return;

    const bad = state.undecodable ? undecodableParam(operation, req) : undefined;
    if (bad !== undefined) {
      const input = {
        path: `/params/${bad}`,
        message: 'is not valid percent-encoding',
        missing: false,
      };
      return problem(res, validationProblem([input], new Map()), operation);
    }
    // Express parses the query string on every read of req.query: read it once, and only if any.
    const query = req.url.includes('?') ? (req.query as Record<string, unknown>) : NO_QUERY;
    // Each parameter of these routes is one path segment: a string.
    const params = req.params as Record<string, string>;
    const check = api.requestValidators.get(operation.id)?.({
      params,
      headers: req.headers,
      query,
      body: req.body,
    });
    if (check === undefined || !check.valid) {
      const invalid = check?.invalid ?? [];
      return problem(res, validationProblem(invalid, operation.identifierMessages), operation);
    }

    const restaurantContext = req.headers[RESTAURANT_HEADER];
    const result = await api.run(operation.id, {
      params,
      query: check.query,
      restaurantContext: typeof restaurantContext === 'string' ? restaurantContext : '',
      requestId: state.requestId,
      telemetry: state.telemetry,
    });
    if (result.error !== undefined) {
      logDomainError(result.error, state.log);
      return problem(res, domainProblem(result.error), operation);
    }
    api.emit(result.events, state.log);
    if (res.headersSent) return;
    const mismatch = api.responseValidator?.(operation, 200, result.body);
    if (mismatch !== undefined) {
      state.log.error({ mismatch }, 'the response does not match the spec');
      return problem(res, INTERNAL_ERROR, operation);
    }
    sendJson(res, result.body);
    deadlines.finish(res);
  }

  /** An unexpected error of a request the router took: a logged 500 (or the parser's problem). */
  function fail(error: unknown, req: Request, res: Response, next: NextFunction): void {
    handleError(error, req, res, next);
    deadlines.finish(res);
  }

  const router = express.Router({ caseSensitive: true, strict: true });
  // A path segment that does not percent-decode is taken literally for routing (see
  // escapeUndecodable); the operation then refuses it, after the token is checked.
  router.use((req, res, next) => {
    if (req.url.includes('%') && ownsPath(req.url)) {
      const escaped = escapeUndecodable(req.url);
      if (escaped !== req.url) {
        req.url = escaped;
        res.locals[UNDECODABLE] = true;
      }
    }
    next();
  });
  // One route per path of the spec: its operations by method, then 405 for any other method.
  for (const { template, allow } of api.paths) {
    const route = router.route(expressPath(template));
    for (const operation of api.operations.filter((op) => op.path === template)) {
      const method = operation.method.toLowerCase() as 'get' | 'put' | 'delete' | 'post' | 'patch';
      route[method]((req, res, next) => {
        begin(req, res, res.locals[UNDECODABLE] === true, operation);
        serve(operation, req, res).catch((error: unknown) => fail(error, req, res, next));
      });
    }
    route.all((req, res) => {
      begin(req, res, false);
      problem(res, {
        code: 'METHOD_NOT_ALLOWED',
        detail: `${req.method} is not supported here; use ${allow}.`,
        headers: { Allow: allow },
      });
    });
  }
  router.use(prefixes, (req, res) => {
    begin(req, res, false);
    problem(res, { code: 'NOT_FOUND', detail: 'No operation has this path.' });
  });
  // An error Express raises in a request the router took (its own, or a host's middleware's
  // inside the router) is a problem too; others are the host's. Being last and matching every
  // path, this also makes a request the router does not take leave it on the next tick, as from
  // any router: the host's answer to it then comes after Node has refused a malformed body (a
  // bad chunk size is 400 and the connection closed), not before.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.locals[STATE] === undefined) return next(error);
    fail(error, req, res, next);
  });

  return Object.assign(router, { ready: Promise.resolve() });
}
