/**
 * What an adapter author needs of the HTTP edge: `createApi`, whose `handle` is the request
 * pipeline (plain request data in, a plain answer out), `writeAnswer` for a framework that answers
 * on Node's `ServerResponse`, and the pieces of problem details and request ids an adapter's own
 * host helpers use, and the base path of an API served under one. The Express, Fastify, node:http,
 * fetch and NestJS adapters are built on these alone.
 *
 * @example
 * ```ts
 * import type { IncomingMessage, ServerResponse } from 'node:http';
 * import { createApi, writeAnswer } from '@workforce-kit/http/adapter';
 *
 * const api = createApi(options);
 * const handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => {
 *   const answering = api.handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, address: req.socket.remoteAddress, body: req });
 *   if (answering === undefined) return next();
 *   // The answer, at once when every step of the request was at hand, else a promise of it.
 *   writeAnswer(res, answering);
 * };
 * ```
 *
 * @packageDocumentation
 */

export { isThenable } from '@workforce-kit/core';
export { type Api, createApi } from './api.js';
export { basePathOf, underBasePath } from './base-path.js';
export type { UnreadBody, WebBody } from './json-body.js';
export type { Answering, ApiAnswer, ApiRequest, Pipeline } from './pipeline.js';
export {
  INTERNAL_ERROR,
  problemBody,
  problemStatus,
  RETRY_AFTER_SECONDS,
} from './problems.js';
export { requestIdFrom } from './request-id.js';
export type { AnsweredResponse } from './telemetry.js';
export { writeAnswer } from './write-answer.js';
