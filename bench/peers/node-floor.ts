// The floor of the node:http adapter with the reference server's defaults: node:http answering the
// bodies as node:http bare does, plus only what those defaults add to every answer, none of the
// API's own work (no token, no validation, no use case). The same headers (helmet's, the API's
// no-store and nosniff, a new X-Request-Id, the RateLimit-* three), the same metrics observed
// (prom-client: requests, duration, in flight), and the same log line per request written the way
// the server writes its log (pino, asynchronous, 4 KiB at a time). What workforce-kit on node:http
// spends beyond this row is the pipeline's own.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { SECURITY_HEADERS } from '@workforce-kit/server';
import { pino } from 'pino';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BODIES, JSON_TYPE, type Listening, listen } from './common.js';

const UNARCHIVE = '/unarchive';
const EMPLOYEES = '/labor/v1/employees/';
const RESTAURANTS = '/restaurants/v1/restaurants/';

export function nodeFloor(): Promise<Listening> {
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
  return listen(
    createServer((req, res) => {
      const started = performance.now();
      inFlight.inc();
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
        res.writeHead(404).end();
        return;
      }
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
    }),
  );
}
