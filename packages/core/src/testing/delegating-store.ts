import type { WorkforceStore } from '../ports.js';

/** The repositories an HTTP edge reads and writes through. */
export type Repositories = Pick<WorkforceStore, 'employees' | 'shifts' | 'restaurants'>;

/**
 * A store whose every call goes to the store `current()` returns at that moment. A router keeps
 * the repositories it is given: with this, one app (one compiled spec) serves every run of a
 * property test, each on a fresh store.
 *
 * @example
 * ```ts
 * import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
 *
 * let store = createMemoryStore(seed);
 * const router = createRouter({ store: delegatingStore(() => store), auth: createJwtVerifier({ hs256Secret }) });
 * // before each run:
 * store = createMemoryStore(seed);
 * ```
 */
export function delegatingStore(current: () => Repositories): Repositories {
  return {
    employees: {
      find: (restaurant, id) => current().employees.find(restaurant, id),
      write: (change) => current().employees.write(change),
    },
    shifts: {
      find: (restaurant, id) => current().shifts.find(restaurant, id),
      write: (change) => current().shifts.write(change),
    },
    restaurants: { findByGuid: (guid) => current().restaurants.findByGuid(guid) },
  };
}
