// The README's TypeScript snippets are the files in examples/, which the workspace type-checks
// (and the packaging test type-checks against the installed packages): each is shown verbatim
// between `<!-- example:start examples/<file> -->` and `<!-- example:end -->`, and the README has
// no TypeScript snippet of its own.
import { readdir, readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = await readFile(new URL('README.md', root), 'utf8');
const examples = (await readdir(new URL('examples/', root)))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => `examples/${name}`)
  .sort();

const shown = [
  ...readme.matchAll(/<!-- example:start (\S+) -->\n```ts\n([\s\S]*?)```\n<!-- example:end -->/g),
].map(([, path = '', code = '']) => ({ path, code }));

it('has no TypeScript snippet outside the example markers', () => {
  const snippets = readme.match(/^```(?:ts|typescript|tsx?)\s*$/gm) ?? [];
  expect(snippets).toHaveLength(shown.length);
});

it('shows every example file once, and no other', () => {
  expect(shown.map(({ path }) => path).sort()).toEqual(examples);
});

it.each(examples)('shows %s as it is', async (path) => {
  const code = await readFile(new URL(path, root), 'utf8');
  expect(shown.find((block) => block.path === path)?.code).toBe(code);
});
