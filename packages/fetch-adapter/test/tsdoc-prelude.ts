// What the TSDoc examples of packages/fetch-adapter/src take as given: each example sees these names unless
// it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type { SeedRecords } from '@workforce-kit/core';

/** Records to seed a store with (a parsed seed file). */
export declare const seed: SeedRecords;
/** The secret the host's access tokens are signed with. */
export declare const hs256Secret: string;
/** The part of Bun's global that the examples call (bun-types is not among this package's). */
export declare const Bun: {
  serve(options: { fetch(request: Request): Response | Promise<Response> }): unknown;
};
