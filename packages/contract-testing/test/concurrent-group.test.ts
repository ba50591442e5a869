// The concurrent group as the target and the kit see it, and its failures as a user reads them.
// Against the reference router over the memory store, the server's log (the order requests arrive
// in, and on which connection) and the kit's own sends show what a case is: 2 to 4 branches, each
// on a connection of its own besides the main one (the prefix's and the suffix's), released
// together (every branch's first call sent before any call is answered), each branch's calls back
// to back; and collisions on the same records in every combination (the same call twice, archive
// against unarchive, GUID against external id). That they are then under way at once is shown
// through a proxy, with servers in processes of their own (concurrent-no-false-alarms.test.ts).
// Against race mutants of the mutation suite: a failure shrinks to the smallest history, even for a race that shows only some of the
// times it is sent (each shrinking candidate is sent a few times), and the report says why no
// order fits, with a timeline, the curl commands of each branch and the seed.
import { performance } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareContract, runProperties, runSettingsOf } from '../src/check-api-contract.js';
import { formatResultLine, type PropertyResult } from '../src/index.js';
import { type PropertyDefinition, runProperty } from '../src/property-runner.js';
import { MUTANTS } from './support/mutants.js';
import { AUTH, type BreakHooks, demoSeedJson, routerTarget } from './support/router-target.js';

interface Seen {
  readonly run: number;
  readonly socket: number;
  readonly method: string;
  /** The record named, by GUID, and whether by external id. */
  readonly record: string;
  readonly byExternalId: boolean;
}

/** A request as the kit sent it: its branch (none for the prefix and suffix), sent and answered. */
interface Sent {
  readonly run: number;
  readonly branch: number | undefined;
  readonly sent: number;
  answered: number;
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

/** Middleware that logs each request, in the order they arrive, with the connection it came on. */
function logging(log: Seen[], run: () => number): RequestHandler {
  const sockets = new WeakMap<object, number>();
  let opened = 0;
  return (req, _res, next) => {
    const id = decodeURIComponent(
      /^\/labor\/v1\/(?:employees|shifts)\/([^/]+)/.exec(req.path)?.[1] ?? '',
    );
    let socket = sockets.get(req.socket);
    if (socket === undefined) {
      socket = ++opened;
      sockets.set(req.socket, socket);
    }
    log.push({
      run: run(),
      socket,
      method: req.method,
      record: byExternalId.get(id) ?? id,
      byExternalId: byExternalId.has(id),
    });
    next();
  };
}

describe('a run of the concurrent group', () => {
  it('sends each case as a prefix, 2 to 4 branches released together on connections of their own, and a suffix', async () => {
    const log: Seen[] = [];
    // The target is reset as the run starts, then before each case: case n is the nth after that.
    let run = -1;
    const target = await routerTarget({ before: [logging(log, () => run)] });
    const options = {
      target: {
        handler: target.handler,
        reset: () => {
          run++;
          target.reset();
        },
      },
      seed: demoSeedJson,
      auth: AUTH,
      only: ['concurrent' as const],
    };
    const prepared = await prepareContract(options);
    // The kit's own sends, timed where it makes them: when each request is handed to Node's HTTP
    // client, and when its answer is in.
    const sends: Sent[] = [];
    const { client } = prepared.engine;
    const sendOn = client.sendOn.bind(client);
    client.sendOn = async (agent, branch, req, onAnswer) => {
      const sent: Sent = { run, branch, sent: performance.now(), answered: Infinity };
      sends.push(sent);
      const res = await sendOn(agent, branch, req, onAnswer);
      sent.answered = performance.now();
      return res;
    };
    let results: PropertyResult[];
    try {
      results = await runProperties(prepared, { rngSeed: 7, runs: 40, shrinkTimeLimitMs: 0 });
    } finally {
      await prepared.close();
    }
    expect(results.map((r) => [r.name, r.status])).toEqual([['concurrent.races', 'passed']]);
    expect(run).toBe(40);

    // The main connection: the one the first case's last request came on (its suffix).
    const main = log.filter((s) => s.run === 1).at(-1)?.socket;
    const branchCounts = new Set<number>();
    const collisions = new Set<string>();
    for (let r = 1; r <= run; r++) {
      const calls = log.filter((s) => s.run === r);
      const onBranches = calls.filter((s) => s.socket !== main);
      const sockets = [...new Set(onBranches.map((s) => s.socket))];
      branchCounts.add(sockets.length);
      const kit = sends.filter((s) => s.run === r && s.branch !== undefined);
      expect(new Set(kit.map((s) => s.branch)).size).toBe(sockets.length);
      expect(sockets.length).toBeGreaterThanOrEqual(2);
      expect(sockets.length).toBeLessThanOrEqual(4);
      // The prefix arrived before any branch's call, the suffix after all of them.
      const at = (s: Seen) => log.indexOf(s);
      const first = Math.min(...onBranches.map(at));
      const last = Math.max(...onBranches.map(at));
      for (const s of calls.filter((c) => c.socket === main)) {
        expect(at(s) < first || at(s) > last).toBe(true);
      }
      // Released together: each branch's first call was sent before any call of the case was
      // answered; then each branch's calls went back to back, on its own connection.
      const answered = Math.min(...kit.map((s) => s.answered));
      for (const branch of new Set(kit.map((s) => s.branch))) {
        const own = kit.filter((s) => s.branch === branch);
        expect((own[0] as Sent).sent).toBeLessThan(answered);
        for (const [i, s] of own.entries()) {
          if (i > 0) expect(s.sent).toBeGreaterThanOrEqual((own[i - 1] as Sent).answered);
        }
      }
      for (const [i, a] of onBranches.entries()) {
        for (const b of onBranches.slice(i + 1)) {
          if (a.socket === b.socket || a.record !== b.record) continue;
          if (a.method === b.method && a.byExternalId === b.byExternalId)
            collisions.add('same call');
          if (a.method !== b.method) collisions.add('archive and unarchive');
          if (a.method === b.method && a.byExternalId !== b.byExternalId)
            collisions.add('GUID and external id');
        }
      }
    }
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
  runs?: number,
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
    ...(runs === undefined ? {} : { runs }),
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
    expect(branchCalls.map((c) => [c.lane, c.kind, c.answer?.status])).toEqual([
      [1, 'unarchive', 200],
      [2, 'unarchive', 200],
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
      /^\[prefix: nothing; branch A: PUT \/labor\/v1\/employees\/6a2b9c4d-[0-9a-f-]+\/unarchive; branch B: PUT \/labor\/v1\/employees\/6a2b9c4d-[0-9a-f-]+\/unarchive; suffix: /,
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
    // Whether a case that races meets the broken store depends on the resets before it and on
    // how the run's calls interleave, which the machine's load moves: up to 300 runs, so that one
    // still does (the run stops at its first failure, so a passing target alone pays for them).
    const result = await racesAgainst(hooks, 4, () => sent++, 300);
    expect(result.status).toBe('failed');
    expect(result.counterexample).toMatch(
      /^\[prefix: nothing; branch A: PUT \/labor\/v1\/employees\/6a2b9c4d-[0-9a-f-]+\/unarchive; branch B: PUT \/labor\/v1\/employees\/6a2b9c4d-[0-9a-f-]+\/unarchive; suffix: /,
    );
  });
});

describe('a history the checker cannot decide within its bound', () => {
  it('makes the property undecided, never passed', async () => {
    const target = await routerTarget();
    const prepared = await prepareContract({
      target: target.handler,
      seed: demoSeedJson,
      auth: AUTH,
    });
    try {
      // A property whose every run leaves a history undecided, as the group counts them.
      const undecided: PropertyDefinition = {
        name: 'test.undecided',
        group: 'concurrent',
        summary: 'every history undecided',
        build: (trial) =>
          fc.asyncProperty(
            fc.nat(),
            trial.predicate({ fresh: false }, async () => {
              trial.undecided++;
            }),
          ),
      };
      const result = await runProperty(prepared.engine, undecided, {
        runs: 5,
        seed: 1,
        shrinkTimeLimitMs: 0,
      });
      expect(result).toMatchObject({ status: 'undecided', runs: 5, undecided: 5 });
      expect(formatResultLine(result)).toBe(
        "? test.undecided  undecided: 5 histories too large to check within the checker's bound",
      );
    } finally {
      await prepared.close();
    }
  });
});
