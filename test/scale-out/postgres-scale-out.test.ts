// Scale-out on one PostgreSQL server: four reference-server processes taking the web frameworks in
// turn (HTTP_FRAMEWORK: Express, Fastify, node:http, Hono), concurrent changes of one record spread over them, an outage of the database under load, and a process killed mid-load.
// The database is checked directly: every record's version minus one equals its number of
// outbox events (each change is one version and one event, written together or not at all).
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExternalId } from '@workforce-kit/core';
import { anArchivedEmployee, anEmployee, aRestaurant, aShift } from '@workforce-kit/core/testing';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { aClient, aSeed, seedToJson } from '@workforce-kit/seed-file/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HTTP_FRAMEWORKS } from '../../packages/server/src/config.js';
import {
  devLogin,
  type ServerProcess,
  startReferenceServers,
} from '../support/reference-server.js';

const ROUNDS = 200;
const CONCURRENCY = 8;
/** The processes take the web frameworks in turn: every race mixes them. */
const PROCESSES = 4;
const REQUEST_TIMEOUT_MS = 3000;

const restaurant = aRestaurant();
const raceEmployees = Array.from({ length: ROUNDS }, () => anArchivedEmployee(restaurant.guid));
const raceShifts = Array.from({ length: ROUNDS }, (_, i) =>
  aShift(restaurant.guid, { externalId: `SCHEDULER:race-${i}` as ExternalId }),
);
const loadEmployees = Array.from({ length: 32 }, () => anEmployee(restaurant.guid));
const client = aClient([restaurant.guid]);

let database: PostgresServer;
let pool: pg.Pool;
let servers: ServerProcess[] = [];
let token = '';

function call(server: ServerProcess, method: string, path: string): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'platform-restaurant-external-id': restaurant.guid,
      ...(method === 'PUT' ? { 'content-type': 'application/json' } : {}),
    },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS * 3),
  });
}

const serverFor = (i: number) => servers[i % servers.length] as ServerProcess;

/** Resolves once `answers` holds `count` with `status`, from `from` on (a generous deadline). */
async function untilAnswered(answers: readonly Answer[], status: number, count: number, from = 0) {
  await vi.waitFor(
    () =>
      expect(
        answers.slice(from).filter((answer) => answer.status === status).length,
      ).toBeGreaterThanOrEqual(count),
    { timeout: 60_000, interval: 20 },
  );
}

/** Records whose version does not match their number of events: must be none. */
async function inconsistentRecords(): Promise<unknown[]> {
  const { rows } = await pool.query(`
    SELECT r.guid, r.version, count(o.event_id)::int AS events
    FROM (SELECT guid, version FROM employees UNION ALL SELECT guid, version FROM shifts) AS r
    LEFT JOIN outbox AS o ON o.subject_guid = r.guid
    GROUP BY r.guid, r.version
    HAVING r.version - 1 <> count(o.event_id)`);
  return rows;
}

beforeAll(async () => {
  database = await startPostgresServer();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => {});
  const seedFile = join(
    tmpdir(),
    `workforce-kit-scale-seed-${randomBytes(6).toString('hex')}.json`,
  );
  const seed = aSeed({
    restaurants: [restaurant],
    employees: [...raceEmployees, ...loadEmployees],
    shifts: raceShifts,
    clients: [client],
  });
  await writeFile(seedFile, JSON.stringify(seedToJson(seed)));
  const secret = randomBytes(32).toString('hex');
  // All processes start together: migrations and seeding must happen once.
  servers = await startReferenceServers(
    Array.from({ length: PROCESSES }, (_, i) => ({
      HTTP_FRAMEWORK: HTTP_FRAMEWORKS[i % HTTP_FRAMEWORKS.length] as string,
      STORE: 'postgres',
      DATABASE_URL: database.url,
      SEED_FILE: seedFile,
      AUTH_HS256_SECRET: secret,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_PER_15_MIN: '100000000',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    })),
  );
  token = await devLogin(serverFor(0).url, client);
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await pool?.end();
  await database?.destroy();
});

describe(`${PROCESSES} processes on one PostgreSQL server`, () => {
  it('runs on both web frameworks', () => {
    for (const [i, server] of servers.entries()) {
      expect(server.output()).toContain(
        `Framework      ${HTTP_FRAMEWORKS[i % HTTP_FRAMEWORKS.length]} `,
      );
    }
  });

  it('migrated and seeded the database once', async () => {
    const { rows: migrations } = await pool.query(
      'SELECT version, count(*)::int AS n FROM workforce_kit_migrations GROUP BY version',
    );
    expect(migrations.every((row: { n: number }) => row.n === 1)).toBe(true);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM employees');
    expect(rows[0]).toEqual({ n: raceEmployees.length + loadEmployees.length });
  });

  it(`lets exactly one of ${CONCURRENCY} concurrent unarchives win, every round of ${ROUNDS}, with one event each`, async () => {
    const outcomes: string[] = [];
    for (const [round, employee] of raceEmployees.entries()) {
      const statuses = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          call(
            serverFor(round + i),
            'PUT',
            `/labor/v1/employees/${employee.guid.toUpperCase()}/unarchive`,
          ).then(async (res) => {
            const body = (await res.json()) as { code?: string };
            return res.status === 200 ? '200' : `${res.status} ${body.code}`;
          }),
        ),
      );
      outcomes.push(statuses.sort().join(','));
    }
    const expected = ['200', ...Array(CONCURRENCY - 1).fill('400 EMPLOYEE_NOT_ARCHIVED')]
      .sort()
      .join(',');
    expect(outcomes.filter((outcome) => outcome !== expected)).toEqual([]);

    const { rows } = await pool.query(
      `SELECT subject_guid AS guid, count(*)::int AS events FROM outbox WHERE type = 'EmployeeUnarchived' GROUP BY subject_guid`,
    );
    expect(rows).toHaveLength(ROUNDS);
    expect(rows.every((row: { events: number }) => row.events === 1)).toBe(true);
    expect(await inconsistentRecords()).toEqual([]);
  }, 180_000);

  it(`lets all of ${CONCURRENCY} concurrent deletes of a shift succeed, every round, with one change and one event`, async () => {
    const problems: string[] = [];
    for (const [round, shift] of raceShifts.entries()) {
      const answers = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          call(
            serverFor(round + i),
            'DELETE',
            `/labor/v1/shifts/${i % 2 === 0 ? shift.guid : encodeURIComponent(shift.externalId ?? '')}`,
          ).then(async (res) => ({
            status: res.status,
            body: (await res.json()) as { deletedDate?: string },
          })),
        ),
      );
      if (answers.some((answer) => answer.status !== 200))
        problems.push(`round ${round}: ${answers.map((a) => a.status)}`);
      if (new Set(answers.map((answer) => answer.body.deletedDate)).size !== 1)
        problems.push(`round ${round}: two deletedDates`);
    }
    expect(problems).toEqual([]);
    const { rows } = await pool.query(
      `SELECT s.guid, s.version, count(o.event_id)::int AS events FROM shifts s
       LEFT JOIN outbox o ON o.subject_guid = s.guid AND o.type = 'ShiftDeleted' GROUP BY s.guid, s.version`,
    );
    expect(
      rows.every(
        (row: { version: number; events: number }) => row.version === 2 && row.events === 1,
      ),
    ).toBe(true);
    expect(await inconsistentRecords()).toEqual([]);
  }, 180_000);
});

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly code?: string;
}

/**
 * Archive/unarchive cycles over the load employees, until `stop()`: the answers so far (it goes on
 * adding to them), and all of them once every worker has stopped.
 */
function startLoad(): { readonly answers: readonly Answer[]; stop(): Promise<Answer[]> } {
  let running = true;
  const answers: Answer[] = [];
  const worker = async (w: number) => {
    const employee = loadEmployees[w] as (typeof loadEmployees)[number];
    for (let i = 0; running; i++) {
      const started = Date.now();
      const path =
        i % 2 === 0
          ? `/labor/v1/employees/${employee.guid}`
          : `/labor/v1/employees/${employee.guid}/unarchive`;
      try {
        const res = await call(serverFor(w + i), i % 2 === 0 ? 'DELETE' : 'PUT', path);
        const body = (await res.json()) as { code?: string };
        answers.push({
          status: res.status,
          ms: Date.now() - started,
          ...(body.code ? { code: body.code } : {}),
        });
      } catch {
        answers.push({ status: 0, ms: Date.now() - started });
      }
    }
  };
  const workers = Array.from({ length: 16 }, (_, w) => worker(w));
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(workers);
      return answers;
    },
  };
}

describe('the database stopping under load', () => {
  it('answers 503 within the request timeout, keeps every process up, and recovers without a restart', async () => {
    // Under load (changes answered), then the database stops: until every worker has met the
    // outage (as many 503s as workers, after the stop), and the requests in flight ended.
    const load = startLoad();
    await untilAnswered(load.answers, 200, 100);
    await database.stop();
    await untilAnswered(load.answers, 503, 16, load.answers.length);
    const during = await load.stop();

    const unavailable = during.filter((answer) => answer.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(
      unavailable.every(
        (answer) => answer.code === 'STORAGE_UNAVAILABLE' || answer.code === 'REQUEST_TIMEOUT',
      ),
    ).toBe(true);
    expect(
      during.filter(
        (answer) => answer.status === 0 || (answer.status >= 500 && answer.status !== 503),
      ),
    ).toEqual([]);
    expect(Math.max(...during.map((answer) => answer.ms))).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
    for (const server of servers) expect(server.process.exitCode).toBeNull();

    await database.start();
    const deadline = Date.now() + 60_000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      const res = await call(serverFor(0), 'GET', `/restaurants/v1/restaurants/${restaurant.guid}`);
      recovered = res.status === 200;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(recovered).toBe(true);
    const after = startLoad();
    await untilAnswered(after.answers, 200, 100);
    const answers = await after.stop();
    expect(answers.filter((answer) => answer.status >= 500 || answer.status === 0)).toEqual([]);
    expect(await inconsistentRecords()).toEqual([]);
  }, 120_000);
});

describe('a process killed mid-load', () => {
  it('leaves every record in its old or its new state, with the outbox matching the changes', async () => {
    // Killed under load (changes answered); the load goes on over the others (and is refused by
    // the killed one) for as many answers again.
    const load = startLoad();
    await untilAnswered(load.answers, 200, 100);
    const victim = servers[servers.length - 1] as ServerProcess;
    victim.process.kill('SIGKILL');
    await untilAnswered(load.answers, 200, 100, load.answers.length);
    await load.stop();
    servers = servers.filter((server) => server !== victim);

    expect(await inconsistentRecords()).toEqual([]);
    const { rows } = await pool.query(`
      SELECT count(*)::int AS broken FROM employees
      WHERE (data ->> 'deleted')::boolean IS DISTINCT FROM deleted
         OR deleted <> (data ? 'deletedDate')
         OR data ->> 'guid' <> guid::text`);
    expect(rows[0]).toEqual({ broken: 0 });
    const { rows: lastEvents } = await pool.query(`
      SELECT e.guid, e.deleted, (SELECT o.type FROM outbox o WHERE o.subject_guid = e.guid ORDER BY o.position DESC LIMIT 1) AS last
      FROM employees e WHERE e.version > 1`);
    for (const row of lastEvents as { deleted: boolean; last: string }[]) {
      expect(row.last).toBe(row.deleted ? 'EmployeeArchived' : 'EmployeeUnarchived');
    }
    for (const server of servers) expect(server.process.exitCode).toBeNull();
  }, 60_000);
});
