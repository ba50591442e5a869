import { describe, expect, it } from 'vitest';
import { DEMO_SEED_FILE, loadConfig } from '../src/index.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})._unsafeUnwrap()).toEqual({
      httpFramework: 'express',
      nestPlatform: 'express',
      port: 8080,
      host: '127.0.0.1',
      store: { kind: 'pglite', dataDir: '.data/pglite' },
      seedFile: DEMO_SEED_FILE,
      auth: {
        mode: 'dev',
        exposed: false,
        hs256Secret: undefined,
        issuer: 'workforce-kit-dev',
        audience: undefined,
      },
      rateLimitPerSecond: 20,
      rateLimitPer15Minutes: 10_000,
      rateLimitMaxKeys: 10_000,
      rateLimitScope: 'process',
      requestTimeoutMs: 10_000,
      headersTimeoutMs: 10_000,
      maxConnections: 1_000,
      maxIncompleteHeadersPerAddress: 64,
      webhooks: undefined,
      metrics: true,
      tracing: undefined,
      logLevel: 'info',
      warnings: [],
    });
  });

  it('turns /metrics off with METRICS=false, and tracing on with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(loadConfig({ METRICS: 'false' })._unsafeUnwrap().metrics).toBe(false);
    expect(loadConfig({ METRICS: 'no' })._unsafeUnwrapErr().messages).toEqual([
      'METRICS must be true or false',
    ]);
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })._unsafeUnwrap().tracing,
    ).toEqual({ endpoint: 'http://127.0.0.1:4318', serviceName: 'workforce-kit' });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/',
        OTEL_SERVICE_NAME: 'labor-api',
      })._unsafeUnwrap().tracing,
    ).toEqual({ endpoint: 'https://otel.example.com/', serviceName: 'labor-api' });
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })._unsafeUnwrap().tracing,
    ).toBeUndefined();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })._unsafeUnwrapErr()
        .messages,
    ).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL']);
  });

  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

  it('turns webhooks on with WEBHOOK_URLS and a Standard Webhooks WEBHOOK_SECRET', () => {
    expect(
      loadConfig({
        WEBHOOK_URLS:
          ' https://a.example.com/hook, http://127.0.0.1:9000/x ,https://a.example.com/hook',
        WEBHOOK_SECRET: secret,
      })._unsafeUnwrap().webhooks,
    ).toEqual({
      urls: ['https://a.example.com/hook', 'http://127.0.0.1:9000/x'],
      secret,
      timeoutMs: 5000,
      maxAttempts: 20,
      maxAgeMs: 86_400_000,
      retryMaxDelayMs: 3_600_000,
      leaseMs: 30_000,
      retentionMs: 604_800_000,
    });
    expect(
      loadConfig({
        STORE: 'postgres',
        DATABASE_URL: 'postgres://db.example.com/workforce',
        WEBHOOK_URLS: 'https://a.example.com/hook',
        WEBHOOK_SECRET: secret,
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_MAX_ATTEMPTS: '3',
        WEBHOOK_MAX_AGE_SECONDS: '60',
        WEBHOOK_LEASE_MS: '4000',
        WEBHOOK_RETRY_MAX_MS: '8000',
        WEBHOOK_RETENTION_SECONDS: '3600',
      })._unsafeUnwrap().webhooks,
    ).toMatchObject({
      timeoutMs: 2000,
      maxAttempts: 3,
      maxAgeMs: 60_000,
      leaseMs: 4000,
      retryMaxDelayMs: 8000,
      retentionMs: 3_600_000,
    });
  });

  it('refuses a webhook secret that is not whsec_ and the base64 of 24 to 64 bytes, in one line', () => {
    for (const bad of [
      'not-a-secret',
      Buffer.alloc(32).toString('base64'),
      'whsec_not base64!',
      `whsec_${Buffer.alloc(16).toString('base64')}`,
      `whsec_${Buffer.alloc(65).toString('base64')}`,
      `whsec_${Buffer.alloc(32).toString('base64').replace(/=+$/, '')}`,
    ]) {
      const messages = loadConfig({
        WEBHOOK_URLS: 'https://a.example.com',
        WEBHOOK_SECRET: bad,
      })._unsafeUnwrapErr().messages;
      expect(messages).toEqual([
        expect.stringMatching(
          /^WEBHOOK_SECRET is not a Standard Webhooks secret: it must be whsec_ followed by the base64 of 24 to 64 random bytes/,
        ),
      ]);
    }
  });

  it('refuses webhooks without a secret, a secret without webhooks, bad URLs, the memory store, a lease shorter than the timeout, a retention that is not a positive number of seconds', () => {
    const messages = (env: Record<string, string>) =>
      loadConfig(env)._unsafeUnwrapErr().messages.join('\n');
    expect(messages({ WEBHOOK_URLS: 'https://a.example.com' })).toMatch(
      /^WEBHOOK_SECRET is required with WEBHOOK_URLS/,
    );
    expect(messages({ WEBHOOK_SECRET: secret })).toMatch(
      /^WEBHOOK_SECRET is set but WEBHOOK_URLS is not/,
    );
    expect(
      messages({
        WEBHOOK_URLS: 'https://a.example.com,ftp://b.example.com,nope',
        WEBHOOK_SECRET: secret,
      }),
    ).toBe('WEBHOOK_URLS must be comma-separated http(s) URLs; not one: ftp://b.example.com, nope');
    expect(
      messages({ STORE: 'memory', WEBHOOK_URLS: 'https://a.example.com', WEBHOOK_SECRET: secret }),
    ).toMatch(/^WEBHOOK_URLS needs STORE=pglite or STORE=postgres/);
    expect(
      messages({
        WEBHOOK_URLS: 'https://a.example.com',
        WEBHOOK_SECRET: secret,
        WEBHOOK_LEASE_MS: '5500',
      }),
    ).toMatch(/^WEBHOOK_LEASE_MS must exceed WEBHOOK_TIMEOUT_MS/);
    for (const [value, problem] of [
      ['0', 'positive'],
      ['1.5', 'a whole number'],
      ['a week', 'a number'],
    ]) {
      expect(
        messages({
          WEBHOOK_URLS: 'https://a.example.com',
          WEBHOOK_SECRET: secret,
          WEBHOOK_RETENTION_SECONDS: value as string,
        }),
      ).toBe(`WEBHOOK_RETENTION_SECONDS must be ${problem}`);
    }
  });

  it('reads every variable', () => {
    const config = loadConfig({
      HTTP_FRAMEWORK: 'fastify',
      PORT: '9090',
      HOST: '0.0.0.0',
      STORE: 'memory',
      SEED_FILE: '/tmp/seed.json',
      AUTH_MODE: 'jwt',
      AUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
      AUTH_ISSUER: 'https://id.example.com',
      AUTH_AUDIENCE: 'workforce-api',
      RATE_LIMIT_PER_SECOND: '5',
      RATE_LIMIT_PER_15_MIN: '500',
      REQUEST_TIMEOUT_MS: '2500',
      RATE_LIMIT_MAX_KEYS: '300',
      HEADERS_TIMEOUT_MS: '1500',
      MAX_CONNECTIONS: '64',
      MAX_INCOMPLETE_HEADERS_PER_ADDRESS: '8',
      LOG_LEVEL: 'debug',
    })._unsafeUnwrap();
    expect(config).toMatchObject({
      httpFramework: 'fastify',
      port: 9090,
      host: '0.0.0.0',
      seedFile: '/tmp/seed.json',
      auth: {
        mode: 'jwt',
        key: { jwksUrl: 'https://id.example.com/.well-known/jwks.json' },
        issuer: 'https://id.example.com',
        audience: 'workforce-api',
      },
      rateLimitPerSecond: 5,
      rateLimitPer15Minutes: 500,
      requestTimeoutMs: 2500,
      rateLimitMaxKeys: 300,
      headersTimeoutMs: 1500,
      maxConnections: 64,
      maxIncompleteHeadersPerAddress: 8,
      logLevel: 'debug',
      warnings: [],
    });
  });

  it('keeps 64 connections sending their headers of an address, and never more than MAX_CONNECTIONS', () => {
    const perAddress = (env: Record<string, string>) =>
      loadConfig(env).map((config) => config.maxIncompleteHeadersPerAddress);
    expect(perAddress({ MAX_CONNECTIONS: '5000' })._unsafeUnwrap()).toBe(64);
    // A small server set with MAX_CONNECTIONS alone starts: its cap is the address's too.
    expect(perAddress({ MAX_CONNECTIONS: '20' })._unsafeUnwrap()).toBe(20);
    expect(
      perAddress({
        MAX_CONNECTIONS: '500',
        MAX_INCOMPLETE_HEADERS_PER_ADDRESS: '500',
      })._unsafeUnwrap(),
    ).toBe(500);
    expect(
      perAddress({ MAX_INCOMPLETE_HEADERS_PER_ADDRESS: '1001' })._unsafeUnwrapErr().messages,
    ).toEqual([
      'MAX_INCOMPLETE_HEADERS_PER_ADDRESS (1001) must not exceed MAX_CONNECTIONS (1000): no client can have more connections sending their headers than the server serves. Lower it, or unset it',
    ]);
  });

  it('reads MAX_CONNECTIONS_PER_ADDRESS, its old name, as MAX_INCOMPLETE_HEADERS_PER_ADDRESS, with a warning', () => {
    const config = loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '1000' })._unsafeUnwrap();
    expect(config.maxIncompleteHeadersPerAddress).toBe(1000);
    expect(config.warnings).toEqual([
      'MAX_CONNECTIONS_PER_ADDRESS is read as MAX_INCOMPLETE_HEADERS_PER_ADDRESS=1000: it no longer caps every connection of an address (a reverse proxy’s busy and idle connections are never refused for their address), only those whose request headers have not all arrived, while the server is full. Rename it; unset, the default (64) suits a server behind a proxy too',
    ]);
    expect(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '1001' })._unsafeUnwrapErr().messages).toEqual(
      [
        'MAX_CONNECTIONS_PER_ADDRESS (1001) must not exceed MAX_CONNECTIONS (1000): no client can have more connections sending their headers than the server serves. Lower it, or unset it',
      ],
    );
    expect(
      loadConfig({
        MAX_CONNECTIONS_PER_ADDRESS: '8',
        MAX_INCOMPLETE_HEADERS_PER_ADDRESS: '8',
      })._unsafeUnwrapErr().messages,
    ).toEqual([
      'MAX_CONNECTIONS_PER_ADDRESS is the old name of MAX_INCOMPLETE_HEADERS_PER_ADDRESS: set only MAX_INCOMPLETE_HEADERS_PER_ADDRESS',
    ]);
  });

  it.each([
    [{ HTTP_FRAMEWORK: 'koa' }, 'HTTP_FRAMEWORK'],
    [{ HTTP_FRAMEWORK: 'nestjs', NEST_PLATFORM: 'koa' }, 'NEST_PLATFORM'],
    [{ NEST_PLATFORM: 'fastify' }, 'NEST_PLATFORM'],
    [{ HTTP_FRAMEWORK: 'hono', NEST_PLATFORM: 'express' }, 'NEST_PLATFORM'],
    [{ MAX_CONNECTIONS_PER_ADDRESS: '0' }, 'MAX_CONNECTIONS_PER_ADDRESS'],
    [{ MAX_CONNECTIONS_PER_ADDRESS: 'many' }, 'MAX_CONNECTIONS_PER_ADDRESS'],
    [{ MAX_INCOMPLETE_HEADERS_PER_ADDRESS: '0' }, 'MAX_INCOMPLETE_HEADERS_PER_ADDRESS'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '80.5' }, 'PORT'],
    [{ STORE: 'mongodb' }, 'STORE'],
    [{ AUTH_MODE: 'none' }, 'AUTH_MODE'],
    [{ AUTH_HS256_SECRET: 'short' }, 'AUTH_HS256_SECRET'],
    [{ AUTH_MODE: 'jwt', AUTH_JWKS_URL: 'not a url' }, 'AUTH_JWKS_URL'],
    [{ RATE_LIMIT_PER_SECOND: '0' }, 'RATE_LIMIT_PER_SECOND'],
    [{ RATE_LIMIT_PER_15_MIN: '-3' }, 'RATE_LIMIT_PER_15_MIN'],
    [{ RATE_LIMIT_SCOPE: 'cluster' }, 'RATE_LIMIT_SCOPE'],
    [{ RATE_LIMIT_SCOPE: 'shared' }, 'RATE_LIMIT_SCOPE=shared'],
    [{ REQUEST_TIMEOUT_MS: 'soon' }, 'REQUEST_TIMEOUT_MS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HOST: '' }, 'HOST'],
  ])('refuses %j with a message naming %s', (env, name) => {
    const messages = loadConfig(env)._unsafeUnwrapErr().messages;
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(name);
  });

  it("reads NEST_PLATFORM with HTTP_FRAMEWORK=nestjs: Nest's Express platform by default", () => {
    expect(loadConfig({ HTTP_FRAMEWORK: 'nestjs' })._unsafeUnwrap()).toMatchObject({
      httpFramework: 'nestjs',
      nestPlatform: 'express',
    });
    expect(
      loadConfig({ HTTP_FRAMEWORK: 'nestjs', NEST_PLATFORM: 'fastify' })._unsafeUnwrap(),
    ).toMatchObject({ httpFramework: 'nestjs', nestPlatform: 'fastify' });
    expect(loadConfig({ NEST_PLATFORM: 'express' })._unsafeUnwrapErr().messages).toEqual([
      'NEST_PLATFORM is the platform of the NestJS app: it needs HTTP_FRAMEWORK=nestjs (HTTP_FRAMEWORK is express)',
    ]);
  });

  it('names every bad variable at once', () => {
    const messages = loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' })._unsafeUnwrapErr().messages;
    expect(messages.join('\n')).toMatch(/PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*PORT/);
  });

  it('shares the rate limits through the PostgreSQL server by default, unless RATE_LIMIT_SCOPE=process', () => {
    const postgres = { STORE: 'postgres', DATABASE_URL: 'postgres://app:secret@db:5432/workforce' };
    expect(loadConfig(postgres)._unsafeUnwrap().rateLimitScope).toBe('shared');
    expect(
      loadConfig({ ...postgres, RATE_LIMIT_SCOPE: 'process' })._unsafeUnwrap().rateLimitScope,
    ).toBe('process');
    expect(loadConfig({ STORE: 'memory' })._unsafeUnwrap().rateLimitScope).toBe('process');
  });

  it('reads the store: pglite in PGLITE_DIR, postgres at DATABASE_URL, or memory', () => {
    expect(loadConfig({ PGLITE_DIR: '/var/lib/wk' })._unsafeUnwrap().store).toEqual({
      kind: 'pglite',
      dataDir: '/var/lib/wk',
    });
    expect(
      loadConfig({
        STORE: 'postgres',
        DATABASE_URL: 'postgres://app:secret@db:5432/workforce',
      })._unsafeUnwrap().store,
    ).toEqual({ kind: 'postgres', databaseUrl: 'postgres://app:secret@db:5432/workforce' });
    expect(loadConfig({ STORE: 'memory' })._unsafeUnwrap().store).toEqual({ kind: 'memory' });
  });

  it.each([
    [{ STORE: 'postgres' }, 'DATABASE_URL'],
    [{ STORE: 'postgres', DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL'],
    [{ STORE: 'sqlite' }, 'STORE'],
  ])('refuses the store settings %j, naming %s', (env, name) => {
    expect(loadConfig(env)._unsafeUnwrapErr().messages.join('\n')).toContain(name);
  });

  const ISSUER_AND_AUDIENCE = { AUTH_ISSUER: 'https://id.example.com', AUTH_AUDIENCE: 'api' };

  it('needs exactly one key for AUTH_MODE=jwt', () => {
    for (const env of [
      { AUTH_MODE: 'jwt', ...ISSUER_AND_AUDIENCE },
      {
        AUTH_MODE: 'jwt',
        AUTH_JWKS_URL: 'https://id.example.com/jwks',
        AUTH_PUBLIC_KEY_FILE: '/k.pem',
        ...ISSUER_AND_AUDIENCE,
      },
    ]) {
      expect(loadConfig(env)._unsafeUnwrapErr().messages[0]).toMatch(
        /AUTH_JWKS_URL, AUTH_PUBLIC_KEY_FILE, AUTH_HS256_SECRET/,
      );
    }
    expect(
      loadConfig({
        AUTH_MODE: 'jwt',
        AUTH_PUBLIC_KEY_FILE: '/k.pem',
        ...ISSUER_AND_AUDIENCE,
      })._unsafeUnwrap().auth,
    ).toMatchObject({
      key: { publicKeyFile: '/k.pem' },
    });
  });

  it('refuses AUTH_MODE=jwt without AUTH_ISSUER or AUTH_AUDIENCE, unless told to accept any', () => {
    const key = { AUTH_MODE: 'jwt', AUTH_PUBLIC_KEY_FILE: '/k.pem' };
    for (const [env, missing] of [
      [{}, 'AUTH_ISSUER and AUTH_AUDIENCE'],
      [{ AUTH_ISSUER: 'https://id.example.com' }, 'AUTH_AUDIENCE'],
      [{ AUTH_AUDIENCE: 'api' }, 'AUTH_ISSUER'],
    ] as const) {
      const message = loadConfig({ ...key, ...env })
        ._unsafeUnwrapErr()
        .messages.join('\n');
      expect(message).toContain(`AUTH_MODE=jwt needs ${missing}`);
      expect(message).toContain('AUTH_ALLOW_ANY_ISSUER_OR_AUDIENCE=true');
    }
    expect(
      loadConfig({ ...key, AUTH_ALLOW_ANY_ISSUER_OR_AUDIENCE: 'true' })._unsafeUnwrap().auth,
    ).toMatchObject({ mode: 'jwt', issuer: undefined, audience: undefined });
  });

  it('turns the development login on by default only on a loopback HOST', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]']) {
      expect(loadConfig({ HOST: host })._unsafeUnwrap().auth).toMatchObject({
        mode: 'dev',
        exposed: false,
      });
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'api.example.com']) {
      const message = loadConfig({ HOST: host })._unsafeUnwrapErr().messages.join('\n');
      expect(message).toContain(`AUTH_MODE is not set and HOST ${host} is not a loopback address`);
      expect(loadConfig({ HOST: host, AUTH_MODE: 'dev' })._unsafeUnwrap().auth).toMatchObject({
        mode: 'dev',
        exposed: true,
      });
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ SEED_FILE: '', AUTH_ISSUER: ' ' })._unsafeUnwrap()).toMatchObject({
      seedFile: DEMO_SEED_FILE,
      auth: { issuer: 'workforce-kit-dev' },
    });
  });
});
