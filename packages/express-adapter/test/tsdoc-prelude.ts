// What the TSDoc examples of packages/express-adapter/src take as given: each example sees these
// names unless it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type { SeedRecords } from '@workforce-kit/core';
import type { Logger } from '@workforce-kit/express-adapter';
import type { Express } from 'express';

/** The host's Express app. */
export declare const app: Express;
/** Records to seed a store with (a parsed seed file). */
export declare const seed: SeedRecords;
/** The secret the host's access tokens are signed with. */
export declare const hs256Secret: string;
/** The host's logger (pino, or any with the same methods). */
export declare const logger: Logger;
