import {
  createRouter,
  problemHandler,
  requestIds,
  sendProblem,
} from '@workforce-kit/express-adapter';
import express, { type Response } from 'express';
import getRawBody from 'raw-body';
import {
  type AppParts,
  afterBody,
  type HostAnswer,
  NOT_FOUND,
  SERVED_WHILE_STARTING,
  STARTING,
} from './host-routes.js';
import { securityHeaders } from './security-headers.js';

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
    if (parts.started() || SERVED_WHILE_STARTING.has(req.path)) next();
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
  app.use((req, res) => afterBody(req, () => sendProblem(res, NOT_FOUND)));
  app.use(problemHandler({ logger: parts.logger }));
  return app;
}
