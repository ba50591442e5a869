import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import {
  createMemoryStore,
  formatSeedIssues,
  parseSeed,
  type Seed,
  type WorkforceStore,
} from '@workforce-kit/core';
import {
  type AccessTokenVerifier,
  createJwtVerifier,
  createRouter,
  problemHandler,
  requestIds,
  sendProblem,
} from '@workforce-kit/express-adapter';
import { createPostgresStore } from '@workforce-kit/postgres';
import express from 'express';
import pg from 'pg';
import { type Logger, pino } from 'pino';
import type { ServerConfig } from './config.js';
import { createDevLogin } from './dev-login.js';
import { createDocs } from './docs.js';

/** A running reference server. */
export interface RunningServer {
  /** The base URL, such as `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The seed it started with. */
  readonly seed: Seed;
  readonly store: WorkforceStore;
  /**
   * Stops accepting connections, lets the requests in flight finish (at most the request timeout
   * and a second), then closes the store.
   */
  close(): Promise<void>;
}

/** A start that cannot go on: a bad seed file, a key file that cannot be read. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
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

/** Creates the configured store and seeds it (into an empty database only). */
async function createStore(
  config: ServerConfig,
  seed: Seed,
  logger: Logger,
): Promise<WorkforceStore> {
  let store: WorkforceStore;
  const { store: kind } = config;
  try {
    if (kind.kind === 'memory') store = createMemoryStore();
    else if (kind.kind === 'pglite') {
      await mkdir(kind.dataDir, { recursive: true });
      store = await createPostgresStore({
        client: await PGlite.create(kind.dataDir),
        ownsClient: true,
      });
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
      });
    }
  } catch (error) {
    throw new StartupError(`${describeStore(kind)} cannot be used: ${(error as Error).message}`);
  }
  const outcome = await store.seed(seed);
  if (outcome.isErr()) {
    await store.close();
    throw new StartupError(
      `${describeStore(kind)} could not be seeded: ${String(outcome.error.cause ?? '')}`,
    );
  }
  return store;
}

/** The store as the banner and errors name it (a database URL without its password). */
export function describeStore(store: ServerConfig['store']): string {
  if (store.kind === 'memory') return 'memory';
  if (store.kind === 'pglite') return `pglite (${store.dataDir})`;
  const url = new URL(store.databaseUrl);
  if (url.password) url.password = '***';
  return `postgres (${url.href})`;
}

/** What a token signed before a restart is told, when the dev secret was made at start. */
export const GENERATED_SECRET_HINT =
  'this server made its signing secret when it started, so tokens issued before it (re)started are refused: log in again, or set AUTH_HS256_SECRET to keep tokens across restarts';

/**
 * A verifier whose refusal of a badly signed token says why that is likely: the development
 * secret was generated at start (no `AUTH_HS256_SECRET`), so a restart changed it.
 */
function explainingGeneratedSecret(verifier: AccessTokenVerifier): AccessTokenVerifier {
  return {
    verify: (token) =>
      verifier
        .verify(token)
        .mapErr((failure) =>
          failure.type === 'TokenRejected' && failure.reason === 'signature'
            ? { ...failure, description: `${failure.description}: ${GENERATED_SECRET_HINT}` }
            : failure,
        ),
  };
}

async function verifierFor(config: ServerConfig, devSecret: string): Promise<AccessTokenVerifier> {
  const { auth } = config;
  const claims = {
    ...(auth.issuer === undefined ? {} : { issuer: auth.issuer }),
    ...(auth.audience === undefined ? {} : { audience: auth.audience }),
  };
  if (auth.mode === 'dev') {
    const verifier = createJwtVerifier({ hs256Secret: devSecret, ...claims });
    return auth.hs256Secret === undefined ? explainingGeneratedSecret(verifier) : verifier;
  }
  if ('jwksUrl' in auth.key) return createJwtVerifier({ jwksUrl: auth.key.jwksUrl, ...claims });
  if ('hs256Secret' in auth.key)
    return createJwtVerifier({ hs256Secret: auth.key.hs256Secret, ...claims });
  let pem: string;
  try {
    pem = await readFile(auth.key.publicKeyFile, 'utf8');
  } catch (error) {
    throw new StartupError(
      `AUTH_PUBLIC_KEY_FILE ${auth.key.publicKeyFile} cannot be read: ${(error as Error).message}`,
    );
  }
  try {
    return createJwtVerifier({ publicKeyPem: pem, ...claims });
  } catch (error) {
    throw new StartupError(
      `AUTH_PUBLIC_KEY_FILE is not a PEM public key: ${(error as Error).message}`,
    );
  }
}

/**
 * Starts the reference server: the seed loaded into the store, the API router, the development
 * login (`AUTH_MODE=dev`), the API reference at `/docs`, the spec at `/openapi.yaml`, and the
 * health checks `/healthz` (process up) and `/readyz` (store reachable).
 *
 * @param config - from {@link loadConfig}
 * @param logger - where JSON logs go (pino); each request's lines carry its `requestId`
 * @throws StartupError for a seed or key that cannot be used
 * @example
 * ```ts
 * const server = await startServer(loadConfig(process.env)._unsafeUnwrap());
 * console.log(server.url);
 * process.once('SIGTERM', () => server.close());
 * ```
 */
export async function startServer(
  config: ServerConfig,
  logger: Logger = pino({ level: config.logLevel }),
): Promise<RunningServer> {
  const seed = await readSeed(config.seedFile);
  const devSecret =
    config.auth.mode === 'dev'
      ? (config.auth.hs256Secret ?? randomBytes(32).toString('base64url'))
      : '';
  const auth = await verifierFor(config, devSecret);
  const store = await createStore(config, seed, logger);

  const app = express();
  app.disable('x-powered-by');
  // Every response carries an X-Request-Id, and every error is problem details under it.
  app.use(requestIds());
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ping = await store.ping();
    if (ping.isOk()) res.json({ status: 'ready' });
    else {
      sendProblem(res, {
        code: 'STORAGE_UNAVAILABLE',
        detail: 'The store cannot be reached.',
        headers: { 'Retry-After': '1' },
      });
    }
  });

  const router = createRouter({
    store,
    auth,
    logger,
    rateLimit: {
      perSecond: config.rateLimitPerSecond,
      per15Minutes: config.rateLimitPer15Minutes,
      maxKeys: config.rateLimitMaxKeys,
    },
    requestTimeoutMs: config.requestTimeoutMs,
    onEvent: (event) => logger.info({ event }, 'domain event'),
  });
  await router.ready;

  const server = createHttpServer(
    {
      // Slow clients: headers must all arrive within HEADERS_TIMEOUT_MS, and the whole request
      // shortly after the router's own timeout has answered it (Node closes the connection).
      // Connections are checked every second rather than Node's default 30.
      headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs + 1000),
      requestTimeout: config.requestTimeoutMs + 1000,
      connectionsCheckingInterval: 1000,
    },
    app,
  );
  server.maxConnections = config.maxConnections;
  server.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;

  if (config.auth.mode === 'dev') {
    app.use(
      createDevLogin({
        clients: seed.clients,
        secret: new TextEncoder().encode(devSecret),
        issuer: config.auth.issuer,
        audience: config.auth.audience,
      }),
    );
  }
  app.use(createDocs(url));
  app.use(router);
  app.use((_req, res) => {
    sendProblem(res, { code: 'NOT_FOUND', detail: 'Nothing is served at this path.' });
  });
  app.use(problemHandler({ logger }));

  let closing: Promise<void> | undefined;
  return {
    url,
    seed,
    store,
    close() {
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
      }).then(() => store.close());
      return closing;
    },
  };
}
