import type { RequestListener } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { createFetchHandler } from '@workforce-kit/fetch-adapter';
import type { ProblemOccurrence } from '@workforce-kit/http';
import {
  INTERNAL_ERROR,
  problemBody,
  problemStatus,
  requestIdFrom,
} from '@workforce-kit/http/adapter';
import { type Context, Hono } from 'hono';
import {
  type AppParts,
  afterBody,
  type HostAnswer,
  matcher,
  NOT_FOUND,
  SERVED_WHILE_STARTING,
  STARTING,
  serveHost,
} from './host-routes.js';
import { SECURITY_HEADERS } from './security-headers.js';

type HonoEnv = { Bindings: HttpBindings };

/** The path of a request as sent (not decoded), from its absolute URL. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/**
 * A host answer as a web Response, as the node:http app writes it: the security headers, the
 * request id, the answer's own headers; a problem as problem details.
 */
function responseOf(request: Request, answer: HostAnswer): Response {
  const requestId = requestIdFrom(request.headers.get('x-request-id') ?? undefined);
  if (answer.problem !== undefined) {
    const { problem } = answer;
    const body = JSON.stringify(problemBody(problem, requestId, pathOf(request.url)));
    return new Response(body, {
      status: problemStatus(problem.code),
      headers: {
        ...SECURITY_HEADERS,
        'X-Request-Id': requestId,
        ...problem.headers,
        'Content-Type': 'application/problem+json; charset=utf-8',
        'Content-Length': String(Buffer.byteLength(body)),
      },
    });
  }
  const { body } = answer;
  return new Response(typeof body === 'string' ? body : new Uint8Array(body), {
    status: answer.status,
    headers: {
      ...SECURITY_HEADERS,
      'X-Request-Id': requestId,
      ...answer.headers,
      'Content-Type': answer.type,
      'Content-Length': String(Buffer.byteLength(body)),
    },
  });
}

const problem = (c: Context<HonoEnv>, occurrence: ProblemOccurrence) =>
  responseOf(c.req.raw, { problem: occurrence });

/**
 * The reference server's app on Hono, served by `@hono/node-server`: the API through the fetch
 * adapter (`createFetchHandler`, reading Node's request under the web one; its answers carry the
 * security headers through its `responseHeaders`), then the host routes as Hono routes (a GET
 * route answers HEAD, as Hono does; an `ALL` route the methods the routes before it do not take),
 * a 404 and a 500 as problem details with the security headers and a request id. While the store
 * opens, a gate in front of the app answers all but `/healthz` and `/metrics` with a 503; once it is
 * open, requests go straight to the app.
 */
export function honoApp(parts: AppParts): RequestListener {
  // The API reads the head and body from Node's request (and the address from its socket), so
  // that @hono/node-server never makes the web Request's headers and body stream for it.
  const api = createFetchHandler({
    ...parts.api,
    nodeRequest: (_request, env: HttpBindings) => env.incoming,
  });
  const app = new Hono<HonoEnv>();
  app.use(async (c, next) => (await api(c.req.raw, c.env)) ?? next());
  for (const route of parts.routes) {
    const match = matcher(route.path);
    app.on(route.method === 'ALL' ? 'ALL' : route.method, route.path, async (c) => {
      const param = match(pathOf(c.req.url)) ?? '';
      return responseOf(c.req.raw, await serveHost(route, param, c.env.incoming));
    });
  }
  // As on the other frameworks, the 404 waits for the body nothing read: a body Node cannot parse
  // (a bad chunk size, a smuggling attempt) is then refused by Node's own 400 first.
  app.notFound(async (c) => {
    await new Promise<void>((resolve) => afterBody(c.env.incoming, resolve));
    return problem(c, NOT_FOUND);
  });
  app.onError((error, c) => {
    parts.logger.error(
      { err: error, method: c.req.method, path: pathOf(c.req.url) },
      'unexpected error',
    );
    return problem(c, INTERNAL_ERROR);
  });
  const listener = getRequestListener(app.fetch);

  const gate = new Hono<HonoEnv>();
  gate.all('*', (c) => problem(c, STARTING));
  const whileStarting = getRequestListener(gate.fetch);
  return (req, res) => {
    if (parts.started()) return listener(req, res);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    return SERVED_WHILE_STARTING.has(path) ? listener(req, res) : whileStarting(req, res);
  };
}
