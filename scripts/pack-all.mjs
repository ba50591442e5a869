#!/usr/bin/env node
// `npm run pack:all [-- --out DIR] [-- --for NAME …]` (or `pnpm pack:all`): the publishable
// packages of the workspace packed into one folder (`tarballs/` by default), to be installed
// together until the packages are on the registry: `npm install ./tarballs/*.tgz`. A tarball alone
// does not install: its workspace dependencies (`@workforce-kit/http`, `@workforce-kit/types`, ...)
// are pinned at their version, which the registry does not have; given all at once, npm takes each
// from its sibling. `--for @workforce-kit/nestjs` (repeatable) packs that package and the workspace
// packages it depends on, and nothing else: what an app that uses it installs. On a fresh clone it
// first installs the pinned pnpm and the dependencies, as `npm start` does. Each pack runs the
// package's prepack (a clean build of dist/, scripts/prepack.mjs) once the packages it depends on
// are packed; packages that do not depend on each other are packed at once, one per core.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensurePnpm, env, installDependenciesIfChanged, root as workspace } from './bootstrap.mjs';

/**
 * The publishable packages of the workspace (packages/*, not private), by name: their manifests.
 * @returns {Map<string, { name: string, dependencies?: Record<string, string> }>}
 */
export function publishablePackages() {
  const publishable = new Map();
  for (const folder of readdirSync(join(workspace, 'packages'))) {
    let manifest;
    try {
      manifest = JSON.parse(
        readFileSync(join(workspace, 'packages', folder, 'package.json'), 'utf8'),
      );
    } catch {
      continue;
    }
    if (manifest.private !== true) publishable.set(manifest.name, manifest);
  }
  return publishable;
}

/**
 * What `--for` packs: the packages named and the workspace packages they depend on (their
 * `dependencies`, the packages npm installs with them), sorted by name. Every publishable package
 * when none is named.
 * @param {readonly string[] | undefined} names
 * @returns {string[]}
 * @throws when a name is not a publishable package of the workspace
 */
export function packagesFor(names) {
  const publishable = publishablePackages();
  const selected = new Set();
  /** @param {string} name */
  const select = (name) => {
    const manifest = publishable.get(name);
    if (manifest === undefined || selected.has(name)) return;
    selected.add(name);
    for (const dependency of Object.keys(manifest.dependencies ?? {})) select(dependency);
  };
  for (const name of names ?? [...publishable.keys()]) {
    if (!publishable.has(name)) {
      throw new Error(
        `${name} is not a package of this workspace; one of: ${[...publishable.keys()].sort().join(', ')}`,
      );
    }
    select(name);
  }
  return [...selected].sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'tarballs' },
      for: { type: 'string', multiple: true },
    },
  });
  const out = resolve(process.cwd(), values.out);
  let selected;
  try {
    selected = packagesFor(values.for);
  } catch (error) {
    process.stderr.write(`pack-all: ${/** @type {Error} */ (error).message}\n`);
    process.exit(2);
  }

  ensurePnpm();
  installDependenciesIfChanged();

  // Earlier tarballs go: a glob over the folder must find this build's, one per package.
  mkdirSync(out, { recursive: true });
  for (const file of readdirSync(out)) {
    if (file.endsWith('.tgz')) rmSync(join(out, file));
  }

  // One pnpm for all: it packs the packages in the order of their dependencies (a build reads the
  // declarations of the packages it depends on), as many at once as there are cores.
  const packed = spawnSync(
    'pnpm',
    [
      '--recursive',
      `--workspace-concurrency=${availableParallelism()}`,
      ...selected.flatMap((name) => ['--filter', name]),
      'pack',
      '--pack-destination',
      out,
    ],
    { cwd: workspace, env, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  if (packed.status !== 0) {
    // What each pack printed, a build's errors among it (its listings are left out when it works).
    process.stderr.write(`${packed.stdout}\npack-all: packing failed (exit ${packed.status})\n`);
    process.exit(packed.status ?? 1);
  }

  const tarballs = readdirSync(out)
    .filter((file) => file.endsWith('.tgz'))
    .sort();
  process.stdout.write(
    `${tarballs.length} tarballs in ${out}:\n${tarballs.map((file) => `  ${file}\n`).join('')}` +
      `Install them together, in your project: npm install ${join(out, '*.tgz')}\n`,
  );
}
