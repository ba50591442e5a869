// What the outbox tests share: a seeded store over a fresh database, changes made through the
// core's use cases, and waits bounded by a condition.
import { randomUUID } from 'node:crypto';
import {
  archiveEmployee,
  deleteShift,
  type Employee,
  type Shift,
  unarchiveEmployee,
  type WorkforceStore,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  seedRecords,
} from '@workforce-kit/core/testing';
import pg from 'pg';
import { createPostgresStore, type DeliveryResult, type SqlClient } from '../src/index.js';

export const restaurant = aRestaurant();

export const delivered: DeliveryResult = { outcome: 'delivered' };

export interface Fixture {
  readonly pool: pg.Pool;
  readonly store: WorkforceStore;
  readonly employees: Employee[];
  readonly shifts: Shift[];
}

/** A store over `client`, seeded with `count` employees (half archived) and `count` shifts. */
export async function seededStore(
  client: SqlClient,
  count: number,
): Promise<Omit<Fixture, 'pool'>> {
  const store = await createPostgresStore({ client });
  const employees = Array.from({ length: count }, (_, i) =>
    i % 2 === 0 ? anArchivedEmployee(restaurant.guid) : anEmployee(restaurant.guid),
  );
  const shifts = Array.from({ length: count }, () => aShift(restaurant.guid));
  (await store.seed(seedRecords({ restaurants: [restaurant], employees, shifts })))._unsafeUnwrap();
  return { store, employees, shifts };
}

/**
 * A store over the database at `databaseUrl`, seeded by {@link seededStore}; its pool is ended by
 * `cleanups`.
 */
export async function outboxFixture(
  cleanups: (() => Promise<unknown>)[],
  databaseUrl: string,
  count = 4,
  poolOptions: pg.PoolConfig = {},
): Promise<Fixture> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 6, ...poolOptions });
  pool.on('error', () => {});
  cleanups.push(() => pool.end());
  return { pool, ...(await seededStore(pool, count)) };
}

const deps = (store: WorkforceStore) => ({
  employees: store.employees,
  shifts: store.shifts,
  clock: { now: () => new Date() },
  ids: { newId: () => randomUUID() },
});

/** Toggles an employee's archived state (archive or unarchive, whichever changes it). */
export async function toggle(store: WorkforceStore, employee: Employee): Promise<string> {
  const found = (
    await store.employees.find(restaurant.guid, { kind: 'guid', guid: employee.guid })
  )._unsafeUnwrap();
  const command = { restaurant: restaurant.guid, requestId: `req-${randomUUID()}` };
  const result = found?.deleted
    ? await unarchiveEmployee(deps(store), { ...command, employee: employee.guid })
    : await archiveEmployee(deps(store), {
        ...command,
        employee: { kind: 'guid', guid: employee.guid },
      });
  const [event] = result._unsafeUnwrap().events;
  if (event === undefined) throw new Error('no event');
  return event.eventId;
}

export async function removeShift(store: WorkforceStore, shift: Shift): Promise<string[]> {
  const result = await deleteShift(deps(store), {
    restaurant: restaurant.guid,
    shift: { kind: 'guid', guid: shift.guid },
    requestId: `req-${randomUUID()}`,
  });
  return result._unsafeUnwrap().events.map((event) => event.eventId);
}

/** Waits until `check` holds, looking every 20 ms; fails after `ms`. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  ms = 15_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The deliveries by state. */
export async function deliveryStates(client: SqlClient): Promise<Record<string, number>> {
  const { rows } = await client.query(
    'SELECT state, count(*)::int AS n FROM outbox_deliveries GROUP BY state',
  );
  return Object.fromEntries(
    (rows as { state: string; n: number }[]).map((row) => [row.state, Number(row.n)]),
  );
}
