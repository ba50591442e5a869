// What the TSDoc examples of packages/core/src take as given: each example sees these names unless
// it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type {
  Clock,
  ConditionalWrite,
  Employee,
  Guid,
  IdSource,
  RecordIdentifier,
  Restaurant,
  SeedRecords,
  Shift,
  UnarchiveEmployeeCommand,
  UseCaseDeps,
  WindowCounter,
  WorkforceStore,
} from '@workforce-kit/core';

/** A store: the memory store, PostgreSQL's, or one of your own. */
export declare const store: WorkforceStore;
/** Records to seed a store with (a parsed seed file). */
export declare const seed: SeedRecords;
/** What the use cases take: the store's repositories, a clock and an id source. */
export declare const deps: UseCaseDeps;
export declare const clock: Clock;
export declare const ids: IdSource;

/** Records as a store holds them. */
export declare const restaurant: Restaurant;
export declare const employee: Employee;
export declare const archivedEmployee: Employee;
export declare const shift: Shift;
/** An employee's or a shift's identifier, parsed. */
export declare const id: RecordIdentifier;
export declare const command: UnarchiveEmployeeCommand;

/** A request as the client sent it: its id, the restaurant header and the path's parameters. */
export declare const requestId: string;
export declare const restaurantHeader: string;
export declare const employeeId: string;
export declare const restaurantGUID: string;

/** A rate-limit window's counter, and the key it counts. */
export declare const counter: WindowCounter;
export declare const key: string;
/** The secret a host's access tokens are signed with. */
export declare const hs256Secret: string;

/** A database client of your own, as a repository's example calls it. */
export declare const db: {
  findEmployee(restaurant: Guid, id: RecordIdentifier): Promise<Employee | null>;
  /** The stored employee, or `null` when its stored version was not `expectedVersion`. */
  compareAndSetEmployee(change: ConditionalWrite<Employee>): Promise<Employee | null>;
};
