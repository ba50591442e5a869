import type { Logger, ProblemOccurrence } from '@workforce-kit/http';
import {
  INTERNAL_ERROR,
  problemBody,
  problemStatus,
  requestIdFrom,
} from '@workforce-kit/http/adapter';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The id of a request: the one it was already given (by {@link requestIds} or the plugin), else a
 * sane incoming `X-Request-Id`, else a new UUID, set on the reply's `X-Request-Id` header.
 */
export function requestIdOf(request: FastifyRequest, reply: FastifyReply): string {
  const assigned = reply.getHeader('x-request-id');
  if (typeof assigned === 'string') return assigned;
  const id = requestIdFrom(request.headers['x-request-id']);
  reply.header('X-Request-Id', id);
  return id;
}

/**
 * An `onRequest` hook for the host app that gives every request a request id, by the plugin's
 * rules (a sane incoming `X-Request-Id` is reused): the `X-Request-Id` reply header, and the
 * `requestId` of any problem the app answers with {@link sendProblem}. The plugin then uses the
 * same id.
 *
 * @example
 * ```ts
 * app.addHook('onRequest', requestIds);
 * ```
 */
export async function requestIds(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  requestIdOf(request, reply);
}

/**
 * Answers with problem details, as the plugin does: the status, `type` and `title` of the code,
 * the `detail` given, and the request's id. For the host app's own routes, so that every error
 * of a service has one form.
 *
 * @example
 * ```ts
 * app.setNotFoundHandler((request, reply) => sendProblem(request, reply, { code: 'NOT_FOUND', detail: 'Nothing here.' }));
 * ```
 */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  occurrence: ProblemOccurrence,
): FastifyReply {
  const body = problemBody(
    occurrence,
    requestIdOf(request, reply),
    request.url.split('?')[0] ?? '',
  );
  if (occurrence.headers !== undefined) reply.headers(occurrence.headers);
  return reply
    .code(problemStatus(occurrence.code))
    .type('application/problem+json; charset=utf-8')
    .send(JSON.stringify(body));
}

/**
 * An error handler for the host app (`app.setErrorHandler(...)`): a body Fastify refused becomes
 * its problem (413, 415, 400), anything else a 500 `INTERNAL_ERROR` that shows nothing internal,
 * logged under the request id the client got.
 */
export function problemErrorHandler(logger: Pick<Logger, 'error'>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const status = error.statusCode ?? 500;
    if (status === 413) {
      return sendProblem(request, reply, {
        code: 'PAYLOAD_TOO_LARGE',
        detail: 'The request body is too large.',
      });
    }
    if (status === 415) {
      return sendProblem(request, reply, {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        detail: 'The body encoding is not supported.',
      });
    }
    if (status === 400 && error.code?.startsWith('FST_ERR_CTP')) {
      return sendProblem(request, reply, {
        code: 'MALFORMED_JSON',
        detail: 'The request body cannot be read.',
      });
    }
    logger.error(
      {
        err: error,
        requestId: requestIdOf(request, reply),
        method: request.method,
        path: request.url.split('?')[0],
      },
      'unexpected error',
    );
    return sendProblem(request, reply, INTERNAL_ERROR);
  };
}
