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
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server did not start:\n${output}`)),
      30_000,
    );
    const onData = () => {
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    url,
    process: child,
    output: () => output,
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
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}
