import {
  DEFAULT_MAX_BATCH_SIZE,
  type OutboxRelay,
  type OutboxRelayStats,
} from '@workforce-kit/postgres';
import {
  Counter,
  collectDefaultMetrics,
  exponentialBuckets,
  Gauge,
  Histogram,
  Registry,
} from 'prom-client';
import type { ConnectionLimit } from './connection-limit.js';
import type { HostRoute } from './host-routes.js';

/**
 * The server's metrics registry: the process's own metrics (CPU, memory, event loop lag, GC,
 * handles) from prom-client's `collectDefaultMetrics`; the API and the webhook relay add theirs.
 */
export function serverRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** `GET /metrics`: the registry in Prometheus's text format, outside the API's auth and limits. */
export function metricsRoute(registry: Registry): HostRoute {
  return {
    method: 'GET',
    path: '/metrics',
    handle: async () => ({
      status: 200,
      type: registry.contentType,
      body: await registry.metrics(),
    }),
  };
}

/**
 * `workforce_kit_store_batch_size`: the changes each write statement of the PostgreSQL store
 * (PGlite or a server) committed together (its group commit: one write in flight, the changes that
 * arrive meanwhile in the next). 1 at low load; under load, about the number of requests that
 * wait on a write. Made before the store opens and registered once the app's registry is built,
 * so that no write goes uncounted.
 */
export function storeBatchSizeMetric(): Histogram {
  return new Histogram({
    name: 'workforce_kit_store_batch_size',
    help: 'Changes committed together by each write statement of the PostgreSQL store (group commit).',
    // 1, 2, 4, … up to the store's largest batch (64).
    buckets: exponentialBuckets(1, 2, Math.log2(DEFAULT_MAX_BATCH_SIZE) + 1),
    registers: [],
  });
}

/** A webhook URL as a label: without credentials, query or fragment, which may hold secrets. */
function destinationLabel(destination: string): string {
  const url = new URL(destination);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href;
}

const OUTCOMES = ['delivered', 'retry', 'dead', 'superseded'] as const;

/**
 * The connection metrics, read when the registry is scraped:
 * - `workforce_kit_connections_refused_total{limit}`: connections closed as they arrived, by the
 *   cap that refused them (`per_address`, `max_connections`);
 * - `workforce_kit_connections_reclaimed_total{state}`: connections closed, at MAX_CONNECTIONS, to
 *   make room for a new one (`idle`: between requests; `headers`: still sending its request
 *   headers, of a client over MAX_INCOMPLETE_HEADERS_PER_ADDRESS);
 * - `workforce_kit_connections_open{state}`: connections open now, `headers` (sending their
 *   request headers), `busy` (a request under way) or `idle` (between requests).
 *
 * @param registry - the server's registry
 * @param connections - the counts of `limitConnections`
 */
export function registerConnectionMetrics(registry: Registry, connections: ConnectionLimit): void {
  const counted = <Label extends string>(
    name: string,
    help: string,
    labelName: string,
    labels: readonly Label[],
    read: (label: Label) => number,
  ) => {
    const seen = new Map<Label, number>(labels.map((label) => [label, 0]));
    const counter = new Counter({
      name,
      help,
      labelNames: [labelName],
      registers: [registry],
      collect() {
        for (const label of labels) {
          const now = read(label);
          this.labels(label).inc(now - (seen.get(label) ?? 0));
          seen.set(label, now);
        }
      },
    });
    for (const label of labels) counter.labels(label).inc(0);
  };
  counted(
    'workforce_kit_connections_refused_total',
    'Connections closed as they arrived, by the cap that refused them (per_address, max_connections).',
    'limit',
    ['per_address', 'max_connections'] as const,
    (limit) => connections.refused(limit),
  );
  counted(
    'workforce_kit_connections_reclaimed_total',
    'Connections closed at MAX_CONNECTIONS to make room for a new one, by their state (idle: between requests; headers: still sending their request headers, of a client over its share).',
    'state',
    ['idle', 'headers'] as const,
    (state) => connections.reclaimed(state),
  );
  new Gauge({
    name: 'workforce_kit_connections_open',
    help: 'Connections open, by state (headers: sending their request headers; busy: a request under way; idle: between requests).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      for (const [state, count] of Object.entries(connections.open())) {
        this.labels(state).set(count);
      }
    },
  });
}

/**
 * The webhook relay's metrics, read when the registry is scraped (one `relay.stats()` query per
 * scrape, shared by the gauges):
 * - `workforce_kit_webhook_deliveries_total{outcome}`: delivery outcomes this process recorded;
 * - `workforce_kit_webhook_backlog{destination,state}`: deliveries `pending` and `dead`;
 * - `workforce_kit_webhook_oldest_pending_seconds`: the age of the oldest event not yet
 *   delivered (0 when none is pending): the outbox's lag, to alert on.
 *
 * When the database cannot be read, the gauges keep their last values and `onError` is told.
 */
export function registerRelayMetrics(
  registry: Registry,
  relay: OutboxRelay,
  onError: (error: unknown) => void,
): void {
  let pending: Promise<OutboxRelayStats | undefined> | undefined;
  // The collects of one scrape start together: they share one query.
  const stats = () => {
    pending ??= relay
      .stats()
      .catch((error: unknown) => {
        onError(error);
        return undefined;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  const seen = { delivered: 0, retry: 0, dead: 0, superseded: 0 };
  const deliveries = new Counter({
    name: 'workforce_kit_webhook_deliveries_total',
    help: 'Webhook delivery outcomes this process recorded, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const counts = relay.counts();
      for (const outcome of OUTCOMES) {
        this.labels(outcome).inc(counts[outcome] - seen[outcome]);
        seen[outcome] = counts[outcome];
      }
    },
  });
  for (const outcome of OUTCOMES) deliveries.labels(outcome).inc(0);

  new Gauge({
    name: 'workforce_kit_webhook_backlog',
    help: 'Webhook deliveries not delivered, by destination and state (pending, dead).',
    labelNames: ['destination', 'state'] as const,
    registers: [registry],
    async collect() {
      const current = await stats();
      if (current === undefined) return;
      this.reset();
      for (const { destination, pending: waiting, dead } of current.destinations) {
        const label = destinationLabel(destination);
        this.labels(label, 'pending').set(waiting);
        this.labels(label, 'dead').set(dead);
      }
    },
  });

  new Gauge({
    name: 'workforce_kit_webhook_oldest_pending_seconds',
    help: 'Age of the oldest event not yet delivered to a webhook (0 when none is pending).',
    registers: [registry],
    async collect() {
      const current = await stats();
      if (current !== undefined) this.set((current.oldestPendingAgeMs ?? 0) / 1000);
    },
  });
}
