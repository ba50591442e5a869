import {
  andThen,
  archiveEmployee,
  createMemoryStore,
  deleteShift,
  getRestaurant,
  isThenable,
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
