// The relay's wake/sleep scheduler alone, on fake timers: a sleep ends at its interval or on a
// wake-up; a wake-up ends one sleep, not all; a wake-up with no loop asleep is kept for the next
// sleep; close ends every sleep, now and later.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWakeScheduler } from '../src/relay-scheduler.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A sleep, and whether it has ended yet. */
function sleeping(scheduler: ReturnType<typeof createWakeScheduler>, ms: number) {
  const state = { ended: false };
  void scheduler.sleep(ms).then(() => {
    state.ended = true;
  });
  return state;
}

/** Lets resolved promises run their callbacks. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('the wake/sleep scheduler', () => {
  it('ends a sleep after its interval, not before', async () => {
    const scheduler = createWakeScheduler();
    const sleep = sleeping(scheduler, 1000);
    expect(scheduler.sleeping).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(sleep.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(sleep.ended).toBe(true);
    expect(scheduler.sleeping).toBe(0);
  });

  it('wakes one sleeping loop per wake-up, the one asleep longest', async () => {
    const scheduler = createWakeScheduler();
    const first = sleeping(scheduler, 60_000);
    const second = sleeping(scheduler, 60_000);
    scheduler.wake();
    await settle();
    expect([first.ended, second.ended]).toEqual([true, false]);
    expect(scheduler.sleeping).toBe(1);
    // The woken loop looks for work (which answers the wake-up) before it sleeps again.
    scheduler.clear();
    scheduler.wake();
    await settle();
    expect(second.ended).toBe(true);
  });

  it('keeps a wake-up that found no loop asleep: the next sleep ends at once, until cleared', async () => {
    const scheduler = createWakeScheduler();
    scheduler.wake();
    const kept = sleeping(scheduler, 60_000);
    await settle();
    expect(kept.ended).toBe(true);
    scheduler.clear();
    const next = sleeping(scheduler, 60_000);
    await settle();
    expect(next.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(next.ended).toBe(true);
  });

  it('on close, ends every sleep, and every later one at once', async () => {
    const scheduler = createWakeScheduler();
    const sleeps = [sleeping(scheduler, 60_000), sleeping(scheduler, 60_000)];
    expect(scheduler.closed).toBe(false);
    scheduler.close();
    await settle();
    expect(sleeps.map((sleep) => sleep.ended)).toEqual([true, true]);
    expect(scheduler.closed).toBe(true);
    scheduler.clear();
    const later = sleeping(scheduler, 60_000);
    await settle();
    expect(later.ended).toBe(true);
  });
});
