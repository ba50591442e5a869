import type { ServerResponse } from 'node:http';
import { isThenable } from '@workforce-kit/core';
import type { Answering, ApiAnswer } from './pipeline.js';

/**
 * Writes the pipeline's answer on Node's response, as the Express and node:http adapters do (both
 * answer on a `ServerResponse`): the status and headers in one `writeHead` (with those the host
 * set before, such as its security headers), then the body (none for HEAD: Node drops it). A
 * response that has already started (the host answered, or the client is gone) is left as it is.
 * When the API observes its requests, their end is recorded as the response closes.
 *
 * An answer the pipeline gave at once is written at once; a promised one when it resolves.
 *
 * @example
 * ```ts
 * const answering = api.handle(request);
 * if (answering === undefined) next();
 * else writeAnswer(res, answering);
 * ```
 */
export function writeAnswer(res: ServerResponse, answering: Answering): void {
  if (isThenable(answering)) answering.then((answer) => write(res, answer));
  else write(res, answering);
}

function write(res: ServerResponse, answer: ApiAnswer): void {
  // (`closed` is called as the answer's method: it may be one.)
  if (answer.closed !== undefined) {
    if (res.closed) answer.closed(res);
    else res.once('close', () => answer.closed?.(res));
  }
  if (res.headersSent) return;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
