import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { INTERNAL_ERROR, requestIdFrom } from '@workforce-kit/http/adapter';
import { createRequestHandler } from '@workforce-kit/node-adapter';
import {
  type AppParts,
  afterBody,
  type HostAnswer,
  hostResponse,
  matcher,
  NOT_FOUND,
  pathOf,
  SERVED_WHILE_STARTING,
  STARTING,
  serveHost,
} from './host-routes.js';

/**
 * The reference server's app on node:http, with no framework: security headers on every answer
 * (the API's through its `responseHeaders`, in the answer's one write), the start gate, the host
 * routes (in order, as Express matches them: a GET route answers HEAD, an `ALL` route the methods
 * the routes before it do not take), the API's request handler, a 404 and a 500 for what fails
 * unexpectedly. Every answer carries an X-Request-Id (the API's own for
 * its paths) and every error is problem details under it.
 */
export function nodeApp(parts: AppParts): RequestListener {
  const routes = parts.routes.map((route) => ({ route, match: matcher(route.path) }));

  function answer(req: IncomingMessage, res: ServerResponse, hostAnswer: HostAnswer): void {
    if (res.headersSent) return;
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const { status, headers, body } = hostResponse(hostAnswer, requestId, pathOf(req.url ?? '/'));
    res.writeHead(status, headers);
    res.end(body);
  }

  const notFound = (req: IncomingMessage, res: ServerResponse) =>
    afterBody(req, () => answer(req, res, { problem: NOT_FOUND }));
  const api = createRequestHandler(parts.api);

  function route(req: IncomingMessage, res: ServerResponse): void {
    const path = pathOf(req.url ?? '/');
    if (!parts.started() && !SERVED_WHILE_STARTING.has(path)) {
      answer(req, res, { problem: STARTING });
      return;
    }
    const method = req.method ?? 'GET';
    for (const { route, match } of routes) {
      const param = match(path);
      if (param === undefined) continue;
      if (!(route.method === method || route.method === 'ALL')) {
        if (!(route.method === 'GET' && method === 'HEAD')) continue;
      }
      serveHost(route, param, req).then(
        (hostAnswer) => answer(req, res, hostAnswer),
        (error: unknown) => {
          parts.logger.error({ err: error, method, path }, 'unexpected error');
          answer(req, res, { problem: INTERNAL_ERROR });
        },
      );
      return;
    }
    api(req, res, () => notFound(req, res));
  }

  return route;
}
