// The floors of the adapters with the reference server's defaults: a framework answering the bodies
// as its bare row does, plus only what those defaults add to every answer, none of the API's own
// work (no token, no validation, no use case). The same headers (helmet's, the API's no-store and
// nosniff, a new X-Request-Id, the RateLimit-* three), the same metrics observed (prom-client:
// requests, duration, in flight), and the same log line per request written the way the server
// writes its log (pino, asynchronous, 4 KiB at a time). What workforce-kit on a framework spends
// beyond its floor is the pipeline's own.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import express from 'express';
import { BODIES, JSON_TYPE, type Listening, listen } from './common.js';
import { floorDefaults } from './floor-defaults.js';

const UNARCHIVE = '/unarchive';
const EMPLOYEES = '/labor/v1/employees/';
const RESTAURANTS = '/restaurants/v1/restaurants/';

/**
 * A request handler that answers the bench's three routes with the defaults' work, and calls
 * `next` for any other path (as the API's middleware does).
 */
function defaultsHandler(): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const defaults = floorDefaults();
  return (req, res, next) => {
    const url = req.url ?? '/';
    const [operation, body] =
      req.method === 'GET' && url.startsWith(RESTAURANTS)
        ? ['getRestaurant', BODIES.restaurant]
        : req.method === 'DELETE' && url.startsWith(EMPLOYEES)
          ? ['archiveEmployee', BODIES.archived]
          : req.method === 'PUT' && url.startsWith(EMPLOYEES) && url.endsWith(UNARCHIVE)
            ? ['unarchiveEmployee', BODIES.live]
            : ['none', undefined];
    if (body === undefined) {
      next();
      return;
    }
    const requestId = defaults.observe(req, res, operation);
    const text = JSON.stringify(body);
    const headers = defaults.everyAnswer.slice();
    headers.push(
      'X-Request-Id',
      requestId,
      'RateLimit-Limit',
      '1000000000',
      'RateLimit-Remaining',
      '999999999',
      'RateLimit-Reset',
      '1',
      'Content-Type',
      JSON_TYPE,
      'Content-Length',
      String(Buffer.byteLength(text)),
    );
    res.writeHead(200, headers);
    res.end(text);
  };
}

/** node:http with the defaults' work: the floor under the node:http adapter. */
export function nodeFloor(): Promise<Listening> {
  const handle = defaultsHandler();
  return listen(
    createServer((req, res) =>
      handle(req, res, () => {
        res.writeHead(404).end();
      }),
    ),
  );
}

/**
 * Express 5 with the defaults' work in one middleware, as the Express adapter is mounted (one
 * middleware for the whole API, answering with `writeHead`): the floor under the Express adapter.
 */
export function expressFloor(): Promise<Listening> {
  const app = express();
  app.disable('x-powered-by');
  app.use(defaultsHandler());
  return listen(createServer(app));
}
