// Starts the reference server as a real process (`workforce-kit`, from source through tsx) and
// reads its base URL from the banner it prints.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../packages/server/src/cli.ts', import.meta.url));

export interface ServerProcess {
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

export async function startReferenceServer(
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@workforce-kit/source', cli],
    {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        AUTH_HS256_SECRET: randomBytes(32).toString('hex'),
        // The default store (PGlite), in a folder of its own.
        PGLITE_DIR: join(tmpdir(), `workforce-kit-e2e-${randomBytes(8).toString('hex')}`),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = collectOutput(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server did not start:\n${output()}`)),
      30_000,
    );
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
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    url,
    process: child,
    output,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * Runs a `workforce-kit` command that ends (such as `webhooks status`) as a real process, from
 * source; its exit code and what it wrote.
 */
export function runReferenceCommand(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@workforce-kit/source', cli, ...args],
    {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = collectOutput(child);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output: output() }));
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
