// Starts the reference server as a real process (`workforce-kit`) and reads its base URL from the
// banner it prints. A server that does not start is killed; one that does is the caller's to stop
// (in afterAll, or a finally), and is killed anyway if its test file ends with it still running.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOf } from '../../scripts/bootstrap.mjs';
import { killTree, stopProcess, track } from './processes.js';

/**
 * How a process runs the `workforce-kit` command: its build, when that is the build of the sources
 * as they are (`pnpm check` builds and stamps it), or else its source through tsx (half a second
 * of CPU more for each start, which the many servers of the suite add up to minutes of).
 */
const command = buildOf('@workforce-kit/server').upToDate()
  ? [fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url))]
  : [
      '--import',
      'tsx',
      '--conditions=@workforce-kit/source',
      fileURLToPath(new URL('../../packages/server/src/cli.ts', import.meta.url)),
    ];

export interface ServerProcess {
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /**
   * Sends SIGTERM and resolves with the exit code; SIGKILL if it has not exited within 20 s (the
   * code is then null).
   */
  stop(): Promise<number | null>;
}

export async function startReferenceServer(
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const pgliteDir = join(tmpdir(), `workforce-kit-e2e-${randomBytes(8).toString('hex')}`);
  const child = track(
    spawn(process.execPath, command, {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        AUTH_HS256_SECRET: randomBytes(32).toString('hex'),
        // The default store (PGlite), in a folder of its own.
        PGLITE_DIR: pgliteDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  // The folder made for it goes once it has exited, however it ended (a caller's own stays).
  if (env.PGLITE_DIR === undefined) {
    child.once('exit', () => void rm(pgliteDir, { recursive: true, force: true }).catch(() => {}));
  }
  const output = collectOutput(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      killTree(child.pid);
      reject(new Error(`the server did not start within 30 s:\n${output()}`));
    }, 30_000);
    const onData = () => {
      const found = /listening on (http:\/\/\S+)/.exec(output());
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output()}`));
    });
  });
  return { url, process: child, output, stop: () => stopProcess(child) };
}

/**
 * Starts a reference server for each environment of `envs`, all at once; if one does not start,
 * stops those that did, then fails with its error.
 */
export async function startReferenceServers(
  envs: readonly Record<string, string>[],
): Promise<ServerProcess[]> {
  const started = await Promise.allSettled(envs.map((env) => startReferenceServer(env)));
  const failed = started.find((each) => each.status === 'rejected');
  if (failed === undefined)
    return started.map((each) => (each as PromiseFulfilledResult<ServerProcess>).value);
  await Promise.all(
    started.map((each) => (each.status === 'fulfilled' ? each.value.stop() : undefined)),
  );
  throw failed.reason;
}

/**
 * Runs a `workforce-kit` command that ends (such as `webhooks status`) as a real process; its exit
 * code and what it wrote. Killed, and an error, if it has not ended in 60 s.
 */
export function runReferenceCommand(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const child = track(
    spawn(process.execPath, [...command, ...args], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const output = collectOutput(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killTree(child.pid);
      reject(new Error(`workforce-kit ${args.join(' ')} did not end within 60 s:\n${output()}`));
    }, 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output() });
    });
  });
}

/** What a child process writes to stdout and stderr, as it comes. */
function collectOutput(child: ChildProcess): () => string {
  let text = '';
  const append = (chunk: Buffer) => {
    text += chunk.toString();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => text;
}

/** A development-login client of a seed: its id and secret. */
export interface LoginClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** A token from the development login of the server at `url`, for a client of its seed. */
export async function devLogin(url: string, client: LoginClient): Promise<string> {
  const res = await fetch(`${url}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      userAccessType: 'MACHINE_CLIENT',
    }),
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: { accessToken: string } }).token.accessToken;
}
