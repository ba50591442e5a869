#!/usr/bin/env node
// The `workforce-kit` command: the reference server, configured from the environment.
import { resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from './config.js';
import { curlSession } from './curl-session.js';
import { describeStore, GENERATED_SECRET_HINT, StartupError, startServer } from './server.js';

const config = loadConfig(process.env);
if (config.isErr()) {
  process.stderr.write(`workforce-kit cannot start:\n  ${config.error.messages.join('\n  ')}\n`);
  process.exit(2);
}
const logger = pino({ level: config.value.logLevel });
const { auth } = config.value;
if (auth.mode === 'dev' && auth.exposed) {
  process.stderr.write(
    [
      '',
      '!!! WARNING: the development login is on and HOST is not a loopback address.',
      '!!! Anyone who can reach this server and knows a client secret of the seed file gets',
      '!!! tokens for its restaurants. Use AUTH_MODE=jwt with your identity provider instead.',
      '',
      '',
    ].join('\n'),
  );
  logger.warn({ host: config.value.host }, 'the development login is exposed beyond loopback');
}

try {
  const server = await startServer(config.value, logger);
  const devLogin = auth.mode === 'dev';
  const secretMadeAtStart = auth.mode === 'dev' && auth.hs256Secret === undefined;
  process.stdout.write(
    [
      '',
      `workforce-kit is listening on ${server.url}`,
      `  API reference  ${server.url}/docs`,
      `  OpenAPI spec   ${server.url}/openapi.yaml`,
      `  Health         ${server.url}/healthz, ${server.url}/readyz`,
      `  Store          ${describeStore(config.value.store)}, seeded (when empty) from ${config.value.seedFile}`,
      ...(secretMadeAtStart ? [`  Tokens         ${GENERATED_SECRET_HINT}`] : []),
      '',
      'Try it:',
      '',
      curlSession(
        server.url,
        server.seed,
        devLogin ? { seedFile: resolve(config.value.seedFile) } : undefined,
      ),
      '',
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing the requests in flight');
    server.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
} catch (error) {
  if (error instanceof StartupError) {
    process.stderr.write(`workforce-kit cannot start: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
