import type { RequestListener } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { createFetchHandler } from '@workforce-kit/fetch-adapter';
import type { ProblemOccurrence } from '@workforce-kit/http';
import { INTERNAL_ERROR, requestIdFrom } from '@workforce-kit/http/adapter';
import { type Context, Hono } from 'hono';
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

type HonoEnv = { Bindings: HttpBindings };

/** The path of a request as sent (not decoded), from its absolute URL. */
function pathOfUrl(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start < 0 ? '/' : pathOf(url.slice(start));
}

/** A host answer as a web Response, as the node:http app writes it (`hostResponse`). */
function responseOf(request: Request, answer: HostAnswer): Response {
  const requestId = requestIdFrom(request.headers.get('x-request-id') ?? undefined);
  const { status, headers, body } = hostResponse(answer, requestId, pathOfUrl(request.url));
  return new Response(typeof body === 'string' ? body : new Uint8Array(body), { status, headers });
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
      const param = match(pathOfUrl(c.req.url)) ?? '';
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
      { err: error, method: c.req.method, path: pathOfUrl(c.req.url) },
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
    return SERVED_WHILE_STARTING.has(pathOf(req.url ?? '/'))
      ? listener(req, res)
      : whileStarting(req, res);
  };
}
