// What the TSDoc examples of packages/seed-file/src take as given: each example sees these names unless
// it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type { Restaurant, SeedRecords } from '@workforce-kit/core';
import type { Seed } from '@workforce-kit/seed-file';

/** A seed file's parsed JSON, not yet checked. */
export declare const json: unknown;
/** A seed, as `parseSeed` reads one. */
export declare const seed: Seed;
/** Records to seed a store with. */
export declare const records: SeedRecords;
/** A restaurant, as the core's builders make one. */
export declare const restaurant: Restaurant;
