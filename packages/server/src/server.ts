import { readFile } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { createMemoryStore, type WorkforceStore } from '@workforce-kit/core';
import {
  createOutboxRelay,
  createPostgresStore,
  DirectoryLockedError,
  type OutboxRelay,
  openPGlite,
  PGliteOpenError,
  type SqlClient,
} from '@workforce-kit/postgres';
import { formatSeedIssues, parseSeed, type Seed } from '@workforce-kit/seed-file';
import pg from 'pg';
import { type Logger, pino } from 'pino';
import type { App } from './app.js';
import type { ServerConfig } from './config.js';
import { type ConnectionLimit, limitConnections } from './connection-limit.js';
import { LogDestination } from './log-destination.js';
import {
  registerConnectionMetrics,
  registerRelayMetrics,
  storeBatchSizeMetric,
} from './metrics.js';
import { sharedRateLimits } from './shared-rate-limits.js';
import { StartupError } from './startup-error.js';

export { StartupError };

/** A running reference server. */
export interface RunningServer {
  /** The base URL, such as `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The seed it started with. */
  readonly seed: Seed;
  readonly store: WorkforceStore;
  /**
   * The outbox relay that sends the webhooks (`WEBHOOK_URLS` over PGlite or PostgreSQL): its
   * outcome counts, for metrics.
   */
  readonly relay: OutboxRelay | undefined;
  /**
   * Stops accepting connections, lets the requests in flight finish (at most the request timeout
   * and a second), then closes the store (which, for PGlite, checkpoints the data and releases
   * the directory's lock). With `force`, or called again with it while closing, the requests in
   * flight are cut at once; the store is still closed. The webhook relay stops before the store
   * closes: it finishes the batch it is sending (or gives it back after a few seconds). With
   * tracing, the spans still buffered are exported last.
   */
  close(options?: { readonly force?: boolean }): Promise<void>;
}

async function readSeed(path: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new StartupError(`SEED_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StartupError(`SEED_FILE ${path} is not JSON: ${(error as Error).message}`);
  }
  const seed = parseSeed(json, new Date());
  if (seed.isErr()) {
    throw new StartupError(
      `SEED_FILE ${path} does not match the seed format; nothing was loaded:\n${formatSeedIssues(seed.error)}`,
    );
  }
  return seed.value;
}

/** The store, and the database client under it (none for the memory store). */
interface OpenedStore {
  readonly store: WorkforceStore;
  readonly client: SqlClient | undefined;
}

/**
 * Creates the configured store and seeds it (into an empty database only). `onBatch` is told the
 * size of each write statement of a PostgreSQL store (its group commit).
 */
async function createStore(
  config: ServerConfig,
  seed: Seed,
  logger: Logger,
  onBatch: ((size: number) => void) | undefined,
): Promise<OpenedStore> {
  let store: WorkforceStore;
  let client: SqlClient | undefined;
  const { store: kind } = config;
  try {
    if (kind.kind === 'memory') store = createMemoryStore();
    else if (kind.kind === 'pglite') {
      const db = await openPGlite(kind.dataDir);
      try {
        // The only writer of its directory: restaurants are read from the database once.
        store = await createPostgresStore({
          client: db,
          ownsClient: true,
          soleWriter: true,
          ...(onBatch === undefined ? {} : { onBatch }),
        });
        client = db;
      } catch (error) {
        await db.close().catch(() => {});
        throw error;
      }
    } else {
      const pool = new pg.Pool({
        connectionString: kind.databaseUrl,
        max: 10,
        connectionTimeoutMillis: 2000,
        idleTimeoutMillis: 30_000,
        // A database that hangs is a 503 STORAGE_UNAVAILABLE before the request times out.
        query_timeout: Math.max(500, config.requestTimeoutMs - 1000),
      });
      store = await createPostgresStore({
        client: pool,
        ownsClient: true,
        onClientError: (error) => logger.warn({ err: error }, 'database connection lost'),
        // Planned once per connection: a pool's statements are pg's named ones.
        namedStatements: true,
        ...(onBatch === undefined ? {} : { onBatch }),
      });
      client = pool;
    }
  } catch (error) {
    throw new StartupError(storeProblem(kind, error));
  }
  const outcome = await store.seed(seed);
  if (outcome.isErr()) {
    await store.close();
    throw new StartupError(
      `${describeStore(kind)} could not be seeded: ${String(outcome.error.cause ?? '')}`,
    );
  }
  return { store, client };
}

/** Logs what keeps happening (a database down for minutes) once per context and interval. */
function throttled(intervalMs: number) {
  const last = new Map<string, number>();
  return (context: string, log: () => void) => {
    const now = Date.now();
    if ((last.get(context) ?? 0) + intervalMs > now) return;
    last.set(context, now);
    log();
  };
}

/**
 * The relay that sends this process's share of the webhooks: registers the URLs, then delivers
 * what every process's changes queued for them.
 */
async function startRelay(
  config: ServerConfig,
  client: SqlClient,
  logger: Logger,
): Promise<OutboxRelay | undefined> {
  const { webhooks } = config;
  if (webhooks === undefined) return undefined;
  const once = throttled(30_000);
  // Loaded here, as the app's modules are: not before the port is bound.
  const { createWebhookDeliverer } = await import('./webhooks.js');
  try {
    return await createOutboxRelay({
      client,
      destinations: webhooks.urls,
      deliver: createWebhookDeliverer({ secret: webhooks.secret, timeoutMs: webhooks.timeoutMs }),
      leaseMs: webhooks.leaseMs,
      concurrency: 2,
      retry: {
        maxAttempts: webhooks.maxAttempts,
        maxAgeMs: webhooks.maxAgeMs,
        maxDelayMs: webhooks.retryMaxDelayMs,
      },
      retention: { periodMs: webhooks.retentionMs },
      onOutcome: ({ delivery, outcome, error }) => {
        const fields = {
          webhook: delivery.destination,
          eventId: delivery.event.eventId,
          attempt: delivery.attempt,
          ...(error === undefined ? {} : { error }),
        };
        if (outcome === 'dead') logger.warn(fields, 'webhook dead-lettered');
        else logger.debug(fields, `webhook ${outcome}`);
      },
      onError: (error, context) =>
        once(context, () => logger.warn({ err: error, context }, 'webhook relay: database error')),
    });
  } catch (error) {
    throw new StartupError(
      `the webhook relay cannot start on ${describeStore(config.store)}: ${(error as Error).message}`,
    );
  }
}

/** The one line that says why the store cannot be used, and what to do. */
function storeProblem(kind: ServerConfig['store'], error: unknown): string {
  if (kind.kind === 'pglite' && error instanceof DirectoryLockedError) {
    const { holder } = error;
    return holder === undefined || holder.hostname !== hostname()
      ? `PGLITE_DIR ${kind.dataDir} cannot be used: ${error.message}`
      : `PGLITE_DIR ${kind.dataDir} is in use by another process (pid ${holder.pid}, since ${holder.since}: ${holder.command}); only one process at a time may open it. Stop that one first, or set PGLITE_DIR to another directory.`;
  }
  if (kind.kind === 'pglite' && error instanceof PGliteOpenError) {
    const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
    return `PGLITE_DIR ${kind.dataDir} cannot be opened: PostgreSQL could not start on its data (${cause}). The data is damaged or from another PGlite version. To start afresh with the seed, move it aside (mv ${kind.dataDir} ${kind.dataDir}.damaged); to recover it, see "Recovering a PGlite directory" in docs/stores.md.`;
  }
  return `${describeStore(kind)} cannot be used: ${(error as Error).message}`;
}

/** The one line that says why the server cannot listen, and what to do. */
function listenProblem(config: ServerConfig, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `PORT ${config.port} is already in use on ${config.host} (by another workforce-kit, or another program): stop that one, or set PORT to a free port (PORT=0 takes any).`;
    case 'EACCES':
      return `PORT ${config.port} on ${config.host} needs privileges this process does not have: set PORT to 1024 or above.`;
    case 'EADDRNOTAVAIL':
      return `HOST ${config.host} is not an address of this machine: set HOST to one (127.0.0.1, 0.0.0.0, ::).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${config.host} cannot be resolved: set HOST to an address (127.0.0.1, 0.0.0.0, ::).`;
    default:
      return `cannot listen on ${config.host}:${config.port}: ${error.message}`;
  }
}

/**
 * The HTTP server the app serves on. A slow client's headers must arrive within
 * HEADERS_TIMEOUT_MS and its request shortly after the API's own timeout (connections checked
 * every second, not Node's 30); at most MAX_CONNECTIONS are served, by `limitConnections`' rules.
 * Refusals and reclaims are counted, and logged at most once every 30 s.
 */
function httpServer(
  config: ServerConfig,
  logger: Logger,
): { readonly server: Server; readonly connections: ConnectionLimit } {
  const options = {
    headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs + 1000),
    requestTimeout: config.requestTimeoutMs + 1000,
    connectionsCheckingInterval: 1000,
  };
  const server = createHttpServer(options);
  const once = throttled(30_000);
  const settings = {
    maxConnections: config.maxConnections,
    maxIncompleteHeadersPerAddress: config.maxIncompleteHeadersPerAddress,
  };
  const connections = limitConnections(server, {
    ...settings,
    onRefused: (refusal, client) =>
      once(refusal, () =>
        logger.warn(
          { client, ...settings },
          refusal === 'per_address'
            ? 'connections refused: MAX_CONNECTIONS are open, and the client holds MAX_INCOMPLETE_HEADERS_PER_ADDRESS connections sending their headers'
            : 'connections refused: MAX_CONNECTIONS are open, none idle nor over its client share of connections sending their headers',
        ),
      ),
    onReclaimed: (state, client) =>
      once(`reclaimed ${state}`, () =>
        state === 'idle'
          ? logger.info(
              { client, ...settings },
              'MAX_CONNECTIONS are open: connections idle between requests are closed to make room',
            )
          : logger.warn(
              { client, ...settings },
              'MAX_CONNECTIONS are open: connections sending their headers are closed to make room, from clients over MAX_INCOMPLETE_HEADERS_PER_ADDRESS',
            ),
      ),
  });
  return { server, connections };
}

/** The bound port, and how the app takes its requests once it is built. */
interface BoundServer {
  readonly server: Server;
  /** The connections' caps, and their counts. */
  readonly connections: ConnectionLimit;
  /** Hands the requests to the app: those that came before it was built, then all. */
  serve(app: RequestListener): void;
}

/**
 * Binds the port before anything else opens; a port in use (or any listen error) is a
 * StartupError with one clear line, and nothing has been opened. The requests that come before
 * the app is built wait for it (a fraction of a second), then the app takes them all: the port is
 * not bound twice and no request goes through anything but the app.
 */
async function bindPort(config: ServerConfig, logger: Logger): Promise<BoundServer> {
  const { server, connections } = httpServer(config, logger);
  const early: [IncomingMessage, ServerResponse][] = [];
  const hold: RequestListener = (req, res) => {
    early.push([req, res]);
  };
  server.on('request', hold);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
      server.listen(config.port, config.host);
    });
  } catch (error) {
    server.close();
    throw new StartupError(listenProblem(config, error as NodeJS.ErrnoException));
  }
  return {
    server,
    connections,
    serve(app) {
      server.off('request', hold);
      server.on('request', app);
      for (const [req, res] of early.splice(0)) app(req, res);
    },
  };
}

/** The API's store before the real one is open, and how it is handed the real one. */
interface DeferredStore {
  readonly current: WorkforceStore;
  open(store: WorkforceStore): void;
}

/**
 * The API's store while the real one opens: calls go to it once it is open (the start gate answers
 * every request before then).
 */
function deferredStore(): DeferredStore {
  let real: WorkforceStore | undefined;
  const opened = (): WorkforceStore => {
    if (real === undefined) throw new Error('the store is not open yet');
    return real;
  };
  return {
    current: {
      employees: {
        find: (restaurant, id) => opened().employees.find(restaurant, id),
        write: (change) => opened().employees.write(change),
      },
      shifts: {
        find: (restaurant, id) => opened().shifts.find(restaurant, id),
        write: (change) => opened().shifts.write(change),
      },
      restaurants: { findByGuid: (guid) => opened().restaurants.findByGuid(guid) },
      events: { list: (restaurant) => opened().events.list(restaurant) },
      seed: (seed) => opened().seed(seed),
      ping: () => opened().ping(),
      close: () => opened().close(),
    },
    open(store) {
      real = store;
    },
  };
}

/** The store as the banner and errors name it (a database URL without its password). */
export function describeStore(store: ServerConfig['store']): string {
  if (store.kind === 'memory') return 'memory';
  if (store.kind === 'pglite') return `pglite (${store.dataDir})`;
  const url = new URL(store.databaseUrl);
  if (url.password) url.password = '***';
  return `postgres (${url.href})`;
}

/**
 * The reference server's logger: pino's JSON lines on stdout, written without blocking the event
 * loop and a dozen or so at a time (the server's own {@link LogDestination}: 4 KiB buffered, or
 * 200 ms), so a busy server makes one write for many requests; an idle one's lines go out within
 * 200 ms. What waits in memory is written out when the process exits (a signal, `process.exit`,
 * an uncaught exception); a SIGKILL or a power cut loses at most those 4 KiB or 200 ms of lines.
 * Lines that would wait beyond 16 MiB for a reader slower than the server are dropped, and a
 * warning says how many once the backlog is written.
 *
 * @param level - the least level written (`LOG_LEVEL`)
 * @param dest - where the lines go: a file descriptor or a path (the in-process bench's /dev/null)
 * @returns the logger; `logger.flush(callback)` calls back once every line is written
 */
export function serverLogger(level: string, dest: number | string = 1): Logger {
  const destination = new LogDestination({
    dest,
    onDropped: (droppedLines) =>
      logger.warn({ droppedLines }, 'log lines dropped: the log was not read fast enough'),
  });
  const logger = pino({ level }, destination);
  return logger;
}

/**
 * Starts the reference server: the seed loaded into the store, the API router, the development
 * login (`AUTH_MODE=dev`), the API reference at `/docs`, the spec at `/openapi.yaml`, the
 * health checks `/healthz` (process up) and `/readyz` (store reachable), and the Prometheus
 * metrics at `/metrics` (`METRICS=true`, the default). With `OTEL_EXPORTER_OTLP_ENDPOINT`, the
 * API's spans are exported over OTLP/HTTP.
 *
 * @param config - from {@link loadConfig}
 * @param logger - where JSON logs go (pino); each request's lines carry its `requestId`
 * @throws StartupError for a seed or key that cannot be used, a port in use, a PGlite directory in
 *   use or that cannot be opened; whatever was opened is closed first. The port is bound before
 *   the store is opened, so a port in use opens no store (and locks no PGlite directory).
 * @example
 * ```ts
 * const server = await startServer(loadConfig(process.env)._unsafeUnwrap());
 * console.log(server.url);
 * process.once('SIGTERM', () => server.close());
 * ```
 */
export async function startServer(
  config: ServerConfig,
  logger: Logger = serverLogger(config.logLevel),
): Promise<RunningServer> {
  const seed = await readSeed(config.seedFile);
  // The port first: a port in use opens nothing (no store, no lock).
  const bound = await bindPort(config, logger);
  const { port } = bound.server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let started = false;
  const starting: Starting = {
    config,
    seed,
    logger,
    bound,
    url: `http://${host}:${port}`,
    store: deferredStore(),
    // Counted from the store's first write; served once the app (and its registry) is built.
    batchSizes: config.metrics ? storeBatchSizeMetric() : undefined,
    shared:
      config.rateLimitScope === 'shared' ? sharedRateLimits(config.rateLimitMaxKeys) : undefined,
    started: () => started,
  };
  const opened = await openAll(starting);
  starting.store.open(opened.store);
  registerMetrics(starting, opened);
  started = true;
  return runningServer(starting, opened);
}

/** What a starting server has made before it opens the app, the store and the relay. */
interface Starting {
  readonly config: ServerConfig;
  readonly seed: Seed;
  readonly logger: Logger;
  readonly bound: BoundServer;
  readonly url: string;
  /** The API's store until the real one is open. */
  readonly store: DeferredStore;
  readonly batchSizes: ReturnType<typeof storeBatchSizeMetric> | undefined;
  readonly shared: ReturnType<typeof sharedRateLimits> | undefined;
  /** Whether the server has started: until then the app answers 503 but for /healthz. */
  readonly started: () => boolean;
}

/** The app, the store and the webhook relay of a started server. */
interface Opened {
  readonly app: App;
  readonly store: WorkforceStore;
  readonly relay: OutboxRelay | undefined;
}

/**
 * Builds the app while the store opens (a new PGlite directory's template unpacks in a child
 * process meanwhile), then starts the relay; on a failure, closes what was opened and the port.
 */
async function openAll(starting: Starting): Promise<Opened> {
  const { config, logger, shared, bound } = starting;
  try {
    const { app, store, client } = await appAndStore(starting);
    // RATE_LIMIT_SCOPE=shared is STORE=postgres only: the client is the server's pool.
    if (shared !== undefined && client instanceof pg.Pool) shared.open(client);
    try {
      const relay = client === undefined ? undefined : await startRelay(config, client, logger);
      return { app, store, relay };
    } catch (error) {
      await store.close();
      throw error;
    }
  } catch (error) {
    shared?.close();
    await new Promise<void>((resolve) => {
      bound.server.close(() => resolve());
      bound.server.closeAllConnections();
    });
    throw error;
  }
}

/**
 * The app, serving as soon as it is built (/healthz answers, the rest 503 until the store is
 * open), and the store; the store is closed again when the app cannot be built.
 */
async function appAndStore(starting: Starting): Promise<{ readonly app: App } & OpenedStore> {
  const { config, seed, logger, bound, batchSizes } = starting;
  const [built, created] = await Promise.allSettled([
    import('./app.js')
      .then(({ buildApp }) =>
        buildApp(
          {
            config,
            seed,
            logger,
            store: starting.store.current,
            started: starting.started,
            url: starting.url,
            sharedLimiter: starting.shared?.limiter,
          },
          bound.server,
        ),
      )
      .then((app) => {
        bound.serve(app.listener);
        return app;
      }),
    createStore(config, seed, logger, batchSizes && ((size) => batchSizes.observe(size))),
  ]);
  if (built.status === 'rejected') {
    if (created.status === 'fulfilled') await created.value.store.close();
    throw built.reason;
  }
  if (created.status === 'rejected') throw created.reason;
  return { app: built.value, ...created.value };
}

/** The server's own metrics, in the app's registry (`METRICS=true`). */
function registerMetrics(starting: Starting, { app, relay }: Opened): void {
  const { config, logger, batchSizes } = starting;
  const { registry } = app;
  if (registry === undefined) return;
  registerConnectionMetrics(registry, starting.bound.connections);
  if (batchSizes !== undefined && config.store.kind !== 'memory') {
    registry.registerMetric(batchSizes);
  }
  if (relay !== undefined) {
    const once = throttled(30_000);
    registerRelayMetrics(registry, relay, (error) =>
      once('metrics', () => logger.warn({ err: error }, 'webhook metrics: database error')),
    );
  }
}

/** The started server's handle: its close lets the requests in flight finish first. */
function runningServer(starting: Starting, opened: Opened): RunningServer {
  const { config, seed, url, shared } = starting;
  const { server } = starting.bound;
  const { store, relay } = opened;
  let closing: Promise<void> | undefined;
  return {
    url,
    seed,
    store,
    relay,
    close(options) {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(
          () => server.closeAllConnections(),
          config.requestTimeoutMs + 1000,
        );
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      })
        .then(() => relay?.stop({ abandonAfterMs: options?.force ? 0 : 6000 }))
        .then(() => {
          shared?.close();
          return store.close();
        })
        .then(() => opened.app.tracing?.shutdown());
      if (options?.force) server.closeAllConnections();
      return closing;
    },
  };
}
