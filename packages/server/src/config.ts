import { fileURLToPath } from 'node:url';
import { err, ok, type Result } from 'neverthrow';
import { z } from 'zod';

/** The packaged demo seed: two restaurants, employees, shifts and login clients. */
export const DEMO_SEED_FILE = fileURLToPath(new URL('../seed/demo-seed.json', import.meta.url));

/** Where the data lives. */
export type StoreConfig =
  /** Embedded PostgreSQL (PGlite), its data in a folder: no database to install. */
  | { readonly kind: 'pglite'; readonly dataDir: string }
  /** A PostgreSQL server, which any number of processes can share. */
  | { readonly kind: 'postgres'; readonly databaseUrl: string }
  /** In memory: gone when the process ends. */
  | { readonly kind: 'memory' };

/** How bearer tokens are issued and verified. */
export type AuthConfig =
  | {
      /** The development login signs HS256 tokens for the seed's clients; the router verifies them. */
      readonly mode: 'dev';
      /**
       * Whether the login is reachable beyond this machine: `AUTH_MODE=dev` set explicitly with
       * a `HOST` that is not a loopback address (the server then warns loudly at start).
       */
      readonly exposed: boolean;
      /** The signing secret; made at start when not given (tokens then die with the process). */
      readonly hs256Secret: string | undefined;
      readonly issuer: string;
      readonly audience: string | undefined;
    }
  | {
      /** Verify only: tokens come from your identity provider. */
      readonly mode: 'jwt';
      readonly key:
        | { readonly jwksUrl: string }
        | { readonly publicKeyFile: string }
        | { readonly hs256Secret: string };
      readonly issuer: string | undefined;
      readonly audience: string | undefined;
    };

/**
 * Webhooks: every change's event is POSTed to each URL, signed (Standard Webhooks), retried until
 * acknowledged. Over PGlite and PostgreSQL only: the outbox relay delivers them.
 */
export interface WebhookConfig {
  /** The receivers. */
  readonly urls: readonly string[];
  /** `whsec_` and the base64 of the signing key (24 to 64 bytes). */
  readonly secret: string;
  /** A receiver that has not answered by then is retried later. */
  readonly timeoutMs: number;
  /** A delivery that failed this many attempts is dead-lettered. */
  readonly maxAttempts: number;
  /** A delivery that fails when its event is older than this is dead-lettered. */
  readonly maxAgeMs: number;
  /** The longest wait between two attempts (the backoff doubles from 1 s up to it). */
  readonly retryMaxDelayMs: number;
  /** How long a process holds the deliveries it claimed: a killed one's come back after it. */
  readonly leaseMs: number;
  /**
   * How long delivered deliveries, and events with none left, are kept in the outbox before the
   * relays delete them (dead letters stay until re-driven or purged).
   */
  readonly retentionMs: number;
}

/**
 * OpenTelemetry tracing: the API's spans exported over OTLP/HTTP (JSON), when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
 */
export interface TracingConfig {
  /** The collector's base URL; spans are POSTed to its `/v1/traces`. */
  readonly endpoint: string;
  /** The `service.name` of the spans. */
  readonly serviceName: string;
}

/** The reference server's configuration, read from the environment by {@link loadConfig}. */
export interface ServerConfig {
  /** The web framework the server runs on: the same API and answers either way. */
  readonly httpFramework: HttpFramework;
  /** With `httpFramework` `nestjs`: the platform of the Nest app (`NEST_PLATFORM`). */
  readonly nestPlatform: NestPlatform;
  readonly port: number;
  readonly host: string;
  readonly store: StoreConfig;
  readonly seedFile: string;
  readonly auth: AuthConfig;
  readonly rateLimitPerSecond: number;
  readonly rateLimitPer15Minutes: number;
  /** Restaurant contexts (or client addresses) whose counts each rate-limit window holds. */
  readonly rateLimitMaxKeys: number;
  /**
   * `shared`: the rate limits are counted in the PostgreSQL server, one count for every process
   * (the default with `STORE=postgres`); `process`: each process counts its own (the default, and
   * the only choice, with one process: PGlite or memory).
   */
  readonly rateLimitScope: 'shared' | 'process';
  readonly requestTimeoutMs: number;
  /** A connection whose request headers have not all arrived by then is closed. */
  readonly headersTimeoutMs: number;
  /**
   * Connections served at once. At the cap, a new connection takes the place of the connection
   * idle (keep-alive) the longest, else of the oldest connection still sending its request
   * headers of a client over `maxIncompleteHeadersPerAddress`; else it is closed as it arrives.
   */
  readonly maxConnections: number;
  /**
   * Connections of one client (an IPv4 address, or an IPv6 /64) whose request headers have not
   * all arrived that it keeps while the server is full: a further one of its own is closed as it
   * arrives, and those it holds over this are closed to make room for other clients. Connections
   * busy with a request, or idle between requests, never count. At most `maxConnections`.
   */
  readonly maxIncompleteHeadersPerAddress: number;
  /** Webhooks, when `WEBHOOK_URLS` is set. */
  readonly webhooks: WebhookConfig | undefined;
  /** Whether `GET /metrics` serves the Prometheus metrics (`METRICS`, default true). */
  readonly metrics: boolean;
  /** Tracing, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. */
  readonly tracing: TracingConfig | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * What the start should warn of: settings that are still read but no longer mean what they
   * did (`MAX_CONNECTIONS_PER_ADDRESS`). Empty when there is none.
   */
  readonly warnings: readonly string[];
}

const DEV_ISSUER = 'workforce-kit-dev';
/**
 * The default share of connections still sending their request headers that one client address
 * keeps while the server is full: over the 6 a browser opens to a host at once and the new
 * connections of a busy integration's pool, while one address alone keeps 1/16 of the default
 * MAX_CONNECTIONS (1000).
 */
const DEFAULT_MAX_INCOMPLETE_HEADERS_PER_ADDRESS = 64;
const positiveInt = (name: string) =>
  z.coerce
    .number({ message: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .positive(`${name} must be positive`);
const optionalText = z
  .string()
  .transform((value) => (value.trim() === '' ? undefined : value.trim()))
  .optional();

/**
 * The web frameworks the server runs on (`HTTP_FRAMEWORK`); `node` is node:http alone, `hono` is
 * Hono on `@hono/node-server` with the API through the fetch adapter, `nestjs` a NestJS app with
 * the API's module, on the platform of `NEST_PLATFORM`.
 */
export const HTTP_FRAMEWORKS = ['express', 'fastify', 'node', 'hono', 'nestjs'] as const;
export type HttpFramework = (typeof HTTP_FRAMEWORKS)[number];

/** The platforms of Nest the server's NestJS app runs on (`NEST_PLATFORM`). */
export const NEST_PLATFORMS = ['express', 'fastify'] as const;
export type NestPlatform = (typeof NEST_PLATFORMS)[number];

const environment = z.object({
  HTTP_FRAMEWORK: z
    .enum(HTTP_FRAMEWORKS, {
      message: 'HTTP_FRAMEWORK must be express, fastify, node, hono or nestjs',
    })
    .default('express'),
  NEST_PLATFORM: z
    .enum(NEST_PLATFORMS, { message: 'NEST_PLATFORM must be express or fastify' })
    .optional(),
  PORT: z.coerce
    .number({ message: 'PORT must be a number' })
    .int('PORT must be a whole number')
    .min(0, 'PORT must be 0 to 65535')
    .max(65_535, 'PORT must be 0 to 65535')
    .default(8080),
  HOST: z.string().min(1, 'HOST must not be empty').default('127.0.0.1'),
  STORE: z
    .enum(['pglite', 'postgres', 'memory'], { message: 'STORE must be pglite, postgres or memory' })
    .default('pglite'),
  PGLITE_DIR: z.string().min(1, 'PGLITE_DIR must not be empty').default('.data/pglite'),
  DATABASE_URL: optionalText.pipe(
    z
      .url({ protocol: /^postgres(ql)?$/, message: 'DATABASE_URL must be a postgres:// URL' })
      .optional(),
  ),
  SEED_FILE: optionalText,
  AUTH_MODE: z.enum(['dev', 'jwt'], { message: 'AUTH_MODE must be dev or jwt' }).optional(),
  AUTH_JWKS_URL: optionalText.pipe(z.url({ message: 'AUTH_JWKS_URL must be a URL' }).optional()),
  AUTH_PUBLIC_KEY_FILE: optionalText,
  AUTH_HS256_SECRET: optionalText.pipe(
    z.string().min(32, 'AUTH_HS256_SECRET must be at least 32 characters').optional(),
  ),
  AUTH_ISSUER: optionalText,
  AUTH_AUDIENCE: optionalText,
  AUTH_ALLOW_ANY_ISSUER_OR_AUDIENCE: z
    .enum(['true', 'false'], { message: 'AUTH_ALLOW_ANY_ISSUER_OR_AUDIENCE must be true or false' })
    .default('false'),
  RATE_LIMIT_PER_SECOND: positiveInt('RATE_LIMIT_PER_SECOND').default(20),
  RATE_LIMIT_PER_15_MIN: positiveInt('RATE_LIMIT_PER_15_MIN').default(10_000),
  RATE_LIMIT_MAX_KEYS: positiveInt('RATE_LIMIT_MAX_KEYS').default(10_000),
  RATE_LIMIT_SCOPE: z
    .enum(['shared', 'process'], { message: 'RATE_LIMIT_SCOPE must be shared or process' })
    .optional(),
  REQUEST_TIMEOUT_MS: positiveInt('REQUEST_TIMEOUT_MS').default(10_000),
  HEADERS_TIMEOUT_MS: positiveInt('HEADERS_TIMEOUT_MS').default(10_000),
  MAX_CONNECTIONS: positiveInt('MAX_CONNECTIONS').default(1_000),
  MAX_INCOMPLETE_HEADERS_PER_ADDRESS: positiveInt('MAX_INCOMPLETE_HEADERS_PER_ADDRESS').optional(),
  /** Read as MAX_INCOMPLETE_HEADERS_PER_ADDRESS, with a warning. */
  MAX_CONNECTIONS_PER_ADDRESS: positiveInt('MAX_CONNECTIONS_PER_ADDRESS').optional(),
  WEBHOOK_URLS: optionalText,
  WEBHOOK_SECRET: optionalText,
  WEBHOOK_TIMEOUT_MS: positiveInt('WEBHOOK_TIMEOUT_MS').default(5_000),
  WEBHOOK_MAX_ATTEMPTS: positiveInt('WEBHOOK_MAX_ATTEMPTS').default(20),
  WEBHOOK_MAX_AGE_SECONDS: positiveInt('WEBHOOK_MAX_AGE_SECONDS').default(86_400),
  WEBHOOK_LEASE_MS: positiveInt('WEBHOOK_LEASE_MS').default(30_000),
  WEBHOOK_RETRY_MAX_MS: positiveInt('WEBHOOK_RETRY_MAX_MS').default(3_600_000),
  WEBHOOK_RETENTION_SECONDS: positiveInt('WEBHOOK_RETENTION_SECONDS').default(604_800),
  METRICS: z.enum(['true', 'false'], { message: 'METRICS must be true or false' }).default('true'),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText.pipe(
    z
      .url({ protocol: /^https?$/, message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL' })
      .optional(),
  ),
  OTEL_SERVICE_NAME: optionalText,
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent',
    })
    .default('info'),
});

/** A setting that stops the start, with a message that names it. */
export interface ConfigError {
  readonly type: 'ConfigError';
  readonly messages: readonly string[];
}

/** Whether `host` is a loopback address (or name), reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

function authConfig(env: z.output<typeof environment>): Result<AuthConfig, string> {
  const loopback = isLoopback(env.HOST);
  if (env.AUTH_MODE === undefined && !loopback) {
    return err(
      `AUTH_MODE is not set and HOST ${env.HOST} is not a loopback address: the development login would hand tokens to anyone who can reach it. Set AUTH_MODE=jwt to verify your identity provider's tokens, or AUTH_MODE=dev to expose the development login on purpose`,
    );
  }
  if (env.AUTH_MODE !== 'jwt') {
    return ok({
      mode: 'dev',
      exposed: !loopback,
      hs256Secret: env.AUTH_HS256_SECRET,
      issuer: env.AUTH_ISSUER ?? DEV_ISSUER,
      audience: env.AUTH_AUDIENCE,
    });
  }
  const unchecked = [
    env.AUTH_ISSUER === undefined && 'AUTH_ISSUER',
    env.AUTH_AUDIENCE === undefined && 'AUTH_AUDIENCE',
  ].filter((name) => typeof name === 'string');
  if (unchecked.length > 0 && env.AUTH_ALLOW_ANY_ISSUER_OR_AUDIENCE !== 'true') {
    return err(
      `AUTH_MODE=jwt needs ${unchecked.join(' and ')}: without ${unchecked.length === 1 ? 'it' : 'them'}, a token your identity provider issued for another service would be accepted here. Set AUTH_ALLOW_ANY_ISSUER_OR_AUDIENCE=true to accept any on purpose`,
    );
  }
  const keys = [
    env.AUTH_JWKS_URL && { jwksUrl: env.AUTH_JWKS_URL },
    env.AUTH_PUBLIC_KEY_FILE && { publicKeyFile: env.AUTH_PUBLIC_KEY_FILE },
    env.AUTH_HS256_SECRET && { hs256Secret: env.AUTH_HS256_SECRET },
  ].filter((key) => typeof key === 'object');
  const [key] = keys;
  if (keys.length !== 1 || key === undefined) {
    return err(
      'AUTH_MODE=jwt needs exactly one of AUTH_JWKS_URL, AUTH_PUBLIC_KEY_FILE, AUTH_HS256_SECRET',
    );
  }
  return ok({ mode: 'jwt', key, issuer: env.AUTH_ISSUER, audience: env.AUTH_AUDIENCE });
}

/** The start's warning when MAX_CONNECTIONS_PER_ADDRESS is set. */
const RENAMED_PER_ADDRESS = (value: number) =>
  `MAX_CONNECTIONS_PER_ADDRESS is read as MAX_INCOMPLETE_HEADERS_PER_ADDRESS=${value}: it no longer caps every connection of an address (a reverse proxy’s busy and idle connections are never refused for their address), only those whose request headers have not all arrived, while the server is full. Rename it; unset, the default (64) suits a server behind a proxy too`;

/**
 * MAX_INCOMPLETE_HEADERS_PER_ADDRESS: 64 by default, or MAX_CONNECTIONS when that is lower (a
 * small server set with MAX_CONNECTIONS alone still starts); set above MAX_CONNECTIONS, refused:
 * the operator meant something else. MAX_CONNECTIONS_PER_ADDRESS, its name before it counted
 * connections sending their headers only, is read as it, with a warning; both set, refused.
 */
function incompleteHeadersPerAddress(
  env: z.output<typeof environment>,
): Result<{ readonly value: number; readonly warnings: readonly string[] }, string> {
  const { MAX_CONNECTIONS: all, MAX_CONNECTIONS_PER_ADDRESS: old } = env;
  if (old !== undefined && env.MAX_INCOMPLETE_HEADERS_PER_ADDRESS !== undefined) {
    return err(
      'MAX_CONNECTIONS_PER_ADDRESS is the old name of MAX_INCOMPLETE_HEADERS_PER_ADDRESS: set only MAX_INCOMPLETE_HEADERS_PER_ADDRESS',
    );
  }
  const name =
    old === undefined ? 'MAX_INCOMPLETE_HEADERS_PER_ADDRESS' : 'MAX_CONNECTIONS_PER_ADDRESS';
  const set = env.MAX_INCOMPLETE_HEADERS_PER_ADDRESS ?? old;
  if (set === undefined) {
    return ok({ value: Math.min(DEFAULT_MAX_INCOMPLETE_HEADERS_PER_ADDRESS, all), warnings: [] });
  }
  if (set > all) {
    return err(
      `${name} (${set}) must not exceed MAX_CONNECTIONS (${all}): no client can have more connections sending their headers than the server serves. Lower it, or unset it`,
    );
  }
  return ok({ value: set, warnings: old === undefined ? [] : [RENAMED_PER_ADDRESS(old)] });
}

function storeConfig(env: z.output<typeof environment>): Result<StoreConfig, string> {
  switch (env.STORE) {
    case 'pglite':
      return ok({ kind: 'pglite', dataDir: env.PGLITE_DIR });
    case 'postgres':
      return env.DATABASE_URL === undefined
        ? err('STORE=postgres needs DATABASE_URL')
        : ok({ kind: 'postgres', databaseUrl: env.DATABASE_URL });
    case 'memory':
      return ok({ kind: 'memory' });
    default: {
      const unknown: never = env.STORE;
      return unknown;
    }
  }
}

/**
 * Whether a webhook secret is what Standard Webhooks defines: `whsec_` and the base64 of a key of
 * 24 to 64 bytes.
 */
export function isWebhookSecret(secret: string): boolean {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : '';
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(encoded))
    return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

function webhookConfig(
  env: z.output<typeof environment>,
  store: StoreConfig,
): Result<WebhookConfig | undefined, string> {
  if (env.WEBHOOK_URLS === undefined) {
    return env.WEBHOOK_SECRET === undefined
      ? ok(undefined)
      : err(
          'WEBHOOK_SECRET is set but WEBHOOK_URLS is not: set the receivers, or unset the secret',
        );
  }
  const urls = [
    ...new Set(
      env.WEBHOOK_URLS.split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    ),
  ];
  const bad = urls.filter((url) => {
    try {
      return !['http:', 'https:'].includes(new URL(url).protocol);
    } catch {
      return true;
    }
  });
  if (bad.length > 0) {
    return err(`WEBHOOK_URLS must be comma-separated http(s) URLs; not one: ${bad.join(', ')}`);
  }
  if (env.WEBHOOK_SECRET === undefined || !isWebhookSecret(env.WEBHOOK_SECRET)) {
    return err(
      `WEBHOOK_SECRET ${env.WEBHOOK_SECRET === undefined ? 'is required with WEBHOOK_URLS' : 'is not a Standard Webhooks secret'}: it must be whsec_ followed by the base64 of 24 to 64 random bytes (whsec_$(openssl rand -base64 32))`,
    );
  }
  if (store.kind === 'memory') {
    return err(
      'WEBHOOK_URLS needs STORE=pglite or STORE=postgres: the memory store keeps no outbox to deliver from (its events go to the in-process onEvent only)',
    );
  }
  if (env.WEBHOOK_LEASE_MS < env.WEBHOOK_TIMEOUT_MS + 1000) {
    return err(
      'WEBHOOK_LEASE_MS must exceed WEBHOOK_TIMEOUT_MS by a second at least: a claim must outlive the deliveries it holds',
    );
  }
  return ok({
    urls,
    secret: env.WEBHOOK_SECRET,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
    maxAgeMs: env.WEBHOOK_MAX_AGE_SECONDS * 1000,
    retryMaxDelayMs: env.WEBHOOK_RETRY_MAX_MS,
    leaseMs: env.WEBHOOK_LEASE_MS,
    retentionMs: env.WEBHOOK_RETENTION_SECONDS * 1000,
  });
}

/**
 * Reads the configuration from environment variables (see docs/server.md for each). Unset variables
 * take their defaults; a bad one is refused with a message naming it.
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env);
 * if (config.isErr()) { console.error(config.error.messages.join('\n')); process.exit(1); }
 * ```
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
): Result<ServerConfig, ConfigError> {
  const parsed = environment.safeParse(env);
  if (!parsed.success) {
    return err({
      type: 'ConfigError',
      messages: parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '');
        return issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`;
      }),
    });
  }
  const values = parsed.data;
  if (values.NEST_PLATFORM !== undefined && values.HTTP_FRAMEWORK !== 'nestjs') {
    return err({
      type: 'ConfigError',
      messages: [
        `NEST_PLATFORM is the platform of the NestJS app: it needs HTTP_FRAMEWORK=nestjs (HTTP_FRAMEWORK is ${values.HTTP_FRAMEWORK})`,
      ],
    });
  }
  const store = storeConfig(values);
  if (store.isErr()) return err({ type: 'ConfigError', messages: [store.error] });
  const webhooks = webhookConfig(values, store.value);
  if (webhooks.isErr()) return err({ type: 'ConfigError', messages: [webhooks.error] });
  const perAddress = incompleteHeadersPerAddress(values);
  if (perAddress.isErr()) return err({ type: 'ConfigError', messages: [perAddress.error] });
  const rateLimitScope =
    values.RATE_LIMIT_SCOPE ?? (store.value.kind === 'postgres' ? 'shared' : 'process');
  if (rateLimitScope === 'shared' && store.value.kind !== 'postgres') {
    return err({
      type: 'ConfigError',
      messages: [
        `RATE_LIMIT_SCOPE=shared counts in a PostgreSQL server: it needs STORE=postgres (STORE is ${store.value.kind}, one process, whose own counts are the limit)`,
      ],
    });
  }
  return authConfig(values)
    .map(
      (auth): ServerConfig => ({
        httpFramework: values.HTTP_FRAMEWORK,
        nestPlatform: values.NEST_PLATFORM ?? 'express',
        port: values.PORT,
        host: values.HOST,
        store: store.value,
        seedFile: values.SEED_FILE ?? DEMO_SEED_FILE,
        auth,
        rateLimitPerSecond: values.RATE_LIMIT_PER_SECOND,
        rateLimitPer15Minutes: values.RATE_LIMIT_PER_15_MIN,
        rateLimitMaxKeys: values.RATE_LIMIT_MAX_KEYS,
        rateLimitScope,
        requestTimeoutMs: values.REQUEST_TIMEOUT_MS,
        headersTimeoutMs: values.HEADERS_TIMEOUT_MS,
        maxConnections: values.MAX_CONNECTIONS,
        maxIncompleteHeadersPerAddress: perAddress.value.value,
        webhooks: webhooks.value,
        metrics: values.METRICS === 'true',
        tracing:
          values.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
            ? undefined
            : {
                endpoint: values.OTEL_EXPORTER_OTLP_ENDPOINT,
                serviceName: values.OTEL_SERVICE_NAME ?? 'workforce-kit',
              },
        logLevel: values.LOG_LEVEL,
        warnings: perAddress.value.warnings,
      }),
    )
    .mapErr((message) => ({ type: 'ConfigError', messages: [message] }));
}

/** What a token signed before a restart is told, when the dev secret was made at start. */
export const GENERATED_SECRET_HINT =
  'this server made its signing secret when it started, so tokens issued before it (re)started are refused: log in again, or set AUTH_HS256_SECRET to keep tokens across restarts';
