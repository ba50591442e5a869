// What the TSDoc examples of packages/contract-testing/src take as given: each example sees these
// names unless it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type {
  AuthOptions,
  ContractOptions,
  ContractTarget,
  SeedInput,
} from '@workforce-kit/contract-testing';
import type { WorkforceStore } from '@workforce-kit/core';
import type { createRouter } from '@workforce-kit/express-adapter';
import type { Express } from 'express';
import type { SequentialModel, TimedCall } from '../src/linearizability.js';

/** The secret the target's access tokens are signed with. */
export declare const hs256Secret: string;
/** The host's Express app, mounting the API over its store. */
export declare const app: Express;
/** A run's options: the target, the seed, how to get tokens. */
export declare const options: ContractOptions;
/** What a run is given: the deployment, its seed, and how to get its tokens. */
export declare const target: ContractTarget;
export declare const seed: SeedInput;
export declare const auth: AuthOptions;
/** The app's store and its access-token verifier, as its `createRouter` is given them. */
export declare const store: WorkforceStore;
export declare const verifier: Parameters<typeof createRouter>[0]['auth'];

/** A call on a register: a read of the value it saw, or a write of a value. */
type RegisterCall =
  | { readonly op: 'read'; readonly value: number }
  | { readonly op: 'write'; readonly value: number };
/** A register's sequential model: a read sees the last value written. */
export declare const registerModel: SequentialModel<number, RegisterCall>;
/** Calls on a register, with their invocation and completion times. */
export declare const history: readonly TimedCall<RegisterCall>[];
