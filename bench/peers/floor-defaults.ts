// The reference server's defaults as the floor rows write them, with the libraries as a user would:
// helmet's headers with the API's no-store and nosniff on every answer, a new X-Request-Id
// (`randomUUID`), the request metrics observed with prom-client (requests, duration, in flight),
// and a log line per request written the way the server writes its log (pino, asynchronous,
// 4 KiB at a time). `node-floor`, `express-floor` and `node-plain` share them.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from '@workforce-kit/server';
import { type Logger, pino } from 'pino';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What a floor row does for every request, whatever it answers. */
export interface FloorDefaults {
  /** The headers of every answer, as `writeHead` takes them: helmet's, no-store and nosniff. */
  readonly everyAnswer: readonly string[];
  /** The log, for other lines than the request's (a change's event). */
  readonly logger: Logger;
  /**
   * Counts a request in flight and gives it a new id; once its response closes, observes its
   * metrics and writes its log line.
   * @returns the request's id, for its `X-Request-Id`
   */
  observe(req: IncomingMessage, res: ServerResponse, operation: string): string;
}

/** The defaults of one floor server: its own registry and log. */
export function floorDefaults(): FloorDefaults {
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
  const everyAnswer = [
    ...Object.entries(SECURITY_HEADERS),
    ['Cache-Control', 'no-store'],
    ['X-Content-Type-Options', 'nosniff'],
  ].flat();
  return {
    everyAnswer,
    logger,
    observe(req, res, operation) {
      const started = performance.now();
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
            path: req.url,
            status: res.statusCode,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
      });
      return requestId;
    },
  };
}
