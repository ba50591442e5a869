#!/usr/bin/env node
// `npm test` on a fresh clone with only Node.js and npm: install the pinned pnpm (into .tools/,
// not globally), install the workspace from the lockfile, then run every check (`pnpm check`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmVersion = packageManager.replace(/^pnpm@/, '');
const toolsDir = join(root, '.tools');
const toolsBin = join(toolsDir, 'node_modules', '.bin');

/**
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env]
 */
function run(command, args, env = process.env) {
  console.log(`\n> ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** @param {NodeJS.ProcessEnv} env */
function installedPnpmVersion(env) {
  const result = spawnSync('pnpm', ['--version'], { cwd: root, env, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

// Later steps (and the scripts pnpm runs) find this pnpm first on the PATH.
const env = { ...process.env, PATH: `${toolsBin}${delimiter}${process.env.PATH ?? ''}` };
if (installedPnpmVersion(env) !== pnpmVersion) {
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

run('pnpm', ['install', '--frozen-lockfile'], env);
run('pnpm', ['run', 'check'], env);
