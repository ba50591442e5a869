import {
  createRouter,
  problemHandler,
  type RouterOptions,
  requestIds,
  sendProblem,
} from '@workforce-kit/express-adapter';
import type { Logger } from '@workforce-kit/http';
import express, { type Response } from 'express';
import getRawBody from 'raw-body';
import type { HostAnswer, HostRoute } from './host-routes.js';
import { securityHeaders } from './security-headers.js';

/** What both frameworks' apps of the reference server are made of. */
export interface AppParts {
  /** The routes outside the API: health, docs, the development login. */
  readonly routes: readonly HostRoute[];
  /** The API's options (its store may be opened after the port is bound). */
  readonly api: RouterOptions;
  /** Whether the store is open: until then, everything but `/healthz` is a 503 to retry. */
  readonly started: () => boolean;
  readonly logger: Logger;
}

/** While the store is not open yet. */
export const STARTING = {
  code: 'STORAGE_UNAVAILABLE',
  detail: 'The server is starting: the store is not open yet.',
  headers: { 'Retry-After': '1' },
} as const;

export const NOT_FOUND = { code: 'NOT_FOUND', detail: 'Nothing is served at this path.' } as const;

function send(res: Response, answer: HostAnswer): void {
  if (answer.problem !== undefined) {
    sendProblem(res, answer.problem);
    return;
  }
  if (answer.headers !== undefined) res.set(answer.headers);
  res.status(answer.status).type(answer.type).send(answer.body);
}

/**
 * The reference server's app on Express: security headers and request ids for every path, the start gate, the host
 * routes, the API router, a 404 and the problem handler.
 */
export function expressApp(parts: AppParts): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders);
  // Every response carries an X-Request-Id, and every error is problem details under it.
  app.use(requestIds());
  app.use((req, res, next) => {
    if (parts.started() || req.path === '/healthz') next();
    else sendProblem(res, STARTING);
  });
  for (const route of parts.routes) {
    const method = route.method === 'ALL' ? 'all' : route.method === 'POST' ? 'post' : 'get';
    const { bodyLimit } = route;
    app[method](route.path, (req, res, next) => {
      const body =
        bodyLimit === undefined
          ? Promise.resolve(undefined)
          : getRawBody(req, { limit: bodyLimit });
      body
        .then((raw) =>
          route.handle({
            headers: req.headers,
            body: raw,
            address: req.socket.remoteAddress,
            param: typeof req.params.name === 'string' ? req.params.name : undefined,
          }),
        )
        .then((answer) => send(res, answer), next);
    });
  }
  app.use(createRouter(parts.api));
  app.use((_req, res) => sendProblem(res, NOT_FOUND));
  app.use(problemHandler({ logger: parts.logger }));
  return app;
}
