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
  type RecordedEvent,
  type Restaurant,
  type Shift,
  unarchiveEmployee,
} from '@workforce-kit/core';
import { openapiDocument } from '@workforce-kit/types';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import type { ResultAsync } from 'neverthrow';
import { pino } from 'pino';
import { authenticate, permitRestaurant } from './auth/authenticate.js';
import { compose } from './compose.js';
import { sendJson } from './json-response.js';
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
import { decodeParams } from './path-params.js';
import { problemHandler, writeProblem } from './problem-details.js';
import { createRateLimiter } from './rate-limit.js';
import { redactedUrl } from './redacted-url.js';
import { jsonBody, mediaType } from './request-body.js';
import { RequestDeadlines } from './request-deadlines.js';
import { requestIdOf } from './request-id.js';
import { findRequestState, initRequestState, RequestState, requestState } from './request-state.js';
import { contextOf } from './restaurant-context.js';
import { RETRY_AFTER_SECONDS, toProblem, validationProblem } from './to-problem.js';
import { toEmployeeBody, toRestaurantBody, toShiftBody } from './to-wire.js';

/** The router of {@link createRouter}: an Express router, and when it is ready to validate. */
export type WorkforceRouter = Router & {
  /** Resolves when the spec is compiled (requests before then wait for it); rejects if it cannot be. */
  readonly ready: Promise<void>;
};

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
  const parseBody = jsonBody(options.bodyLimitBytes ?? DEFAULTS.bodyLimitBytes);

  /** The two employee operations differ only in their use case. */
  const employeeHandler = (change: typeof unarchiveEmployee | typeof archiveEmployee) =>
    handler(
      ({ req, params, requestId }) =>
        change(deps, {
          restaurantContext: contextOf(req),
          employeeId: params.employeeId ?? '',
          requestId,
        }),
      ({ record, events }: Committed<Employee>): Success => ({
        body: toEmployeeBody(record),
        events,
      }),
    );
  const handlers: { readonly [id in OperationId]: Handler<unknown> } = {
    unarchiveEmployee: employeeHandler(unarchiveEmployee),
    archiveEmployee: employeeHandler(archiveEmployee),
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

  const validateAndHandle = (operation: OperationSpec): RequestHandler => {
    const key = `${operation.method} ${operation.path}`;
    let validator: OperationValidator | undefined;
    const run = (req: Request, res: Response, next: NextFunction) => {
      // Answered already (the request timed out while its body or a check was pending): the
      // client was told it failed, so its change must not start.
      if (res.headersSent) return;
      validator ??= validators?.get(key);
      if (validator === undefined) throw new Error(`no validator for ${key}`);
      const params = decodeParams(requestState(res).rawParams, operation);
      if ('error' in params) {
        writeProblem(res, requestState(res).requestId, params.error);
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
        writeProblem(
          res,
          requestState(res).requestId,
          validationProblem(failure.errors, operation.identifierMessages),
        );
        return;
      }
      if (validator.validateResponse === undefined) {
        handle(operation, params.values, query, req, res, next, false);
      } else {
        validator.validateResponse(req, res, () =>
          handle(operation, params.values, query, req, res, next, true),
        );
      }
    };
    return (req, res, next) => {
      if (validators !== undefined) run(req, res, next);
      else compiled.then(() => run(req, res, next)).catch(next);
    };
  };

  /**
   * Runs the use case and answers; `then` on the ResultAsync, not `await`: one hop fewer.
   * `checked`: the response validator hooks `res.json`, so the body must go through it.
   */
  function handle(
    operation: OperationSpec,
    params: Readonly<Record<string, string>>,
    query: Readonly<Record<string, unknown>>,
    req: Request,
    res: Response,
    next: NextFunction,
    checked: boolean,
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
        writeProblem(res, state.requestId, toProblem(error));
        return;
      }
      const { body, events } = respond(result.value);
      for (const event of events) emit(event, state);
      if (res.headersSent) return;
      if (checked) res.json(body);
      else sendJson(res, body);
      state.finish();
    }, next);
  }

  const chains = new Map(
    operations.map((operation) => {
      const steps = [
        authenticate(options.auth, operation.scope),
        permitRestaurant,
        ...limiters,
        mediaType(operation),
      ];
      if (operation.hasBody) steps.push(parseBody);
      return [operation.id, compose([...steps, validateAndHandle(operation)])];
    }),
  );

  const deadlines = new RequestDeadlines<Response>(requestTimeoutMs, (res) => {
    if (res.writableEnded) return;
    const state = requestState(res);
    state.log.warn({ timeoutMs: requestTimeoutMs }, 'request timed out');
    writeProblem(res, state.requestId, {
      code: 'REQUEST_TIMEOUT',
      detail: `The request was not answered within ${requestTimeoutMs} ms; a change it asked for may still complete.`,
      // The connection closes after the answer: a body still arriving is not read on.
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS), Connection: 'close' },
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
    const requestId = requestIdOf(req, res);
    // Answers carry personal data (employees) and are never to be cached or sniffed.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const rawParams = matched.kind === 'operation' ? matched.rawParams : {};
    const state = initRequestState(
      res,
      new RequestState(requestId, rawParams, logger, res, deadlines),
    );
    deadlines.start(res);
    if (logRequests) {
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

    if (matched.kind === 'not-found') {
      writeProblem(res, requestId, { code: 'NOT_FOUND', detail: 'No operation has this path.' });
      return;
    }
    if (matched.kind === 'method-not-allowed') {
      writeProblem(res, requestId, {
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

  // Errors of the requests the router took (body parser refusals, a throwing store): problems.
  const handleError = problemHandler({ logger });
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (findRequestState(res) === undefined) next(error);
    else handleError(error, req, res, next);
  });

  return Object.assign(router, { ready: compiled }) as WorkforceRouter;
}
