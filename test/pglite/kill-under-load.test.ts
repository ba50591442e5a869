// The reference server on one PGlite directory, started and stopped again and again under write
// load, with real processes and real signals: `npm start` stopped by SIGINT or SIGTERM to its
// whole process group (as a terminal's Ctrl-C does), by SIGKILL of that group (the launcher gone:
// the server stops by itself), and the server itself killed with SIGKILL or stopped with SIGTERM.
// Every start must open the directory and hold every change a client got a 200 for: the clients
// keep what they were told, and the first answers after each restart must agree with it; at the
// end the directory is opened directly and each employee's events and each shift are counted.
// Each cycle is stopped once it has acknowledged enough changes of both kinds, never after a set
// time: the employees' load (archive, unarchive) never runs out, and each cycle deletes shifts
// from a slice of its own, larger than it needs, so the shift load lasts up to the stop at any
// machine speed. Every process a test starts is killed, with all it started, when the test ends.
// Also: a second process on the directory is refused with one clear line, a port in use is one
// clear line and opens nothing, the lock is gone after a clean stop and left stale (and taken
// over at once) after SIGKILL, and one group signal is one graceful stop, logged.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Employee, Shift } from '@workforce-kit/core';
import { anArchivedEmployee, anEmployee, aRestaurant, aShift } from '@workforce-kit/core/testing';
import { LOCK_FILE_NAME, openPGlite } from '@workforce-kit/postgres';
import { aClient, aSeed, seedToJson } from '@workforce-kit/seed-file/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killTree, track } from '../support/processes.js';
import { signJwt } from '../support/sign-jwt.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'packages/server/dist/cli.js');
const SECRET = randomBytes(32).toString('hex');

const cycles = [
  { how: 'npm start', stop: 'SIGINT to the group' },
  { how: 'server', stop: 'SIGKILL' },
  { how: 'npm start', stop: 'SIGTERM to the group' },
  { how: 'npm start', stop: 'SIGKILL to the group' },
  { how: 'server', stop: 'SIGTERM' },
  { how: 'server', stop: 'SIGKILL' },
] as const;
/** A cycle is stopped once it has acknowledged this many changes of each kind. */
const STOP_AFTER = { employeeChanges: 200, shiftDeletes: 20 };
/**
 * The shifts each cycle deletes from: four times what it needs, so that shift deletes are still
 * under way at the stop (there are four employee workers for each shift worker).
 */
const SHIFTS_PER_CYCLE = STOP_AFTER.shiftDeletes * 4;

const restaurant = aRestaurant();
const employees: Employee[] = [
  ...Array.from({ length: 4 }, () => anArchivedEmployee(restaurant.guid)),
  ...Array.from({ length: 4 }, () => anEmployee(restaurant.guid)),
];
const shifts: Shift[] = Array.from({ length: cycles.length * SHIFTS_PER_CYCLE }, () =>
  aShift(restaurant.guid),
);
/** This file's folder: the seed file, and a PGlite directory of its own for each test. */
const work = mkdtempSync(join(tmpdir(), 'workforce-kit-kill-'));
const seedFile = join(work, 'seed.json');
const now = Math.floor(Date.now() / 1000);
const token = signJwt(
  {
    iss: 'workforce-kit-dev',
    sub: 'kill-test',
    scope: 'labor.employees:write labor.shifts:write restaurants:read',
    restaurants: [restaurant.guid],
    iat: now,
    exp: now + 3600,
  },
  SECRET,
);

const baseEnv = {
  ...process.env,
  PORT: '0',
  HOST: '127.0.0.1',
  SEED_FILE: seedFile,
  AUTH_HS256_SECRET: SECRET,
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_PER_15_MIN: '100000000',
  // Test-sized (10 s by default): a graceful stop closes the connections the load keeps busy
  // this long plus a second after the signal, which four of the cycles below wait out.
  REQUEST_TIMEOUT_MS: '3000',
  LOG_LEVEL: 'info',
};

interface Launched {
  readonly how: 'npm start' | 'server';
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  /** Resolves once the process and everything it started closed their output: all of it ended. */
  readonly ended: Promise<void>;
  hasEnded(): boolean;
  output(): string;
}

/** What the test running now launched: killed, with all they started, when it ends. */
const launched: Launched[] = [];

afterEach(async () => {
  for (const { how, child, ended, hasEnded, output } of launched.splice(0)) {
    if (hasEnded()) continue;
    // Not ended: the server still holds the output (npm start's inherits it from the launcher).
    if (child.exitCode === null && child.signalCode === null) killTree(child.pid);
    if (how === 'npm start' && /"pid":\d+/.test(output())) killTree(serverPid(output()));
    await ended;
  }
});

/**
 * `npm start` or the built server on the PGlite directory `dir`, each leading a process group of
 * its own.
 */
function launch(
  how: 'npm start' | 'server',
  dir: string,
  env: Record<string, string> = {},
): Launched {
  const child = track(
    how === 'npm start'
      ? spawn('npm', ['start'], {
          cwd: root,
          env: { ...baseEnv, PGLITE_DIR: dir, ...env },
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(process.execPath, [cli], {
          cwd: root,
          env: { ...baseEnv, PGLITE_DIR: dir, ...env },
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let hasEnded = false;
  const ended = new Promise<void>((resolve) =>
    child.once('close', () => {
      hasEnded = true;
      resolve();
    }),
  );
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${output}`)), 60_000);
    child.stdout?.on('data', () => {
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    void ended.then(() => {
      clearTimeout(timer);
      reject(new Error(`ended before listening:\n${output}`));
    });
  });
  url.catch(() => {});
  const started: Launched = {
    how,
    child,
    url,
    ended,
    hasEnded: () => hasEnded,
    output: () => output,
  };
  launched.push(started);
  return started;
}

/** The pid of the server process in the output of `npm start` (its log lines carry it). */
function serverPid(output: string): number {
  const found = /"pid":(\d+)/.exec(output);
  if (found?.[1] === undefined) throw new Error(`no log line with a pid:\n${output}`);
  return Number(found[1]);
}

/** What the clients were told, per employee: the 200s they got, and what they cannot know. */
interface EmployeeKnowledge {
  archived: boolean | undefined;
  acked: number;
  unknown: number;
}
const knowledge = new Map<string, EmployeeKnowledge>(
  employees.map((employee) => [
    employee.guid,
    { archived: employee.deleted, acked: 0, unknown: 0 },
  ]),
);
const deletedShifts = new Set<string>();
/** Answers that contradict an earlier 200: a change acknowledged, then lost. */
const contradictions: string[] = [];

async function call(url: string, method: string, path: string) {
  return fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'platform-restaurant-external-id': restaurant.guid,
      ...(method === 'PUT' ? { 'content-type': 'application/json' } : {}),
    },
    signal: AbortSignal.timeout(8000),
  });
}

/** Refused before anything was sent: the server is not listening (any more). */
const notSent = (error: unknown) =>
  ((error as { cause?: { code?: string } }).cause?.code ?? '') === 'ECONNREFUSED';

/** The changes one cycle's load got a 200 for. */
interface Acknowledged {
  employeeChanges: number;
  shiftDeletes: number;
}

/** The load on one server: its workers, until stopped, and what they were told. */
interface Load {
  readonly acknowledged: Acknowledged;
  /** Resolves once {@link STOP_AFTER} changes of each kind were acknowledged. */
  readonly enough: Promise<void>;
  stop(): Promise<void>;
}

async function employeeWorker(
  url: string,
  guid: string,
  running: () => boolean,
  acknowledged: () => void,
) {
  const known = knowledge.get(guid) as EmployeeKnowledge;
  while (running()) {
    const unarchive = known.archived !== false;
    try {
      const res = await call(
        url,
        unarchive ? 'PUT' : 'DELETE',
        `/labor/v1/employees/${guid}${unarchive ? '/unarchive' : ''}`,
      );
      const body = (await res.json()) as { code?: string };
      if (res.status === 200) {
        known.acked++;
        known.archived = !unarchive;
        acknowledged();
      } else if (res.status === 400 && body.code === 'EMPLOYEE_NOT_ARCHIVED') {
        // Only an unarchive is refused so (an archive, sent only when the employee is known to
        // be active, always changes it).
        if (known.archived !== undefined)
          contradictions.push(`${guid}: ${body.code} after a 200 that said otherwise`);
        known.archived = false;
      } else {
        // 503 while stopping, a request timeout: the change may or may not have happened.
        known.unknown++;
        known.archived = undefined;
      }
    } catch (error) {
      if (notSent(error)) return;
      known.unknown++;
      known.archived = undefined;
    }
  }
}

/** Deletes the shifts of `slice` that no other worker took, one at a time, until stopped. */
async function shiftWorker(
  url: string,
  slice: Shift[],
  running: () => boolean,
  acknowledged: () => void,
) {
  for (let shift = slice.shift(); shift !== undefined && running(); shift = slice.shift()) {
    try {
      const res = await call(url, 'DELETE', `/labor/v1/shifts/${shift.guid}`);
      await res.json();
      if (res.status === 200) {
        deletedShifts.add(shift.guid);
        acknowledged();
      }
    } catch (error) {
      if (notSent(error)) return;
    }
  }
}

/**
 * Unarchive/archive of every employee, over and over, and deletes of the shifts of `slice`, two at
 * a time, concurrently, until stopped.
 */
function startLoad(url: string, slice: readonly Shift[]): Load {
  let running = true;
  const acknowledged: Acknowledged = { employeeChanges: 0, shiftDeletes: 0 };
  let reached = () => {};
  const enough = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const check = () => {
    if (
      acknowledged.employeeChanges >= STOP_AFTER.employeeChanges &&
      acknowledged.shiftDeletes >= STOP_AFTER.shiftDeletes
    )
      reached();
  };
  const toDelete = [...slice];
  const workers = [
    ...employees.map((employee) =>
      employeeWorker(
        url,
        employee.guid,
        () => running,
        () => {
          acknowledged.employeeChanges++;
          check();
        },
      ),
    ),
    ...Array.from({ length: 2 }, () =>
      shiftWorker(
        url,
        toDelete,
        () => running,
        () => {
          acknowledged.shiftDeletes++;
          check();
        },
      ),
    ),
  ];
  return {
    acknowledged,
    enough,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/** Resolves as `promise` does, or rejects with `message()` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const graceful = (output: string) => ({
  shuttingDown: output.match(/"msg":"shutting down: finishing the requests in flight"/g)?.length,
  stopped: output.match(/"msg":"stopped"/g)?.length,
  forced: /second signal|stopped at once/.test(output),
});

beforeAll(() => {
  writeFileSync(
    seedFile,
    JSON.stringify(
      seedToJson(
        aSeed({
          restaurants: [restaurant],
          employees,
          shifts,
          clients: [aClient([restaurant.guid])],
        }),
      ),
    ),
  );
  // What npm start does before it starts the server: install and build, when anything changed.
  const build = track(
    spawn(process.execPath, ['scripts/npm-start.mjs', '--build-only'], {
      cwd: root,
      stdio: 'ignore',
    }),
  );
  return new Promise<void>((resolve, reject) =>
    build.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`npm start --build-only exited with ${code}`)),
    ),
  );
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the server on one PGlite directory, stopped and killed under write load', () => {
  it('refuses a second process on the directory and a port in use, each with one line, opening nothing', async () => {
    const dir = join(work, 'refused');
    const lockFile = join(dir, LOCK_FILE_NAME);
    const first = launch('server', dir);
    const url = await first.url;
    expect(existsSync(lockFile)).toBe(true);

    const second = launch('server', dir);
    await second.ended;
    expect(second.child.exitCode).toBe(2);
    expect(second.output().trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^workforce-kit cannot start: PGLITE_DIR ${dir} is in use by another process \\(pid ${first.child.pid}, .*\\); only one process at a time may open it\\. Stop that one first, or set PGLITE_DIR to another directory\\.$`,
        ),
      ),
    ]);

    const otherDir = join(work, 'refused-other');
    const samePort = launch('server', otherDir, { PORT: new URL(url).port });
    await samePort.ended;
    expect(samePort.child.exitCode).toBe(2);
    expect(samePort.output().trim().split('\n')).toEqual([
      `workforce-kit cannot start: PORT ${new URL(url).port} is already in use on 127.0.0.1 (by another workforce-kit, or another program): stop that one, or set PORT to a free port (PORT=0 takes any).`,
    ]);
    expect(existsSync(otherDir)).toBe(false);

    // The first one was not disturbed.
    expect((await call(url, 'GET', `/restaurants/v1/restaurants/${restaurant.guid}`)).status).toBe(
      200,
    );
    process.kill(first.child.pid as number, 'SIGTERM');
    await first.ended;
    expect(first.child.exitCode).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  }, 60_000);

  it(`reopens the directory after each of ${cycles.length} stops and kills, with every acknowledged change`, async () => {
    const dir = join(work, 'cycles');
    const lockFile = join(dir, LOCK_FILE_NAME);
    for (const [i, cycle] of cycles.entries()) {
      const started = launch(cycle.how, dir);
      const url = await started.url;
      const slice = shifts.slice(i * SHIFTS_PER_CYCLE, (i + 1) * SHIFTS_PER_CYCLE);
      const load = startLoad(url, slice);
      // Stopped as soon as this cycle acknowledged enough changes of both kinds, the load still
      // under way (a slow machine takes longer to get there, a fast one less).
      await within(
        load.enough,
        60_000,
        () =>
          `cycle ${i}: not enough acknowledged in 60 s: ${JSON.stringify(load.acknowledged)}\n${started.output().slice(-3000)}`,
      );
      const pid =
        cycle.how === 'server' ? (started.child.pid as number) : serverPid(started.output());
      const group = -(started.child.pid as number);
      if (cycle.stop === 'SIGINT to the group') process.kill(group, 'SIGINT');
      else if (cycle.stop === 'SIGTERM to the group') process.kill(group, 'SIGTERM');
      else if (cycle.stop === 'SIGKILL to the group') process.kill(group, 'SIGKILL');
      else process.kill(pid, cycle.stop);
      await started.ended;
      await load.stop();
      const context = `cycle ${i} (${cycle.how}, ${cycle.stop}):\n${started.output().slice(-3000)}`;
      expect(contradictions, context).toEqual([]);

      if (cycle.stop === 'SIGKILL') {
        // Left behind, naming a process that is gone: the next start takes it over at once.
        expect(JSON.parse(readFileSync(lockFile, 'utf8')).pid, context).toBe(pid);
      } else {
        // One graceful stop, logged: the launcher forwarded the group's signal once, or the
        // server saw the launcher go.
        expect(graceful(started.output()), context).toEqual({
          shuttingDown: 1,
          stopped: 1,
          forced: false,
        });
        if (cycle.stop === 'SIGKILL to the group')
          expect(started.output(), context).toContain('"signal":"launcher exited"');
        expect(existsSync(lockFile), context).toBe(false);
      }
    }

    // The directory, opened directly: every acknowledged change is there.
    const db = await openPGlite(dir);
    try {
      const { rows } = await db.query<{
        guid: string;
        version: number;
        deleted: boolean;
        events: number;
      }>(`
        SELECT e.guid::text, e.version, e.deleted,
               (SELECT count(*)::int FROM outbox o WHERE o.subject_guid = e.guid) AS events
        FROM employees e`);
      for (const row of rows) {
        const known = knowledge.get(row.guid) as EmployeeKnowledge;
        expect(row.events, row.guid).toBeGreaterThanOrEqual(known.acked);
        expect(row.events, row.guid).toBeLessThanOrEqual(known.acked + known.unknown);
        expect(row.version - 1, row.guid).toBe(row.events);
        if (known.archived !== undefined) expect(row.deleted, row.guid).toBe(known.archived);
      }
      const { rows: deleted } = await db.query<{ guid: string }>(
        'SELECT guid::text FROM shifts WHERE deleted',
      );
      const stored = new Set(deleted.map((row) => row.guid));
      expect([...deletedShifts].filter((guid) => !stored.has(guid))).toEqual([]);
    } finally {
      await db.close();
    }
    expect(existsSync(lockFile)).toBe(false);
  }, 600_000);

  it('says what to do with a directory PostgreSQL cannot start on, and leaves it unlocked', async () => {
    // A directory of its own, closed cleanly (unlocked).
    const damaged = join(work, 'damaged');
    await (await openPGlite(damaged)).close();
    // A write-ahead log gone: no checkpoint record to start from (as after two writers).
    for (const segment of readdirSync(join(damaged, 'pg_wal')).filter((name) => /^0/.test(name)))
      truncateSync(join(damaged, 'pg_wal', segment), 0);

    const again = launch('server', damaged);
    await again.ended;
    expect(again.child.exitCode).toBe(2);
    expect(again.output().trim().split('\n')).toEqual([
      `workforce-kit cannot start: PGLITE_DIR ${damaged} cannot be opened: PostgreSQL could not start on its data (Aborted(). Build with -sASSERTIONS for more info.). The data is damaged or from another PGlite version. To start afresh with the seed, move it aside (mv ${damaged} ${damaged}.damaged); to recover it, see "Recovering a PGlite directory" in docs/stores.md.`,
    ]);
    expect(existsSync(join(damaged, LOCK_FILE_NAME))).toBe(false);
  }, 60_000);
});
