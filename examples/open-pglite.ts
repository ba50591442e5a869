import { createPostgresStore, openPGlite } from '@workforce-kit/postgres';

const store = await createPostgresStore({
  client: await openPGlite('.data/pglite'),
  ownsClient: true,
});
// … serve with the store; at the end, close() closes PGlite, then releases the directory's lock
await store.close();
