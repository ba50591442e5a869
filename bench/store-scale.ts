// `pnpm --filter @workforce-kit/bench run scale`: per-operation latency of the PostgreSQL store at
// 10^3 and at 10^6 employees (and as many shifts, over one restaurant per thousand), through the
// core's use cases, one operation at a time. The bench starts its own PostgreSQL server (or uses
// DATABASE_URL's server) and seeds it in bulk with SQL. Results: a table on stdout and
// .bench-results/scale.json.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import {
  archiveEmployee,
  deleteShift,
  type ExternalId,
  type Guid,
  getRestaurant,
  type MaybeAsync,
  unarchiveEmployee,
  type WorkforceStore,
} from '@workforce-kit/core';
import { createPostgresStore } from '@workforce-kit/postgres';
import { createDatabase, startPostgresServer } from '@workforce-kit/postgres/testing';
import type { Result } from 'neverthrow';
import pg from 'pg';

const SIZES = (process.env.SCALE_SIZES ?? '1000,1000000').split(',').map(Number);
const OPERATIONS = Number(process.env.SCALE_OPERATIONS ?? 2000);

const server = process.env.DATABASE_URL === undefined ? await startPostgresServer() : undefined;
const serverUrl = process.env.DATABASE_URL ?? server?.url ?? '';

/** Deterministic GUIDs from numbers: md5 in SQL, the same md5 here. */
const guidSql = (expression: string) => `md5(${expression})::uuid`;

/** Seeds `size` employees and shifts, a restaurant per thousand, in three statements. */
async function seedInBulk(pool: pg.Pool, size: number): Promise<void> {
  const restaurants = Math.max(1, Math.floor(size / 1000));
  const now = new Date().toISOString();
  await pool.query(
    `INSERT INTO restaurants (guid, archived, data)
     SELECT ${guidSql("'r' || r")}, false,
            jsonb_build_object('guid', ${guidSql("'r' || r")}::text,
                               'general', jsonb_build_object('name', 'Restaurant ' || r, 'archived', false))
     FROM generate_series(1, $1::int) AS r`,
    [restaurants],
  );
  // Every employee number i belongs to restaurant 1 + (i % restaurants); even ones are archived.
  for (const table of ['employees', 'shifts'] as const) {
    const prefix = table === 'employees' ? 'e' : 's';
    const authority = table === 'employees' ? 'PAYROLL' : 'SCHEDULER';
    await pool.query(
      `INSERT INTO ${table} (restaurant_guid, guid, version, external_id, deleted, data)
       SELECT ${guidSql("'r' || (1 + i % $1::int)")}, ${guidSql(`'${prefix}' || i`)}, 1, '${authority}:' || i,
              ${table === 'employees' ? 'i % 2 = 0' : 'false'},
              jsonb_strip_nulls(jsonb_build_object(
                'restaurantGuid', ${guidSql("'r' || (1 + i % $1::int)")}::text,
                'guid', ${guidSql(`'${prefix}' || i`)}::text,
                'externalId', '${authority}:' || i,
                'createdDate', $3::text, 'modifiedDate', $3::text,
                'deleted', ${table === 'employees' ? 'i % 2 = 0' : 'false'},
                'deletedDate', ${table === 'employees' ? 'CASE WHEN i % 2 = 0 THEN $3::text END' : 'NULL'},
                ${table === 'employees' ? "'firstName', 'Employee ' || i" : "'inDate', $3::text"}))
       FROM generate_series(1, $2::int) AS i`,
      [restaurants, size, now],
    );
  }
  await pool.query('ANALYZE');
}

/** md5-derived GUID of a number, as the SQL above makes it. */
async function guidOf(pool: pg.Pool, key: string): Promise<Guid> {
  const { rows } = await pool.query(`SELECT ${guidSql('$1::text')}::text AS guid`, [key]);
  return (rows[0] as { guid: Guid }).guid;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

async function timed(
  samples: number[],
  operation: () => MaybeAsync<Result<unknown, unknown>>,
): Promise<void> {
  const started = performance.now();
  const result = await operation();
  samples.push(performance.now() - started);
  if (!result.isOk()) throw new Error('an operation failed');
}

const rows: { size: number; operation: string; p50Ms: number; p99Ms: number }[] = [];
try {
  for (const size of SIZES) {
    const url = await createDatabase(serverUrl);
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const store: WorkforceStore = await createPostgresStore({ client: pool });
    const seeded = performance.now();
    await seedInBulk(pool, size);
    console.log(
      `seeded ${size} employees and shifts in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
    );
    const restaurants = Math.max(1, Math.floor(size / 1000));
    const deps = { ...store, clock: { now: () => new Date() }, ids: { newId: randomUUID } };
    const samples: Record<string, number[]> = {
      getRestaurant: [],
      'unarchiveEmployee (then archive)': [],
      'deleteShift by GUID': [],
      'deleteShift by external id': [],
    };
    // Distinct records for each operation (a second delete of a shift would be a no-op), spread
    // over the whole table.
    const operations = Math.min(OPERATIONS, size / 2 - 1);
    for (let n = 0; n < operations; n++) {
      const i = 2 * (1 + Math.floor((n * (size / 2 - 1)) / operations));
      const context = await guidOf(pool, `r${1 + (i % restaurants)}`);
      await timed(samples.getRestaurant as number[], () =>
        getRestaurant(deps, { restaurant: context, requested: context, includeArchived: false }),
      );
      const employee = await guidOf(pool, `e${i}`);
      const command = { restaurant: context, requestId: `scale-${n}` };
      await timed(samples['unarchiveEmployee (then archive)'] as number[], () =>
        unarchiveEmployee(deps, { ...command, employee }),
      );
      (
        await archiveEmployee(deps, { ...command, employee: { kind: 'guid', guid: employee } })
      )._unsafeUnwrap();
      const byGuid = await guidOf(pool, `s${i}`);
      await timed(samples['deleteShift by GUID'] as number[], () =>
        deleteShift(deps, { ...command, shift: { kind: 'guid', guid: byGuid } }),
      );
      const other = i - 1;
      const otherContext = await guidOf(pool, `r${1 + (other % restaurants)}`);
      await timed(samples['deleteShift by external id'] as number[], () =>
        deleteShift(deps, {
          restaurant: otherContext,
          shift: { kind: 'externalId', externalId: `SCHEDULER:${other}` as ExternalId },
          requestId: `scale-${n}`,
        }),
      );
    }
    for (const [operation, values] of Object.entries(samples)) {
      const sorted = [...values].sort((a, b) => a - b);
      rows.push({
        size,
        operation,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
      });
    }
    await store.close();
    await pool.end();
  }
} finally {
  await server?.destroy();
}

console.log(
  `\nUp to ${OPERATIONS} operations of each kind per size, each on a record of its own, one at a time, through the use cases.\n`,
);
console.log('| employees | operation | p50 ms | p99 ms |');
console.log('|---|---|---|---|');
for (const row of rows) {
  console.log(
    `| ${row.size.toLocaleString('en-US')} | ${row.operation} | ${row.p50Ms.toFixed(2)} | ${row.p99Ms.toFixed(2)} |`,
  );
}
await mkdir(new URL('../.bench-results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('../.bench-results/scale.json', import.meta.url),
  JSON.stringify(rows, null, 2),
);
