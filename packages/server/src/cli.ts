#!/usr/bin/env node
// The `workforce-kit` command: the reference server, configured from the environment.
import { pino } from 'pino';
import { loadConfig } from './config.js';
import { curlSession } from './curl-session.js';
import { describeStore, StartupError, startServer } from './server.js';

const config = loadConfig(process.env);
if (config.isErr()) {
  process.stderr.write(`workforce-kit cannot start:\n  ${config.error.messages.join('\n  ')}\n`);
  process.exit(2);
}
const logger = pino({ level: config.value.logLevel });

try {
  const server = await startServer(config.value, logger);
  const devLogin = config.value.auth.mode === 'dev';
  process.stdout.write(
    [
      '',
      `workforce-kit is listening on ${server.url}`,
      `  API reference  ${server.url}/docs`,
      `  OpenAPI spec   ${server.url}/openapi.yaml`,
      `  Health         ${server.url}/healthz, ${server.url}/readyz`,
      `  Store          ${describeStore(config.value.store)}, seeded (when empty) from ${config.value.seedFile}`,
      '',
      'Try it:',
      '',
      curlSession(server.url, server.seed, devLogin),
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
