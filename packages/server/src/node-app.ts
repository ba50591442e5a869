import type { RequestListener } from 'node:http';
import { createRequestHandler } from '@workforce-kit/node-adapter';
import { type AppParts, gated, hostRouter, writeNotFound } from './host-routes.js';

/**
 * The reference server's app on node:http, with no framework: security headers on every answer
 * (the API's through its `responseHeaders`, in the answer's one write), the start gate, the host
 * routes (in order, as Express matches them: a GET route answers HEAD, an `ALL` route the methods
 * the routes before it do not take), the API's request handler, a 404 and a 500 for what fails
 * unexpectedly. Every answer carries an X-Request-Id (the API's own for
 * its paths) and every error is problem details under it.
 */
export function nodeApp(parts: AppParts): RequestListener {
  const host = hostRouter(parts);
  const api = createRequestHandler(parts.api);
  return gated(parts, (req, res) => {
    if (!host(req, res)) api(req, res, () => writeNotFound(req, res));
  });
}
