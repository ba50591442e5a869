#!/usr/bin/env node
// `npm start` on a fresh clone with only Node.js and npm: pnpm and the dependencies, a build of
// the reference server, then the server itself (configured from the environment, see docs/server.md).
// The install and the build are skipped when nothing they read changed since the last ones.
// `node scripts/npm-start.mjs --build-only` stops after the build.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  buildIfChanged,
  ensurePnpm,
  env,
  installDependenciesIfChanged,
  root,
} from './bootstrap.mjs';

ensurePnpm();
installDependenciesIfChanged();
buildIfChanged('@workforce-kit/server');
if (process.argv.includes('--build-only')) process.exit(0);

// The server runs in a process group of its own (detached), so that a terminal's Ctrl-C or a
// signal to npm's process group reaches it once, from here, rather than also directly (a second
// signal makes it cut the requests in flight). The IPC channel ends when this process ends, however
// it ends (even kill -9): the server then stops too.
const cli = join(root, 'packages/server/dist/cli.js');
const server = spawn(process.execPath, [cli], {
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  env,
  detached: true,
});

// One Ctrl-C in a terminal reaches this process twice: from the terminal (it signals the whole
// foreground process group) and relayed by npm. Copies within this window are one stop; a signal
// after it is a second stop, forwarded too (the server then cuts the requests in flight).
const SAME_STOP_MS = 500;
let forwardedAt = Number.NEGATIVE_INFINITY;
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.on(signal, () => {
    const now = performance.now();
    if (now - forwardedAt < SAME_STOP_MS) return;
    forwardedAt = now;
    server.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal);
  });
}
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
