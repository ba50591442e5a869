// The published packages as users get them. Inside the workspace every import resolves whether a
// package declares it or not; a user's npm install has only what the manifests declare. So: pack
// every publishable package (`pnpm pack` runs its prepack/prepare script, which builds dist/ unless
// `pnpm check` stamped the build current, and turns `workspace:*` into the version) in a copy of
// the workspace (the builds would otherwise rewrite the dist/ folders the other test files read
// while this one runs), install all the tarballs with npm, in one install, into a project in the
// system's temp folder, and use them from there: lint each with publint as installed, type-check
// code against the installed declarations, run each package page's example, run an app embedding
// the router over the memory store and over PGlite (and the other adapters, the NestJS module on
// both of Nest's platforms among them), run the server's `workforce-kit` command, and run the
// contract kit's `workforce-kit-contract` command against it. Then the pnpm way the command prints
// (an override per tarball, then `pnpm add` of what an app imports), in a second project, which
// runs a package page's example.
//
// npm installs with --install-strategy=shallow: the project's own dependencies at the top of its
// node_modules, every other package beside the package that needs it. With the default (hoisted)
// layout, the server's dependencies would also sit at the top, and hide a library that imports one
// of them without declaring it, which is the defect this test is for.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { dependenciesInstalled } from '../../scripts/bootstrap.mjs';
import { examplesOf, readDocuments } from '../docs/documents.js';
import { stopProcess, track } from '../support/processes.js';

const workspace = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('fixtures', import.meta.url));
const examples = join(workspace, 'examples');

/** A file planted in a package's dist/ before it is packed. */
const LEFTOVER = 'leftover-of-an-earlier-build.js';
/**
 * The package the leftover is planted in: the last of the chain (no package depends on it), so
 * that the others keep their current builds.
 */
const REBUILT = '@workforce-kit/server';

// From the demo seed the server ships: a restaurant, and an archived employee of it.
const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const MARIA = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

async function readManifest(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** The version range the workspace package in `dir` pins `name` at, so that the two stay equal. */
async function versionIn(dir: string, name: string): Promise<string> {
  const manifest = await readManifest(join(workspace, dir));
  const version = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
  if (version === undefined) throw new Error(`${dir}/package.json does not list ${name}`);
  return version;
}

/** Environment variables pnpm, npm and vitest set for their children, which a user's shell lacks. */
const TOOL_VARIABLE = /^(npm_|pnpm_|vitest)/i;
const TOOL_VARIABLES = new Set(['NODE_OPTIONS', 'NODE_ENV', 'INIT_CWD', 'TEST', 'MODE']);

/** A user's environment: ours without the tools' variables, and no workspace folder on the PATH. */
function userEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!TOOL_VARIABLE.test(key) && !TOOL_VARIABLES.has(key)) env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.startsWith(workspace))
    .join(delimiter);
  return { ...env, ...extra };
}

interface Finished {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command to its end; resolves with its exit code and everything it wrote. */
function attempt(command: string, args: readonly string[], cwd: string, env = userEnv()) {
  return new Promise<Finished>((resolve, reject) => {
    const child = track(spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** Runs a command that must succeed; resolves with everything it wrote. */
async function run(command: string, args: readonly string[], cwd: string, env = userEnv()) {
  const { code, output } = await attempt(command, args, cwd, env);
  if (code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${code} in ${cwd}:\n${output}`);
  }
  return output;
}

/** A long-running process that prints `listening on <url>` once it serves. */
interface Service {
  readonly url: string;
  output(): string;
  /** Sends SIGTERM; resolves with the exit code (null if it had to be killed, after 20 s). */
  stop(): Promise<number | null>;
}

const running = new Set<Service>();

async function startService(command: string, args: readonly string[], cwd: string, env = {}) {
  const child = track(
    spawn(command, args, { cwd, env: userEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} did not print "listening on" within 60 s:\n${output}`));
    }, 60_000);
    child.stdout.on('data', () => {
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('error', reject);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before it listened:\n${output}`));
    });
  });
  const service: Service = {
    url,
    output: () => output,
    stop: () => {
      running.delete(service);
      return stopProcess(child);
    },
  };
  running.add(service);
  return service;
}

let root: string;
let project: string;
/** What `pnpm pack:all` printed: the tarballs, and how to install them with npm and with pnpm. */
let packAllOutput: string;
/** The `file:` specifier of each package's tarball, by package name. */
const packed: Record<string, string> = {};
/** Each package's folder in the workspace, by package name. */
const sources: Record<string, string> = {};
/** The publishable packages of the workspace's copy (not private): their folders, by name. */
const publishable = new Map<string, string>();
/** tsc over the user's code (src/), which it also compiles to dist/ for the runs below. */
let userCode: Finished;
/** tsc over every entry point's declarations, the libraries' own included (no skipLibCheck). */
let declarations: Finished;

/**
 * Strict settings a user might well have, and the decorators of a Nest app's (as Nest's CLI sets
 * them up); the test adds to them.
 */
const compilerOptions = {
  target: 'ES2023',
  lib: ['ES2023'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  types: ['node'],
  strict: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
};

const tsc = (tsconfig: string) =>
  attempt(
    process.execPath,
    [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig],
    project,
  );

/** The postgres package's PGlite template, which its build makes (ignored by git). */
const PGLITE_TEMPLATE = join('packages', 'postgres', 'pglite-template');

/**
 * Copies the workspace's files as git sees them (tracked, and untracked but not ignored, as they
 * are in the working tree) to `to`: the source of a checkout, and the packages' builds (dist/),
 * which the pack ships as they are when `pnpm check` stamped them current (scripts/prepack.mjs),
 * and builds afresh otherwise. When the
 * workspace's install is current (`pnpm pack:all` would not install again), the copy's installs
 * are the workspace's own, each node_modules folder a symbolic link to the workspace's, rather than
 * a second install of the same lockfile; and the postgres package's PGlite template comes along,
 * which its build (scripts/build-pglite-template.mjs) then keeps rather than make again, as it
 * does in the workspace: it was made by the same PGlite from the same migrations.
 */
async function copyWorkspace(to: string): Promise<void> {
  const linkInstalls = dependenciesInstalled();
  if (linkInstalls && existsSync(join(workspace, PGLITE_TEMPLATE))) {
    await cp(join(workspace, PGLITE_TEMPLATE), join(to, PGLITE_TEMPLATE), { recursive: true });
  }
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: workspace,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  for (const file of new Set(listed.split('\0'))) {
    // A file deleted in the working tree but not yet in git's index is listed, and gone.
    if (file === '' || !existsSync(join(workspace, file))) continue;
    await mkdir(dirname(join(to, file)), { recursive: true });
    await cp(join(workspace, file), join(to, file));
    const installed = join(workspace, dirname(file), 'node_modules');
    if (linkInstalls && basename(file) === 'package.json' && existsSync(installed)) {
      await symlink(installed, join(to, dirname(file), 'node_modules'));
    }
  }
  for (const folder of await readdir(join(workspace, 'packages'))) {
    const dist = join('packages', folder, 'dist');
    if (existsSync(join(workspace, dist))) {
      await cp(join(workspace, dist), join(to, dist), { recursive: true });
    }
  }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'workforce-kit-packaging-'));
  const tarballs = join(root, 'tarballs');
  project = join(root, 'app');
  await mkdir(tarballs);
  await mkdir(join(project, 'src'), { recursive: true });
  await mkdir(join(project, 'entry-points'));

  // Every publishable package packed into one folder by the command the READMEs give
  // (`pnpm pack:all`), then installed together, as they say: `npm install <folder>/*.tgz`.
  const copy = join(root, 'workspace');
  await copyWorkspace(copy);
  for (const folder of await readdir(join(copy, 'packages'))) {
    const dir = join(copy, 'packages', folder);
    const manifest = await readManifest(dir);
    if (manifest.private !== true) publishable.set(manifest.name, dir);
    if (manifest.name === REBUILT) {
      // What an earlier build left behind, which the pack's build must not ship.
      await mkdir(join(dir, 'dist'), { recursive: true });
      await writeFile(join(dir, 'dist', LEFTOVER), '');
    }
  }
  packAllOutput = await run('pnpm', ['pack:all', '--out', tarballs], copy, process.env);
  const tarballFiles = (await readdir(tarballs)).filter((file) => file.endsWith('.tgz')).sort();

  await writeFile(
    join(project, 'package.json'),
    JSON.stringify(
      {
        name: 'workforce-kit-packaging-check',
        private: true,
        type: 'module',
        dependencies: {
          '@electric-sql/pglite': await versionIn('packages/postgres', '@electric-sql/pglite'),
          express: await versionIn('packages/express-adapter', 'express'),
          fastify: await versionIn('packages/fastify-adapter', 'fastify'),
          // The fetch adapter's host in docs/embedding.md (examples/embed-hono.ts).
          hono: await versionIn('packages/server', 'hono'),
          '@hono/node-server': await versionIn('packages/server', '@hono/node-server'),
          pg: await versionIn('packages/postgres', 'pg'),
          // The app's own metrics registry (examples/embed-metrics.ts).
          'prom-client': await versionIn('packages/http', 'prom-client'),
          // A webhook receiver's own (examples/webhook-receiver.ts): it verifies the deliveries.
          standardwebhooks: await versionIn('packages/server', 'standardwebhooks'),
          // The tokens the package pages' examples call their API with, as an identity provider's.
          jose: await versionIn('packages/http', 'jose'),
          // A Nest app's (the NestJS module's page, examples/embed-nestjs*.ts, the app below).
          ...Object.fromEntries(
            await Promise.all(
              [
                '@nestjs/common',
                '@nestjs/core',
                '@nestjs/platform-express',
                '@nestjs/platform-fastify',
                '@nestjs/testing',
                'reflect-metadata',
                'rxjs',
                'supertest',
              ].map(async (name) => [name, await versionIn('packages/nestjs', name)]),
            ),
          ),
        },
        // @nestjs/platform-fastify pins its Fastify: one Fastify for the app, the project's (its
        // Fastify plugin and a Nest Fastify instance share one set of types), as a Nest user
        // who lists fastify has it.
        overrides: { '@nestjs/platform-fastify': { fastify: '$fastify' } },
        // What a user's TypeScript needs beside them, the test support's optional peers included.
        devDependencies: {
          '@types/express': await versionIn('packages/express-adapter', '@types/express'),
          '@types/node': await versionIn('.', '@types/node'),
          '@types/pg': await versionIn('packages/postgres', '@types/pg'),
          '@types/supertest': await versionIn('packages/nestjs', '@types/supertest'),
          'fast-check': await versionIn('packages/core', 'fast-check'),
          typescript: await versionIn('.', 'typescript'),
        },
      },
      null,
      2,
    ),
  );
  await run(
    'npm',
    [
      'install',
      '--install-strategy=shallow',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--loglevel=error',
      // The shell's expansion of tarballs/*.tgz.
      ...tarballFiles.map((file) => join(tarballs, file)),
    ],
    project,
  );
  // npm wrote each tarball into the project's dependencies, under its package's name.
  const installed = await readManifest(project);
  for (const [name, specifier] of Object.entries(installed.dependencies ?? {})) {
    const dir = publishable.get(name);
    if (dir === undefined) continue;
    packed[name] = specifier;
    sources[name] = dir;
  }

  // The user's code: the documentation's snippets (examples/) and the app the tests below run, compiled
  // against the installed declarations. skipLibCheck as most projects have it: PGlite's own
  // declarations need the DOM's and Emscripten's types.
  for (const file of (await readdir(examples)).filter((name) => name.endsWith('.ts'))) {
    await cp(join(examples, file), join(project, 'src', file));
  }
  await cp(join(fixtures, 'embedding-app.ts'), join(project, 'src', 'embedding-app.ts'));
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...compilerOptions, skipLibCheck: true, rootDir: 'src', outDir: 'dist' },
      include: ['src'],
    }),
  );

  // Every entry point of every package (its `exports`, as installed), its declarations checked
  // too: with skipLibCheck, an import of theirs that does not resolve would be a silent `any`.
  const reexports: string[] = [];
  for (const name of Object.keys(packed)) {
    const manifest = JSON.parse(
      await readFile(join(project, 'node_modules', name, 'package.json'), 'utf8'),
    ) as { exports: Record<string, unknown> };
    for (const subpath of Object.keys(manifest.exports)) {
      // A JSON file (the seed file's schema) is data, with no declarations: checked below.
      if (subpath.endsWith('.json')) continue;
      const specifier = `${name}${subpath.slice(1)}`;
      reexports.push(`export * as entry${reexports.length} from '${specifier}';\n`);
    }
  }
  await writeFile(join(project, 'entry-points', 'all.ts'), reexports.join(''));
  await writeFile(
    join(project, 'tsconfig.entry-points.json'),
    JSON.stringify({
      compilerOptions: { ...compilerOptions, skipLibCheck: false, noEmit: true },
      include: ['entry-points'],
    }),
  );
  [userCode, declarations] = await Promise.all([
    tsc('tsconfig.json'),
    tsc('tsconfig.entry-points.json'),
  ]);
});

afterAll(async () => {
  await Promise.all([...running].map((service) => service.stop()));
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

it('installs every publishable package from the folder `pnpm pack:all` fills, in one npm install', () => {
  expect(Object.keys(packed).sort()).toEqual([...publishable.keys()].sort());
  for (const specifier of Object.values(packed)) expect(specifier).toMatch(/^file:.*\.tgz$/);
});

it('ships a fresh build of each package, without leftovers of an earlier one', async () => {
  // The packages whose stamped build is current ship it (scripts/prepack.mjs); the one with a
  // leftover is built afresh.
  expect(Object.keys(packed)).toContain(REBUILT);
  for (const name of Object.keys(packed)) {
    const shipped = await readdir(join(project, 'node_modules', name, 'dist'));
    expect(shipped).toContain('index.js');
    expect(shipped).not.toContain(LEFTOVER);
  }
});

it('ships the TypeScript source of every file its source maps name (src/)', async () => {
  for (const name of Object.keys(packed)) {
    const dir = join(project, 'node_modules', name);
    const maps = (await readdir(join(dir, 'dist'), { recursive: true })).filter((file) =>
      file.endsWith('.map'),
    );
    expect(maps.length, name).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const map of maps) {
      const from = dirname(join(dir, 'dist', map));
      const { sources } = JSON.parse(await readFile(join(dir, 'dist', map), 'utf8')) as {
        sources: string[];
      };
      for (const source of sources) {
        if (!existsSync(join(from, source))) missing.push(`${map}: ${source}`);
      }
    }
    expect(missing, `${name} names sources it does not ship`).toEqual([]);
    expect(existsSync(join(dir, 'src', 'index.ts')), name).toBe(true);
  }
});

it('passes publint, strict, as npm installed each package from its tarball', async () => {
  for (const name of Object.keys(packed)) {
    // What npm installed is exactly what the tarball holds: no packing again (pack: false).
    const pkgDir = join(project, 'node_modules', name);
    const { messages, pkg } = await publint({ pkgDir, pack: false, strict: true });
    expect(
      messages.map((message) => formatMessage(message, pkg, { color: false })),
      name,
    ).toEqual([]);
  }
});

it('ships each package with its README and CHANGELOG, as the workspace has them', async () => {
  for (const [name, dir] of Object.entries(sources)) {
    for (const file of ['README.md', 'CHANGELOG.md']) {
      const shipped = await readFile(join(project, 'node_modules', name, file), 'utf8');
      expect(shipped, `${name}/${file}`).toBe(await readFile(join(dir, file), 'utf8'));
    }
  }
});

it('type-checks the documentation examples and the app against the installed declarations', () => {
  expect(userCode.output).toBe('');
  expect(userCode.code).toBe(0);
});

it('gives stack locations in the installed packages that name their TypeScript source, line for line', async () => {
  // An error a user meets inside a package: the contract kit refusing a bad seed.
  await writeFile(
    join(project, 'stack.mjs'),
    [
      "import { checkApiContract } from '@workforce-kit/contract-testing';",
      'try {',
      "  const seed = { employees: [{ guid: 'not-a-guid' }] };",
      `  await checkApiContract({ target: 'http://127.0.0.1:9', seed, auth: { hs256Secret: '${'s'.repeat(32)}' } });`,
      '} catch (error) {',
      '  console.log(error.stack);',
      '}',
    ].join('\n'),
  );
  const traced = await attempt(process.execPath, ['--enable-source-maps', 'stack.mjs'], project);
  expect(traced.code, traced.output).toBe(0);
  const frames = [
    ...traced.output.matchAll(/\((\S+\/node_modules\/@workforce-kit\/\S+?):(\d+):(\d+)\)/g),
  ].map(([, file, line]) => ({ file: String(file), line: Number(line) }));
  expect(frames.length, traced.output).toBeGreaterThan(0);
  for (const { file, line } of frames) {
    expect(file, traced.output).toMatch(/\/src\/[\w/-]+\.ts$/);
    // The file exists as installed, and has the line.
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.length, file).toBeGreaterThanOrEqual(line);
  }
  const [thrown] = frames;
  const source = (await readFile(String(thrown?.file), 'utf8')).split('\n');
  expect(source[Number(thrown?.line) - 1]).toContain('throw new Error(`the seed does not match');
}, 60_000);

it("exports the seed file's JSON Schema as a file, the object the package exports, which the installed demo seed names", async () => {
  const check = await attempt(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      [
        "import { readFileSync } from 'node:fs';",
        "import { pathToFileURL } from 'node:url';",
        "import { isDeepStrictEqual } from 'node:util';",
        "import { SEED_FILE_SCHEMA } from '@workforce-kit/seed-file';",
        "import schema from '@workforce-kit/seed-file/seed.schema.json' with { type: 'json' };",
        "const seed = pathToFileURL('node_modules/@workforce-kit/server/seed/demo-seed.json');",
        "const named = new URL(JSON.parse(readFileSync(seed, 'utf8')).$schema, seed);",
        "console.log(isDeepStrictEqual(schema, SEED_FILE_SCHEMA), isDeepStrictEqual(JSON.parse(readFileSync(named, 'utf8')), schema));",
      ].join('\n'),
    ],
    project,
  );
  expect(check.output.trim()).toBe('true true');
});

/**
 * PGlite's own declarations name browser and Emscripten globals (`WebAssembly`, `Emscripten`,
 * `IDBDatabase`) that a Node project's `lib` does not have: every PGlite user meets that with
 * `skipLibCheck: false` (docs/stores.md says so). Ours, and everything else they import, must be clean.
 */
const inPGlitesOwnDeclarations = (error: string) =>
  error.startsWith('node_modules/@electric-sql/pglite/');

it('has declarations for every entry point that type-check with what they import', () => {
  // One entry per error: a line of its own, then its indented continuation lines.
  const errors = declarations.output.split(/\n(?=\S)/).filter((error) => error.trim() !== '');
  expect(errors.filter((error) => !inPGlitesOwnDeclarations(error))).toEqual([]);
  // A failed check is explained by PGlite's errors, never by none.
  if (declarations.code !== 0) expect(errors).not.toEqual([]);
});

/**
 * The examples whose document says what they print: the package pages' (test/docs checks it).
 * Those written for Bun and Deno (examples/bun/, examples/deno/) run on them, in test/runtimes.
 */
const printing = (await readDocuments())
  .flatMap(examplesOf)
  .filter(
    (example) => example.output !== undefined && !/^examples\/(bun|deno)\//.test(example.path),
  );

describe.each(printing)('the example of $document, run', ({ path, output }) => {
  it('prints what its page says', async () => {
    const compiled = join('dist', path.replace(/^examples\//, '').replace(/\.ts$/, '.js'));
    const run = await attempt(process.execPath, [compiled], project);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toBe(output);
  }, 120_000);
});

/** The folder of the pnpm that packed the tarballs (a user's, or .tools/ on a fresh clone). */
const pnpmFolder = (process.env.PATH ?? '')
  .split(delimiter)
  .find((dir) => existsSync(join(dir, 'pnpm')));

it("installs with pnpm as pack:all prints, and runs the Express adapter page's example", async () => {
  // The overrides pack:all printed, as a user pastes them into the project's pnpm-workspace.yaml.
  const overrides = /^overrides:\n(?: {2}.+\n)+/m.exec(packAllOutput)?.[0];
  expect(overrides, packAllOutput).toBeDefined();
  const app = join(root, 'pnpm-app');
  await mkdir(app);
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'workforce-kit-pnpm-check', private: true, type: 'module' }),
  );
  await writeFile(join(app, 'pnpm-workspace.yaml'), String(overrides));
  // What the page's Install section names, the third-party packages at the workspace's versions:
  // from the store the workspace's install filled, the registry asked only for what it lacks.
  expect(pnpmFolder, 'no pnpm on the PATH').toBeDefined();
  const env = userEnv({ PATH: `${pnpmFolder}${delimiter}${userEnv().PATH}` });
  const imported = [
    '@workforce-kit/express-adapter',
    '@workforce-kit/core',
    '@workforce-kit/seed-file',
  ];
  await run(
    'pnpm',
    [
      'add',
      '--prefer-offline',
      ...imported,
      `express@${await versionIn('packages/express-adapter', 'express')}`,
      `jose@${await versionIn('packages/http', 'jose')}`,
    ],
    app,
    env,
  );
  // Each added from the tarball its override names.
  const { dependencies = {} } = await readManifest(app);
  for (const name of imported) {
    expect(overrides).toContain(`${JSON.stringify(name)}: ${JSON.stringify(dependencies[name])}`);
  }

  const example = printing.find(({ path }) => path === 'examples/package-express-adapter.ts');
  expect(example?.output).toBeDefined();
  await cp(join(project, 'dist', 'package-express-adapter.js'), join(app, 'example.js'));
  const ran = await attempt(process.execPath, ['example.js'], app);
  expect(ran.code, ran.output).toBe(0);
  expect(ran.output).toBe(example?.output);
});

describe.each([
  ['express', 'memory'],
  ['express', 'pglite'],
  ['fastify', 'memory'],
  ['node', 'memory'],
  ['nestjs-express', 'memory'],
  ['nestjs-fastify', 'memory'],
])('an app embedding the %s adapter, over the %s store', (framework, store) => {
  const secret = randomBytes(32).toString('hex');
  let app: Service;

  beforeAll(async () => {
    app = await startService(process.execPath, [join('dist', 'embedding-app.js')], project, {
      FRAMEWORK: framework,
      STORE: store,
      SEED_FILE: join(
        project,
        'node_modules',
        '@workforce-kit',
        'server',
        'seed',
        'demo-seed.json',
      ),
      AUTH_HS256_SECRET: secret,
    });
  });

  afterAll(async () => {
    await app?.stop();
  });

  const token = (scope: string) =>
    new SignJWT({ scope, restaurants: [HARBOR] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(secret));

  it('answers getRestaurant with the seeded restaurant', async () => {
    const response = await fetch(`${app.url}/restaurants/v1/restaurants/${HARBOR}`, {
      headers: {
        Authorization: `Bearer ${await token('restaurants:read')}`,
        'Platform-Restaurant-External-ID': HARBOR,
      },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ general: { name: 'Harbor Street Kitchen' } });
  });

  it('unarchives a seeded employee and reports the event', async () => {
    const response = await fetch(`${app.url}/labor/v1/employees/${MARIA}/unarchive`, {
      method: 'PUT',
      headers: {
        Authorization: `Bearer ${await token('labor.employees:write')}`,
        'Platform-Restaurant-External-ID': HARBOR,
        'Content-Type': 'application/json',
      },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ guid: MARIA, deleted: false });
    await vi.waitFor(() => expect(app.output()).toContain('event EmployeeUnarchived'));
  });
});

it('runs the server command from its tarball, healthy, and stops on SIGTERM with 0', async () => {
  const server = await startService(
    join(project, 'node_modules', '.bin', 'workforce-kit'),
    [],
    project,
    {
      PORT: '0',
      HOST: '127.0.0.1',
      STORE: 'memory',
      AUTH_HS256_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    },
  );
  onTestFinished(async () => {
    await server.stop();
  });
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
  expect(await server.stop()).toBe(0);
});

it('runs the installed bin on a new PGlite directory made from the installed template', async () => {
  const dataDir = join(root, 'pglite-data');
  const server = await startService(
    join(project, 'node_modules', '.bin', 'workforce-kit'),
    [],
    project,
    {
      PORT: '0',
      HOST: '127.0.0.1',
      PGLITE_DIR: dataDir,
      AUTH_HS256_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    },
  );
  onTestFinished(async () => {
    await server.stop();
  });
  expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  expect(server.output()).toContain(`pglite (${dataDir})`);
  expect(await server.stop()).toBe(0);
  expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
  // Made from the installed package's template, not by initdb (its fallback): the database's
  // system identifier (pg_control's first 8 bytes) is the template's.
  const template = join(root, 'pglite-template');
  await mkdir(template);
  execFileSync('tar', [
    'xzf',
    join(project, 'node_modules', '@workforce-kit', 'postgres', 'pglite-template', 'pgdata.tar.gz'),
    '-C',
    template,
  ]);
  const systemIdentifier = async (dir: string) =>
    (await readFile(join(dir, 'global', 'pg_control'))).subarray(0, 8).toString('hex');
  expect(await systemIdentifier(dataDir)).toBe(await systemIdentifier(template));
});

it("runs the contract kit's command against the server's, both from their tarballs: exit 0", async () => {
  const secret = randomBytes(32).toString('hex');
  const seedFile = join(
    project,
    'node_modules',
    '@workforce-kit',
    'server',
    'seed',
    'demo-seed.json',
  );
  // The server as a user starts it for the kit: jwt mode, its default rate limits.
  const server = await startService(
    join(project, 'node_modules', '.bin', 'workforce-kit'),
    [],
    project,
    {
      PORT: '0',
      HOST: '127.0.0.1',
      STORE: 'memory',
      SEED_FILE: seedFile,
      AUTH_MODE: 'jwt',
      AUTH_HS256_SECRET: secret,
      AUTH_ISSUER: 'https://id.example.com/',
      AUTH_AUDIENCE: 'workforce-api',
      LOG_LEVEL: 'warn',
    },
  );
  try {
    // --rate keeps the run within the default 20 requests per second per restaurant.
    const kit = await attempt(
      join(project, 'node_modules', '.bin', 'workforce-kit-contract'),
      [
        '--base-url',
        server.url,
        '--seed',
        seedFile,
        '--hs256-secret',
        secret,
        '--issuer',
        'https://id.example.com/',
        '--audience',
        'workforce-api',
        '--runs',
        '5',
        '--rate',
        '15',
        '--rng-seed',
        '1',
      ],
      project,
    );
    expect(kit.output.trim().split('\n').at(-1), kit.output).toMatch(/^\d+ passed, 0 failed$/);
    expect(kit.code, kit.output).toBe(0);
  } finally {
    await server.stop();
  }
}, 120_000);
