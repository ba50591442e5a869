import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiOptions, ProblemOccurrence } from '@workforce-kit/http';
import {
  createApi,
  problemBody,
  problemStatus,
  requestIdFrom,
  writeAnswer,
} from '@workforce-kit/http/adapter';

/** Options of {@link createRequestHandler}: those of every adapter, documented on `ApiOptions`. */
export type RequestHandlerOptions = ApiOptions;

/**
 * The handler of {@link createRequestHandler}: a `node:http` request listener that, given `next`,
 * hands the paths outside the API on, as Connect-style middleware does.
 */
export type WorkforceRequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

const OUTSIDE_THE_API: ProblemOccurrence = {
  code: 'NOT_FOUND',
  detail: 'Nothing is served at this path.',
};

/** The 404 of a path outside the API, for a handler that is the server's only one. */
function notFound(req: IncomingMessage, res: ServerResponse): void {
  const requestId = requestIdFrom(req.headers['x-request-id']);
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const body = JSON.stringify(
    problemBody(OUTSIDE_THE_API, requestId, query < 0 ? url : url.slice(0, query)),
  );
  res.writeHead(problemStatus(OUTSIDE_THE_API.code), {
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestId,
  });
  res.end(body);
}

/**
 * Creates the workforce-kit API as a `node:http` request handler, answering as every adapter does
 * (docs/architecture.md, "One request pipeline"). In `http.createServer(handler)` a path outside
 * the API is a 404 problem; in a framework that takes `(req, res, next)` (Connect, Koa, NestJS,
 * Polka) it goes to `next`. Nothing before the handler may read the request's body.
 *
 * @param options - the store, the token verifier and the limits; see `ApiOptions`
 * @returns the handler
 * @throws when the spec cannot be compiled: at creation, never per request
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createMemoryStore } from '@workforce-kit/core';
 * import { createJwtVerifier, createRequestHandler } from '@workforce-kit/node-adapter';
 *
 * const handler = createRequestHandler({ store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) });
 * createServer(handler).listen(8080);
 * ```
 */
export function createRequestHandler(options: RequestHandlerOptions): WorkforceRequestHandler {
  const api = createApi(options);
  return (req, res, next) => {
    const answering = api.handle({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      address: req.socket.remoteAddress,
      body: req,
    });
    if (answering !== undefined) writeAnswer(res, answering);
    else if (next !== undefined) next();
    else notFound(req, res);
  };
}
