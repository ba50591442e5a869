// What `npm test` and `npm start` need on a fresh clone with only Node.js and npm: the pinned
// pnpm (installed into .tools/, not globally), the workspace's dependencies, and the system
// packages some tests drive (Debian's Chromium, curl), installed with apt-get when missing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
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

// What `npm start` skips when nothing changed: a fingerprint of what `pnpm install` and the build
// read is kept in node_modules/.cache/workforce-kit after each success (a fresh clone has none, so
// it installs and builds).
const stampDir = join(root, 'node_modules', '.cache', 'workforce-kit');

/** @param {string} name */
function readStamp(name) {
  try {
    return readFileSync(join(stampDir, name), 'utf8');
  } catch {
    return undefined;
  }
}

/** @param {string} name @param {string} value */
function writeStamp(name, value) {
  mkdirSync(stampDir, { recursive: true });
  writeFileSync(join(stampDir, name), value);
}

/** @param {string} dir @returns {string[]} every file under dir (none if it is missing) */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * @param {string[]} files
 * @param {'content' | 'stat'} by the files' contents, or only their size and mtime
 */
function fingerprint(files, by) {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${relative(root, file)}\0`);
    if (!existsSync(file)) hash.update('missing\0');
    else if (by === 'content') hash.update(readFileSync(file));
    else {
      const { size, mtimeMs } = statSync(file);
      hash.update(`${size} ${mtimeMs}\0`);
    }
  }
  return hash.digest('hex');
}

/** The workspace's package folders (pnpm-workspace.yaml: packages/*, test, examples, bench). */
function workspaceDirs() {
  const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, 'packages', entry.name));
  return [...packages, ...['test', 'examples', 'bench'].map((dir) => join(root, dir))].filter(
    (dir) => existsSync(join(dir, 'package.json')),
  );
}

/** What the last successful install is stamped with: the lockfile, the manifests, pnpm and Node. */
function installInputs() {
  const inputs = [
    'package.json',
    'pnpm-lock.yaml',
    'pnpm-workspace.yaml',
    '.npmrc',
    ...workspaceDirs().map((dir) => join(relative(root, dir), 'package.json')),
  ].map((file) => join(root, file));
  return `${fingerprint(inputs, 'content')} pnpm ${pnpmVersion} node ${process.versions.modules}`;
}

/** @param {string} inputs - from {@link installInputs} */
function installedWith(inputs) {
  return existsSync(join(root, 'node_modules', '.modules.yaml')) && readStamp('install') === inputs;
}

/** Whether node_modules is there and holds what the lockfile and the manifests ask for. */
export function dependenciesInstalled() {
  return installedWith(installInputs());
}

/**
 * Installs the dependencies unless the lockfile, the manifests, pnpm and Node are what the last
 * successful install had (and node_modules is there).
 */
export function installDependenciesIfChanged() {
  const current = installInputs();
  if (installedWith(current)) {
    console.log(
      '\n> dependencies: up to date with pnpm-lock.yaml and the manifests (pnpm install skipped)',
    );
    return;
  }
  installDependencies();
  writeStamp('install', current);
}

/**
 * The folders of a workspace package and of the workspace packages it depends on, dependencies
 * first.
 * @param {string} name
 */
function workspaceChain(name) {
  /** @type {Map<string, { dir: string, deps: string[] }>} */
  const byName = new Map();
  for (const dir of workspaceDirs()) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const deps = Object.entries(manifest.dependencies ?? {})
      .filter(([, range]) => String(range).startsWith('workspace:'))
      .map(([dep]) => dep);
    byName.set(manifest.name, { dir, deps });
  }
  /** @type {string[]} */
  const chain = [];
  /** @param {string} each */
  const visit = (each) => {
    const entry = byName.get(each);
    if (entry === undefined || chain.includes(entry.dir)) return;
    for (const dep of entry.deps) visit(dep);
    chain.push(entry.dir);
  };
  visit(name);
  return chain;
}

/**
 * The build of a package and of the workspace packages it depends on, as `npm start` and
 * `pnpm check` stamp it (a stamp for each package): their sources and build settings and
 * TypeScript, read now, and their dist folders. The tests run a command from its build when the
 * build is current, and from its source otherwise.
 * @param {string} name
 */
export function buildOf(name) {
  const stampName = stampNameOf(name);
  const dirs = workspaceChain(name);
  const inputs = [
    join(root, 'tsconfig.base.json'),
    join(root, 'node_modules', 'typescript', 'package.json'),
    ...dirs.flatMap((dir) => [
      join(dir, 'package.json'),
      join(dir, 'tsconfig.json'),
      join(dir, 'tsconfig.build.json'),
      ...filesUnder(join(dir, 'src')),
    ]),
  ];
  const sources = fingerprint(inputs, 'content');
  // The dist folders by content, so that a copy of the workspace with its builds (the packaging
  // test's) finds them current too.
  const stamp = () =>
    `${sources} ${fingerprint(
      dirs.flatMap((dir) => filesUnder(join(dir, 'dist'))),
      'content',
    )}`;
  return {
    /** Whether the last build stamped was of these sources, and left the dist folders as they are. */
    upToDate: () =>
      dirs.every((dir) => existsSync(join(dir, 'dist'))) && readStamp(stampName) === stamp(),
    /**
     * Stamps a build of these sources that succeeded (call it once the build is done), and the
     * build of each workspace package it depends on, which it made too.
     */
    record: () => {
      writeStamp(stampName, stamp());
      for (const dir of dirs.slice(0, -1)) {
        const { name: dependency } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        writeStamp(stampNameOf(dependency), buildOf(dependency).stamp());
      }
    },
    /** What {@link record} writes for this build, read now. */
    stamp,
  };
}

/** @param {string} name a package's name */
const stampNameOf = (name) => `build-${name.replace(/^@/, '').replace('/', '+')}`;

/**
 * Whether the package in `dir` has a current build: its build, stamped by {@link buildOf} (with
 * `npm start`'s or `pnpm check`'s), is up to date. Its dist/ is then what a build would make of its
 * sources, and nothing else (a file left in it makes the stamp stale).
 * @param {string} dir
 */
export function builtCurrent(dir) {
  const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return readStamp(stampNameOf(name)) !== undefined && buildOf(name).upToDate();
}

/**
 * Builds a package and the workspace packages it depends on (tsc), unless their sources and build
 * settings, TypeScript, and their dist folders are what the last successful build left.
 * @param {string} name
 */
export function buildIfChanged(name) {
  const build = buildOf(name);
  if (build.upToDate()) {
    console.log(`\n> build: ${name} and its workspace dependencies are up to date (skipped)`);
    return;
  }
  run('pnpm', ['--filter', `${name}...`, 'run', 'build']);
  build.record();
}
