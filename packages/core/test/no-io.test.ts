// Core is pure: its sources import only neverthrow and each other (and, in testing/, vitest
// and fast-check). No node: modules, no HTTP, no database driver.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const srcDir = fileURLToPath(new URL('../src', import.meta.url));
const ALLOWED = new Set(['neverthrow']);
const ALLOWED_IN_TESTING = new Set([...ALLOWED, 'vitest', 'fast-check']);
// An import statement ends at its specifier: the match never crosses a `;`, so that it does not run
// from an export through a TSDoc example's import to that import's specifier.
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

async function sources(): Promise<string[]> {
  const entries = await readdir(srcDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('core', () => {
  it('imports nothing that does I/O', async () => {
    const files = await sources();
    expect(files.length).toBeGreaterThan(10);
    const offending: string[] = [];
    for (const file of files) {
      const path = relative(srcDir, file);
      const allowed = path.startsWith('testing') ? ALLOWED_IN_TESTING : ALLOWED;
      for (const match of (await readFile(file, 'utf8')).matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2] ?? '';
        if (!specifier.startsWith('.') && !allowed.has(specifier))
          offending.push(`${path}: ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('declares only those packages as dependencies', async () => {
    const manifest = JSON.parse(
      await readFile(new URL('../package.json', import.meta.url), 'utf8'),
    );
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual([...ALLOWED].sort());
  });
});
