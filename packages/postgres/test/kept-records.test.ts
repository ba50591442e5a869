// The records a store on a PostgreSQL server keeps in process (issue 42): two stores over one
// database, as two processes are. A use case's read before a change (ChangeRead) is answered from
// what the store keeps, and said to be; any other read goes to the database. What the other store
// changed meanwhile is found out by the write's version check, whose statement gives the record
// back (no read), or, for a decision to write nothing, by a read of the record as it stands.
import { randomUUID } from 'node:crypto';
import {
  archiveEmployee,
  archive as archiveOf,
  type ChangeRead,
  type Employee,
  isThenable,
  unarchiveEmployee,
  type WorkforceStore,
} from '@workforce-kit/core';
import {
  aJobReference,
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  seedRecords,
} from '@workforce-kit/core/testing';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresStore, type SqlClient } from '../src/index.js';
import { createDatabase } from '../src/testing/index.js';
import { POSTGRES_SERVERS } from './support.js';

const restaurant = aRestaurant();
const clock = { now: () => new Date() };
const ids = { newId: () => randomUUID() };

/** A store over its own pool of `url`, and the statements it sends (reads and writes). */
async function processOn(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const statements: string[] = [];
  /** The values of each write of one change: its data, patch and fields removed among them. */
  const singleWrites: unknown[][] = [];
  const counted: SqlClient = {
    query: (text, params) => {
      statements.push(text);
      if (text.includes('workforce_kit_change_record(')) singleWrites.push(params ?? []);
      return pool.query(text, params);
    },
  };
  const store = await createPostgresStore({ client: counted });
  onTestFinished(async () => {
    await store.close();
    await pool.end();
  });
  const reads = () =>
    statements.filter((text) => text.startsWith('SELECT data, version FROM employees')).length;
  const writes = () =>
    statements.filter((text) => text.includes('workforce_kit_change_record')).length;
  return { store, statements, singleWrites, reads, writes };
}

type Process = Awaited<ReturnType<typeof processOn>>;

/** Two processes on a new database seeded with `employees`. */
async function twoProcesses(serverUrl: string, employees: Employee[]): Promise<[Process, Process]> {
  const url = await createDatabase(serverUrl);
  const first = await processOn(url);
  const second = await processOn(url);
  await first.store.seed(seedRecords({ restaurants: [restaurant], employees }));
  return [first, second];
}

const deps = (store: WorkforceStore) => ({ employees: store.employees, clock, ids });
const archive = (store: WorkforceStore, employee: Employee) =>
  archiveEmployee(deps(store), {
    restaurant: restaurant.guid,
    employee: { kind: 'guid', guid: employee.guid },
    requestId: randomUUID(),
  });
const unarchive = (store: WorkforceStore, employee: Employee) =>
  unarchiveEmployee(deps(store), {
    restaurant: restaurant.guid,
    employee: employee.guid,
    requestId: randomUUID(),
  });

async function eventsOf(store: WorkforceStore, employee: Employee): Promise<string[]> {
  const events = (await store.events.list(restaurant.guid))._unsafeUnwrap();
  return events
    .filter((event) => 'employeeGuid' in event && event.employeeGuid === employee.guid)
    .map((event) => event.type);
}

for (const server of POSTGRES_SERVERS) {
  describe(`records kept in process on ${server.name}`, () => {
    it('answer a read before a change at once, said to be kept; any other read goes to the database', async () => {
      const employee = anEmployee(restaurant.guid);
      const [first] = await twoProcesses(server.url, [employee]);
      const byGuid = { kind: 'guid', guid: employee.guid } as const;
      expect((await first.store.employees.find(restaurant.guid, byGuid))._unsafeUnwrap()).toEqual(
        employee,
      );
      const readsBefore = first.reads();

      const changeRead: ChangeRead = { ...byGuid, fromCache: false };
      const kept = first.store.employees.find(restaurant.guid, changeRead);
      expect(isThenable(kept)).toBe(false);
      expect((await kept)._unsafeUnwrap()).toEqual(employee);
      expect(changeRead.fromCache).toBe(true);
      expect(first.reads()).toBe(readsBefore);

      expect((await first.store.employees.find(restaurant.guid, byGuid))._unsafeUnwrap()).toEqual(
        employee,
      );
      expect(first.reads()).toBe(readsBefore + 1);
    });

    it('make a change one statement, a write', async () => {
      const employee = anEmployee(restaurant.guid);
      const [first] = await twoProcesses(server.url, [employee]);
      expect((await archive(first.store, employee)).isOk()).toBe(true);
      const [reads, writes] = [first.reads(), first.writes()];

      expect((await unarchive(first.store, employee))._unsafeUnwrap().record.version).toBe(3);
      expect((await archive(first.store, employee))._unsafeUnwrap().record.version).toBe(4);

      expect([first.reads() - reads, first.writes() - writes]).toEqual([0, 2]);
    });

    it('let a change send only what it changed of a record kept at its version', async () => {
      const employee = anEmployee(restaurant.guid, { jobReferences: [] });
      const [first, second] = await twoProcesses(server.url, [employee]);
      const byGuid = { kind: 'guid', guid: employee.guid } as const;
      const sent = () => {
        const [data, patch, removed] = first.singleWrites.at(-1)?.slice(6, 9) ?? [];
        return {
          whole: data !== null,
          patch: patch === null ? null : JSON.parse(String(patch)),
          removed,
        };
      };
      const stored = async () =>
        (await second.store.employees.find(restaurant.guid, byGuid))._unsafeUnwrap();

      // Written without a read, so not kept: whole.
      const archived = (
        await first.store.employees.write({
          record: archiveOf(employee, new Date()).record,
          expectedVersion: 1,
          events: [],
        })
      )._unsafeUnwrap();
      expect(sent()).toMatchObject({ whole: true });
      expect(await stored()).toEqual(archived);
      // Kept at its version: the fields set, and those dropped.
      const unarchived = (await unarchive(first.store, employee))._unsafeUnwrap().record;
      expect(sent()).toEqual({
        whole: false,
        patch: { deleted: false, modifiedDate: unarchived.modifiedDate },
        removed: ['deletedDate'],
      });
      expect(await stored()).toEqual(unarchived);
      const again = (await archive(first.store, employee))._unsafeUnwrap().record;
      expect(sent()).toEqual({
        whole: false,
        patch: { deleted: true, deletedDate: again.deletedDate, modifiedDate: again.modifiedDate },
        removed: [],
      });
      expect(await stored()).toEqual(again);
      // A list set: whole, since the list is the caller's.
      const jobs = [aJobReference()];
      const next: Employee = { ...again, jobReferences: jobs };
      const written = (
        await first.store.employees.write({ record: next, expectedVersion: 4, events: [] })
      )._unsafeUnwrap();
      expect(sent()).toMatchObject({ whole: true });
      expect(await stored()).toEqual({ ...next, version: 5 });
      expect(written).toEqual({ ...next, version: 5 });
      // And the store keeps its own copy, not the caller's list.
      jobs.push(aJobReference());
      const changeRead: ChangeRead = { ...byGuid, fromCache: false };
      const kept = (await first.store.employees.find(restaurant.guid, changeRead))._unsafeUnwrap();
      expect(changeRead.fromCache).toBe(true);
      expect(kept?.jobReferences).toHaveLength(1);
    });

    it('never answer a no-op or a refusal from what another process changed since', async () => {
      const live = anEmployee(restaurant.guid);
      const archived = anArchivedEmployee(restaurant.guid);
      const [first, second] = await twoProcesses(server.url, [live, archived]);
      // The first process keeps `live` archived and `archived` live; the second changes them back.
      expect((await archive(first.store, live)).isOk()).toBe(true);
      expect((await unarchive(first.store, archived)).isOk()).toBe(true);
      expect((await unarchive(second.store, live)).isOk()).toBe(true);
      expect((await archive(second.store, archived)).isOk()).toBe(true);

      // Kept archived, it stands live: the archive's no-op is read again, and the archive made.
      const archivedNow = (await archive(first.store, live))._unsafeUnwrap();
      expect(archivedNow.record).toMatchObject({ deleted: true, version: 4 });
      expect(archivedNow.events.map((event) => event.type)).toEqual(['EmployeeArchived']);
      // Kept live, it stands archived: the unarchive's refusal is read again, and it is made.
      const unarchivedNow = (await unarchive(first.store, archived))._unsafeUnwrap();
      expect(unarchivedNow.record).toMatchObject({ deleted: false, version: 4 });

      // And a refusal that the record as it stands confirms stands (read once more).
      const reads = first.reads();
      expect((await unarchive(first.store, archived))._unsafeUnwrapErr().type).toBe(
        'EmployeeNotArchived',
      );
      expect(first.reads()).toBe(reads + 1);
      expect(await eventsOf(first.store, live)).toEqual([
        'EmployeeArchived',
        'EmployeeUnarchived',
        'EmployeeArchived',
      ]);
      expect(await eventsOf(first.store, archived)).toEqual([
        'EmployeeUnarchived',
        'EmployeeArchived',
        'EmployeeUnarchived',
      ]);
    });

    it('learn what another process wrote from the write that lost to it, with no read', async () => {
      const employee = anArchivedEmployee(restaurant.guid);
      const [first, second] = await twoProcesses(server.url, [employee]);
      const byGuid = { kind: 'guid', guid: employee.guid } as const;
      expect((await first.store.employees.find(restaurant.guid, byGuid)).isOk()).toBe(true);
      // The second process unarchives and archives it again: version 3, archived.
      expect((await unarchive(second.store, employee)).isOk()).toBe(true);
      expect((await archive(second.store, employee)).isOk()).toBe(true);
      const [reads, writes] = [first.reads(), first.writes()];

      // The first decides from version 1, loses, keeps version 3 from its write, and wins.
      const result = (await unarchive(first.store, employee))._unsafeUnwrap();

      expect(result.record).toMatchObject({ deleted: false, version: 4 });
      expect([first.reads() - reads, first.writes() - writes]).toEqual([0, 2]);
      expect(await eventsOf(second.store, employee)).toEqual([
        'EmployeeUnarchived',
        'EmployeeArchived',
        'EmployeeUnarchived',
      ]);
    });
  });
}
