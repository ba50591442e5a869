import { randomUUID } from 'node:crypto';
import {
  archiveEmployee,
  type Clock,
  type Committed,
  type DomainError,
  deleteShift,
  type Employee,
  getRestaurant,
  type IdSource,
  isGuid,
  type RecordedEvent,
  type Restaurant,
  type Shift,
  unarchiveEmployee,
} from '@workforce-kit/core';
import { openapiDocument } from '@workforce-kit/types';
import contentType from 'content-type';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import type { ResultAsync } from 'neverthrow';
import { pino } from 'pino';
import { bearerToken, challenge } from './auth/bearer.js';
import {
  compileValidation,
  type NormalizedContentType,
  type OperationValidator,
} from './openapi-validation.js';
import {
  compileRoutes,
  type OperationId,
  type OperationSpec,
  readOperations,
} from './operations.js';
import { DEFAULTS, type RouterOptions } from './options.js';
import { type ProblemCode, type ProblemFieldError, sendProblem } from './problem-details.js';
import { createRateLimiter } from './rate-limit.js';
import { RequestDeadlines } from './request-deadlines.js';
import { initRequestState, RequestState, requestState } from './request-state.js';
import { fieldMessage, RETRY_AFTER_SECONDS, toProblem } from './to-problem.js';
import { toEmployeeBody, toRestaurantBody, toShiftBody } from './to-wire.js';

/** The router of {@link createRouter}: an Express router, and when it is ready to validate. */
export type WorkforceRouter = Router & {
  /** Resolves when the spec is compiled (requests before then wait for it); rejects if it cannot be. */
  readonly ready: Promise<void>;
};

const RESTAURANT_HEADER = 'platform-restaurant-external-id';
/** An incoming X-Request-Id is kept when it is printable ASCII of at most 128 characters. */
const SANE_REQUEST_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

interface Success {
  readonly body: object;
  readonly events: readonly RecordedEvent[];
}
/** What an operation gets: the request, its decoded path parameters and its validated query. */
interface HandlerInput {
  readonly req: Request;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly requestId: string;
}

/** An operation: its use case, and how its value goes on the wire. */
interface Handler<T = never> {
  readonly run: (input: HandlerInput) => ResultAsync<T, DomainError>;
  readonly respond: (value: T) => Success;
}

/** Keeps the value type of a handler's two halves together. */
const handler = <T>(run: Handler<T>['run'], respond: Handler<T>['respond']): Handler<unknown> =>
  ({ run, respond }) as Handler<unknown>;

/** Runs middlewares in order, as Express does, and hands an error or the end to `done`. */
function compose(
  middlewares: readonly RequestHandler[],
): (req: Request, res: Response, done: NextFunction) => void {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null && error !== 'route') {
        done(error);
        return;
      }
      const middleware = middlewares[index++];
      if (middleware === undefined) {
        done();
        return;
      }
      try {
        const pending: unknown = middleware(req, res, next);
        if (pending instanceof Promise) pending.catch(next);
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}

/**
 * Creates the Express router of the workforce-kit API: the operations of `openapi/openapi.yaml`
 * over any store that implements the core's ports. Per request, in this order: request id and
 * timeout; routing (404 under the API's prefixes, 405 with `Allow`); bearer authentication (401)
 * and scope (403); the restaurant the token may act for (403); rate limits (429); media type (415)
 * and body (413, 400); validation against the spec (400); the use case. Every error is problem
 * details with a `code` and the `requestId`. Paths outside the API are left to the host.
 *
 * @param options - the store, the token verifier and the limits; see {@link RouterOptions}
 * @returns the router, with `ready` resolving once the spec is compiled
 * @example
 * ```ts
 * import express from 'express';
 * import { createMemoryStore } from '@workforce-kit/core';
 * import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
 *
 * const app = express();
 * const router = createRouter({ store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) });
 * app.use(router);
 * await router.ready;
 * app.listen(8080);
 * ```
 */
export function createRouter(options: RouterOptions): WorkforceRouter {
  const logger = options.logger ?? pino({ level: DEFAULTS.logLevel });
  const clock: Clock = options.clock ?? { now: () => new Date() };
  const ids: IdSource = options.ids ?? { newId: randomUUID };
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  const deps = {
    ...options.store,
    clock,
    ids,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  };

  const operations = readOperations(openapiDocument);
  const route = compileRoutes(operations);
  const contentTypes = new Map<string, NormalizedContentType>(
    operations.map((op) => [
      `${op.method} ${op.path}`,
      op.hasBody ? 'application/json' : undefined,
    ]),
  );
  let validators: ReadonlyMap<string, OperationValidator> | undefined;
  const compiled = compileValidation(
    openapiDocument,
    { validateResponses: options.validateResponses ?? DEFAULTS.validateResponses },
    contentTypes,
  ).then((result) => {
    validators = result;
  });
  compiled.catch((error: unknown) =>
    logger.fatal({ err: error }, 'the OpenAPI document does not compile'),
  );

  const limiters = options.rateLimit === false ? [] : [createRateLimiter(options.rateLimit ?? {})];
  const parseJson = express.json({
    limit: options.bodyLimitBytes ?? DEFAULTS.bodyLimitBytes,
    strict: false,
  });
  /** The JSON body parser, which an empty body (most unarchive requests) does not need. */
  const jsonBody: RequestHandler = (req, res, next) => {
    if (req.headers['content-length'] === '0') next();
    else parseJson(req, res, next);
  };

  const employeeBody = ({ record, events }: Committed<Employee>): Success => ({
    body: toEmployeeBody(record),
    events,
  });
  const handlers: { readonly [id in OperationId]: Handler<unknown> } = {
    unarchiveEmployee: handler(
      ({ req, params, requestId }) =>
        unarchiveEmployee(deps, {
          restaurantContext: contextOf(req),
          employeeId: params.employeeId ?? '',
          requestId,
        }),
      employeeBody,
    ),
    archiveEmployee: handler(
      ({ req, params, requestId }) =>
        archiveEmployee(deps, {
          restaurantContext: contextOf(req),
          employeeId: params.employeeId ?? '',
          requestId,
        }),
      employeeBody,
    ),
    deleteShift: handler(
      ({ req, params, requestId }) =>
        deleteShift(deps, {
          restaurantContext: contextOf(req),
          shiftId: params.shiftId ?? '',
          requestId,
        }),
      ({ record, events }: Committed<Shift>) => ({ body: toShiftBody(record), events }),
    ),
    getRestaurant: handler(
      ({ req, params, query }) =>
        getRestaurant(deps, {
          restaurantContext: contextOf(req),
          restaurantGuid: params.restaurantGUID ?? '',
          // Validated, and coerced by the validator: true, false or absent.
          includeArchived: query.includeArchived === true,
        }),
      (restaurant: Restaurant) => ({ body: toRestaurantBody(restaurant), events: [] }),
    ),
  };

  function emit(event: RecordedEvent, state: RequestState): void {
    const { onEvent } = options;
    if (onEvent === undefined) return;
    Promise.resolve()
      .then(() => onEvent(event))
      .catch((error: unknown) => state.log.error({ err: error, event }, 'onEvent failed'));
  }

  const authenticate =
    (scope: string): RequestHandler =>
    (req, res, next) => {
      const state = requestState(res);
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) {
        sendProblem(res, state.requestId, invalidToken('The request has no bearer token'));
        return;
      }
      options.auth.verify(token).then(
        (result) => {
          if (result.isErr()) {
            const failure = result.error;
            if (failure.type === 'TokenRejected') {
              sendProblem(res, state.requestId, invalidToken(failure.description));
            } else {
              state.log.error({ err: failure.cause }, 'token verification unavailable');
              sendProblem(res, state.requestId, {
                code: 'AUTH_UNAVAILABLE',
                detail: 'The access token cannot be verified right now. Retry later.',
                headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
              });
            }
            return;
          }
          const principal = result.value;
          if (!principal.scopes.has(scope)) {
            sendProblem(res, state.requestId, {
              code: 'INSUFFICIENT_SCOPE',
              detail: `This operation needs the scope ${scope}.`,
              headers: {
                'WWW-Authenticate': challenge(
                  'insufficient_scope',
                  `The operation needs ${scope}`,
                  scope,
                ),
              },
            });
            return;
          }
          state.principal = principal;
          next();
        },
        (error: unknown) => next(error),
      );
    };

  /** 403 when the token may not act for the context restaurant; its key for the rate limits. */
  const permitRestaurant: RequestHandler = (req, res, next) => {
    const state = requestState(res);
    const context = req.headers[RESTAURANT_HEADER];
    if (typeof context === 'string' && isGuid(context)) {
      const guid = context.toLowerCase();
      const restaurants = state.principal?.restaurants;
      if (restaurants !== 'all' && !restaurants?.has(guid)) {
        sendProblem(res, state.requestId, {
          code: 'RESTAURANT_NOT_PERMITTED',
          detail: `The access token may not act for restaurant ${guid}.`,
          headers: {
            'WWW-Authenticate': challenge(
              'insufficient_scope',
              'The token may not act for this restaurant',
            ),
          },
        });
        return;
      }
      state.rateLimitKey = `restaurant:${guid}`;
    }
    next();
  };

  /**
   * An operation with a body accepts `application/json` only (415 otherwise); the header is then
   * normalized, so the validator compiles one validator per operation, whatever clients send. An
   * operation without a body never reads one, and its Content-Type is ignored.
   */
  const mediaType =
    (operation: OperationSpec): RequestHandler =>
    (req, res, next) => {
      if (!operation.hasBody) {
        delete req.headers['content-type'];
        next();
        return;
      }
      if (!isJson(req.headers['content-type'])) {
        sendProblem(res, requestState(res).requestId, {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          detail: 'Content-Type must be application/json.',
        });
        return;
      }
      req.headers['content-type'] = 'application/json';
      next();
    };

  const validateAndHandle = (operation: OperationSpec): RequestHandler => {
    const key = `${operation.method} ${operation.path}`;
    let validator: OperationValidator | undefined;
    const run = (req: Request, res: Response, next: NextFunction) => {
      validator ??= validators?.get(key);
      if (validator === undefined) throw new Error(`no validator for ${key}`);
      const params = decodeParams(requestState(res).rawParams, operation);
      if ('error' in params) {
        sendProblem(res, requestState(res).requestId, params.error);
        return;
      }
      // Express parses the query string on every read of req.query: read it once, and only if any.
      const query = req.url.includes('?') ? (req.query as Record<string, unknown>) : {};
      const failure = validator.validate({
        params: params.values,
        headers: req.headers,
        query,
        body: req.body,
      });
      if (failure !== undefined) {
        next(failure);
        return;
      }
      const respond = () => handle(operation, params.values, query, req, res, next);
      if (validator.validateResponse === undefined) respond();
      else validator.validateResponse(req, res, respond);
    };
    return (req, res, next) => {
      if (validators !== undefined) run(req, res, next);
      else compiled.then(() => run(req, res, next)).catch(next);
    };
  };

  /** Runs the use case and answers; `then` on the ResultAsync, not `await`: one hop fewer. */
  function handle(
    operation: OperationSpec,
    params: Readonly<Record<string, string>>,
    query: Readonly<Record<string, unknown>>,
    req: Request,
    res: Response,
    next: NextFunction,
  ): void {
    const state = requestState(res);
    const { run, respond } = handlers[operation.id];
    run({ req, params, query, requestId: state.requestId }).then((result) => {
      if (result.isErr()) {
        const error = result.error;
        if (error.type === 'StorageUnavailable' || error.type === 'WriteContention') {
          state.log.warn(
            {
              err: 'cause' in error ? error.cause : undefined,
              error: { ...error, cause: undefined },
            },
            error.type,
          );
        }
        sendProblem(res, state.requestId, toProblem(error));
        return;
      }
      const { body, events } = respond(result.value);
      for (const event of events) emit(event, state);
      if (res.headersSent) return;
      res.json(body);
      state.finish();
    }, next);
  }

  const chains = new Map(
    operations.map((operation) => {
      const steps = [
        authenticate(operation.scope),
        permitRestaurant,
        ...limiters,
        mediaType(operation),
      ];
      if (operation.hasBody) steps.push(jsonBody);
      return [operation.id, compose([...steps, validateAndHandle(operation)])];
    }),
  );

  const deadlines = new RequestDeadlines<Response>(requestTimeoutMs, (res) => {
    if (res.writableEnded) return;
    const state = requestState(res);
    state.log.warn({ timeoutMs: requestTimeoutMs }, 'request timed out');
    sendProblem(res, state.requestId, {
      code: 'REQUEST_TIMEOUT',
      detail: `The request was not answered within ${requestTimeoutMs} ms; a change it asked for may still complete.`,
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  });
  const logRequests = logger.isLevelEnabled('info');

  const router = express.Router();

  router.use((req, res, next) => {
    const matched = route(req.method, req.path);
    if (matched.kind === 'not-ours') {
      next();
      return;
    }
    const incoming = req.headers['x-request-id'];
    const requestId =
      typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const rawParams = matched.kind === 'operation' ? matched.rawParams : {};
    const state = initRequestState(
      res,
      new RequestState(requestId, rawParams, logger, res, deadlines),
    );
    res.setHeader('X-Request-Id', requestId);
    deadlines.start(res);
    if (logRequests) {
      const started = performance.now();
      res.once('close', () => {
        state.log.info(
          {
            method: req.method,
            path: req.originalUrl,
            status: res.statusCode,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
      });
    }

    if (matched.kind === 'not-found') {
      sendProblem(res, requestId, { code: 'NOT_FOUND', detail: 'No operation has this path.' });
      return;
    }
    if (matched.kind === 'method-not-allowed') {
      sendProblem(res, requestId, {
        code: 'METHOD_NOT_ALLOWED',
        detail: `${req.method} is not supported here; use ${matched.allow}.`,
        headers: { Allow: matched.allow },
      });
      return;
    }
    const chain = chains.get(matched.operation.id);
    if (chain === undefined) throw new Error(`no chain for ${matched.operation.id}`);
    chain(req, res, next);
  });

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    const state = res.locals.workforceKit as RequestState | undefined;
    if (state === undefined || res.headersSent) {
      next(error);
      return;
    }
    const occurrence = problemOf(error);
    if (occurrence === undefined) {
      state.log.error(
        { err: error, method: req.method, path: req.originalUrl },
        'unexpected error',
      );
      sendProblem(res, state.requestId, {
        code: 'INTERNAL_ERROR',
        detail: 'An unexpected error occurred. Quote the requestId to support.',
      });
      return;
    }
    sendProblem(res, state.requestId, occurrence);
  });

  return Object.assign(router, { ready: compiled }) as WorkforceRouter;
}

function contextOf(req: Request): string {
  const value = req.headers[RESTAURANT_HEADER];
  return typeof value === 'string' ? value : '';
}

function invalidToken(description: string) {
  return {
    code: 'INVALID_TOKEN' as const,
    detail: `${description}.`,
    headers: { 'WWW-Authenticate': challenge('invalid_token', description) },
  };
}

function isJson(header: string | undefined): boolean {
  if (header === undefined) return false;
  try {
    const parsed = contentType.parse(header);
    const charset = parsed.parameters.charset?.toLowerCase();
    return parsed.type === 'application/json' && (charset === undefined || charset === 'utf-8');
  } catch {
    return false;
  }
}

/**
 * Percent-decodes the path parameters. A value that does not decode is a malformed input (400),
 * but for a parameter the spec leaves unconstrained (`restaurantGUID`: any string, and anything
 * that is not a GUID is simply not found), which keeps its raw value.
 */
function decodeParams(
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

interface HttpError {
  readonly status?: number;
  readonly type?: string;
  readonly errors?: readonly { readonly path?: string; readonly message?: string }[];
}

/** The problem of an error thrown by the body parser or the validator; `undefined` for the rest (500). */
function problemOf(error: unknown) {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, type, errors } = error as HttpError;
  switch (type) {
    case 'entity.parse.failed':
      return { code: 'MALFORMED_JSON' as const, detail: 'The request body is not valid JSON.' };
    case 'entity.too.large':
      return { code: 'PAYLOAD_TOO_LARGE' as const, detail: 'The request body is too large.' };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return {
        code: 'UNSUPPORTED_MEDIA_TYPE' as const,
        detail: 'The body encoding is not supported.',
      };
    default:
      break;
  }
  if (status === 400 && Array.isArray(errors)) {
    const fields = errors.map(({ path = '', message = 'is invalid' }) => {
      const pointer = path.startsWith('/')
        ? path
        : `/${path.replace(/^\./, '').replaceAll('.', '/')}`;
      return { path: pointer, message: fieldMessage(pointer) ?? message };
    });
    return {
      code: 'VALIDATION_FAILED' as const,
      detail: `The request has ${fields.length} invalid input${fields.length === 1 ? '' : 's'}.`,
      errors: fields,
    };
  }
  if (status === 415) {
    return {
      code: 'UNSUPPORTED_MEDIA_TYPE' as const,
      detail: 'Content-Type must be application/json.',
    };
  }
  if (status === 400) {
    // The body parser's other refusals (a body that its Content-Encoding does not decode, a
    // stream cut short): the body cannot be read as JSON.
    return { code: 'MALFORMED_JSON' as const, detail: 'The request body cannot be read as JSON.' };
  }
  return undefined;
}
