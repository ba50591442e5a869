// What the TSDoc examples of packages/fastify-adapter/src take as given: each example sees these names unless
// it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type { SeedRecords } from '@workforce-kit/core';
import type { WorkforceKitOptions } from '@workforce-kit/fastify-adapter';
import type { FastifyInstance } from 'fastify';

/** The host's Fastify instance. */
export declare const app: FastifyInstance;
/** The plugin's options: the store, the token verifier, the limits. */
export declare const options: WorkforceKitOptions;
/** Records to seed a store with (a parsed seed file). */
export declare const seed: SeedRecords;
/** The secret the host's access tokens are signed with. */
export declare const hs256Secret: string;
