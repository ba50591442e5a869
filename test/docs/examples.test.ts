// The documentation's TypeScript snippets are the files in examples/, which the workspace
// type-checks (and the packaging test type-checks against the installed packages): each is shown
// verbatim, in exactly one of README.md, docs/*.md and the packages' README.md, between
// `<!-- example:start examples/<file> -->` and `<!-- example:end -->`; no document has a
// TypeScript snippet of its own.
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readDocuments, root } from './documents.js';

const documents = await readDocuments();
const examples = (await readdir(new URL('examples/', root)))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => `examples/${name}`)
  .sort();

const shownIn = (text: string) =>
  [
    ...text.matchAll(/<!-- example:start (\S+) -->\n```ts\n([\s\S]*?)```\n<!-- example:end -->/g),
  ].map(([, path = '', code = '']) => ({ path, code }));
const shown = documents.flatMap(({ path, text }) =>
  shownIn(text).map((block) => ({ ...block, document: path })),
);

describe.each(documents)('$path', ({ text }) => {
  it('has no TypeScript snippet outside the example markers', () => {
    const snippets = text.match(/^```(?:ts|typescript|tsx?)\s*$/gm) ?? [];
    expect(snippets).toHaveLength(shownIn(text).length);
  });
});

it('shows every example file once, and no other', () => {
  expect(shown.map(({ path }) => path).sort()).toEqual(examples);
});

it.each(examples)('shows %s as it is', async (path) => {
  const code = await readFile(new URL(path, root), 'utf8');
  expect(shown.find((block) => block.path === path)?.code).toBe(code);
});
