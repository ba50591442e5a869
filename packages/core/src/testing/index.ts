/**
 * Test support for stores and hosts of workforce-kit: the store conformance suite, fast-check
 * arbitraries for identifiers, records and seeds, and builders for test data. Needs `vitest` and
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
  seedArb,
  shiftArb,
  shiftIdInputArb,
} from './arbitraries.js';
export {
  aClient,
  aJobReference,
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aSeed,
  aShift,
  newGuid,
} from './builders.js';
export { seedToJson } from './seed-json.js';
export { describeStoreConformance, type StoreConformanceOptions } from './store-conformance.js';
