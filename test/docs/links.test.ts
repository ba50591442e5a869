// Every relative link of the documentation (README.md, docs/*.md, the packages' README.md) leads
// somewhere: the file or folder exists, and an anchor names a heading of the Markdown file it
// points into (or of the same file); and no two headings of a document share an anchor, where a
// link would land on the first.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anchorsOf, headingSlugs, linksOf, readDocuments, root } from './documents.js';

const documents = await readDocuments();
const anchors = new Map(documents.map(({ path, text }) => [path, anchorsOf(text)]));

/** A link that leaves the repository: not checked here (the network is not the docs' test). */
const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** The anchors more than one heading of a text would have, each once. */
function repeatedAnchors(text: string): readonly string[] {
  const slugs = headingSlugs(text);
  return [...new Set(slugs.filter((slug, index) => slugs.indexOf(slug) !== index))];
}

/** A link's file, from the repository's root (the document itself for `#anchor`), and anchor. */
function resolve(document: string, target: string) {
  const [file = '', anchor] = target.split('#');
  const path =
    file === ''
      ? document
      : decodeURIComponent(new URL(file, new URL(document, root)).pathname).slice(
          decodeURIComponent(root.pathname).length,
        );
  return { path, anchor };
}

describe.each(documents)('$path', ({ path, text }) => {
  const targets = linksOf(text).filter((target) => !external(target));

  it('links to another document (none is a dead end)', () => {
    const others = targets
      .map((target) => resolve(path, target).path)
      .filter((linked) => linked !== path && linked.endsWith('.md'));
    expect(others).not.toEqual([]);
  });

  it('has no two headings with one anchor (a link would reach only the first)', () => {
    expect(repeatedAnchors(text)).toEqual([]);
  });

  it.each(targets)('links to %s, which exists', (target) => {
    const linked = resolve(path, target);
    expect(existsSync(new URL(linked.path, root)), `${linked.path} does not exist`).toBe(true);
    if (linked.anchor !== undefined) {
      const headings = anchors.get(linked.path);
      expect(
        headings,
        `${linked.path} is not a document, so its anchors are unknown`,
      ).toBeDefined();
      expect([...(headings ?? [])], `no heading of ${linked.path} is #${linked.anchor}`).toContain(
        linked.anchor,
      );
    }
  });
});

describe('the anchors', () => {
  it('are those GitHub makes', () => {
    expect([
      ...anchorsOf(
        '# On a fresh clone (Node.js 20.19+ and npm only)\n## In a node:http server, or any\n```sh\n# not a heading\n```\n## `createRouter` options\n## Webhooks\n## Webhooks\n',
      ),
    ]).toEqual([
      'on-a-fresh-clone-nodejs-2019-and-npm-only',
      'in-a-nodehttp-server-or-any',
      'createrouter-options',
      'webhooks',
      'webhooks-1',
    ]);
  });

  it('are checked: a link to a heading that is not there is found', () => {
    expect(
      linksOf('[a](docs/server.md#no-such-heading) `[b](c.md)`\n```\n[d](e.md)\n```\n'),
    ).toEqual(['docs/server.md#no-such-heading']);
    expect(anchors.get('docs/server.md')).not.toContain('no-such-heading');
  });

  it('are checked for repeats: a second heading of the same anchor is found', () => {
    expect(
      repeatedAnchors('## Races\n\n## A target\n```md\n## A target\n```\n## `Races`\n## Races!\n'),
    ).toEqual(['races']);
    expect(repeatedAnchors('## Races\n## Races and faults\n')).toEqual([]);
  });
});
