/**
 * Generates the schema types (openapi-typescript) and the typed fetch SDK (@hey-api/openapi-ts)
 * from `openapi/openapi.yaml`, the only input.
 *
 *   tsx scripts/generate.ts            writes src/gen/
 *   tsx scripts/generate.ts --check    fails when src/gen/ differs from what the spec generates
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateInto } from './generator.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const committedDir = join(packageDir, 'src', 'gen');

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Names every file that differs between the committed output and a fresh generation. */
export async function findDrift(): Promise<string[]> {
  const freshDir = await mkdtemp(join(tmpdir(), 'workforce-kit-types-'));
  try {
    await generateInto(freshDir);
    const [fresh, committed] = await Promise.all([listFiles(freshDir), listFiles(committedDir)]);
    const drift = new Set<string>();
    for (const file of new Set([...fresh, ...committed])) {
      if (!fresh.includes(file) || !committed.includes(file)) {
        drift.add(file);
        continue;
      }
      const [a, b] = await Promise.all([
        readFile(join(freshDir, file), 'utf8'),
        readFile(join(committedDir, file), 'utf8'),
      ]);
      if (a !== b) drift.add(file);
    }
    return [...drift].sort();
  } finally {
    await rm(freshDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const drift = await findDrift();
    if (drift.length > 0) {
      console.error(
        `Generated types are out of date; run \`pnpm generate\`:\n  ${drift.join('\n  ')}`,
      );
      process.exitCode = 1;
    } else {
      console.log('Generated types match openapi/openapi.yaml.');
    }
  } else {
    await rm(committedDir, { recursive: true, force: true });
    await generateInto(committedDir);
    console.log(`Generated ${relative(process.cwd(), committedDir)} from openapi/openapi.yaml.`);
  }
}
