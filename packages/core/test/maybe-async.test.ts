import {
  andThen,
  archiveEmployee,
  createMemoryStore,
  deleteShift,
  getRestaurant,
  isThenable,
  runSteps,
  type StepList,
  unarchiveEmployee,
  whenReady,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  aRestaurant,
  aShift,
  asynchronousStore,
  seedRecords,
} from '@workforce-kit/core/testing';
import { err, errAsync, ok, okAsync, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';

describe('whenReady and andThen', () => {
  it('go on at once, with a Result, while every answer is at hand', () => {
    const steps: string[] = [];
    const result = andThen(ok(1), (a) => {
      steps.push('first');
      return whenReady(ok(2), (b) => {
        steps.push('second');
        return ok(a + b._unsafeUnwrap());
      });
    });
    expect(isThenable(result)).toBe(false);
    expect(steps).toEqual(['first', 'second']);
    expect((result as Result<number, never>)._unsafeUnwrap()).toBe(3);
  });

  it('go on when an answer settles, and answer with a promise of it', async () => {
    const steps: string[] = [];
    const result = andThen(ok(1), (a) => {
      steps.push('before');
      return andThen(okAsync(2), (b) => {
        steps.push('after');
        return ok(a + b);
      });
    });
    expect(isThenable(result)).toBe(true);
    expect(steps).toEqual(['before']);
    expect((await result)._unsafeUnwrap()).toBe(3);
    expect(steps).toEqual(['before', 'after']);
  });

  it('pass an error on, at once or later, without running what follows', async () => {
    let reached = false;
    const now = andThen(err('refused'), () => {
      reached = true;
      return ok('never');
    });
    expect(isThenable(now)).toBe(false);
    expect((now as Result<string, string>)._unsafeUnwrapErr()).toBe('refused');
    const later = andThen(errAsync('unavailable'), () => {
      reached = true;
      return ok('never');
    });
    expect((await later)._unsafeUnwrapErr()).toBe('unavailable');
    expect(reached).toBe(false);
  });

  it('hand andThen’s context to its next step, at once and later', async () => {
    const add = (value: number, context: { readonly by: number }) => ok(value + context.by);
    const now = andThen(ok(1), add, { by: 2 });
    expect(isThenable(now)).toBe(false);
    expect((now as Result<number, never>)._unsafeUnwrap()).toBe(3);
    const later = andThen(okAsync(1), add, { by: 3 });
    expect(isThenable(later)).toBe(true);
    expect((await later)._unsafeUnwrap()).toBe(4);
    const refused = andThen(errAsync<number, string>('refused'), add, { by: 4 });
    expect((await refused)._unsafeUnwrapErr()).toBe('refused');
  });

  it('hand whenReady the error too, for the caller to handle', async () => {
    const result = whenReady(errAsync<number, string>('conflict'), (first) =>
      whenReady(ok<number, string>(2), (second) => ok([first.isErr(), second.isOk()])),
    );
    expect((await result)._unsafeUnwrap()).toEqual([true, true]);
  });

  it('wait for a thenable of another copy of neverthrow', async () => {
    // A thenable whose then is its promise's, as another copy's ResultAsync is (biome: a thenable
    // here is the point).
    const settled = Promise.resolve(ok<number, never>(5));
    // biome-ignore lint/suspicious/noThenProperty: the thenable is what is under test
    const foreign = { then: settled.then.bind(settled) };
    expect(foreign).not.toBeInstanceOf(Promise);
    const result = whenReady(foreign, (five: Result<number, never>) =>
      ok(five._unsafeUnwrap() + 1),
    );
    expect(isThenable(result)).toBe(true);
    expect((await result)._unsafeUnwrap()).toBe(6);
  });
});

describe('runSteps', () => {
  /** Steps that add to a total, each recording that it ran; a total past 10 ends the run. */
  function adding(
    ran: string[],
    ...amounts: (number | Promise<number>)[]
  ): StepList<number, string> {
    return {
      steps: amounts.map((amount, index) => (total: number, name: string) => {
        ran.push(`${name}${index}`);
        return isThenable(amount) ? amount.then((added) => total + added) : total + amount;
      }),
      isDone: (total) => total > 10,
    };
  }

  it('runs each step on the value the one before gave, at once while each answers at once', () => {
    const ran: string[] = [];
    const total = runSteps(adding(ran, 1, 2, 3), 0, 'step');
    expect(isThenable(total)).toBe(false);
    expect(total).toBe(6);
    expect(ran).toEqual(['step0', 'step1', 'step2']);
  });

  it('stops at the first value that ends the run', () => {
    const ran: string[] = [];
    expect(runSteps(adding(ran, 5, 6, 7), 0, 'step')).toBe(11);
    expect(ran).toEqual(['step0', 'step1']);
  });

  it('waits only at a step that answers later, then goes on from the next', async () => {
    const ran: string[] = [];
    const total = runSteps(adding(ran, 1, Promise.resolve(2), 3, 20, 1), 0, 'step');
    expect(isThenable(total)).toBe(true);
    expect(ran).toEqual(['step0', 'step1']);
    expect(await total).toBe(26);
    expect(ran).toEqual(['step0', 'step1', 'step2', 'step3']);
  });

  it('starts from the step it is told to', () => {
    const ran: string[] = [];
    expect(runSteps(adding(ran, 1, 2, 3), 10, 'step', 2)).toBe(13);
    expect(ran).toEqual(['step2']);
  });

  it('passes a rejection on as it is', async () => {
    const ran: string[] = [];
    const failing = runSteps(adding(ran, 1, Promise.reject(new Error('down')), 3), 0, 'step');
    await expect(failing).rejects.toThrow('down');
    expect(ran).toEqual(['step0', 'step1']);
  });

  it("hands a step's later value to the list's own later, with the step and what it was given", async () => {
    const ran: string[] = [];
    const waits: [number, number][] = [];
    const list: StepList<number, string> = {
      ...adding(ran, 1, Promise.resolve(2), 3),
      later(pending, at, given, context) {
        waits.push([at, given]);
        return pending.then((value) => runSteps(list, value, context, at + 1));
      },
    };
    expect(await runSteps(list, 0, 'step')).toBe(6);
    expect(waits).toEqual([[1, 1]]);
  });
});

describe('the use cases', () => {
  const restaurant = aRestaurant();
  const employee = anArchivedEmployee(restaurant.guid);
  const shift = aShift(restaurant.guid);
  const seed = () =>
    seedRecords({ restaurants: [restaurant], employees: [employee], shifts: [shift] });
  const clock = { now: () => new Date('2026-03-01T12:00:00.000Z') };
  const ids = { newId: () => 'event-1' };
  const requestId = 'r';
  const byGuid = (guid: typeof employee.guid) => ({ kind: 'guid', guid }) as const;

  it('complete without a promise on a store that answers at once (the memory store)', () => {
    const store = createMemoryStore(seed());
    const deps = { ...store, clock, ids };
    const answers = [
      unarchiveEmployee(deps, { restaurant: restaurant.guid, employee: employee.guid, requestId }),
      archiveEmployee(deps, {
        restaurant: restaurant.guid,
        employee: byGuid(employee.guid),
        requestId,
      }),
      deleteShift(deps, { restaurant: restaurant.guid, shift: byGuid(shift.guid), requestId }),
      getRestaurant(deps, {
        restaurant: restaurant.guid,
        requested: restaurant.guid,
        includeArchived: false,
      }),
    ];
    for (const answer of answers) {
      expect(isThenable(answer)).toBe(false);
      expect((answer as Result<unknown, unknown>).isOk()).toBe(true);
    }
  });

  it('answer the same later on a store that answers asynchronously', async () => {
    const store = asynchronousStore(createMemoryStore(seed()));
    const deps = { ...store, clock, ids };
    const answer = unarchiveEmployee(deps, {
      restaurant: restaurant.guid,
      employee: employee.guid,
      requestId,
    });
    expect(isThenable(answer)).toBe(true);
    expect((await answer)._unsafeUnwrap().record).toMatchObject({ deleted: false, version: 2 });
  });
});
