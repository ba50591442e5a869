import {
  createMemoryStore,
  type Employee,
  parseGuid,
  unarchiveEmployee,
} from '@workforce-kit/core';

// Identifiers are parsed where they arrive: a string is a `Guid` once parseGuid has checked it.
const guid = (value: string) => parseGuid(value, 'guid')._unsafeUnwrap();
const restaurant = guid('b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b');
const maria: Employee = {
  restaurantGuid: restaurant,
  guid: guid('6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d'),
  version: 1,
  createdDate: '2026-01-05T09:00:00.000Z',
  modifiedDate: '2026-02-01T09:00:00.000Z',
  firstName: 'Maria',
  deleted: true, // archived
  deletedDate: '2026-02-01T09:00:00.000Z',
};

const store = createMemoryStore({
  restaurants: [{ guid: restaurant, general: { name: 'Harbor Street Kitchen', archived: false } }],
  employees: [maria],
  shifts: [],
});
// The use cases take their ports first: a repository, the clock, the id source.
const deps = {
  employees: store.employees,
  clock: { now: () => new Date() },
  ids: { newId: () => crypto.randomUUID() },
};
const command = { restaurant, employee: maria.guid, requestId: 'req-1' };

const first = await unarchiveEmployee(deps, command);
if (first.isOk()) {
  const { record, events } = first.value;
  console.log('deleted:', record.deleted, 'events:', events.map((event) => event.type).join());
}
const second = await unarchiveEmployee(deps, command); // not archived any more: a domain error
if (second.isErr()) console.log('again:', second.error.type);
await store.close();
