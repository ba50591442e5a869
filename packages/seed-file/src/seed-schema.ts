// The seed file's JSON Schema, as an object. The file itself, seed.schema.json, ships in the
// package for editors (`"$schema"` in a seed file) and for any JSON Schema validator.
import schema from './seed.schema.json' with { type: 'json' };

/** A JSON Schema (draft 2020-12) document. */
export interface JsonSchema {
  readonly $schema: string;
  readonly $id: string;
  readonly [keyword: string]: unknown;
}

/**
 * The JSON Schema (draft 2020-12) of the seed file: every collection, entry and field, with the
 * defaults the parser fills in. `parseSeed` validates with it; beyond it, the parser refuses
 * repeated GUIDs, client ids and external ids, records of a restaurant the file does not have, a
 * `weekSchedule` day naming a missing day schedule, and a time zone, currency or business date the
 * runtime does not know. The same schema is the file
 * `@workforce-kit/seed-file/seed.schema.json`, which a seed file names for its editor.
 *
 * @example
 * ```ts
 * import { Ajv2020 } from 'ajv/dist/2020.js';
 * import addFormats from 'ajv-formats';
 * import { SEED_FILE_SCHEMA } from '@workforce-kit/seed-file';
 *
 * const ajv = new Ajv2020({ allErrors: true });
 * addFormats.default(ajv); // ajv-formats is CommonJS: its plugin is the default export's `default`
 * const isSeedFile = ajv.compile(SEED_FILE_SCHEMA);
 * ```
 */
export const SEED_FILE_SCHEMA: JsonSchema = schema;
