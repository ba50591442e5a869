/**
 * The seed file of workforce-kit: its parser, which checks a seed file and turns it into the
 * records a store is seeded with (`SeedRecords` of `@workforce-kit/core`) and the clients of the
 * reference server's development login. The format is its JSON Schema, `SEED_FILE_SCHEMA` (also the
 * file `@workforce-kit/seed-file/seed.schema.json`, which a seed file names as its `$schema` for
 * editors), described in `docs/contract.md`.
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { createMemoryStore } from '@workforce-kit/core';
 * import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';
 *
 * const seed = parseSeed(JSON.parse(await readFile('seed.json', 'utf8')), new Date());
 * if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));
 * const store = createMemoryStore(seed.value);
 * ```
 *
 * @packageDocumentation
 */
export {
  formatSeedIssues,
  parseSeed,
  SCOPES,
  type Scope,
  type Seed,
  type SeedClient,
  type SeedInvalid,
  type SeedIssue,
} from './parse-seed.js';
export { type JsonSchema, SEED_FILE_SCHEMA } from './seed-schema.js';
