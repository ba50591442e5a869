#!/usr/bin/env node
// `npm start` on a fresh clone with only Node.js and npm: pnpm and the dependencies, a build of
// the reference server, then the server itself (configured from the environment, see README).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensurePnpm, env, installDependencies, root, run } from './bootstrap.mjs';

ensurePnpm();
installDependencies();
run('pnpm', ['--filter', '@workforce-kit/server...', 'run', 'build']);

const server = spawn(process.execPath, [join(root, 'packages/server/dist/cli.js')], {
  stdio: 'inherit',
  env,
});
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => server.kill(signal));
}
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
