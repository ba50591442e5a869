// Run by Bun or Deno (not by Node): the fetch adapter's apps served with Bun.serve or Deno.serve,
// each over a memory store, made and read at the test's request. The test process (apps.ts)
// writes one JSON command a line on stdin and reads one JSON answer a line on stdout:
//
//   { id, op: 'serve', seed, settings }   → { id, result: { app, url } }
//   { id, op: 'find', app, repository, restaurant, identifier } → { id, result: { ok } | { err } }
//   { id, op: 'events', app }             → { id, result: RecordedEvent[] }
//   { id, op: 'observed', app }           → { id, result: { metrics, logs } }
//
// With `observed`, an app keeps prom-client metrics and logs with pino at level info (into a
// list): the defaults' libraries, run on the runtime.
//
// The apps are made as test/http's are (the same settings and faults, faults.ts), with the
// client's address from the runtime as its docs say. When stdin ends (the test is done, or its
// process is gone), every server stops and the process exits.
import { createInterface } from 'node:readline';
import {
  createMemoryStore,
  type MemoryStore,
  type RecordIdentifier,
  type SeedRecords,
} from '@workforce-kit/core';
import { createFetchHandler, createJwtVerifier, type Logger } from '@workforce-kit/fetch-adapter';
import { TEST_SECRET } from '@workforce-kit/http/testing';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { type AppSettings, faultOptions } from '../http/support/faults.js';

/** What this script uses of Bun's API. */
interface BunServer {
  readonly port: number;
  requestIP(request: Request): { readonly address: string } | null;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
interface BunApi {
  serve(options: {
    hostname: string;
    port: number;
    fetch(request: Request, server: BunServer): Promise<Response>;
  }): BunServer;
}

/** What this script uses of Deno's API. */
interface DenoServeInfo {
  readonly remoteAddr: { readonly hostname: string };
}
interface DenoServer {
  readonly addr: { readonly port: number };
  shutdown(): Promise<void>;
}
interface DenoApi {
  serve(
    options: { hostname: string; port: number; onListen(): void },
    handler: (request: Request, info: DenoServeInfo) => Promise<Response>,
  ): DenoServer;
}

const runtime = globalThis as { Bun?: BunApi; Deno?: DenoApi };

/** The API logs nothing here: stdout is the channel to the test. */
const silent: Logger = {
  info() {},
  warn() {},
  error() {},
  child: () => silent,
};

const NOT_FOUND = () => new Response('Not Found', { status: 404 });

interface Served {
  readonly store: MemoryStore;
  /** With `observed`: the metrics' registry and the log lines written. */
  readonly registry: Registry | undefined;
  readonly logs: unknown[];
  stop(): Promise<void>;
}

const apps = new Map<number, Served>();
let made = 0;

/** An app of the fetch adapter over a memory store of `seed`, served on a free port. */
function serve(
  seed: SeedRecords,
  { fault, ...settings }: AppSettings,
  observed: boolean,
): { app: number; url: string } {
  const store = createMemoryStore(seed);
  const registry = observed ? new Registry() : undefined;
  const logs: unknown[] = [];
  const logger = observed
    ? pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) })
    : silent;
  const options = {
    store,
    auth: createJwtVerifier({ hs256Secret: TEST_SECRET }),
    validateResponses: true,
    logger,
    ...(registry === undefined ? {} : { metrics: { registry } }),
    ...faultOptions(fault, store),
    ...settings,
  };
  let port: number;
  let stop: () => Promise<void>;
  if (runtime.Bun !== undefined) {
    const api = createFetchHandler({
      ...options,
      getClientAddress: (request, server: BunServer) => server.requestIP(request)?.address,
    });
    const server = runtime.Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (request, bun) => (await api(request, bun)) ?? NOT_FOUND(),
    });
    port = server.port;
    stop = async () => {
      await server.stop(true);
    };
  } else if (runtime.Deno !== undefined) {
    const api = createFetchHandler({
      ...options,
      getClientAddress: (_request, info: DenoServeInfo) => info.remoteAddr.hostname,
    });
    const server = runtime.Deno.serve(
      { hostname: '127.0.0.1', port: 0, onListen() {} },
      async (request, info) => (await api(request, info)) ?? NOT_FOUND(),
    );
    port = server.addr.port;
    stop = () => server.shutdown();
  } else {
    throw new Error('serve-apps.ts runs on Bun or Deno');
  }
  made += 1;
  apps.set(made, { store, registry, logs, stop });
  return { app: made, url: `http://127.0.0.1:${port}` };
}

function appOf(app: number): Served {
  const served = apps.get(app);
  if (served === undefined) throw new Error(`no app ${app}`);
  return served;
}

interface Command {
  readonly id: number;
  readonly op: 'serve' | 'find' | 'events' | 'observed';
  readonly app: number;
  readonly seed: SeedRecords;
  readonly settings: AppSettings;
  readonly observed?: boolean;
  readonly repository: 'employees' | 'shifts';
  readonly restaurant: string;
  readonly identifier: RecordIdentifier;
}

async function run(command: Command): Promise<unknown> {
  switch (command.op) {
    case 'serve':
      return serve(command.seed, command.settings, command.observed === true);
    case 'find': {
      const { store } = appOf(command.app);
      const found = await store[command.repository].find(
        command.restaurant as never,
        command.identifier,
      );
      return found.isOk() ? { ok: found.value } : { err: found.error };
    }
    case 'events':
      return appOf(command.app).store.recordedEvents();
    case 'observed': {
      const { registry, logs } = appOf(command.app);
      return { metrics: await registry?.metrics(), logs };
    }
  }
}

const answer = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const command = JSON.parse(line) as Command;
  run(command).then(
    (result) => answer({ id: command.id, result }),
    (error: unknown) => answer({ id: command.id, error: String(error) }),
  );
});
lines.on('close', () => {
  Promise.all([...apps.values()].map((app) => app.stop())).finally(() => process.exit(0));
});
answer({ ready: true });
