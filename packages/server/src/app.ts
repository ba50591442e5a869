/**
 * The reference server's app, built while its store opens: the access-token verifier, tracing,
 * metrics, the host routes (health, development login, docs, metrics) and the API, on the
 * configured framework. `startServer` loads this module once the port is bound, so that the
 * frameworks, the validators and the rest load while a new PGlite directory unpacks.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { RequestListener, Server } from 'node:http';
import { type WorkforceStore, whenReady } from '@workforce-kit/core';
import {
  type AccessTokenVerifier,
  type ApiOptions,
  createJwtVerifier,
  type RateLimitWindow,
  type WindowCounter,
} from '@workforce-kit/http';
import type { Seed } from '@workforce-kit/seed-file';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { GENERATED_SECRET_HINT, type ServerConfig } from './config.js';
import { devLoginRoutes } from './dev-login.js';
import { docsRoutes } from './docs.js';
import { type AppParts, healthRoutes } from './host-routes.js';
import { metricsRoute, serverRegistry } from './metrics.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { StartupError } from './startup-error.js';
import { startTracing, type Tracing } from './tracing.js';

/** What the app is built from. */
export interface AppContext {
  readonly config: ServerConfig;
  readonly seed: Seed;
  readonly logger: Logger;
  /** The API's store: calls reach the real one once it is open. */
  readonly store: WorkforceStore;
  /** Whether the store is open: until then, all but `/healthz` and `/metrics` is a 503 to retry. */
  readonly started: () => boolean;
  /** The server's base URL (the docs name it). */
  readonly url: string;
  /** The rate limits' counters shared through PostgreSQL (`RATE_LIMIT_SCOPE=shared`), if so. */
  readonly sharedLimiter: ((window: RateLimitWindow) => WindowCounter) | undefined;
}

/** The built app. */
export interface App {
  /** The app as the bound server's request listener. */
  readonly listener: RequestListener;
  /** The metrics registry (`METRICS=true`), for the webhook relay's metrics. */
  readonly registry: Registry | undefined;
  /** The OTLP export (`OTEL_EXPORTER_OTLP_ENDPOINT`), to flush at shutdown. */
  readonly tracing: Tracing | undefined;
}

/**
 * Builds the app on the configured framework, serving on `server` (bound already).
 *
 * @throws StartupError for a key that cannot be used, or tracing that cannot start
 */
export async function buildApp(context: AppContext, server: Server): Promise<App> {
  const { config, logger } = context;
  const devSecret =
    config.auth.mode === 'dev'
      ? (config.auth.hs256Secret ?? randomBytes(32).toString('base64url'))
      : '';
  const auth = await verifierFor(config, devSecret);
  const tracing = await tracingFor(config);
  const registry = config.metrics ? serverRegistry() : undefined;
  const parts: AppParts = {
    routes: [
      ...healthRoutes(() => context.store),
      ...(config.auth.mode === 'dev'
        ? devLoginRoutes({
            clients: context.seed.clients,
            secret: new TextEncoder().encode(devSecret),
            issuer: config.auth.issuer,
            audience: config.auth.audience,
          })
        : []),
      ...docsRoutes(() => context.url),
      ...(registry === undefined ? [] : [metricsRoute(registry)]),
    ],
    api: referenceApiOptions(context, auth, registry, tracing !== undefined),
    started: context.started,
    logger,
  };
  return { listener: await frameworkApp(parts, config, server), registry, tracing };
}

/**
 * The options the reference server gives the API, whatever its framework: the store, the verifier,
 * the log, the rate limits, the timeout, helmet's headers, a log line per event, and the metrics
 * and tracing when they are on. The in-process bench (bench/alloc.ts) builds the API from these.
 */
export function referenceApiOptions(
  context: Pick<AppContext, 'config' | 'logger' | 'store' | 'sharedLimiter'>,
  auth: AccessTokenVerifier,
  registry: Registry | undefined,
  tracing: boolean,
): ApiOptions {
  const { config, logger } = context;
  return {
    store: context.store,
    auth,
    logger,
    rateLimit: {
      perSecond: config.rateLimitPerSecond,
      per15Minutes: config.rateLimitPer15Minutes,
      maxKeys: config.rateLimitMaxKeys,
      ...(context.sharedLimiter === undefined ? {} : { limiter: context.sharedLimiter }),
    },
    requestTimeoutMs: config.requestTimeoutMs,
    // helmet's headers, in each answer's one write (the host's routes set them themselves).
    responseHeaders: SECURITY_HEADERS,
    onEvent: (event) => logger.info({ event }, 'domain event'),
    ...(registry === undefined ? {} : { metrics: { registry } }),
    tracing,
  };
}

/** The app on the configured framework, as the bound server's request listener. */
async function frameworkApp(
  parts: AppParts,
  config: ServerConfig,
  server: Server,
): Promise<RequestListener> {
  // Only the configured framework is loaded: the other would cost start-up time and memory.
  if (config.httpFramework === 'fastify') {
    const { fastifyApp } = await import('./fastify-app.js');
    let listener: RequestListener | undefined;
    // Fastify serves on the bound server (its serverFactory): ready, not listen.
    const app = await fastifyApp(parts, (handler) => {
      listener = handler;
      return server;
    });
    await app.ready();
    if (listener === undefined) throw new StartupError('Fastify did not take the HTTP server');
    return listener;
  }
  if (config.httpFramework === 'node') {
    const { nodeApp } = await import('./node-app.js');
    return nodeApp(parts);
  }
  if (config.httpFramework === 'nestjs') {
    const { nestApp } = await import('./nestjs-app.js');
    return nestApp(parts, config.nestPlatform, server);
  }
  if (config.httpFramework === 'hono') {
    const { honoApp } = await import('./hono-app.js');
    return honoApp(parts);
  }
  const { expressApp } = await import('./express-app.js');
  return expressApp(parts);
}

/**
 * A verifier whose refusal of a badly signed token says why that is likely: the development
 * secret was generated at start (no `AUTH_HS256_SECRET`), so a restart changed it.
 */
function explainingGeneratedSecret(verifier: AccessTokenVerifier): AccessTokenVerifier {
  return { verify: (token) => whenReady(verifier.verify(token), explained) };
}

type Verified = Awaited<ReturnType<AccessTokenVerifier['verify']>>;

function explained(verified: Verified): Verified {
  return verified.mapErr((failure) =>
    failure.type === 'TokenRejected' && failure.reason === 'signature'
      ? { ...failure, description: `${failure.description}: ${GENERATED_SECRET_HINT}` }
      : failure,
  );
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

/** Registers the OpenTelemetry SDK of `OTEL_EXPORTER_OTLP_ENDPOINT`, if it is set. */
async function tracingFor(config: ServerConfig): Promise<Tracing | undefined> {
  if (config.tracing === undefined) return undefined;
  try {
    return await startTracing(config.tracing);
  } catch (error) {
    throw new StartupError(`tracing cannot start: ${(error as Error).message}`);
  }
}
