import type {
  IncomingHttpHeaders,
  IncomingMessage,
  RequestListener,
  ServerResponse,
} from 'node:http';
import type { WorkforceStore } from '@workforce-kit/core';
import type { ApiOptions, Logger, ProblemOccurrence } from '@workforce-kit/http';
import {
  INTERNAL_ERROR,
  problemBody,
  problemStatus,
  requestIdFrom,
} from '@workforce-kit/http/adapter';
import getRawBody from 'raw-body';
import { SECURITY_HEADERS } from './security-headers.js';

/**
 * A request to a route of the reference server outside the API (health, docs, the development
 * login), as Express and Fastify both give it.
 */
export interface HostRequest {
  readonly headers: IncomingHttpHeaders;
  /** The raw body of a route that reads one: at most its limit, not decoded. */
  readonly body: Buffer | undefined;
  /** The client's address. */
  readonly address: string | undefined;
  /** The value of the route's path parameter, for a route that has one (`:name`). */
  readonly param: string | undefined;
}

/** What a host route answers: a body of a media type, or a problem. */
export type HostAnswer =
  | {
      readonly status: number;
      readonly type: string;
      readonly body: string | Buffer;
      readonly headers?: Readonly<Record<string, string>>;
      readonly problem?: undefined;
    }
  | { readonly problem: ProblemOccurrence };

/**
 * A route of the reference server outside the API, written once for every framework it runs on;
 * each `*-app.ts` binds it.
 */
export interface HostRoute {
  readonly method: 'GET' | 'POST' | 'ALL';
  /** The path, with at most one parameter (`/docs/assets/:name`). */
  readonly path: string;
  /** The largest body the route reads, in bytes; a route without one reads none. */
  readonly bodyLimit?: number;
  /** The answer to a request of this route. */
  handle(request: HostRequest): HostAnswer | Promise<HostAnswer>;
}

/** A JSON answer. */
export const json = (body: unknown, status = 200): HostAnswer => ({
  status,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});

/** A host answer as it goes on the wire, whatever writes it: status, headers and body. */
export interface HostResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}

/**
 * A host answer as the apps without a framework's own reply (node:http, Hono) write it: the
 * security headers, the request id, the answer's own headers; a problem as problem details of
 * the request's path.
 */
export function hostResponse(answer: HostAnswer, requestId: string, path: string): HostResponse {
  if (answer.problem !== undefined) {
    const { problem } = answer;
    const body = JSON.stringify(problemBody(problem, requestId, path));
    return {
      status: problemStatus(problem.code),
      headers: {
        ...SECURITY_HEADERS,
        'X-Request-Id': requestId,
        ...problem.headers,
        'Content-Type': 'application/problem+json; charset=utf-8',
        'Content-Length': String(Buffer.byteLength(body)),
      },
      body,
    };
  }
  return {
    status: answer.status,
    headers: {
      ...SECURITY_HEADERS,
      'X-Request-Id': requestId,
      ...answer.headers,
      'Content-Type': answer.type,
      'Content-Length': String(Buffer.byteLength(answer.body)),
    },
    body: answer.body,
  };
}

/** A request target's path: the part before its query. */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

/** `/healthz` (the process is up) and `/readyz` (the store can be reached). */
export function healthRoutes(store: () => Pick<WorkforceStore, 'ping'>): HostRoute[] {
  return [
    { method: 'GET', path: '/healthz', handle: () => json({ status: 'ok' }) },
    {
      method: 'GET',
      path: '/readyz',
      handle: async () =>
        (await store().ping()).isOk()
          ? json({ status: 'ready' })
          : {
              problem: {
                code: 'STORAGE_UNAVAILABLE',
                detail: 'The store cannot be reached.',
                headers: { 'Retry-After': '1' },
              },
            },
    },
  ];
}

/** What both frameworks' apps of the reference server are made of. */
export interface AppParts {
  /** The routes outside the API: health, docs, the development login. */
  readonly routes: readonly HostRoute[];
  /** The API's options (its store may be opened after the port is bound). */
  readonly api: ApiOptions;
  /** Whether the store is open: until then, all but {@link SERVED_WHILE_STARTING} is a 503 to retry. */
  readonly started: () => boolean;
  readonly logger: Logger;
}

/**
 * The paths served while the store opens: the process's liveness, and its metrics (a scrape
 * during the start sees the process, not a 503).
 */
export const SERVED_WHILE_STARTING: ReadonlySet<string> = new Set(['/healthz', '/metrics']);

/** While the store is not open yet. */
export const STARTING = {
  code: 'STORAGE_UNAVAILABLE',
  detail: 'The server is starting: the store is not open yet.',
  headers: { 'Retry-After': '1' },
} as const;

export const NOT_FOUND = { code: 'NOT_FOUND', detail: 'Nothing is served at this path.' } as const;

/**
 * Calls `answer` once the request's body, which no route read, has arrived (and been dropped): a
 * body Node cannot parse (a bad chunk size, a smuggling attempt) is then refused by Node's own
 * 400 and the answer never goes out, rather than the server's answer going out first. For the
 * answers of requests nothing took: the 404.
 */
export function afterBody(req: IncomingMessage, answer: () => void): void {
  if (req.complete) {
    answer();
    return;
  }
  req.once('end', answer);
  req.resume();
}

/** A path that does not percent-decode: a 400 about the path. */
export const UNDECODABLE_PATH: ProblemOccurrence = {
  code: 'VALIDATION_FAILED',
  detail: 'The request has 1 invalid input.',
  errors: [{ path: '/path', message: 'is not valid percent-encoding' }],
};
const BODY_TOO_LARGE: ProblemOccurrence = {
  code: 'PAYLOAD_TOO_LARGE',
  detail: 'The request body is too large.',
};
const BODY_UNREADABLE: ProblemOccurrence = {
  code: 'MALFORMED_JSON',
  detail: 'The request body cannot be read.',
};

/** A host route's path as a matcher: the value of its one parameter (or '' when it has none). */
export function matcher(path: string): (requested: string) => string | undefined {
  const colon = path.indexOf(':');
  if (colon < 0) return (requested) => (requested === path ? '' : undefined);
  const prefix = path.slice(0, colon);
  return (requested) => {
    if (!requested.startsWith(prefix)) return undefined;
    const value = requested.slice(prefix.length);
    return value === '' || value.includes('/') ? undefined : value;
  };
}

/**
 * A host route's answer to a request (the node:http and Hono apps serve their routes alike): its
 * parameter percent-decoded (400 when it does not decode), the body read from Node's request up
 * to the route's limit (413, or 400 when it cannot be read), then the route's own answer.
 */
export async function serveHost(
  route: HostRoute,
  param: string,
  req: IncomingMessage,
): Promise<HostAnswer> {
  let value: string | undefined;
  if (route.path.includes(':')) {
    try {
      value = decodeURIComponent(param);
    } catch {
      return { problem: UNDECODABLE_PATH };
    }
  }
  let body: Buffer | undefined;
  if (route.bodyLimit !== undefined) {
    try {
      body = await getRawBody(req, { limit: route.bodyLimit });
    } catch (error) {
      const tooLarge = (error as { type?: string }).type === 'entity.too.large';
      return { problem: tooLarge ? BODY_TOO_LARGE : BODY_UNREADABLE };
    }
  }
  return route.handle({
    headers: req.headers,
    body,
    address: req.socket.remoteAddress,
    param: value,
  });
}

/**
 * Writes a host answer on Node's response, as the apps without a framework's own reply write it
 * (`hostResponse`), with the request's id; nothing once the response has started.
 */
export function writeHostAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  answer: HostAnswer,
): void {
  if (res.headersSent) return;
  const requestId = requestIdFrom(req.headers['x-request-id']);
  const { status, headers, body } = hostResponse(answer, requestId, pathOf(req.url ?? '/'));
  res.writeHead(status, headers);
  res.end(body);
}

/** The 404 of a path nothing serves, once the request's body is read (`afterBody`). */
export function writeNotFound(req: IncomingMessage, res: ServerResponse): void {
  afterBody(req, () => writeHostAnswer(req, res, { problem: NOT_FOUND }));
}

/**
 * The host routes over Node's request and response, for the apps that route them themselves
 * (node:http's, and the NestJS app's middleware): in order, as Express matches them (a GET route
 * answers HEAD, an `ALL` route the methods the routes before it do not take). It answers a request
 * of one of them, and says so (`true`); it leaves any other (`false`). `target` is the request's
 * path and query as sent, when a framework has rewritten `req.url`.
 */
export function hostRouter(
  parts: Pick<AppParts, 'routes' | 'logger'>,
): (req: IncomingMessage, res: ServerResponse, target?: string) => boolean {
  const routes = parts.routes.map((route) => ({ route, match: matcher(route.path) }));
  return (req, res, target = req.url ?? '/') => {
    const path = pathOf(target);
    const method = req.method ?? 'GET';
    for (const { route, match } of routes) {
      const param = match(path);
      if (param === undefined) continue;
      if (!(route.method === method || route.method === 'ALL')) {
        if (!(route.method === 'GET' && method === 'HEAD')) continue;
      }
      serveHost(route, param, req).then(
        (answer) => writeHostAnswer(req, res, answer),
        (error: unknown) => {
          parts.logger.error({ err: error, method, path }, 'unexpected error');
          writeHostAnswer(req, res, { problem: INTERNAL_ERROR });
        },
      );
      return true;
    }
    return false;
  };
}

/**
 * The app behind the start gate: while the store opens, all but {@link SERVED_WHILE_STARTING} is
 * a 503 to retry, with the security headers and a request id.
 */
export function gated(parts: Pick<AppParts, 'started'>, app: RequestListener): RequestListener {
  return (req, res) => {
    if (parts.started() || SERVED_WHILE_STARTING.has(pathOf(req.url ?? '/'))) app(req, res);
    else writeHostAnswer(req, res, { problem: STARTING });
  };
}
