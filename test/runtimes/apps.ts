// The fetch adapter's apps on Bun and on Deno, for the HTTP-level suites: one runtime process per
// test file (serve-apps.ts, from source, as the other suites run the packages), started on the
// first app and stopped by the file's afterAll; each app served there with Bun.serve or
// Deno.serve on a free port of 127.0.0.1. The runtimes' binaries are the ones their npm packages
// ship (test/package.json pins them).
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Employee, RecordedEvent, Shift, StorageError } from '@workforce-kit/core';
import { err, ok, ResultAsync } from 'neverthrow';
import type { AppSettings } from '../http/support/faults.js';
import type { AppsUnderTest, AppUnderTest, StoreView } from '../http/support/statuses-suite.js';
import { aWorld } from '../http/support/world.js';
import { stopProcess, track } from '../support/processes.js';

const require = createRequire(import.meta.url);
const testDir = fileURLToPath(new URL('..', import.meta.url));
const script = fileURLToPath(new URL('serve-apps.ts', import.meta.url));

export type RuntimeName = 'bun' | 'deno';

/**
 * The runtime's command line to run `file` over the packages' sources, as the suites read them:
 * the binary its npm package ships, and its arguments.
 */
export function commandOf(name: RuntimeName, file: string = script): [string, string[]] {
  if (name === 'bun') {
    return [
      join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe'),
      ['--conditions=@workforce-kit/source', file],
    ];
  }
  // The deno package's own lookup of its platform's binary (an optional dependency of it).
  const { runInstall } = require('deno/install_api.cjs') as { runInstall(): string };
  return [
    runInstall(),
    [
      'run',
      '--quiet',
      // The sources import `./x.js` for `./x.ts`, as TypeScript's NodeNext wants; Deno asks for
      // this flag to map them (the built packages need none).
      '--sloppy-imports',
      '--conditions=@workforce-kit/source',
      '--allow-net=127.0.0.1',
      '--allow-read',
      '--allow-env',
      '--allow-sys',
      file,
    ],
  ];
}

/** The environment of a runtime's process: no update check, no telemetry (no network here). */
export const RUNTIME_ENV = { ...process.env, DENO_NO_UPDATE_CHECK: '1', DO_NOT_TRACK: '1' };

/** The runtime and its version (`bun 1.4.5`), as the suite names it. */
export function versionOf(name: RuntimeName): string {
  const [command] = commandOf(name);
  const printed = execFileSync(command, ['--version'], { encoding: 'utf8' });
  return `${name} ${/\d+\.\d+\.\d+/.exec(printed)?.[0] ?? printed.trim()}`;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** An app that keeps metrics and logs at level info: what it kept, read from the runtime. */
export interface ObservedApp extends AppUnderTest {
  observed(): Promise<{ readonly metrics: string; readonly logs: Record<string, unknown>[] }>;
}

/** The apps of the fetch adapter on a runtime, started on first use; `stop` ends the process. */
export interface RuntimeApps extends AppsUnderTest {
  /** An app with metrics (prom-client) and a log at level info (pino). */
  observedApp(): Promise<ObservedApp>;
  stop(): Promise<void>;
}

export function runtimeApps(name: RuntimeName): RuntimeApps {
  let child: ChildProcessWithoutNullStreams | undefined;
  let started: Promise<void> | undefined;
  let output = '';
  let next = 0;
  const pending = new Map<number, Pending>();

  function start(): Promise<void> {
    const [command, args] = commandOf(name);
    const process_ = track(
      spawn(command, args, {
        cwd: testDir,
        env: RUNTIME_ENV,
      }),
    );
    child = process_;
    process_.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    return new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: process_.stdout });
      lines.on('line', (line) => {
        const message = JSON.parse(line) as {
          ready?: true;
          id?: number;
          result?: unknown;
          error?: string;
        };
        if (message.ready) {
          resolve();
          return;
        }
        const waiting = pending.get(message.id ?? -1);
        pending.delete(message.id ?? -1);
        if (message.error !== undefined) waiting?.reject(new Error(`${name}: ${message.error}`));
        else waiting?.resolve(message.result);
      });
      process_.once('error', reject);
      process_.once('exit', (code, signal) => {
        const gone = new Error(`${name} exited (${code ?? signal}):\n${output}`);
        reject(gone);
        for (const waiting of pending.values()) waiting.reject(gone);
        pending.clear();
      });
    });
  }

  async function call<T>(command: Record<string, unknown>): Promise<T> {
    started ??= start();
    await started;
    const id = next++;
    const answered = new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
    child?.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
    return answered;
  }

  /** The store of app `app`, read in the runtime's process. */
  function storeOf(app: number): StoreView {
    const find =
      (repository: 'employees' | 'shifts') => (restaurant: string, identifier: unknown) =>
        ResultAsync.fromSafePromise(
          call<{ ok: Employee | Shift | null } | { err: StorageError }>({
            op: 'find',
            app,
            repository,
            restaurant,
            identifier,
          }),
        ).andThen((found) => ('err' in found ? err(found.err) : ok(found.ok)));
    return {
      employees: { find: find('employees') } as StoreView['employees'],
      shifts: { find: find('shifts') } as StoreView['shifts'],
      recordedEvents: () => call<RecordedEvent[]>({ op: 'events', app }),
    };
  }

  async function serve(settings: AppSettings, observed: boolean) {
    const world = aWorld();
    const { app, url } = await call<{ app: number; url: string }>({
      op: 'serve',
      seed: world.seed,
      settings,
      observed,
    });
    return { app, url, world, store: storeOf(app) };
  }

  return {
    name,
    app: (settings: AppSettings = {}) => serve(settings, false),
    async observedApp() {
      const served = await serve({}, true);
      return { ...served, observed: () => call({ op: 'observed', app: served.app }) };
    },
    async stop() {
      if (child === undefined) return;
      // Its stdin ends: it stops its servers and exits; SIGTERM, then SIGKILL, if it does not.
      child.stdin.end();
      await stopProcess(child, { graceMs: 5_000 });
    },
  };
}
