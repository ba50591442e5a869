// Processes for the CLI tests: the reference server (`workforce-kit`) configured as a user would
// for the kit (jwt mode with an HS256 secret, an issuer and an audience, a seed file), and the
// kit's own command.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildOf } from '../../../../scripts/bootstrap.mjs';
import { AUDIENCE, ISSUER } from './demo-seed.js';

const here = fileURLToPath(new URL('../..', import.meta.url));

/**
 * How a process runs a package's command: its build, when that is the build of the sources as they
 * are (`pnpm check` builds and stamps it), or else its source through tsx (half a second of CPU
 * more for each start).
 */
function commandOf(name: string, folder: string, file: string): string[] {
  const at = (path: string) =>
    fileURLToPath(new URL(`../../../${folder}/${path}`, import.meta.url));
  return buildOf(name).upToDate()
    ? [at(`dist/${file}.js`)]
    : ['--import', 'tsx', '--conditions=@workforce-kit/source', at(`src/${file}.ts`)];
}
const SERVER = commandOf('@workforce-kit/server', 'server', 'cli');
const KIT = commandOf('@workforce-kit/contract-testing', 'contract-testing', 'cli');

export interface ServerProcess {
  readonly url: string;
  output(): string;
  /** SIGTERM, and SIGKILL if it has not exited within 20 s; its exit code (null if killed). */
  stop(): Promise<number | null>;
}

const STOP_GRACE_MS = 20_000;

export async function startReferenceServer(env: Record<string, string>): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, SERVER, {
    cwd: here,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within 60 s:\n${output}`));
    }, 60_000);
    child.stdout?.on('data', () => {
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      const late = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      const code = await exited;
      clearTimeout(late);
      return code;
    },
  };
}

/**
 * The reference server's settings for the kit: jwt auth from the HS256 `secret` with the demo
 * issuer and audience, and rate limits raised so that a run is not paced by them.
 */
export const kitServerEnv = (secret: string): Record<string, string> => ({
  AUTH_MODE: 'jwt',
  AUTH_HS256_SECRET: secret,
  AUTH_ISSUER: ISSUER,
  AUTH_AUDIENCE: AUDIENCE,
  RATE_LIMIT_PER_SECOND: '100000',
  RATE_LIMIT_PER_15_MIN: '1000000',
});

/**
 * The command's arguments for the target at `baseUrl`, loaded with the seed file `seed`, that
 * takes HS256 tokens of `secret` with the demo issuer and audience.
 */
export const targetArgs = (baseUrl: string, seed: string, secret: string): string[] => [
  '--base-url',
  baseUrl,
  '--seed',
  seed,
  '--hs256-secret',
  secret,
  '--issuer',
  ISSUER,
  '--audience',
  AUDIENCE,
];

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs the kit's command to its end. */
export function runKit(args: readonly string[]): Promise<Finished> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...KIT, ...args], {
      cwd: here,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}
