import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { WorkforceStore } from '@workforce-kit/core';
import type { ApiOptions, Logger, ProblemOccurrence } from '@workforce-kit/http';

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
 * A route of the reference server outside the API, written once for both frameworks; each binds
 * it (`express-host.ts`, `fastify-host.ts`).
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
