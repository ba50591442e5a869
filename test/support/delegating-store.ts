// Test support for the cross-package tests: a store a property can swap between runs.
import type { ApiStore } from '@workforce-kit/http';

/**
 * A store whose every call goes to the store `current()` returns at that moment. The router keeps
 * the repositories it is given: with this, one app (one compiled spec) serves every run of a
 * property, each on a fresh store.
 */
export function delegatingStore(current: () => ApiStore): ApiStore {
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
