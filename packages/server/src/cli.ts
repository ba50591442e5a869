#!/usr/bin/env node
// The `workforce-kit` command: the reference server, configured from the environment.
// First, before PGlite's WebAssembly is compiled: V8's flag that keeps it small (see the module).
import './liftoff-only.js';
import { resolve } from 'node:path';
import { GENERATED_SECRET_HINT, loadConfig } from './config.js';
import { curlSession } from './curl-session.js';
import {
  describeStore,
  type RunningServer,
  StartupError,
  serverLogger,
  startServer,
} from './server.js';
import { webhooksCommand } from './webhooks-command.js';

// `workforce-kit webhooks status|redrive|purge|retire`: the operator's command, on the server's store.
if (process.argv[2] === 'webhooks') {
  process.exit(
    await webhooksCommand(process.argv.slice(3), process.env, (line) =>
      process.stdout.write(`${line}\n`),
    ),
  );
}

const config = loadConfig(process.env);
if (config.isErr()) {
  process.stderr.write(`workforce-kit cannot start:\n  ${config.error.messages.join('\n  ')}\n`);
  process.exit(2);
}
const logger = serverLogger(config.value.logLevel);
for (const warning of config.value.warnings) {
  process.stderr.write(`workforce-kit: warning: ${warning}\n`);
  logger.warn(warning);
}
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

// One signal (SIGTERM, SIGINT: Ctrl-C) stops the server gracefully: it stops accepting, finishes
// the requests in flight, closes the store (PGlite checkpoints its data and releases its lock),
// logs it and exits 0. A second signal cuts the requests in flight (the store is still closed); a
// third exits at once. A signal during the start stops the server as soon as it has started.
// Started by `npm start`, the server has a process group of its own and an IPC channel to the
// launcher, which forwards each stop once: the end of the channel (the launcher gone) is a stop.
let server: RunningServer | undefined;
let signals = 0;
let stopping = false;

function stopServer(running: RunningServer, force: boolean): void {
  const closing = running.close({ force });
  if (stopping) return;
  stopping = true;
  closing.then(
    () => {
      logger.info('stopped');
      process.exit(0);
    },
    (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
}

function onStop(signal: string): void {
  signals += 1;
  if (signals === 1) {
    logger.info(
      { signal },
      server === undefined
        ? 'shutting down as soon as the start completes'
        : 'shutting down: finishing the requests in flight',
    );
    if (server !== undefined) stopServer(server, false);
  } else if (signals === 2 && server !== undefined) {
    logger.warn({ signal }, 'second signal: cutting the requests in flight, closing the store');
    stopServer(server, true);
  } else {
    logger.warn({ signal }, 'stopped at once');
    process.exit(1);
  }
}

process.on('SIGTERM', () => onStop('SIGTERM'));
process.on('SIGINT', () => onStop('SIGINT'));
if (process.channel !== undefined) process.on('disconnect', () => onStop('launcher exited'));

try {
  server = await startServer(config.value, logger);
  const devLogin = auth.mode === 'dev';
  const secretMadeAtStart = auth.mode === 'dev' && auth.hs256Secret === undefined;
  process.stdout.write(
    [
      '',
      `workforce-kit is listening on ${server.url}`,
      `  API reference  ${server.url}/docs`,
      `  OpenAPI spec   ${server.url}/openapi.yaml`,
      `  Health         ${server.url}/healthz, ${server.url}/readyz`,
      `  Metrics        ${config.value.metrics ? `${server.url}/metrics` : 'off (METRICS=false)'}`,
      `  Tracing        ${
        config.value.tracing === undefined
          ? 'off (set OTEL_EXPORTER_OTLP_ENDPOINT to export spans)'
          : `OTLP/HTTP to ${config.value.tracing.endpoint}`
      }`,
      `  Store          ${describeStore(config.value.store)}, seeded (when empty) from ${config.value.seedFile}`,
      `  Framework      ${config.value.httpFramework} (HTTP_FRAMEWORK)${
        config.value.httpFramework === 'nestjs'
          ? `, on its ${config.value.nestPlatform} platform (NEST_PLATFORM)`
          : ''
      }`,
      `  Webhooks       ${
        config.value.webhooks === undefined
          ? 'off (set WEBHOOK_URLS and WEBHOOK_SECRET to send them)'
          : `to ${config.value.webhooks.urls.join(', ')}`
      }`,
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
  if (signals > 0) stopServer(server, signals > 1);
} catch (error) {
  if (error instanceof StartupError) {
    process.stderr.write(`workforce-kit cannot start: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
