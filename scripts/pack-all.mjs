#!/usr/bin/env node
// `npm run pack:all [-- --out DIR]` (or `pnpm pack:all`): every publishable package of the
// workspace packed into one folder (`tarballs/` by default), to be installed together until the
// packages are on the registry: `npm install ./tarballs/*.tgz`. A tarball alone does not install:
// its workspace dependencies (`@workforce-kit/http`, `@workforce-kit/types`, ...) are pinned at
// their version, which the registry does not have; given all at once, npm takes each from its
// sibling. On a fresh clone it first installs the pinned pnpm and the dependencies, as `npm start`
// does. Each pack runs the package's prepack (a clean build of dist/), after the packages it
// depends on.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensurePnpm, env, installDependenciesIfChanged, root as workspace } from './bootstrap.mjs';

ensurePnpm();
installDependenciesIfChanged();
const { values } = parseArgs({ options: { out: { type: 'string', default: 'tarballs' } } });
const out = resolve(process.cwd(), values.out);

/**
 * The publishable packages by name: their folder and manifest.
 * @type {Map<string, { dir: string, manifest: { name: string, private?: boolean, dependencies?: Record<string, string> } }>}
 */
const publishable = new Map();
for (const folder of readdirSync(join(workspace, 'packages'))) {
  const dir = join(workspace, 'packages', folder);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
  if (manifest.private !== true) publishable.set(manifest.name, { dir, manifest });
}

// Earlier tarballs go: a glob over the folder must find this build's, one per package.
mkdirSync(out, { recursive: true });
for (const file of readdirSync(out)) {
  if (file.endsWith('.tgz')) rmSync(join(out, file));
}

const packed = new Set();
/** @param {string} name */
function pack(name) {
  const found = publishable.get(name);
  if (found === undefined || packed.has(name)) return;
  packed.add(name);
  // The build of a package reads the declarations of the workspace packages it depends on.
  for (const dependency of Object.keys(found.manifest.dependencies ?? {})) pack(dependency);
  const { status } = spawnSync('pnpm', ['pack', '--pack-destination', out], {
    cwd: found.dir,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (status !== 0) {
    process.stderr.write(`pack-all: packing ${name} failed\n`);
    process.exit(status ?? 1);
  }
}
for (const name of [...publishable.keys()].sort()) pack(name);

const tarballs = readdirSync(out)
  .filter((file) => file.endsWith('.tgz'))
  .sort();
process.stdout.write(
  `${tarballs.length} tarballs in ${out}:\n${tarballs.map((file) => `  ${file}\n`).join('')}` +
    `Install them together, in your project: npm install ${join(out, '*.tgz')}\n`,
);
