import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { type Employee, type ExternalId, type Guid, unarchiveEmployee } from '@workforce-kit/core';
import { anArchivedEmployee, aRestaurant, seedRecords } from '@workforce-kit/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADVISORY_LOCK_KEY, createPostgresStore, loadMigrations, migrate } from '../src/index.js';
import { createDatabase, type PostgresServer, startPostgresServer } from '../src/testing/index.js';
import { POSTGRES_SERVERS } from './support.js';

describe('migrations', () => {
  it('and seeding share one advisory lock key', async () => {
    const files = await loadMigrations();
    const seedFunction = files.find((file) => file.sql.includes('workforce_kit_seed'));
    expect(seedFunction?.sql).toContain(`pg_advisory_xact_lock(${ADVISORY_LOCK_KEY})`);
  });
});

describe('PGlite on disk', () => {
  it('keeps the data across restarts', async () => {
    const dir = `/tmp/workforce-kit-pglite-${randomUUID()}`;
    const restaurant = aRestaurant();
    const employee = anArchivedEmployee(restaurant.guid);
    const first = await createPostgresStore({ client: await PGlite.create(dir), ownsClient: true });
    await first.seed(seedRecords({ restaurants: [restaurant], employees: [employee] }));
    const deps = {
      employees: first.employees,
      clock: { now: () => new Date() },
      ids: { newId: randomUUID },
    };
    await unarchiveEmployee(deps, {
      restaurant: restaurant.guid,
      employee: employee.guid,
      requestId: 'r',
    });
    await first.close();

    const second = await createPostgresStore({
      client: await PGlite.create(dir),
      ownsClient: true,
    });
    try {
      expect(
        (await second.seed(seedRecords({ restaurants: [aRestaurant()] })))._unsafeUnwrap(),
      ).toEqual({
        seeded: false,
      });
      const stored = (
        await second.employees.find(restaurant.guid, { kind: 'guid', guid: employee.guid })
      )._unsafeUnwrap();
      expect(stored).toMatchObject({ deleted: false, version: 2 });
      expect((await second.events.list())._unsafeUnwrap()).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});

for (const server of POSTGRES_SERVERS) {
  describe(`on ${server.name}`, () => {
    /** A new, empty database on the server, and its URL. */
    const freshDatabase = () => createDatabase(server.url);

    describe('migrations', () => {
      it('are versioned files applied in order, once, however often migrate runs', async () => {
        const pool = new pg.Pool({ connectionString: await freshDatabase() });
        try {
          await migrate(pool);
          await migrate(pool);
          const { rows } = await pool.query(
            'SELECT version, name FROM workforce_kit_migrations ORDER BY version',
          );
          const files = await loadMigrations();
          expect(rows).toEqual(files.map(({ version, name }) => ({ version, name })));
          expect(files.map((file) => file.version)).toEqual(files.map((_, i) => i + 1));
        } finally {
          await pool.end();
        }
      });

      it('apply once when eight processes start at the same time', async () => {
        const url = await freshDatabase();
        const pools = Array.from(
          { length: 8 },
          () => new pg.Pool({ connectionString: url, max: 1 }),
        );
        try {
          await Promise.all(pools.map((pool) => migrate(pool)));
          const { rows } = await (pools[0] as pg.Pool).query(
            'SELECT version, count(*)::int AS times FROM workforce_kit_migrations GROUP BY version ORDER BY version',
          );
          expect(rows.every((row: { times: number }) => row.times === 1)).toBe(true);
          expect(rows).toHaveLength((await loadMigrations()).length);
        } finally {
          await Promise.all(pools.map((pool) => pool.end()));
        }
      });
    });

    describe('seeding', () => {
      it('loads once when four processes seed an empty database at the same time', async () => {
        const url = await freshDatabase();
        const restaurant = aRestaurant();
        const seed = seedRecords({
          restaurants: [restaurant],
          employees: [anArchivedEmployee(restaurant.guid)],
        });
        const stores = await Promise.all(
          Array.from({ length: 4 }, () =>
            createPostgresStore({
              client: new pg.Pool({ connectionString: url, max: 1 }),
              ownsClient: true,
            }),
          ),
        );
        try {
          const outcomes = await Promise.all(stores.map((store) => store.seed(seed)));
          expect(
            outcomes.map((outcome) => outcome._unsafeUnwrap().seeded).filter(Boolean),
          ).toHaveLength(1);
          const pool = new pg.Pool({ connectionString: url });
          const { rows } = await pool.query('SELECT count(*)::int AS employees FROM employees');
          await pool.end();
          expect(rows[0]).toEqual({ employees: 1 });
        } finally {
          await Promise.all(stores.map((store) => store.close()));
        }
      });
    });

    describe('a PostgreSQL server that stops', () => {
      let stopping: PostgresServer;
      beforeAll(async () => {
        stopping = await startPostgresServer(server.options);
      });
      afterAll(async () => {
        await stopping.destroy();
      });

      it('makes calls fail with StorageUnavailable, quickly and without throwing, and recovers when back', async () => {
        const errors: unknown[] = [];
        const pool = new pg.Pool({
          connectionString: stopping.url,
          max: 4,
          connectionTimeoutMillis: 2000,
        });
        const store = await createPostgresStore({
          client: pool,
          ownsClient: true,
          onClientError: (e) => errors.push(e),
        });
        const restaurant = aRestaurant();
        const employee = anArchivedEmployee(restaurant.guid);
        await store.seed(seedRecords({ restaurants: [restaurant], employees: [employee] }));
        // Warm the pool, so that it holds connections the stop will cut.
        await Promise.all([1, 2, 3, 4].map(() => store.ping()));

        await stopping.stop();
        const started = Date.now();
        const down = await Promise.all([
          store.ping(),
          store.employees.find(restaurant.guid, { kind: 'guid', guid: employee.guid }),
          unarchiveEmployee(
            {
              employees: store.employees,
              clock: { now: () => new Date() },
              ids: { newId: randomUUID },
            },
            {
              restaurant: restaurant.guid,
              employee: employee.guid,
              requestId: 'during-outage',
            },
          ),
        ]);
        expect(Date.now() - started).toBeLessThan(5000);
        for (const result of down)
          expect(result._unsafeUnwrapErr().type).toBe('StorageUnavailable');

        await stopping.start();
        let back = await store.ping();
        for (let i = 0; i < 20 && back.isErr(); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          back = await store.ping();
        }
        expect(back.isOk()).toBe(true);
        // Nothing of the failed unarchive was written: the employee is archived, no event exists.
        expect(
          (
            await store.employees.find(restaurant.guid, { kind: 'guid', guid: employee.guid })
          )._unsafeUnwrap()?.deleted,
        ).toBe(true);
        expect((await store.events.list())._unsafeUnwrap()).toEqual([]);
        await store.close();
      }, 60_000);
    });

    describe('lookups that find nothing', () => {
      it("do the same work for another restaurant's record as for one that exists nowhere", async () => {
        // A timing probe must not tell the two apart: the same statement, one round trip, each.
        const pool = new pg.Pool({ connectionString: await freshDatabase(), max: 1 });
        const sent: { text: string; params: readonly unknown[] }[] = [];
        const recording = {
          query: (text: string, params: unknown[] = []) => {
            sent.push({ text, params });
            return pool.query(text, params);
          },
        };
        const store = await createPostgresStore({ client: recording });
        const mine = aRestaurant();
        const theirs = aRestaurant();
        const theirEmployee = anArchivedEmployee(theirs.guid, {
          externalId: 'PAYROLL:theirs' as Employee['externalId'] & string,
        });
        await store.seed(seedRecords({ restaurants: [mine, theirs], employees: [theirEmployee] }));
        try {
          const lookups = [
            { kind: 'guid', guid: theirEmployee.guid },
            { kind: 'guid', guid: randomUUID() as Guid },
            { kind: 'externalId', externalId: 'PAYROLL:theirs' as ExternalId },
            { kind: 'externalId', externalId: 'PAYROLL:nowhere' as ExternalId },
          ] as const;
          const statements = [];
          for (const id of lookups) {
            sent.length = 0;
            expect((await store.employees.find(mine.guid, id))._unsafeUnwrap()).toBeNull();
            statements.push(sent.map((call) => call.text));
          }
          expect(statements.map((texts) => texts.length)).toEqual([1, 1, 1, 1]);
          expect(statements[0]).toEqual(statements[1]);
          expect(statements[2]).toEqual(statements[3]);
        } finally {
          await store.close();
          await pool.end();
        }
      });
    });

    describe('named statements', () => {
      it('keep one name per text across stores that share a connection, in any order of first use', async () => {
        // One connection, so both stores' prepared statements live on it: a name given to two texts
        // there is refused by pg ("Prepared statements must be unique").
        const pool = new pg.Pool({ connectionString: await freshDatabase(), max: 1 });
        const first = await createPostgresStore({ client: pool, namedStatements: true });
        const second = await createPostgresStore({ client: pool, namedStatements: true });
        try {
          const restaurant = aRestaurant();
          const employee = anArchivedEmployee(restaurant.guid);
          await first.seed(seedRecords({ restaurants: [restaurant], employees: [employee] }));
          const byGuid = { kind: 'guid', guid: employee.guid } as const;
          // Each store's first statement of its own is a different one.
          expect((await second.employees.find(restaurant.guid, byGuid))._unsafeUnwrap()).toEqual(
            employee,
          );
          expect((await first.restaurants.findByGuid(restaurant.guid))._unsafeUnwrap()).toEqual(
            restaurant,
          );
          expect((await first.employees.find(restaurant.guid, byGuid))._unsafeUnwrap()).toEqual(
            employee,
          );
          expect((await second.restaurants.findByGuid(restaurant.guid))._unsafeUnwrap()).toEqual(
            restaurant,
          );
        } finally {
          await first.close();
          await second.close();
          await pool.end();
        }
      });
    });
  });
}
