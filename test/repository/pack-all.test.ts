// What `npm run pack:all -- --for <package>` packs (scripts/pack-all.mjs): the package and the
// workspace packages it depends on, nothing else; the docs' commands name packages it packs, and
// each package's page gives the one that packs it and what its Install section names; what it
// prints for pnpm names every tarball packed; and the NestJS app of docs/embedding.md, with its
// test, needs none of the reference server's.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  packagesFor,
  packedWithoutAdapter,
  pnpmInstructions,
  publishablePackages,
  tarballName,
} from '../../scripts/pack-all.mjs';
import { readDocuments } from '../docs/documents.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The `@workforce-kit/*` packages a file imports. */
async function workspaceImports(path: string): Promise<string[]> {
  const text = await readFile(`${root}${path}`, 'utf8');
  const found = [...text.matchAll(/from '(@workforce-kit\/[\w-]+)/g)].map((match) =>
    String(match[1]),
  );
  return [...new Set(found)].sort();
}

/** Every `npm run pack:all -- --for …` of the documentation: its document, and the names. */
async function documentedCommands() {
  return (await readDocuments()).flatMap(({ path, text }) =>
    [...text.matchAll(/npm run pack:all -- ((?:--for [^\s`]+ ?)+)/g)].map((match) => ({
      path,
      names: [...String(match[1]).matchAll(/--for ([^\s`]+)/g)].map((each) => String(each[1])),
    })),
  );
}

describe('pack:all --for', () => {
  it('packs the package named and the workspace packages it depends on, and nothing else', () => {
    expect(packagesFor(['@workforce-kit/nestjs'])).toEqual([
      '@workforce-kit/core',
      '@workforce-kit/http',
      '@workforce-kit/nestjs',
      '@workforce-kit/types',
    ]);
    expect(packagesFor(['@workforce-kit/express-adapter', '@workforce-kit/core'])).toEqual([
      '@workforce-kit/core',
      '@workforce-kit/express-adapter',
      '@workforce-kit/http',
      '@workforce-kit/types',
    ]);
  });

  it('packs every publishable package without it', () => {
    const all = [...publishablePackages().keys()].sort();
    expect(all).toHaveLength(12);
    expect(packagesFor(undefined)).toEqual(all);
  });

  it('refuses a name that is not a package of the workspace, naming those that are', () => {
    expect(() => packagesFor(['@workforce-kit/nest'])).toThrow(
      /^@workforce-kit\/nest is not a package of this workspace; one of: .*@workforce-kit\/nestjs/,
    );
  });

  it('is what the README tells a user to run, and every command of the docs names packages it packs', async () => {
    const commands = await documentedCommands();
    expect(commands.filter(({ path }) => path === 'README.md')).not.toEqual([]);
    for (const { names } of commands) expect(() => packagesFor(names)).not.toThrow();
  });

  it('packs, in every command of the docs, an adapter for each package that serves through one', async () => {
    // The NestJS module serves through the Express or the Fastify adapter: optional peers of it.
    expect(packedWithoutAdapter(packagesFor(['@workforce-kit/nestjs']))).toEqual([
      {
        name: '@workforce-kit/nestjs',
        servesThrough: ['@workforce-kit/express-adapter', '@workforce-kit/fastify-adapter'],
      },
    ]);
    const commands = await documentedCommands();
    expect(commands.filter(({ names }) => names.includes('@workforce-kit/nestjs'))).not.toEqual([]);
    for (const { path, names } of commands) {
      expect(
        packedWithoutAdapter(packagesFor(names)),
        `${path}: --for ${names.join(' --for ')}`,
      ).toEqual([]);
    }
  });
});

/** Each publishable package's page (its README.md), by the package's name. */
const pages: { name: string; page: string }[] = [];
for (const folder of (await readdir(`${root}packages`)).sort()) {
  const { name, private: unpublished } = JSON.parse(
    await readFile(`${root}packages/${folder}/package.json`, 'utf8'),
  ) as { name: string; private?: boolean };
  if (unpublished !== true) pages.push({ name, page: `packages/${folder}/README.md` });
}

describe.each(pages)('the page of $name', ({ name, page }) => {
  it('says how to pack it before the first release: --for itself, what its Install section names and what its example imports', async () => {
    const text = await readFile(`${root}${page}`, 'utf8');
    const install = /^## Install\n([\s\S]*?)(?=^## )/m.exec(text)?.[1] ?? '';
    expect(install).toContain('Before the first release');
    expect(install).toContain('](../../README.md#installing-the-packages)');
    // The command that packs it, itself named first.
    expect(/^npm run pack:all -- --for (\S+)/m.exec(install)?.[1]).toBe(name);
    // The packages its `npm install` lines name, and those its example imports, are each named
    // by a `--for` it gives (the alternatives said beside the command included): `--for` names
    // what the app imports, and pnpm adds only the packages named.
    const installed = install
      .split('\n')
      .filter((line) => line.startsWith('npm install '))
      .flatMap((line) => line.match(/@workforce-kit\/[\w-]+/g) ?? []);
    expect(installed).toContain(name);
    const example = /<!-- example:start (\S+) -->/.exec(text)?.[1];
    const imported = example === undefined ? [] : await workspaceImports(example);
    const named = [...install.matchAll(/--for (@workforce-kit\/[\w-]+)/g)].map(([, each]) =>
      String(each),
    );
    expect(
      [...new Set([...installed, ...imported])].filter((each) => !named.includes(each)),
    ).toEqual([]);
  });
});

/** The lines pack:all's pnpm instructions start with, before the overrides. */
const PNPM_HEADING = [
  'With pnpm, which would fetch their dependencies from the registry instead, add to your',
  'project\'s pnpm-workspace.yaml (before pnpm 10.5.1: "pnpm": { "overrides": … } in package.json):',
  'overrides:',
];

describe("pack:all's pnpm instructions", () => {
  it('name each package by the file pnpm packs it to', () => {
    expect(tarballName('@workforce-kit/express-adapter', '0.1.0')).toBe(
      'workforce-kit-express-adapter-0.1.0.tgz',
    );
    expect(tarballName('@workforce-kit/core', '1.2.3-rc.1')).toBe(
      'workforce-kit-core-1.2.3-rc.1.tgz',
    );
  });

  it('override every packed package with its tarball, sorted, then add only those the app imports', () => {
    const tarballs = new Map([
      ['@workforce-kit/http', '/home/ana/wk/tarballs/workforce-kit-http-0.1.0.tgz'],
      ['@workforce-kit/core', '/home/ana/wk/tarballs/workforce-kit-core-0.1.0.tgz'],
      [
        '@workforce-kit/express-adapter',
        '/home/ana/wk/tarballs/workforce-kit-express-adapter-0.1.0.tgz',
      ],
      ['@workforce-kit/types', '/home/ana/wk/tarballs/workforce-kit-types-0.1.0.tgz'],
    ]);
    expect(pnpmInstructions(tarballs, ['@workforce-kit/express-adapter'])).toBe(
      [
        ...PNPM_HEADING,
        '  "@workforce-kit/core": "file:/home/ana/wk/tarballs/workforce-kit-core-0.1.0.tgz"',
        '  "@workforce-kit/express-adapter": "file:/home/ana/wk/tarballs/workforce-kit-express-adapter-0.1.0.tgz"',
        '  "@workforce-kit/http": "file:/home/ana/wk/tarballs/workforce-kit-http-0.1.0.tgz"',
        '  "@workforce-kit/types": "file:/home/ana/wk/tarballs/workforce-kit-types-0.1.0.tgz"',
        'then, in your project: pnpm add @workforce-kit/express-adapter',
        '',
      ].join('\n'),
    );
  });

  it('add the contract kit as a dev dependency, apart from what the app runs', () => {
    const text = pnpmInstructions(
      new Map([
        ['@workforce-kit/contract-testing', '/t/workforce-kit-contract-testing-0.1.0.tgz'],
        ['@workforce-kit/core', '/t/workforce-kit-core-0.1.0.tgz'],
      ]),
      ['@workforce-kit/core', '@workforce-kit/contract-testing'],
    );
    expect(text).toContain('then, in your project: pnpm add @workforce-kit/core\n');
    expect(text).toContain(
      'and, as a dev dependency: pnpm add -D @workforce-kit/contract-testing\n',
    );
    expect(pnpmInstructions(new Map(), ['@workforce-kit/contract-testing'])).toBe(
      [
        ...PNPM_HEADING,
        'then, in your project, as a dev dependency: pnpm add -D @workforce-kit/contract-testing',
        '',
      ].join('\n'),
    );
  });

  it('quote a path as YAML reads it back (a Windows path, a space)', () => {
    const text = pnpmInstructions(
      new Map([['@workforce-kit/types', 'C:\\Users\\Ana Lima\\workforce-kit-types-0.1.0.tgz']]),
      ['@workforce-kit/types'],
    );
    expect(text).toContain(
      '  "@workforce-kit/types": "file:C:\\\\Users\\\\Ana Lima\\\\workforce-kit-types-0.1.0.tgz"\n',
    );
  });
});

it("the NestJS app of docs/embedding.md and its test need no package of the reference server's", async () => {
  const imports = await workspaceImports('examples/embed-nestjs.ts');
  imports.push(...(await workspaceImports('examples/embed-nestjs.test.ts')));
  expect(imports).toContain('@workforce-kit/nestjs');
  expect(imports).not.toContain('@workforce-kit/server');
  // Nor does anything they import bring it along.
  expect(packagesFor(imports)).not.toContain('@workforce-kit/server');
});
