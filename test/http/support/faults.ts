// The faults the HTTP-level suites give an app, by name: a store that throws, is down, loses every
// compare-and-set or never answers, and a token verifier that cannot verify. Named rather than
// written in each test, so that a server in another process (Bun, Deno: test/runtimes), which
// is given only JSON, makes the same ones from this module.
import {
  type EmployeeRepository,
  type MemoryStore,
  type RestaurantRepository,
  type ShiftRepository,
  storageUnavailable,
  versionConflict,
} from '@workforce-kit/core';
import type { AccessTokenVerifier, ApiOptions, ApiStore } from '@workforce-kit/http';
import { errAsync, ResultAsync } from 'neverthrow';

export const FAULTS = [
  'store-throws',
  'store-unavailable',
  'writes-conflict',
  'store-never-answers',
  'auth-unavailable',
] as const;
export type Fault = (typeof FAULTS)[number];

/**
 * The settings of a test app that cross to another process as JSON: the options the suites set,
 * a fault, and no function.
 */
export interface AppSettings {
  readonly rateLimit?: false | { readonly perSecond: number; readonly per15Minutes: number };
  readonly requestTimeoutMs?: number;
  readonly maxAttempts?: number;
  readonly fault?: Fault;
}

/** The memory store with each repository method named replaced by `override`. */
function storeWith(
  base: MemoryStore,
  override: (name: string) => (...args: never[]) => unknown,
): ApiStore {
  const wrap = <T extends object>(repository: T, names: (keyof T)[]): T =>
    Object.fromEntries(
      Object.entries(repository).map(([name, fn]) => [
        name,
        names.includes(name as keyof T) ? override(name) : fn,
      ]),
    ) as T;
  return {
    employees: wrap<EmployeeRepository>(base.employees, ['find', 'write']),
    shifts: wrap<ShiftRepository>(base.shifts, ['find', 'write']),
    restaurants: wrap<RestaurantRepository>(base.restaurants, ['findByGuid']),
  };
}

/** The options that give an app over `store` its fault (none: nothing). */
export function faultOptions(fault: Fault | undefined, store: MemoryStore): Partial<ApiOptions> {
  switch (fault) {
    case undefined:
      return {};
    case 'store-throws':
      return {
        store: storeWith(store, () => () => {
          throw new Error('connection string postgres://admin:hunter2@db/workforce');
        }),
      };
    case 'store-unavailable':
      return {
        store: storeWith(
          store,
          (name) => () => errAsync(storageUnavailable(name, new Error('ECONNREFUSED'))),
        ),
      };
    case 'writes-conflict': {
      const conflict = ({ record }: { record: { guid: string; version: number } }) =>
        errAsync(versionConflict(record.guid as never, record.version));
      return {
        store: {
          employees: { ...store.employees, write: conflict },
          shifts: { ...store.shifts, write: conflict },
          restaurants: store.restaurants,
        },
      };
    }
    case 'store-never-answers': {
      const never = () => new ResultAsync(new Promise<never>(() => {}));
      return { store: storeWith(store, () => never) };
    }
    case 'auth-unavailable': {
      const auth: AccessTokenVerifier = {
        verify: () =>
          errAsync({ type: 'VerifierUnavailable', cause: new Error('JWKS fetch failed') }),
      };
      return { auth };
    }
    default: {
      const unknown: never = fault;
      throw new Error(`no fault ${String(unknown)}`);
    }
  }
}
