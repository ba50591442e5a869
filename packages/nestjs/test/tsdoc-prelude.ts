// What the TSDoc examples of packages/nestjs/src take as given: each example sees these names unless
// it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type { SeedRecords } from '@workforce-kit/core';

/** Records to seed a store with (a parsed seed file). */
export declare const seed: SeedRecords;
/** The secret the host's access tokens are signed with, or the URL of its JWKS. */
export declare const hs256Secret: string;
export declare const jwksUrl: string;

/** The app's injection token of its store, and the module that provides it. */
export declare const STORE: unique symbol;
export declare class DatabaseModule {}
/** `@nestjs/config`'s module and service, as far as the examples use them (not a dependency). */
export declare class ConfigModule {}
export declare class ConfigService {
  getOrThrow<T = string>(key: string): T;
}
