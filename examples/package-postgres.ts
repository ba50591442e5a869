import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { archiveEmployee, parseGuid } from '@workforce-kit/core';
import { createPostgresStore, openPGlite } from '@workforce-kit/postgres';
import { parseSeed } from '@workforce-kit/seed-file';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const MARIA = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';

// PGlite in a directory of its own (kept across restarts: here a new one, removed at the end),
// or a pg.Pool of a PostgreSQL server shared by many processes. The migrations are applied first.
const dir = await mkdtemp(join(tmpdir(), 'workforce-kit-example-'));
const store = await createPostgresStore({ client: await openPGlite(dir), ownsClient: true });
const seed = parseSeed(
  {
    restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }],
    employees: [{ restaurantGuid: HARBOR, guid: MARIA, firstName: 'Maria', deleted: false }],
  },
  new Date(),
)._unsafeUnwrap();
console.log('seeded:', (await store.seed(seed))._unsafeUnwrap().seeded);

// A change and its event are written in one transaction: the event is in the outbox.
const guid = (value: string) => parseGuid(value, 'guid')._unsafeUnwrap();
const deps = {
  employees: store.employees,
  clock: { now: () => new Date() },
  ids: { newId: () => crypto.randomUUID() },
};
const archived = await archiveEmployee(deps, {
  restaurant: guid(HARBOR),
  employee: { kind: 'guid', guid: guid(MARIA) },
  requestId: 'req-1',
});
console.log('archived:', archived._unsafeUnwrap().record.deleted);
const events = (await store.events.list())._unsafeUnwrap();
console.log('outbox:', events.map((event) => `${event.type} ${event.requestId}`).join());
await store.close(); // closes PGlite and releases the directory's lock
await rm(dir, { recursive: true });
