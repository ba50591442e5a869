// The floors of the adapters with the reference server's defaults: a framework answering the bodies
// as its bare row does, plus only what those defaults add to every answer, none of the API's own
// work (no token, no validation, no use case). The same headers (helmet's, the API's no-store and
// nosniff, a new X-Request-Id, the RateLimit-* three), the same metrics observed (prom-client:
// requests, duration, in flight), and the same log line per request written the way the server
// writes its log (pino, asynchronous, 4 KiB at a time). What workforce-kit on a framework spends
// beyond its floor is the pipeline's own.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from '@workforce-kit/server';
import express from 'express';
import { pino } from 'pino';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BODIES, JSON_TYPE, type Listening, listen } from './common.js';

const UNARCHIVE = '/unarchive';
const EMPLOYEES = '/labor/v1/employees/';
const RESTAURANTS = '/restaurants/v1/restaurants/';

/**
 * A request handler that answers the bench's three routes with the defaults' work, and calls
 * `next` for any other path (as the API's middleware does).
 */
function defaultsHandler(): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const registers = [new Registry()];
  const requests = new Counter({
    name: 'requests_total',
    help: 'requests',
    labelNames: ['operation', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'request_duration_seconds',
    help: 'durations',
    labelNames: ['operation', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const inFlight = new Gauge({ name: 'requests_in_flight', help: 'in flight', registers });
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), 200).unref();
  const logger = pino({ level: 'info' }, destination);
  const every = [
    ...Object.entries(SECURITY_HEADERS),
    ['Cache-Control', 'no-store'],
    ['X-Content-Type-Options', 'nosniff'],
  ].flat();
  return (req, res, next) => {
    const started = performance.now();
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
    inFlight.inc();
    const requestId = randomUUID();
    res.once('close', () => {
      const status = String(res.statusCode);
      requests.labels(operation, status).inc();
      duration.labels(operation, status).observe((performance.now() - started) / 1000);
      inFlight.dec();
      logger.info(
        {
          requestId,
          method: req.method,
          path: url,
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    });
    const text = JSON.stringify(body);
    const headers = every.slice();
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
