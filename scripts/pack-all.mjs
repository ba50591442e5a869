#!/usr/bin/env node
// `npm run pack:all [-- --out DIR] [-- --for NAME …]` (or `pnpm pack:all`): the publishable
// packages of the workspace packed into one folder (`tarballs/` by default), to be installed
// together until the packages are on the registry: `npm install ./tarballs/*.tgz`. A tarball alone
// does not install: its workspace dependencies (`@workforce-kit/http`, `@workforce-kit/types`, ...)
// are pinned at their version, which the registry does not have; given all at once, npm takes each
// from its sibling. pnpm does not, so it is also told to take each from its tarball (overrides), as
// printed at the end. `--for @workforce-kit/nestjs` (repeatable) packs that package and the workspace
// packages it depends on, and nothing else: what an app that uses it installs. On a fresh clone it
// first installs the pinned pnpm and the dependencies, as `npm start` does. Each pack runs the
// package's prepack (a clean build of dist/, scripts/prepack.mjs) once the packages it depends on
// are packed; packages that do not depend on each other are packed at once, one per core.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensurePnpm, env, installDependenciesIfChanged, root as workspace } from './bootstrap.mjs';

/**
 * The publishable packages of the workspace (packages/*, not private), by name: their manifests.
 * @returns {Map<string, { name: string, version: string, dependencies?: Record<string, string>, peerDependencies?: Record<string, string> }>}
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

/**
 * The packages of `packed` that serve through a workspace package they do not depend on (an
 * optional peer, as the NestJS module serves through the Express or the Fastify adapter) when
 * none of those is packed: each with the packages it could serve through.
 * @param {readonly string[]} packed
 * @returns {{ name: string, servesThrough: string[] }[]}
 */
export function packedWithoutAdapter(packed) {
  const publishable = publishablePackages();
  return packed.flatMap((name) => {
    const servesThrough = Object.keys(publishable.get(name)?.peerDependencies ?? {}).filter(
      (peer) => publishable.has(peer),
    );
    if (servesThrough.length === 0 || servesThrough.some((peer) => packed.includes(peer))) {
      return [];
    }
    return [{ name, servesThrough }];
  });
}

/**
 * The file `pnpm pack` (and `npm pack`) writes a package to: its name without the `@` and with
 * `-` for the `/`, then its version.
 * @param {string} name
 * @param {string} version
 * @returns {string}
 */
export function tarballName(name, version) {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** The packages an app installs as dev dependencies: the contract kit, run by its tests. */
const DEV_PACKAGES = new Set(['@workforce-kit/contract-testing']);

/**
 * How to install packed tarballs with pnpm, printed after the npm command. pnpm fetches a
 * tarball's `@workforce-kit/*` dependencies from the registry rather than from the tarballs beside
 * it, so the project's pnpm-workspace.yaml overrides every packed package with its tarball; then
 * `pnpm add` of the packages the app imports installs them, and each brings what it needs.
 * @param {ReadonlyMap<string, string>} tarballs each packed package's tarball, an absolute path, by name
 * @param {readonly string[]} imported the packages the app imports (those named by `--for`)
 * @returns {string} the lines to print, each ending in a newline
 */
export function pnpmInstructions(tarballs, imported) {
  const runtime = imported.filter((name) => !DEV_PACKAGES.has(name));
  const tools = imported.filter((name) => DEV_PACKAGES.has(name));
  const overrides = [...tarballs.keys()]
    .sort()
    .map((name) => `  ${JSON.stringify(name)}: ${JSON.stringify(`file:${tarballs.get(name)}`)}\n`);
  return (
    'With pnpm, which would fetch their dependencies from the registry instead, add to your\n' +
    'project\'s pnpm-workspace.yaml (before pnpm 10.5.1: "pnpm": { "overrides": … } in package.json):\n' +
    `overrides:\n${overrides.join('')}` +
    (runtime.length > 0 ? `then, in your project: pnpm add ${runtime.join(' ')}\n` : '') +
    (tools.length > 0
      ? `${runtime.length > 0 ? 'and' : 'then, in your project'}, as a dev dependency: pnpm add -D ${tools.join(' ')}\n`
      : '')
  );
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
  // Each packed package's tarball, by name: what pnpm's overrides name.
  const publishable = publishablePackages();
  const packedTarballs = new Map(
    selected.map((name) => [
      name,
      join(out, tarballName(name, String(publishable.get(name)?.version))),
    ]),
  );
  const missing = [...packedTarballs.values()].filter((path) => !existsSync(path));
  if (missing.length > 0) {
    process.stderr.write(`pack-all: packing made no ${missing.join(', ')}\n`);
    process.exit(1);
  }
  // Without --for, every package was packed: the app names what it imports.
  const imported = [...new Set(values.for ?? ['<the @workforce-kit packages your code imports>'])];
  process.stdout.write(
    `${tarballs.length} tarballs in ${out}:\n${tarballs.map((file) => `  ${file}\n`).join('')}` +
      `Install them together, in your project: npm install ${join(out, '*.tgz')}\n` +
      pnpmInstructions(packedTarballs, imported),
  );
  for (const { name, servesThrough } of packedWithoutAdapter(selected)) {
    process.stderr.write(
      `pack-all: ${name} serves through ${servesThrough.join(' or ')}, which it does not depend on: add the --for of the one your app runs on\n`,
    );
  }
}
