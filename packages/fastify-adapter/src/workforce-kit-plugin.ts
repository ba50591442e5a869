import type { ApiOptions } from '@workforce-kit/http';
import {
  type Answering,
  type Api,
  type ApiAnswer,
  createApi,
  isThenable,
} from '@workforce-kit/http/adapter';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
  onRequestHookHandler,
} from 'fastify';
import fastifyPlugin from 'fastify-plugin';

/** Options of {@link workforceKit}: those of every adapter, documented on `ApiOptions`. */
export type WorkforceKitOptions = ApiOptions;

/** The pipeline's answer, written through Fastify (its `onSend` and `onResponse` hooks run). */
function send(reply: FastifyReply, answer: ApiAnswer): FastifyReply {
  // (`closed` is called as the answer's method: it may be one.)
  if (answer.closed !== undefined) {
    const res = reply.raw;
    if (res.closed) answer.closed(res);
    else res.once('close', () => answer.closed?.(res));
  }
  if (reply.sent) return reply;
  const { headers } = answer;
  for (let i = 0; i < headers.length; i += 2) reply.header(headers[i] as string, headers[i + 1]);
  return reply.code(answer.status).send(answer.body);
}

/**
 * The request to the pipeline of an API mounted under `prefix`, or `undefined` when the request's
 * path is not under it as sent (the host's router options may route another case or doubled
 * slashes here: those are not the API's).
 */
function answering(
  api: Api,
  prefix: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Answering | undefined {
  const url = request.raw.url ?? request.url;
  if (!url.startsWith(prefix)) return undefined;
  return api.handle({
    method: request.method,
    url: prefix === '' ? url : url.slice(prefix.length),
    originalUrl: url,
    headers: request.headers,
    // The socket's address: not request.ip, which the host's trustProxy would take from a header
    // the client may set.
    address: request.socket.remoteAddress,
    requestId: assignedRequestId(reply),
    body: request.raw,
  });
}

/** The APIs registered on each HTTP server, with their prefixes, for {@link frameworkErrors}. */
const mounted = new WeakMap<object, { readonly api: Api; readonly prefix: string }[]>();

async function plugin(fastify: FastifyInstance, options: WorkforceKitOptions): Promise<void> {
  const api = createApi(options);
  const { prefix } = fastify;
  mounted.set(fastify.server, [...(mounted.get(fastify.server) ?? []), { api, prefix }]);

  // The whole request is the pipeline's, answered from the route's first hook: Fastify neither
  // parses nor checks its body (the pipeline reads one only for an operation that takes one, once
  // its head has passed), and the route's handler is never reached. The hook is of the callback
  // kind and never calls on (the reply is sent instead), so that an answer the pipeline has at
  // once is sent at once, with no promise.
  const serve: onRequestHookHandler = (request: FastifyRequest, reply: FastifyReply) => {
    const answer = answering(api, prefix, request, reply);
    if (answer === undefined) reply.callNotFound();
    else if (isThenable(answer)) answer.then((ready) => send(reply, ready));
    else send(reply, answer);
  };
  const unreached = (_request: FastifyRequest, reply: FastifyReply) => reply.callNotFound();

  // Every method the instance routes, on the API's prefixes; the pipeline routes the rest.
  const method = fastify.supportedMethods as HTTPMethods[];
  for (const owned of api.prefixes) {
    for (const url of [owned, `${owned}/*`]) {
      fastify.route({ method, url, exposeHeadRoute: false, onRequest: serve, handler: unreached });
    }
  }
}

/** A Fastify instance's `frameworkErrors` handler. */
export type FrameworkErrorsHandler = (
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) => unknown;

/**
 * An optional `frameworkErrors` handler for the Fastify instance: a request Fastify refuses before
 * any route because its path does not percent-decode (`FST_ERR_BAD_URL`) is answered by the API
 * when the path is one of its own, exactly as the Express and node:http adapters answer it (the
 * token first, then 400 `VALIDATION_FAILED` naming the parameter, or 404 for `restaurantGUID`).
 * Any other framework error, or a path outside the API, goes to `otherwise` (by default Fastify's
 * own answer).
 *
 * @param otherwise - the host's handler of the rest
 * @example
 * ```ts
 * const app = Fastify({ frameworkErrors: frameworkErrors() });
 * await app.register(workforceKit, options);
 * ```
 */
export function frameworkErrors(
  otherwise: FrameworkErrorsHandler = (error, _request, reply) => reply.send(error),
): FrameworkErrorsHandler {
  return (error, request, reply) => {
    if (error.code === 'FST_ERR_BAD_URL') {
      for (const { api, prefix } of mounted.get(request.server.server) ?? []) {
        const answer = answering(api, prefix, request, reply);
        if (answer === undefined) continue;
        return isThenable(answer)
          ? answer.then((ready) => send(reply, ready))
          : send(reply, answer);
      }
    }
    return otherwise(error, request, reply);
  };
}

/** The id the host's `requestIds` hook gave the request, if it did. */
function assignedRequestId(reply: FastifyReply): string | undefined {
  const assigned = reply.getHeader('x-request-id');
  return typeof assigned === 'string' ? assigned : undefined;
}

/**
 * The workforce-kit API as a Fastify 5 plugin: the operations of the OpenAPI contract over any
 * store that implements the core's ports, answered by the API's one request pipeline
 * (`@workforce-kit/http`), with the same options, problem details, headers and statuses as every
 * adapter. The plugin routes the API's prefixes (`/labor/v1/*`,
 * `/restaurants/v1/*`) and the pipeline answers the rest, in the steps docs/architecture.md lists
 * ("One request pipeline"). A known path with another method is 405 with `Allow`; an unknown path
 * under the prefixes 404; any other path is the host's. It is encapsulated, needs no option of the Fastify instance, and registers under
 * any `prefix`. Its routes answer from their `onRequest` hook: the host's `onRequest` hooks run
 * before it, and its `onSend` and `onResponse` hooks after; so @fastify/cors, registered before it,
 * answers the preflights of browsers on other origins (docs/embedding.md, "Called from a browser:
 * CORS").
 *
 * What the instance decides before any plugin runs:
 * - a path that does not percent-decode is answered by Fastify itself (400 `FST_ERR_BAD_URL`,
 *   not problem details), unless the instance's `frameworkErrors` answers it otherwise:
 *   {@link frameworkErrors} hands those of the API's paths to the API;
 * - a method the instance does not route (Fastify routes GET, HEAD, POST, PUT, DELETE, PATCH,
 *   OPTIONS, TRACE and QUERY; not SEARCH, PROPFIND, …) never reaches the plugin: the host's 404,
 *   where the other adapters answer 405. Add it with `app.addHttpMethod` before registering the
 *   plugin to get the 405.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { createMemoryStore } from '@workforce-kit/core';
 * import { createJwtVerifier, workforceKit } from '@workforce-kit/fastify-adapter';
 *
 * const app = Fastify({ logger: true });
 * await app.register(workforceKit, { prefix: '/api', store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) });
 * await app.listen({ port: 8080 });
 * ```
 */
export const workforceKit = fastifyPlugin<WorkforceKitOptions>(plugin, {
  name: '@workforce-kit/fastify-adapter',
  fastify: '5.x',
  encapsulate: true,
});
