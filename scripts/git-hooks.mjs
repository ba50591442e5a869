#!/usr/bin/env node
// `prepare` (run by `pnpm install`): makes git run the repository's hooks (.githooks: the
// commit-msg check) in this checkout. Anywhere else (a tarball's install, a copy without git, a
// checkout of another repository around this folder) it does nothing, and it never fails an
// install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
try {
  const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, encoding: 'utf8' });
  if (
    top.status === 0 &&
    resolve(top.stdout.trim()) === resolve(root) &&
    existsSync(join(root, '.githooks', 'commit-msg'))
  ) {
    spawnSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: root, stdio: 'ignore' });
  }
} catch {
  // No git here: nothing to set up.
}
