/**
 * Test support for stores and hosts of workforce-kit: the store conformance suite, fast-check
 * arbitraries for identifiers and records, and builders for test data. Needs `vitest` and
 * `fast-check` (optional peer dependencies).
 *
 * @packageDocumentation
 */
export {
  employeeArb,
  externalIdArb,
  guidArb,
  guidInputArb,
  instantArb,
  malformedShiftIdArb,
  namingAuthorityArb,
  restaurantArb,
  shiftArb,
  shiftIdInputArb,
} from './arbitraries.js';
export { asynchronousStore } from './asynchronous-store.js';
export {
  aJobReference,
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  newGuid,
  type RecordOverrides,
  seedRecords,
} from './builders.js';
export { delegatingStore, type Repositories } from './delegating-store.js';
export { describeStoreConformance, type StoreConformanceOptions } from './store-conformance.js';
export { aWorld, type World } from './world.js';
