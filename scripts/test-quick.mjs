#!/usr/bin/env node
// `pnpm test:quick`: the packages' unit and property tests, the ones a contributor runs while
// working on a package: no server (no listening socket, no HTTP client), no process started, no
// browser, no PostgreSQL server. Everything else runs in `pnpm test:all` (and `npm test`), which
// also runs these. A new test file of a package is quick unless it is named below.
import { spawnSync } from 'node:child_process';

/**
 * The packages' test projects (vitest's names). Left out whole: `postgres`, whose global setup
 * starts a PostgreSQL server, and the Express, Fastify and node:http adapters and the NestJS
 * module, whose tests answer real HTTP requests. The fetch adapter's are in process (a `Request` in, a `Response` out), but
 * one file.
 */
const PROJECTS = [
  'core',
  'seed-file',
  'types',
  'http',
  'fetch-adapter',
  'contract-testing',
  'server',
];

/** Files of those projects (paths from the package's folder) that serve HTTP or start processes. */
const NEEDS_SERVERS = [
  // http: a JWKS server on a loopback port
  'test/jwt-verifier.test.ts',
  // fetch-adapter: Hono on @hono/node-server
  'test/hono-node-server.test.ts',
  // contract-testing: the kit against servers, its CLI as a process, its HTML report in Chromium,
  // the events of faulty targets received on loopback (each file over 10 s)
  'test/cli-exit-codes.test.ts',
  'test/cli-reference-server.test.ts',
  'test/concurrent-group.test.ts',
  'test/concurrent-no-false-alarms.test.ts',
  'test/events-recorded.test.ts',
  'test/events-reference-server.test.ts',
  'test/events-webhooks.test.ts',
  'test/faults.test.ts',
  'test/hang-ups.test.ts',
  'test/html-report.test.ts',
  'test/kit-memory.test.ts',
  'test/mutation-suite.test.ts',
  'test/property-runner.test.ts',
  // server: the reference server listening, its processes, its stores and webhooks
  'test/connection-limit.test.ts',
  'test/dev-login.test.ts',
  'test/docs.test.ts',
  'test/log-destination.test.ts',
  'test/server.test.ts',
  'test/stores.test.ts',
  'test/webhooks-command.test.ts',
  'test/webhooks.test.ts',
];

const args = [
  'exec',
  'vitest',
  'run',
  '--maxWorkers=2',
  // Worker threads rather than processes: these tests start no process and send no signal, and a
  // thread is cheaper to start for each file (35.5 s of CPU against 40.5 s, on 2 cores).
  '--pool=threads',
  ...PROJECTS.flatMap((name) => ['--project', name]),
];
for (const glob of NEEDS_SERVERS) args.push('--exclude', glob);
args.push(...process.argv.slice(2));
const { status } = spawnSync('pnpm', args, { stdio: 'inherit' });
process.exit(status ?? 1);
