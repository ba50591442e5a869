// What a PostgreSQL server did for a measured run of a row with a database (issue 42): the
// statements its database ran (pg_stat_statements, loaded at the server's start: each statement's
// calls and execution time; a function call is one top-level statement) and the CPU time of the
// server's processes (the postmaster, its live children, and the children it has reaped), read
// before and after the run, as the bench reads the row's own server's CPU.
import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';

/** One statement's totals so far. */
interface StatementTotals {
  readonly query: string;
  readonly calls: number;
  readonly execMs: number;
}

/** A database's statements and its server's CPU at one moment. */
export interface DatabaseSnapshot {
  /** By pg_stat_statements' query id. */
  readonly statements: ReadonlyMap<string, StatementTotals>;
  /** The CPU time of every process of the PostgreSQL server so far, µs. */
  readonly cpuUs: number;
}

/** One statement's share of a run, per request sent. */
export interface StatementFigure {
  /** Its text, normalised by pg_stat_statements, cut to 120 characters. */
  readonly query: string;
  readonly callsPerRequest: number;
  /** Its execution time in the database per request, µs. */
  readonly execUsPerRequest: number;
  /** Its mean execution time per call, ms. */
  readonly meanMs: number;
}

/** What the database did in a run, per request sent. */
export interface DatabaseFigures {
  readonly statementsPerRequest: number;
  /** Of which those that name `workforce_kit_rate_limits` (the shared rate limits'). */
  readonly rateLimitStatementsPerRequest: number;
  /** The PostgreSQL server's CPU per request, µs (every process of it: the row alone runs). */
  readonly databaseCpuUs: number;
  /** The statements, the most time first. */
  readonly statements: readonly StatementFigure[];
}

/** The ticks of /proc/<pid>/stat after the command's name: utime, stime, cutime, cstime. */
async function processTicks(pid: number): Promise<{ ppid: number; own: number; reaped: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const field = (index: number) => Number(fields[index]);
  return { ppid: field(1), own: field(11) + field(12), reaped: field(13) + field(14) };
}

/** The postmaster of the server a connection is on: the parent of its backend. */
async function postmasterOf(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return (await processTicks(Number(rows[0]?.pid))).ppid;
}

/** The CPU time of a postmaster and all its processes, those it has reaped included, µs. */
async function serverCpuUs(postmaster: number): Promise<number> {
  const root = await processTicks(postmaster);
  let ticks = root.own + root.reaped;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const child = await processTicks(Number(entry));
      if (child.ppid === postmaster) ticks += child.own;
    } catch {
      // It ended meanwhile: its time is in the postmaster's reaped ticks.
    }
  }
  return (ticks / 100) * 1e6;
}

/** The statements the database of `databaseUrl` has run so far, and its server's CPU. */
export async function databaseSnapshot(databaseUrl: string): Promise<DatabaseSnapshot> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; query: string; calls: string; ms: number }>(
      `SELECT queryid::text AS id, query, calls::text AS calls, total_exec_time AS ms
       FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND query NOT LIKE '%pg_stat_statements%'`,
    );
    const statements = new Map<string, StatementTotals>();
    for (const row of rows) {
      statements.set(row.id, { query: row.query, calls: Number(row.calls), execMs: row.ms });
    }
    return { statements, cpuUs: await serverCpuUs(await postmasterOf(client)) };
  } finally {
    await client.end();
  }
}

/** What the database did between two snapshots, per request of the `sent` requests. */
export function databaseBetween(
  before: DatabaseSnapshot,
  after: DatabaseSnapshot,
  sent: number,
): DatabaseFigures {
  let all = 0;
  let rateLimits = 0;
  const statements: StatementFigure[] = [];
  for (const [id, { query, calls, execMs }] of after.statements) {
    const earlier = before.statements.get(id);
    const ran = calls - (earlier?.calls ?? 0);
    if (ran === 0) continue;
    const ms = execMs - (earlier?.execMs ?? 0);
    all += ran;
    if (query.includes('workforce_kit_rate_limits')) rateLimits += ran;
    statements.push({
      query: query.replace(/\s+/g, ' ').slice(0, 120),
      callsPerRequest: ran / sent,
      execUsPerRequest: (ms * 1000) / sent,
      meanMs: ms / ran,
    });
  }
  statements.sort((a, b) => b.execUsPerRequest - a.execUsPerRequest);
  return {
    statementsPerRequest: all / sent,
    rateLimitStatementsPerRequest: rateLimits / sent,
    databaseCpuUs: (after.cpuUs - before.cpuUs) / sent,
    statements,
  };
}
