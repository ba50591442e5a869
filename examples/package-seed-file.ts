import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
// What a seed file holds (JSON.parse of its text); every collection may be left out.
const json = {
  restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }],
  employees: [
    { restaurantGuid: HARBOR, guid: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d', deleted: true },
  ],
  clients: [
    {
      clientId: 'harbor-street-integration',
      clientSecret: 'a-secret-of-the-development-login',
      scopes: ['restaurants:read', 'labor.employees:write'],
      restaurants: [HARBOR],
    },
  ],
};

// Missing dates are the load time; the records are ready for any store's seed().
const seed = parseSeed(json, new Date());
if (seed.isOk()) {
  const { restaurants, employees, shifts, clients } = seed.value;
  console.log(restaurants.length, employees.length, shifts.length, clients.length);
  console.log('archived since load:', employees[0]?.deletedDate === employees[0]?.createdDate);
}

// A seed that does not match is refused as a whole, every bad entry named.
const bad = parseSeed({ employees: [{ guid: 'not-a-guid', deleted: 'no' }] }, new Date());
if (bad.isErr()) console.log(formatSeedIssues(bad.error));
