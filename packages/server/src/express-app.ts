import type { RequestListener } from 'node:http';
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
import { setSecurityHeaders } from './security-headers.js';

function send(res: Response, answer: HostAnswer): void {
  if (answer.problem !== undefined) {
    sendProblem(res, answer.problem);
    return;
  }
  if (answer.headers !== undefined) res.set(answer.headers);
  res.status(answer.status).type(answer.type).send(answer.body);
}

/**
 * The reference server's app on Express: the API router (its answers carry the security headers
 * through its `responseHeaders`, in their one write), then for every other path the security
 * headers and a request id, the host routes, a 404 and the problem handler. While the store opens,
 * requests go through a start gate first; once it is open, straight to the app, so that the gate
 * costs no layer of Express's router (each request would otherwise pass it).
 */
export function expressApp(parts: AppParts): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.use(createRouter(parts.api));
  app.use((_req, res, next) => {
    setSecurityHeaders(res);
    next();
  });
  // Every response carries an X-Request-Id, and every error is problem details under it.
  app.use(requestIds());
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
  app.use((req, res) => afterBody(req, () => sendProblem(res, NOT_FOUND)));
  app.use(problemHandler({ logger: parts.logger }));

  // The gate hands a request on by calling the app, not by mounting it: a mounted app's request
  // and response would inherit from the gate's, one more prototype on every request.
  const whileStarting = express();
  whileStarting.disable('x-powered-by');
  whileStarting.use((req, res) => {
    if (parts.started() || SERVED_WHILE_STARTING.has(req.path)) {
      app(req, res);
      return;
    }
    setSecurityHeaders(res);
    sendProblem(res, STARTING);
  });
  return (req, res) => (parts.started() ? app(req, res) : whileStarting(req, res));
}
