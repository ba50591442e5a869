import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { ApiOptions } from '@workforce-kit/http';
import {
  type ApiAnswer,
  basePathOf,
  createApi,
  isThenable,
  underBasePath,
} from '@workforce-kit/http/adapter';

/**
 * Options of {@link createFetchHandler}: those of every adapter (`ApiOptions`), and what a web
 * request does not carry, the client's address, from the host.
 *
 * @typeParam Context - what the host passes beside the request (Bun's `server`, Deno's `info`,
 *   Hono's `c.env`), for `getClientAddress`
 */
export interface FetchHandlerOptions<Context = unknown> extends ApiOptions {
  /**
   * The client's address, which a web `Request` does not carry, from what the host gives beside
   * it: the socket's address, not one a header claims. The rate limits count a request that names
   * no usable restaurant against it.
   *
   * - `@hono/node-server`: `(_request, env: HttpBindings) => env.incoming.socket.remoteAddress`
   *   (the handler called with `c.env`);
   * - Bun: `(request, server: Bun.Server<undefined>) => server.requestIP(request)?.address`;
   * - Deno: `(_request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => info.remoteAddr.hostname`.
   *
   * @default none: the requests that name no restaurant share one count
   */
  readonly getClientAddress?: (request: Request, context: Context) => string | undefined;
  /**
   * Node's request under the web one, for a host on Node's HTTP server that passes it beside the
   * request (`@hono/node-server`: `(_request, env: HttpBindings) => env.incoming`). The API then
   * reads the path as sent, the headers, the body and the client's address from it, as the
   * node:http adapter does, so that the host need not make the `Request`'s headers and body. The
   * rules are the same either way; only the work differs.
   * @default none: the `Request`'s own headers and body
   */
  readonly nodeRequest?: (request: Request, context: Context) => IncomingMessage | undefined;
  /**
   * The path the API is served under, for a host that hands it requests with their full path (a
   * Next.js route handler in `app/api/[...path]/route.ts`, a Hono app's `basePath`): `'/api'`
   * serves `/api/labor/v1/…`. A request outside it is not the API's (`undefined`). Problems name
   * the path as sent, base path included.
   * @default '' (the API's paths at the root)
   */
  readonly basePath?: string;
}

/**
 * The handler of {@link createFetchHandler}: the API's `Response` to a web `Request`, or
 * `undefined` when the request's path is not the API's (for the host to answer: its own routes, or
 * its 404). Whatever the client sends, it resolves: an unexpected failure is a logged 500 problem
 * (it rejects only when an option's function of the host throws).
 *
 * `context` is what the host passes beside the request, handed to `getClientAddress`; it may be
 * left out when that option is not given.
 */
export type FetchHandler<Context = unknown> = undefined extends Context
  ? (request: Request, context?: Context) => Promise<Response | undefined>
  : (request: Request, context: Context) => Promise<Response | undefined>;

const NOT_THE_API: Promise<undefined> = Promise.resolve(undefined);

/** The headers of a web request as the pipeline reads them: an object, names in lower case. */
function headersOf(headers: Headers): IncomingHttpHeaders {
  const read: Record<string, string> = {};
  headers.forEach((value, name) => {
    read[name] = value;
  });
  return read;
}

/**
 * Makes the API's answer a web `Response`, once: its headers an object of the answer's flat list
 * (each name once), its body none for HEAD (the length stays the GET's, as Node sends it).
 */
function responseOf(answer: ApiAnswer, head: boolean): Response {
  const list = answer.headers;
  const headers: Record<string, string> = {};
  for (let i = 0; i < list.length; i += 2) headers[list[i] as string] = list[i + 1] as string;
  const response = new Response(head ? null : answer.body, { status: answer.status, headers });
  // The web API tells no one when a response has gone out: the request is recorded (its log line,
  // metrics, span) as its answer is handed to the host.
  answer.closed?.({ statusCode: answer.status, writableFinished: true });
  return response;
}

const responseOfGet = (answer: ApiAnswer) => responseOf(answer, false);
const responseOfHead = (answer: ApiAnswer) => responseOf(answer, true);

/**
 * Creates the workforce-kit API as a fetch handler, `(request, context?) => Promise<Response |
 * undefined>`, for hosts whose requests are the web's `Request`: Hono, Next.js route handlers,
 * `Bun.serve`, `Deno.serve`, or a test in process. It answers as every adapter does
 * (docs/architecture.md, "One request pipeline"); a path outside the API resolves to `undefined`.
 * A request is recorded (log line, metrics, span) when its `Response` is handed to the host: the
 * web API does not say when a response has gone out.
 *
 * @param options - the store, the token verifier, the limits (see `ApiOptions`), and the client's
 *   address from the host (`getClientAddress`)
 * @returns the handler
 * @throws when the spec cannot be compiled: at creation, never per request
 * @example
 * ```ts
 * import { createMemoryStore } from '@workforce-kit/core';
 * import { createFetchHandler, createJwtVerifier } from '@workforce-kit/fetch-adapter';
 *
 * const api = createFetchHandler({ store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) });
 * Bun.serve({ fetch: async (request) => (await api(request)) ?? new Response('Not Found', { status: 404 }) });
 * ```
 */
export function createFetchHandler<Context = unknown>(
  options: FetchHandlerOptions<Context>,
): FetchHandler<Context> {
  const api = createApi(options);
  const { getClientAddress, nodeRequest } = options;
  const basePath = basePathOf(options.basePath);
  const handler = (request: Request, context: Context): Promise<Response | undefined> => {
    try {
      return handle(request, context);
    } catch (error) {
      // A function of the host's options that threw: a rejection, as a fetch handler's caller
      // expects of a promise, not a throw.
      return Promise.reject(error);
    }
  };
  const handle = (request: Request, context: Context): Promise<Response | undefined> => {
    const node = nodeRequest?.(request, context);
    // The path and query as sent: Node's request target, or the web URL after its origin (the
    // web's URLs are absolute, and their parser has removed any dot segment).
    let sent: string;
    if (node?.url !== undefined) {
      sent = node.url;
    } else {
      const { url } = request;
      const start = url.indexOf('/', url.indexOf('//') + 2);
      const hash = url.indexOf('#', start);
      sent = start < 0 ? '/' : hash < 0 ? url.slice(start) : url.slice(start, hash);
    }
    const path = underBasePath(sent, basePath);
    if (path === undefined) return NOT_THE_API;
    const { method } = request;
    const answering = api.handle({
      method,
      url: path,
      originalUrl: sent,
      headers: node === undefined ? headersOf(request.headers) : node.headers,
      address:
        getClientAddress === undefined
          ? node?.socket.remoteAddress
          : getClientAddress(request, context),
      body: node ?? request,
    });
    if (answering === undefined) return NOT_THE_API;
    const respond = method === 'HEAD' ? responseOfHead : responseOfGet;
    return isThenable(answering) ? answering.then(respond) : Promise.resolve(respond(answering));
  };
  return handler as FetchHandler<Context>;
}
