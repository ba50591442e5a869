import type { ApiOptions } from '@workforce-kit/http';
import { createApi, writeAnswer } from '@workforce-kit/http/adapter';
import type { RequestHandler } from 'express';
import { assignedRequestId } from './request-id.js';

/** Options of {@link createRouter}: those of every adapter, documented on `ApiOptions`. */
export type RouterOptions = ApiOptions;

/** The middleware of {@link createRouter}. */
export type WorkforceRouter = RequestHandler & {
  /** Resolves when the router can serve: at once, since the spec is compiled on creation. */
  readonly ready: Promise<void>;
};

/** What a body parser of the host (`express.json()` before the router) leaves on a request. */
interface ParsedRequest {
  readonly body?: unknown;
}

/**
 * Creates the Express middleware of the workforce-kit API: the operations of
 * `openapi/openapi.yaml` over any store that implements the core's ports, answered by the API's
 * one request pipeline (`@workforce-kit/http`; its steps, in order, are in docs/architecture.md,
 * "One request pipeline"). Every error is problem details with a `code` and the `requestId`. A
 * known path with another method is 405 with `Allow`; an unknown path under the API's prefixes
 * 404. Other paths go on to the host's next middleware. Mount it
 * at the root or under a path (`app.use('/api', router)`); the id the host's `requestIds()` gave a
 * request is kept, and a body the host's `express.json()` already parsed is taken as parsed. For
 * browsers on other origins, the host's CORS middleware (`cors()`) goes before it, and answers
 * their preflights (docs/embedding.md, "Called from a browser: CORS").
 *
 * @param options - the store, the token verifier and the limits; see `ApiOptions`
 * @returns the middleware
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
  const router: RequestHandler = (req, res, next) => {
    const answering = api.handle({
      method: req.method,
      url: req.url,
      originalUrl: req.originalUrl,
      headers: req.headers,
      address: req.socket.remoteAddress,
      requestId: assignedRequestId(res),
      // A body the host's parser already read (its stream has ended) is taken as it parsed it.
      body: req.readableEnded ? { parsed: (req as ParsedRequest).body } : req,
    });
    if (answering === undefined) {
      next();
      return;
    }
    writeAnswer(res, answering);
  };
  return Object.assign(router, { ready: Promise.resolve() });
}
