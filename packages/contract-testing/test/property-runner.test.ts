// How the runner ends a failing property: shrinking stops at its time limit with the smallest
// failing case found by then (a limit of 0: the first failing case as found), and a failure that
// does not fail again when its counterexample is replayed is still reported, marked "did not
// reproduce on replay"; a smaller case met while shrinking that fails another way (another rule,
// the target gone, or under faults a call without an answer) never replaces the counterexample.
// The properties here are made for the test (one request each, failing as
// the test says), run against the reference router over the memory store.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PreparedContract, prepareContract } from '../src/check-api-contract.js';
import { send } from '../src/engine.js';
import { TargetUnavailable } from '../src/http-client.js';
import { fullGrant } from '../src/model-calls.js';
import { type PropertyDefinition, runProperty } from '../src/property-runner.js';
import { formatFailure, formatResultLine } from '../src/report-format.js';
import { callToWire } from '../src/requests.js';
import { Violation } from '../src/rules.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

let prepared: PreparedContract;

beforeAll(async () => {
  const target = await routerTarget();
  prepared = await prepareContract({
    target: { handler: target.handler, reset: () => target.reset() },
    seed: demoSeedJson,
    auth: AUTH,
  });
});

afterAll(() => prepared.close());

/** A property over a number: each run reads a restaurant, then fails when `fails(n)` says so. */
function numberProperty(fails: (n: number) => boolean): PropertyDefinition {
  return {
    name: 'test.number',
    group: 'stateless',
    summary: 'fails as the test says',
    build: (trial) =>
      fc.asyncProperty(
        fc.nat({ max: 1_000_000 }),
        trial.predicate({ fresh: true }, async (n) => {
          const { engine } = trial;
          const restaurant = engine.world.restaurants[0]?.guid ?? '';
          const call = {
            role: 'getRestaurant',
            context: restaurant,
            grant: fullGrant(engine),
            id: restaurant,
          } as const;
          const answer = await send(
            engine,
            await callToWire(engine, call),
            engine.operations.getRestaurant,
          );
          answer.check(!fails(n), 'restaurant-read', () => `${n} fails`);
        }),
      ),
  };
}

const settings = { runs: 100, seed: 1 };

describe('shrinking', () => {
  it('goes on within its time limit to the smallest failing case', async () => {
    const result = await runProperty(
      prepared.engine,
      numberProperty((n) => n >= 10),
      {
        ...settings,
        shrinkTimeLimitMs: 60_000,
      },
    );
    expect(result.status).toBe('failed');
    expect(result.counterexample).toBe('[10]');
    expect(result.shrinks).toBeGreaterThan(0);
    expect(result.shrinkTimeLimitReached).toBeUndefined();
    expect(result.reproduced).toBe(true);
    expect(formatFailure(result)).not.toContain('time limit');
  });

  it('stops at the time limit, reporting the smallest failing case found by then', async () => {
    const result = await runProperty(
      prepared.engine,
      numberProperty((n) => n >= 10),
      {
        ...settings,
        shrinkTimeLimitMs: 0,
      },
    );
    expect(result.status).toBe('failed');
    expect(result.shrinks).toBe(0);
    expect(Number(/^\[(\d+)\]$/.exec(result.counterexample ?? '')?.[1])).toBeGreaterThanOrEqual(10);
    expect(result.shrinkTimeLimitReached).toBe(true);
    expect(result.rule).toBe('restaurant-read');
    expect(result.replay?.length).toBeGreaterThan(0);
    expect(formatFailure(result)).toContain('shrunk (0 steps, stopped at the time limit) to: [');
  });
});

describe('the replay of a counterexample', () => {
  it('reports a failure that does not fail again as a failure, marked', async () => {
    let failedOnce = false;
    const firstOnly = () => {
      if (failedOnce) return false;
      failedOnce = true;
      return true;
    };
    const result = await runProperty(prepared.engine, numberProperty(firstOnly), {
      ...settings,
      shrinkTimeLimitMs: 60_000,
    });
    expect(result.status).toBe('failed');
    expect(result.rule).toBe('restaurant-read');
    expect(result.reproduced).toBe(false);
    expect(result.replayFromSameState).toBe(true);
    expect(formatResultLine(result)).toMatch(
      /^✘ test\.number {2}broke restaurant-read: .* \(did not reproduce on replay\)$/,
    );
    expect(formatFailure(result)).toContain(
      'did not reproduce on replay: run again from the same state',
    );
  });

  it('names the rule a replay broke when it is another', async () => {
    let runs = 0;
    const other: PropertyDefinition = {
      name: 'test.other',
      group: 'stateless',
      summary: 'breaks one rule, then another',
      build: (trial) =>
        fc.asyncProperty(
          fc.nat(),
          trial.predicate({ fresh: true }, async () => {
            runs++;
            throw new Violation(runs === 1 ? 'restaurant-read' : 'no-reveal', `run ${runs}`);
          }),
        ),
    };
    const result = await runProperty(prepared.engine, other, { ...settings, shrinkTimeLimitMs: 0 });
    expect(result.rule).toBe('restaurant-read');
    expect(result.reproduced).toBe(true);
    expect(result.replayBroke).toBe('no-reveal');
    expect(formatFailure(result)).toContain(
      'on replay, the counterexample broke no-reveal instead',
    );
  });
});

/** A property over a number whose runs fail as `outcome(n)` says: by a rule, or not at all. */
function failingAs(outcome: (n: number) => Error | undefined, firstFailure: Error[]) {
  const definition: PropertyDefinition = {
    name: 'test.rules',
    group: 'stateless',
    summary: 'fails as the test says',
    build: (trial) =>
      fc.asyncProperty(
        fc.nat({ max: 1_000_000 }),
        trial.predicate({ fresh: false }, async (n) => {
          const error = outcome(n);
          if (error === undefined) return;
          if (firstFailure.length === 0) firstFailure.push(error);
          throw error;
        }),
      ),
  };
  return definition;
}

describe('what shrinking may not replace', () => {
  it('keeps the rule the property failed by: a smaller case that breaks another rule passes', async () => {
    // From 100, one rule; below, another: shrinking from the first meets the second.
    const ruleOf = (n: number) => (n >= 100 ? 'restaurant-read' : 'no-reveal');
    const first: Error[] = [];
    const result = await runProperty(
      prepared.engine,
      failingAs((n) => (n === 0 ? undefined : new Violation(ruleOf(n), `${n}`)), first),
      { ...settings, shrinkTimeLimitMs: 60_000 },
    );
    expect((first[0] as Violation).rule).toBe('restaurant-read');
    expect(result.rule).toBe('restaurant-read');
    expect(result.counterexample).toBe('[100]');
  });

  it('ends on the run the target stopped answering in, without shrinking to another case', async () => {
    const result = await runProperty(
      prepared.engine,
      failingAs((n) => (n >= 10 ? new TargetUnavailable('GET /x: socket hang up') : undefined), []),
      { ...settings, shrinkTimeLimitMs: 60_000 },
    );
    expect(result.rule).toBe('target-available');
    expect(result.shrinks).toBe(0);
    expect(Number(/^\[(\d+)\]$/.exec(result.counterexample ?? '')?.[1])).toBeGreaterThanOrEqual(10);
  });
});

describe('under faults', () => {
  let faulty: PreparedContract;
  beforeAll(async () => {
    const target = await routerTarget();
    faulty = await prepareContract({
      target: { handler: target.handler, reset: () => target.reset() },
      seed: demoSeedJson,
      auth: AUTH,
      faults: true,
    });
  });
  afterAll(() => faulty.close());

  it('skips a run a call without an answer ended: never a failure, nor a counterexample', async () => {
    const before = faulty.engine.availability.runsNotJudged;
    // Below 5, the target drops the connection; from 5, a broken rule: shrinking stops at 5.
    const result = await runProperty(
      faulty.engine,
      failingAs(
        (n) =>
          n < 5
            ? new TargetUnavailable('GET /x: socket hang up')
            : new Violation('no-reveal', `${n}`),
        [],
      ),
      { ...settings, shrinkTimeLimitMs: 60_000 },
    );
    expect(result.rule).toBe('no-reveal');
    expect(result.counterexample).toBe('[5]');
    expect(faulty.engine.availability.runsNotJudged).toBeGreaterThan(before);
  });

  it('passes a property whose only failures are calls without an answer', async () => {
    const result = await runProperty(
      faulty.engine,
      failingAs(
        (n) => (n % 3 === 0 ? new TargetUnavailable('GET /x: read ECONNRESET') : undefined),
        [],
      ),
      { ...settings, shrinkTimeLimitMs: 60_000 },
    );
    expect(result.status).toBe('passed');
  });
});
