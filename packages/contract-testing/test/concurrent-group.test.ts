// The concurrent group as the target sees it, and its failures as a user reads them. Against the
// reference router over the memory store, answering each change a few milliseconds later (a
// target's latency, so that requests sent at once are under way at once), the server's own log
// shows what a case sends: 2 to 4 branches, each on a connection of its own besides the main one
// (the prefix's and the suffix's), released together and under way at once, each branch's calls
// back to back; and collisions on the same records in every combination (the same call twice,
// archive against unarchive, GUID against external id). Against race mutants of the mutation
// suite: a failure shrinks to the smallest history, even for a race that shows only some of the
// times it is sent (each shrinking candidate is sent a few times), and the report says why no
// order fits, with a timeline, the curl commands of each branch and the seed.
import { performance } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { prepareContract, runProperties, runSettingsOf } from '../src/check-api-contract.js';
import { checkApiContract, type PropertyResult } from '../src/index.js';
import { MUTANTS } from './support/mutants.js';
import { AUTH, type BreakHooks, demoSeedJson, routerTarget } from './support/router-target.js';

interface Seen {
  readonly run: number;
  readonly socket: number;
  readonly method: string;
  /** The record named, by GUID, and whether by external id. */
  readonly record: string;
  readonly byExternalId: boolean;
  readonly arrived: number;
  finished: number;
}

const seed = demoSeedJson as {
  employees: { guid: string; externalId?: string }[];
  shifts: { guid: string; externalId?: string }[];
};
const byExternalId = new Map(
  [...seed.employees, ...seed.shifts].flatMap((r) =>
    r.externalId === undefined ? [] : [[r.externalId, r.guid] as const],
  ),
);

/** Middleware that logs each request with its socket, and holds each change `delayMs` before the router. */
function logging(log: Seen[], run: () => number, delayMs: number): RequestHandler {
  const sockets = new WeakMap<object, number>();
  let opened = 0;
  return (req, res, next) => {
    const id = decodeURIComponent(
      /^\/labor\/v1\/(?:employees|shifts)\/([^/]+)/.exec(req.path)?.[1] ?? '',
    );
    let socket = sockets.get(req.socket);
    if (socket === undefined) {
      socket = ++opened;
      sockets.set(req.socket, socket);
    }
    const seen: Seen = {
      run: run(),
      socket,
      method: req.method,
      record: byExternalId.get(id) ?? id,
      byExternalId: byExternalId.has(id),
      arrived: performance.now(),
      finished: Number.POSITIVE_INFINITY,
    };
    log.push(seen);
    res.once('finish', () => {
      seen.finished = performance.now();
    });
    setTimeout(next, delayMs);
  };
}

describe('a run of the concurrent group, as the target sees it', () => {
  it('sends each case as a prefix, 2 to 4 branches on connections of their own, under way at once, and a suffix', async () => {
    const log: Seen[] = [];
    let run = 0;
    const hooks: BreakHooks = { before: [logging(log, () => run, 3)] };
    const target = await routerTarget(hooks);
    const report = await checkApiContract({
      target: {
        handler: target.handler,
        reset: () => {
          run++;
          target.reset();
        },
      },
      seed: demoSeedJson,
      auth: AUTH,
      only: ['concurrent'],
      runs: 40,
      rngSeed: 7,
    });
    expect(report.results.map((r) => [r.name, r.status])).toEqual([['concurrent.races', 'passed']]);

    // The main connection: the one the first case's last request came on (its suffix).
    const main = log.filter((s) => s.run === 1).at(-1)?.socket;
    const branchCounts = new Set<number>();
    const collisions = new Set<string>();
    for (let r = 1; r <= run; r++) {
      const calls = log.filter((s) => s.run === r);
      const branches = calls.filter((s) => s.socket !== main);
      const sockets = [...new Set(branches.map((s) => s.socket))];
      branchCounts.add(sockets.length);
      expect(sockets.length).toBeGreaterThanOrEqual(2);
      expect(sockets.length).toBeLessThanOrEqual(4);
      // The prefix before every branch call, the suffix after: on the main connection.
      const first = Math.min(...branches.map((s) => s.arrived));
      const last = Math.max(...branches.map((s) => s.finished));
      for (const s of calls.filter((c) => c.socket === main)) {
        expect(s.finished <= first || s.arrived >= last).toBe(true);
      }
      // Released together: each branch's first call arrived before any branch call was answered.
      const firsts = sockets.map((socket) => branches.find((s) => s.socket === socket) as Seen);
      const answered = Math.min(...branches.map((s) => s.finished));
      for (const s of firsts) expect(s.arrived).toBeLessThan(answered);
      // Back to back on each connection: one call under way at a time.
      for (const socket of sockets) {
        const own = branches.filter((s) => s.socket === socket);
        for (const [i, s] of own.entries()) {
          if (i > 0) expect(s.arrived).toBeGreaterThanOrEqual((own[i - 1] as Seen).finished);
        }
      }
      for (const [i, a] of branches.entries()) {
        for (const b of branches.slice(i + 1)) {
          if (a.socket === b.socket || a.record !== b.record) continue;
          if (a.method === b.method && a.byExternalId === b.byExternalId)
            collisions.add('same call');
          if (a.method !== b.method) collisions.add('archive and unarchive');
          if (a.method === b.method && a.byExternalId !== b.byExternalId)
            collisions.add('GUID and external id');
        }
      }
    }
    expect(run).toBe(40);
    expect([...branchCounts].sort()).toEqual([2, 3, 4]);
    expect([...collisions].sort()).toEqual([
      'GUID and external id',
      'archive and unarchive',
      'same call',
    ]);
  });

  it('is on by default, last', async () => {
    const target = await routerTarget();
    const prepared = await prepareContract({
      target: target.handler,
      seed: demoSeedJson,
      auth: AUTH,
    });
    try {
      expect(prepared.properties.at(-1)?.name).toBe('concurrent.races');
    } finally {
      await prepared.close();
    }
  });
});

/**
 * The concurrent property's result against the router broken by `hooks`, seeded `rngSeed`;
 * `onReset` hears each reset of the target (each case, each time it is sent).
 */
async function racesAgainst(
  hooks: BreakHooks,
  rngSeed: number,
  onReset: () => void = () => {},
): Promise<PropertyResult> {
  const target = await routerTarget(hooks);
  const options = {
    target: {
      handler: target.handler,
      reset: () => {
        onReset();
        target.reset();
      },
    },
    seed: demoSeedJson,
    auth: AUTH,
    only: ['concurrent' as const],
    rngSeed,
    shrinkTimeLimitMs: 60_000,
  };
  const prepared = await prepareContract(options);
  try {
    const [result] = await runProperties(prepared, runSettingsOf(options));
    return result as PropertyResult;
  } finally {
    await prepared.close();
  }
}

describe('a race found', () => {
  const mutant = MUTANTS.find((m) => m.name === 'overlapping-unarchives-both-200');
  if (mutant === undefined) throw new Error('no mutant overlapping-unarchives-both-200');

  it('shrinks to the smallest history and says why no order fits, with a timeline, each branch’s curl commands and the seed', async () => {
    const result = await racesAgainst(mutant.hooks, 3);
    expect(result.status).toBe('failed');
    expect(result.rule).toBe('linearizable');
    expect(result.reproduced).toBe(true);
    const race = result.race;
    if (race === undefined) throw new Error('no race report');
    expect(race.branches).toBe(2);
    const branchCalls = race.calls.filter((c) => c.phase === 'branch');
    expect(
      branchCalls.map((c) => [c.lane, c.call.split(' of ')[0], c.outcome.split(' ')[0]]),
    ).toEqual([
      [1, 'unarchive', '200'],
      [2, 'unarchive', '200'],
    ]);
    expect(race.calls.filter((c) => c.phase === 'prefix')).toEqual([]);
    expect(branchCalls.every((c) => c.marked)).toBe(true);
    expect(race.summary).toMatch(
      /^two unarchives of employee \S+ \(PAYROLL:10042\), #1 unarchive \(branch A\) and #2 unarchive \(branch B\), both answered 200: in any order, the second finds the employee not archived and must answer 400 EMPLOYEE_NOT_ARCHIVED$/,
    );
    for (const call of race.calls) expect(call.answeredMs).toBeGreaterThan(call.sentMs);
    const message = result.message ?? '';
    expect(message).toContain(race.summary);
    expect(message).toMatch(/\n {8}ms {2}prefix and suffix {5}branch A {14}branch B\n/);
    expect(message).toMatch(/◀ #1 200 ✘/);
    const replay = result.replay ?? [];
    expect(replay).toContain('# The branches, sent at once, each on its own connection:');
    expect(replay.filter((line) => /^} & {2}# branch [AB]$/.test(line))).toHaveLength(2);
    expect(
      replay.filter((line) => line.startsWith('  curl ') && line.includes('/unarchive')),
    ).toHaveLength(2);
    expect(result.seed).toBeTypeOf('number');
    expect(result.counterexample).toMatch(
      /^\[prefix: nothing; branch A: unarchive 6a2b9c4d; branch B: unarchive 6a2b9c4d; suffix: /,
    );
  });

  it('shrinks a race that shows once in three times a case is sent as far (each candidate is sent three times)', async () => {
    // The mutant's store on one case in three, the correct one on the others. Sent once each,
    // two candidates in three would seem to pass, and this seed's shrinking would stop early.
    let sent = 0;
    const broken = mutant.hooks.store;
    if (broken === undefined) throw new Error('a store mutant');
    const hooks: BreakHooks = {
      store: (base, records) => {
        const mutated = broken(base, records);
        return {
          ...base,
          employees: {
            find: (restaurant, id) => mutated.employees.find(restaurant, id),
            write: (change) =>
              sent % 3 !== 0 ? base.employees.write(change) : mutated.employees.write(change),
          },
        };
      },
    };
    const result = await racesAgainst(hooks, 4, () => sent++);
    expect(result.status).toBe('failed');
    expect(result.counterexample).toMatch(
      /^\[prefix: nothing; branch A: unarchive 6a2b9c4d; branch B: unarchive 6a2b9c4d; suffix: /,
    );
  });
});
