// The documentation's TypeScript snippets are the files in examples/, which the workspace
// type-checks (and the packaging test type-checks against the installed packages, and runs when
// the document says what it prints): each is shown verbatim, in exactly one of README.md,
// docs/*.md and the packages' README.md, between `<!-- example:start examples/<file> -->` and
// `<!-- example:end -->`; no document has a TypeScript snippet of its own. A folder of examples/
// with a README.md is a complete example app (sqlite-app/): its files need not be shown (a
// document may show one), its own tests run it, and the docs link it.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { examplesOf, linksOf, readDocuments, root } from './documents.js';

const documents = await readDocuments();
// examples/bun/ and examples/deno/ hold the examples written for those runtimes, type-checked with
// their types (each folder's tsconfig.json) and run on them by test/runtimes.
const examples = (await readdir(new URL('examples/', root), { recursive: true }))
  .filter((name) => name.endsWith('.ts') && !name.includes('node_modules'))
  .map((name) => `examples/${name}`)
  .sort();
const shown = documents.flatMap(examplesOf);
const apps = (await readdir(new URL('examples/', root), { withFileTypes: true }))
  .filter(
    (entry) => entry.isDirectory() && existsSync(new URL(`examples/${entry.name}/README.md`, root)),
  )
  .map((entry) => `examples/${entry.name}/`);
const inApp = (path: string) => apps.some((app) => path.startsWith(app));
const snippets = examples.filter((path) => !inApp(path));

describe.each(documents)('$path', (document) => {
  it('has no TypeScript snippet outside the example markers', () => {
    const snippets = document.text.match(/^```(?:ts|typescript|tsx?)\s*$/gm) ?? [];
    expect(snippets).toHaveLength(examplesOf(document).length);
  });
});

const packagePages = documents.filter(({ path }) => path.startsWith('packages/'));

describe.each(packagePages)('$path', (document) => {
  it('shows an example, and what it prints (the packaging test runs it)', () => {
    const [example, ...others] = examplesOf(document);
    expect(others).toEqual([]);
    expect(example?.output?.trim()).toBeTruthy();
  });
});

it('has a page for every published package', async () => {
  const published: string[] = [];
  for (const folder of await readdir(new URL('packages/', root))) {
    const manifest = JSON.parse(
      await readFile(new URL(`packages/${folder}/package.json`, root), 'utf8'),
    ) as { private?: boolean };
    if (manifest.private !== true) published.push(`packages/${folder}/README.md`);
  }
  expect(packagePages.map(({ path }) => path)).toEqual(published.sort());
});

it('shows every example file once, and no other; a file of an example app at most once', () => {
  const paths = shown.map(({ path }) => path);
  expect(paths.filter((path) => !inApp(path)).sort()).toEqual(snippets);
  const ofApps = paths.filter(inApp);
  expect(ofApps.filter((path) => !examples.includes(path))).toEqual([]);
  expect(new Set(ofApps).size).toBe(ofApps.length);
});

it.each(apps)('links the example app %s from the docs', (app) => {
  const linking = documents.filter(({ path, text }) =>
    linksOf(text).some((target) => {
      const linked = decodeURIComponent(new URL(target, new URL(path, root)).pathname);
      return `${linked}/`.startsWith(decodeURIComponent(new URL(app, root).pathname));
    }),
  );
  expect(linking.map(({ path }) => path)).not.toEqual([]);
});

it.each([...snippets, ...shown.map(({ path }) => path).filter(inApp)])(
  'shows %s as it is',
  async (path) => {
    const code = await readFile(new URL(path, root), 'utf8');
    expect(shown.find((block) => block.path === path)?.code).toBe(code);
  },
);
