import type { RequestListener, Server } from 'node:http';
import {
  type FrameworkErrorsHandler,
  frameworkErrors,
  problemErrorHandler,
  requestIds,
  sendProblem,
  workforceKit,
} from '@workforce-kit/fastify-adapter';
import Fastify, { type FastifyError, type FastifyInstance, type HTTPMethods } from 'fastify';
import {
  type AppParts,
  afterBody,
  NOT_FOUND,
  SERVED_WHILE_STARTING,
  STARTING,
  UNDECODABLE_PATH,
} from './host-routes.js';
import { SECURITY_HEADERS } from './security-headers.js';

/**
 * The Fastify instance's `frameworkErrors` of the reference server (its Fastify app, and its NestJS
 * app on Nest's Fastify platform): a path that does not percent-decode is the API's to answer when
 * it is one of its own, else a problem; any other refusal of Fastify's, its problem. Every one
 * with the security headers.
 */
export function hostFrameworkErrors(logger: AppParts['logger']): FrameworkErrorsHandler {
  const problems = problemErrorHandler(logger);
  return frameworkErrors((error, request, reply) => {
    reply.headers(SECURITY_HEADERS);
    return error.code === 'FST_ERR_BAD_URL'
      ? sendProblem(request, reply, UNDECODABLE_PATH)
      : problems(error, request, reply);
  });
}

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/**
 * The reference server's app on Fastify: the start gate, the host routes (with the security
 * headers and a request id), the API plugin (its answers carry the security headers through its
 * `responseHeaders`, in their one write), a 404 and the problem handler, which set the security
 * headers too. It serves on the server `serverFactory` makes.
 */
export async function fastifyApp(
  parts: AppParts,
  serverFactory: (handler: RequestListener) => Server,
): Promise<FastifyInstance> {
  const problems = problemErrorHandler(parts.logger);
  const app = Fastify({
    serverFactory: (handler) => serverFactory(handler),
    // A path that does not percent-decode is refused by Fastify before any route or hook: the
    // API answers those of its paths, as on the other frameworks; the rest are problem details.
    frameworkErrors: hostFrameworkErrors(parts.logger),
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (parts.started() || SERVED_WHILE_STARTING.has(request.routeOptions.url ?? '')) {
      done();
      return;
    }
    reply.headers(SECURITY_HEADERS);
    sendProblem(request, reply, STARTING);
  });
  await app.register(async (host) => {
    host.addHook('onRequest', (_request, reply, done) => {
      reply.headers(SECURITY_HEADERS);
      done();
    });
    // Every response carries an X-Request-Id, and every error is problem details under it.
    host.addHook('onRequest', requestIds);
    // The host routes read raw bodies (the login decodes its own); no other part parses.
    host.removeAllContentTypeParsers();
    host.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
    const routed = new Map<string, Set<string>>();
    for (const route of parts.routes) {
      if (route.method === 'ALL') continue;
      const methods =
        routed.get(route.path) ?? new Set(route.method === 'GET' ? ['GET', 'HEAD'] : []);
      methods.add(route.method);
      routed.set(route.path, methods);
    }
    for (const route of parts.routes) {
      const own = routed.get(route.path) ?? new Set<string>();
      host.route({
        method:
          route.method === 'ALL' ? ALL_METHODS.filter((method) => !own.has(method)) : route.method,
        url: route.path,
        ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit }),
        handler: async (request, reply) => {
          const answer = await route.handle({
            headers: request.headers,
            body: Buffer.isBuffer(request.body) ? request.body : undefined,
            address: request.ip,
            param: (request.params as { name?: string }).name,
          });
          if (answer.problem !== undefined) return sendProblem(request, reply, answer.problem);
          if (answer.headers !== undefined) reply.headers(answer.headers);
          return reply.code(answer.status).type(answer.type).send(answer.body);
        },
      });
    }
  });
  await app.register(workforceKit, parts.api);
  // As on the other frameworks, the 404 waits for the body nothing read: a body Node cannot parse
  // (a bad chunk size, a smuggling attempt) is then refused by Node's own 400 first.
  app.setNotFoundHandler((request, reply) => {
    afterBody(request.raw, () => sendProblem(request, reply.headers(SECURITY_HEADERS), NOT_FOUND));
    return reply;
  });
  app.setErrorHandler((error: FastifyError, request, reply) =>
    problems(error, request, reply.headers(SECURITY_HEADERS)),
  );
  return app;
}
