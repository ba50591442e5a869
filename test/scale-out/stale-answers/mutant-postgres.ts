// A mutant of @workforce-kit/postgres, for test/scale-out/kept-records.test.ts only: the real
// package, but with stale answers switched on (SIGUSR2 switches them on and off), its store hides
// from the use cases that it answered a read before a change from the records it keeps. The use
// cases then take a kept record for the record as it stands, and answer a no-op or a refusal from
// it even when another process has changed the record since. Off, the store is the real one.
import type { ChangeRead, RecordIdentifier, WorkforceStore } from '@workforce-kit/core';
import {
  type PostgresStoreOptions,
  createPostgresStore as realStore,
} from '../../../packages/postgres/src/index.js';

export * from '../../../packages/postgres/src/index.js';

let stale = false;
process.on('SIGUSR2', () => {
  stale = !stale;
  process.stderr.write(`stale answers ${stale ? 'on' : 'off'}\n`);
});

/** A ChangeRead's copy, which the store marks in its place, when stale answers are on. */
const hidden = (id: RecordIdentifier): RecordIdentifier =>
  stale && 'fromCache' in id ? { ...(id as ChangeRead) } : id;

export async function createPostgresStore(options: PostgresStoreOptions): Promise<WorkforceStore> {
  const store = await realStore(options);
  const { employees, shifts } = store;
  return {
    ...store,
    employees: { ...employees, find: (restaurant, id) => employees.find(restaurant, hidden(id)) },
    shifts: { ...shifts, find: (restaurant, id) => shifts.find(restaurant, hidden(id)) },
  };
}
