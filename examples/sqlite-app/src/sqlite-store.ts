import {
  type ConditionalWrite,
  type Employee,
  type ExternalId,
  err,
  type Guid,
  type IdentityChangeRefused,
  identityChangeRefused,
  ok,
  type RecordedEvent,
  type RecordIdentifier,
  type Reference,
  type Restaurant,
  type Result,
  type SeedRecords,
  type Shift,
  type StorageUnavailable,
  storageUnavailable,
  type VersionConflict,
  versionConflict,
  type WorkforceStore,
} from '@workforce-kit/core';
import type Database from 'better-sqlite3';

/**
 * The mistakes a store over tables of one's own is easy to make, each a switch of this example
 * store, so that its tests show the conformance suite catching each one (test/store-bugs.test.ts).
 */
export const STORE_BUGS = [
  /** A lookup of an employee by external id that ignores the restaurant. */
  'external-id-ignores-venue',
  /** The UPDATE of an employee leaves two columns out: `modified_at` and `badge` (the swipe card). */
  'update-leaves-columns-out',
  /** Employee writes without the version check: the UPDATE ignores `row_version`. */
  'no-version-check',
  /** Shift writes without the version check: two overlapping deletes of one shift both write. */
  'shift-no-version-check',
  /** An archive stored without its `deletedDate`: the UPDATE leaves `archived_at` out. */
  'archive-without-deleted-date',
  /** `jobReferences: []` given back as absent: no rows in `staff_jobs` read as no list. */
  'empty-job-list-as-absent',
  /** A lookup that finds no row answers `ok(undefined)` (what `.get()` gives), not `ok(null)`. */
  'missing-as-undefined',
] as const;
/** One of {@link STORE_BUGS}. */
export type StoreBug = (typeof STORE_BUGS)[number];

/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** Bugs to switch on, for the tests that show the conformance suite catching them. @default [] */
  readonly bugs?: readonly StoreBug[];
}

interface StaffRow {
  readonly staff_id: Guid;
  readonly venue_id: Guid;
  readonly payroll_ref: ExternalId | null;
  readonly given_name: string | null;
  readonly preferred_name: string | null;
  readonly family_name: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly phone_country: string | null;
  readonly pos_pin: string | null;
  readonly hr_ref: string | null;
  readonly v2_id: Guid | null;
  readonly badge: string | null;
  readonly has_job_list: number;
  readonly has_wage_list: number;
  readonly archived: number;
  readonly archived_at: string | null;
  readonly created_at: string;
  readonly modified_at: string;
  readonly row_version: number;
}

interface JobRow {
  readonly job_id: Guid;
  readonly job_kind: string;
  readonly job_ref: ExternalId | null;
}

interface WageRow extends JobRow {
  readonly hourly_wage: number;
}

interface ShiftRow {
  readonly shift_id: Guid;
  readonly venue_id: Guid;
  readonly scheduler_ref: ExternalId | null;
  readonly job_id: Guid | null;
  readonly job_kind: string | null;
  readonly job_ref: ExternalId | null;
  readonly worker_id: Guid | null;
  readonly worker_kind: string | null;
  readonly worker_ref: ExternalId | null;
  readonly starts_at: string | null;
  readonly ends_at: string | null;
  readonly has_clock_window: number;
  readonly clock_window_id: Guid | null;
  readonly early_in_minutes: number | null;
  readonly late_in_minutes: number | null;
  readonly early_out_minutes: number | null;
  readonly late_out_minutes: number | null;
  readonly removed: number;
  readonly removed_at: string | null;
  readonly created_at: string;
  readonly modified_at: string;
  readonly row_version: number;
}

/** The fields whose column holds a value: a NULL column is an absent field, never `null`. */
function present<T extends Record<string, unknown>>(
  fields: T,
): Partial<{ [K in keyof T]: NonNullable<T[K]> }> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)) as never;
}

/** A reference from its columns: none when its GUID column is NULL. */
function reference(guid: Guid, entityType: string, externalId: ExternalId | null): Reference;
function reference(
  guid: Guid | null,
  entityType: string | null,
  externalId: ExternalId | null,
): Reference | undefined;
function reference(guid: Guid | null, entityType: string | null, externalId: ExternalId | null) {
  if (guid === null || entityType === null) return undefined;
  return { guid, entityType, ...present({ externalId }) };
}

const referenceColumns = (ref: Reference | undefined) => ({
  id: ref?.guid ?? null,
  kind: ref?.entityType ?? null,
  ref: ref?.externalId ?? null,
});

/**
 * A store over the app's own SQLite tables (schema.ts), through better-sqlite3: the core's ports,
 * each write one transaction that compares the version read and sets the next, with the change's
 * events in the outbox. better-sqlite3 answers at once, so every method returns a `Result` (no
 * promise); a failure of the database is `StorageUnavailable`, never a throw. `close` closes the
 * database.
 *
 * @param db - the app's database, its tables created (`createSchema`)
 * @param options - bugs to switch on (tests only)
 * @returns the store
 */
export function createSqliteStore(
  db: Database.Database,
  options: SqliteStoreOptions = {},
): WorkforceStore {
  const bugs = new Set(options.bugs ?? []);

  /** Runs `body`, turning a throw of the database into `StorageUnavailable`. */
  function attempt<T, E>(
    operation: string,
    body: () => Result<T, E>,
  ): Result<T, E | StorageUnavailable> {
    try {
      return body();
    } catch (cause) {
      return err(storageUnavailable(operation, cause));
    }
  }

  const pingQuery = db.prepare('SELECT 1');
  // What a lookup that finds no row answers: null, as the ports say; with the bug, `.get()`'s
  // undefined passed on as it is (the cast is the bug).
  const none = bugs.has('missing-as-undefined') ? (undefined as unknown as null) : null;

  // Employees ---------------------------------------------------------------------------------

  const staffById = db.prepare('SELECT * FROM staff WHERE venue_id = ? AND staff_id = ?');
  const staffByRef = bugs.has('external-id-ignores-venue')
    ? db.prepare('SELECT * FROM staff WHERE payroll_ref = ? AND ? IS NOT NULL')
    : db.prepare('SELECT * FROM staff WHERE payroll_ref = ? AND venue_id = ?');
  const jobsOf = db.prepare(
    'SELECT job_id, job_kind, job_ref FROM staff_jobs WHERE staff_id = ? ORDER BY position',
  );
  const wagesOf = db.prepare(
    'SELECT job_id, job_kind, job_ref, hourly_wage FROM staff_wages WHERE staff_id = ? ORDER BY position',
  );
  const insertStaff = db.prepare(`INSERT INTO staff VALUES (@staff_id, @venue_id, @payroll_ref,
    @given_name, @preferred_name, @family_name, @email, @phone, @phone_country, @pos_pin, @hr_ref,
    @v2_id, @badge, @has_job_list, @has_wage_list, @archived, @archived_at, @created_at,
    @modified_at, 1)`);
  const updated = [
    'given_name = @given_name, preferred_name = @preferred_name, family_name = @family_name',
    'email = @email, phone = @phone, phone_country = @phone_country, pos_pin = @pos_pin',
    'hr_ref = @hr_ref, v2_id = @v2_id, has_job_list = @has_job_list, has_wage_list = @has_wage_list',
    'archived = @archived',
    ...(bugs.has('archive-without-deleted-date') ? [] : ['archived_at = @archived_at']),
    ...(bugs.has('update-leaves-columns-out')
      ? []
      : ['modified_at = @modified_at', 'badge = @badge']),
  ];
  const updateStaff = db.prepare(
    `UPDATE staff SET ${updated.join(', ')}, row_version = row_version + 1
     WHERE staff_id = @staff_id AND venue_id = @venue_id${
       bugs.has('no-version-check') ? '' : ' AND row_version = @expected_version'
     }`,
  );
  const deleteJobs = db.prepare('DELETE FROM staff_jobs WHERE staff_id = ?');
  const deleteWages = db.prepare('DELETE FROM staff_wages WHERE staff_id = ?');
  const insertJob = db.prepare('INSERT INTO staff_jobs VALUES (?, ?, ?, ?, ?)');
  const insertWage = db.prepare('INSERT INTO staff_wages VALUES (?, ?, ?, ?, ?, ?)');

  function toEmployee(row: StaffRow): Employee {
    const jobs = (jobsOf.all(row.staff_id) as JobRow[]).map((job) =>
      reference(job.job_id, job.job_kind, job.job_ref),
    );
    const wages = (wagesOf.all(row.staff_id) as WageRow[]).map((wage) => ({
      jobReference: reference(wage.job_id, wage.job_kind, wage.job_ref),
      wage: wage.hourly_wage,
    }));
    const listsJobs = bugs.has('empty-job-list-as-absent')
      ? jobs.length > 0
      : row.has_job_list === 1;
    return {
      restaurantGuid: row.venue_id,
      guid: row.staff_id,
      version: row.row_version,
      createdDate: row.created_at,
      modifiedDate: row.modified_at,
      ...present({
        externalId: row.payroll_ref,
        firstName: row.given_name,
        chosenName: row.preferred_name,
        lastName: row.family_name,
        email: row.email,
        phoneNumber: row.phone,
        phoneNumberCountryCode: row.phone_country,
        passcode: row.pos_pin,
        externalEmployeeId: row.hr_ref,
        v2EmployeeGuid: row.v2_id,
        swipeCard: row.badge,
      }),
      ...(listsJobs ? { jobReferences: jobs } : {}),
      ...(row.has_wage_list === 1 ? { wageOverrides: wages } : {}),
      ...(row.archived === 1
        ? { deleted: true, ...present({ deletedDate: row.archived_at }) }
        : { deleted: false }),
    } as Employee;
  }

  function staffColumns(employee: Employee) {
    return {
      staff_id: employee.guid,
      venue_id: employee.restaurantGuid,
      payroll_ref: employee.externalId ?? null,
      given_name: employee.firstName ?? null,
      preferred_name: employee.chosenName ?? null,
      family_name: employee.lastName ?? null,
      email: employee.email ?? null,
      phone: employee.phoneNumber ?? null,
      phone_country: employee.phoneNumberCountryCode ?? null,
      pos_pin: employee.passcode ?? null,
      hr_ref: employee.externalEmployeeId ?? null,
      v2_id: employee.v2EmployeeGuid ?? null,
      badge: employee.swipeCard ?? null,
      has_job_list: employee.jobReferences === undefined ? 0 : 1,
      has_wage_list: employee.wageOverrides === undefined ? 0 : 1,
      archived: employee.deleted ? 1 : 0,
      archived_at: employee.deletedDate ?? null,
      created_at: employee.createdDate,
      modified_at: employee.modifiedDate,
    };
  }

  function putLists(employee: Employee): void {
    deleteJobs.run(employee.guid);
    deleteWages.run(employee.guid);
    for (const [position, job] of (employee.jobReferences ?? []).entries()) {
      const { id, kind, ref } = referenceColumns(job);
      insertJob.run(employee.guid, position, id, kind, ref);
    }
    for (const [position, { jobReference, wage }] of (employee.wageOverrides ?? []).entries()) {
      const { id, kind, ref } = referenceColumns(jobReference);
      insertWage.run(employee.guid, position, id, kind, ref, wage);
    }
  }

  function findEmployee(venue: string, id: RecordIdentifier): Employee | null {
    const row =
      id.kind === 'guid' ? staffById.get(venue, id.guid) : staffByRef.get(id.externalId, venue);
    return row === undefined ? none : toEmployee(row as StaffRow);
  }

  // Shifts ------------------------------------------------------------------------------------

  const shiftById = db.prepare('SELECT * FROM roster_shifts WHERE venue_id = ? AND shift_id = ?');
  const shiftByRef = db.prepare(
    'SELECT * FROM roster_shifts WHERE venue_id = ? AND scheduler_ref = ?',
  );
  const shiftValues = `@shift_id, @venue_id, @scheduler_ref, @job_id, @job_kind, @job_ref,
    @worker_id, @worker_kind, @worker_ref, @starts_at, @ends_at, @has_clock_window,
    @clock_window_id, @early_in_minutes, @late_in_minutes, @early_out_minutes, @late_out_minutes,
    @removed, @removed_at, @created_at, @modified_at`;
  const insertShift = db.prepare(`INSERT INTO roster_shifts VALUES (${shiftValues}, 1)`);
  const updateShift = db.prepare(`UPDATE roster_shifts SET job_id = @job_id, job_kind = @job_kind,
    job_ref = @job_ref, worker_id = @worker_id, worker_kind = @worker_kind, worker_ref = @worker_ref,
    starts_at = @starts_at, ends_at = @ends_at, has_clock_window = @has_clock_window,
    clock_window_id = @clock_window_id, early_in_minutes = @early_in_minutes,
    late_in_minutes = @late_in_minutes, early_out_minutes = @early_out_minutes,
    late_out_minutes = @late_out_minutes, removed = @removed, removed_at = @removed_at,
    modified_at = @modified_at, row_version = row_version + 1
    WHERE shift_id = @shift_id AND venue_id = @venue_id${
      bugs.has('shift-no-version-check') ? '' : ' AND row_version = @expected_version'
    }`);

  function toShift(row: ShiftRow): Shift {
    const jobReference = reference(row.job_id, row.job_kind, row.job_ref);
    const employeeReference = reference(row.worker_id, row.worker_kind, row.worker_ref);
    const scheduleConfig = present({
      guid: row.clock_window_id,
      minBeforeClockIn: row.early_in_minutes,
      minAfterClockIn: row.late_in_minutes,
      minBeforeClockOut: row.early_out_minutes,
      minAfterClockOut: row.late_out_minutes,
    });
    return {
      restaurantGuid: row.venue_id,
      guid: row.shift_id,
      version: row.row_version,
      createdDate: row.created_at,
      modifiedDate: row.modified_at,
      ...present({ externalId: row.scheduler_ref, inDate: row.starts_at, outDate: row.ends_at }),
      ...(jobReference === undefined ? {} : { jobReference }),
      ...(employeeReference === undefined ? {} : { employeeReference }),
      ...(row.has_clock_window === 1 ? { scheduleConfig } : {}),
      ...(row.removed === 1 ? { deleted: true, deletedDate: row.removed_at } : { deleted: false }),
    } as Shift;
  }

  function shiftColumns(shift: Shift) {
    const job = referenceColumns(shift.jobReference);
    const worker = referenceColumns(shift.employeeReference);
    const window = shift.scheduleConfig;
    return {
      shift_id: shift.guid,
      venue_id: shift.restaurantGuid,
      scheduler_ref: shift.externalId ?? null,
      job_id: job.id,
      job_kind: job.kind,
      job_ref: job.ref,
      worker_id: worker.id,
      worker_kind: worker.kind,
      worker_ref: worker.ref,
      starts_at: shift.inDate ?? null,
      ends_at: shift.outDate ?? null,
      has_clock_window: window === undefined ? 0 : 1,
      clock_window_id: window?.guid ?? null,
      early_in_minutes: window?.minBeforeClockIn ?? null,
      late_in_minutes: window?.minAfterClockIn ?? null,
      early_out_minutes: window?.minBeforeClockOut ?? null,
      late_out_minutes: window?.minAfterClockOut ?? null,
      removed: shift.deleted ? 1 : 0,
      removed_at: shift.deletedDate ?? null,
      created_at: shift.createdDate,
      modified_at: shift.modifiedDate,
    };
  }

  function findShift(venue: string, id: RecordIdentifier): Shift | null {
    const row =
      id.kind === 'guid' ? shiftById.get(venue, id.guid) : shiftByRef.get(venue, id.externalId);
    return row === undefined ? none : toShift(row as ShiftRow);
  }

  // Events, venues, seeding -------------------------------------------------------------------

  const insertEvent = db.prepare('INSERT INTO outbox (venue_id, event) VALUES (?, ?)');
  const allEvents = db.prepare('SELECT event FROM outbox ORDER BY seq');
  const venueEvents = db.prepare('SELECT event FROM outbox WHERE venue_id = ? ORDER BY seq');
  const venueById = db.prepare('SELECT profile FROM venues WHERE venue_id = ?');
  const insertVenue = db.prepare('INSERT INTO venues VALUES (?, ?)');
  const rowsHeld = db.prepare(
    'SELECT (SELECT count(*) FROM venues) + (SELECT count(*) FROM staff) + (SELECT count(*) FROM roster_shifts) AS n',
  );

  function putEvents(events: readonly RecordedEvent[]): void {
    for (const event of events) insertEvent.run(event.restaurantGuid, JSON.stringify(event));
  }

  /**
   * The compare-and-set of both kinds, in one transaction: the row of the record's restaurant at
   * the version read, its identity unchanged; then the UPDATE (conditional on the version too),
   * the record's other rows and the events. Returns the record as now stored.
   */
  function compareAndSet<T extends Employee | Shift>(
    change: ConditionalWrite<T>,
    checksVersion: boolean,
    current: (
      venue: string,
      guid: string,
    ) => { readonly row_version: number; readonly ref: string | null } | undefined,
    update: () => number,
    rest: () => void,
    reread: () => T | null,
  ): Result<T, VersionConflict | IdentityChangeRefused> {
    const { record, expectedVersion } = change;
    const row = current(record.restaurantGuid, record.guid);
    if (row === undefined || (checksVersion && row.row_version !== expectedVersion)) {
      return err(versionConflict(record.guid, expectedVersion));
    }
    if ((row.ref ?? undefined) !== record.externalId)
      return err(identityChangeRefused(record.guid));
    if (update() !== 1) return err(versionConflict(record.guid, expectedVersion));
    rest();
    putEvents(change.events);
    const stored = reread();
    return stored === null ? err(versionConflict(record.guid, expectedVersion)) : ok(stored);
  }

  const writeEmployee = db.transaction((change: ConditionalWrite<Employee>) =>
    compareAndSet(
      change,
      !bugs.has('no-version-check'),
      (venue, guid) => {
        const row = staffById.get(venue, guid) as StaffRow | undefined;
        return row && { row_version: row.row_version, ref: row.payroll_ref };
      },
      () =>
        updateStaff.run({
          ...staffColumns(change.record),
          expected_version: change.expectedVersion,
        }).changes,
      () => putLists(change.record),
      () => findEmployee(change.record.restaurantGuid, { kind: 'guid', guid: change.record.guid }),
    ),
  );

  const writeShift = db.transaction((change: ConditionalWrite<Shift>) =>
    compareAndSet(
      change,
      !bugs.has('shift-no-version-check'),
      (venue, guid) => {
        const row = shiftById.get(venue, guid) as ShiftRow | undefined;
        return row && { row_version: row.row_version, ref: row.scheduler_ref };
      },
      () =>
        updateShift.run({
          ...shiftColumns(change.record),
          expected_version: change.expectedVersion,
        }).changes,
      () => {},
      () => findShift(change.record.restaurantGuid, { kind: 'guid', guid: change.record.guid }),
    ),
  );

  const seed = db.transaction((records: SeedRecords) => {
    if ((rowsHeld.get() as { n: number }).n > 0) return { seeded: false };
    for (const restaurant of records.restaurants) {
      insertVenue.run(restaurant.guid, JSON.stringify(restaurant));
    }
    for (const employee of records.employees) {
      insertStaff.run(staffColumns(employee));
      putLists(employee);
    }
    for (const shift of records.shifts) insertShift.run(shiftColumns(shift));
    return { seeded: true };
  });

  return {
    employees: {
      find: (venue, id) => attempt('employees.find', () => ok(findEmployee(venue, id))),
      write: (change) => attempt('employees.write', () => writeEmployee(change)),
    },
    shifts: {
      find: (venue, id) => attempt('shifts.find', () => ok(findShift(venue, id))),
      write: (change) => attempt('shifts.write', () => writeShift(change)),
    },
    restaurants: {
      findByGuid: (guid) =>
        attempt('restaurants.findByGuid', () => {
          const row = venueById.get(guid) as { profile: string } | undefined;
          return ok(row === undefined ? none : (JSON.parse(row.profile) as Restaurant));
        }),
    },
    events: {
      list: (venue) =>
        attempt('events.list', () => {
          const rows = (venue === undefined ? allEvents.all() : venueEvents.all(venue)) as {
            event: string;
          }[];
          return ok(rows.map((row) => JSON.parse(row.event) as RecordedEvent));
        }),
    },
    seed: (records) => attempt('seed', () => ok(seed(records))),
    ping: () =>
      attempt('ping', () => {
        pingQuery.get();
        return ok(undefined);
      }),
    close: async () => {
      db.close();
    },
  };
}
