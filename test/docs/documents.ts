// The documentation a user reads: the landing page, the guides and each package's page.

import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

export const root = new URL('../../', import.meta.url);

/** A Markdown file of the documentation: its path from the repository's root, and its text. */
export interface Document {
  readonly path: string;
  readonly text: string;
}

/** README.md, docs/*.md and the README.md of every package, in that order. */
export async function readDocuments(): Promise<readonly Document[]> {
  const guides = (await readdir(new URL('docs/', root)))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  const packages = (await readdir(new URL('packages/', root)))
    .sort()
    .map((name) => `packages/${name}/README.md`)
    .filter((path) => existsSync(new URL(path, root)));
  return Promise.all(
    ['README.md', ...guides, ...packages].map(async (path) => ({
      path,
      text: await readFile(new URL(path, root), 'utf8'),
    })),
  );
}

/** The text outside fenced code blocks and inline code, where Markdown links and headings are. */
export function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/**
 * The anchor each heading of a Markdown text would have alone, in order: lower case, punctuation
 * dropped but `-` and `_`, spaces as `-`. Two equal ones are two headings one link cannot tell apart.
 */
export function headingSlugs(text: string): readonly string[] {
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1\s*$/gm, '');
  return [...withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map(([, heading = '']) =>
    heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-'),
  );
}

/**
 * The anchors GitHub (and npm) give the headings of a Markdown text: their slugs
 * ({@link headingSlugs}), with `-1`, `-2`, … on a repeated one.
 */
export function anchorsOf(text: string): ReadonlySet<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const slug of headingSlugs(text)) {
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every inline Markdown link and image of a text, outside code: its target as written. */
export function linksOf(text: string): readonly string[] {
  return [
    ...prose(text).matchAll(/!?\[(?:[^\]\n]|\][^(])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
  ].map(([, target = '']) => target);
}

/** A snippet of a document: the example file it shows, its code, and what it prints, if said. */
export interface ShownExample {
  readonly document: string;
  readonly path: string;
  readonly code: string;
  /** The `text` block after "It prints:" that follows the example, when there is one. */
  readonly output: string | undefined;
}

const EXAMPLE =
  /<!-- example:start (\S+) -->\n```ts\n([\s\S]*?)```\n<!-- example:end -->(?:\n\nIt prints:\n\n```text\n([\s\S]*?)```\n)?/g;

/** The examples a document shows, between `<!-- example:start … -->` and `<!-- example:end -->`. */
export function examplesOf({ path, text }: Document): readonly ShownExample[] {
  return [...text.matchAll(EXAMPLE)].map(([, file = '', code = '', output]) => ({
    document: path,
    path: file,
    code,
    output,
  }));
}
