// What `npm test` and `npm start` need on a fresh clone with only Node.js and npm: the pinned
// pnpm (installed into .tools/, not globally), the workspace's dependencies, and the system
// packages some tests drive (Debian's Chromium, curl), installed with apt-get when missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmVersion = packageManager.replace(/^pnpm@/, '');
const toolsDir = join(root, '.tools');
const toolsBin = join(toolsDir, 'node_modules', '.bin');

/** The environment with the project's pnpm first on the PATH. */
export const env = { ...process.env, PATH: `${toolsBin}${delimiter}${process.env.PATH ?? ''}` };

/**
 * Runs a command in the repository root, its output on ours; exits with its status on failure.
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [environment]
 */
export function run(command, args, environment = env) {
  console.log(`\n> ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: environment });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** @param {string} check a shell test */
function holds(check) {
  return spawnSync('sh', ['-c', check], { stdio: 'ignore' }).status === 0;
}

/** Installs the pinned pnpm into .tools/ unless that version is already first on the PATH. */
export function ensurePnpm() {
  const found = spawnSync('pnpm', ['--version'], { cwd: root, env, encoding: 'utf8' });
  if (found.status === 0 && found.stdout.trim() === pnpmVersion) return;
  run('npm', [
    'install',
    '--prefix',
    toolsDir,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    `pnpm@${pnpmVersion}`,
  ]);
  if (!existsSync(join(toolsBin, 'pnpm'))) {
    console.error(`pnpm ${pnpmVersion} did not install into ${toolsDir}`);
    process.exit(1);
  }
}

/** The system packages the tests drive, each with the shell test that tells it is there. */
export const TEST_SYSTEM_PACKAGES = [
  { check: 'command -v chromium', name: 'chromium' },
  { check: 'command -v curl', name: 'curl' },
  // The PostgreSQL server binaries (the tests start their own server).
  { check: 'test -x "$(pg_config --bindir 2>/dev/null)/initdb"', name: 'postgresql' },
];

/**
 * Installs the Debian packages whose check fails, with apt-get, as root or through sudo.
 * @param {{ check: string, name: string }[]} needed
 */
export function ensureSystemPackages(needed) {
  const missing = needed.filter(({ check }) => !holds(check));
  if (missing.length === 0) return;
  const packages = missing.map(({ name }) => name);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!asRoot && !holds('command -v sudo')) {
    console.error(
      `Missing ${packages.join(', ')}; install them (apt-get install ${packages.join(' ')}) and run again.`,
    );
    process.exit(1);
  }
  const sudo = asRoot ? [] : ['sudo'];
  const apt = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  const [first = 'apt-get', ...rest] = [...sudo, 'apt-get'];
  run(first, [...rest, 'update'], apt);
  run(first, [...rest, 'install', '-y', '--no-install-recommends', ...packages], apt);
}

/** Installs the workspace's dependencies from the lockfile. */
export function installDependencies() {
  run('pnpm', ['install', '--frozen-lockfile']);
}
