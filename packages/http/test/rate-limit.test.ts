import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { memoryWindowCounter } from '../src/rate-limit.js';

describe('the default in-memory limiter', () => {
  const window = { name: '15 minutes', points: 3, durationSeconds: 900 } as const;

  it('holds at most maxKeys keys, dropping the least recently counted', () => {
    const counter = memoryWindowCounter(window, 100);
    for (let i = 0; i < 1_000; i += 1) counter.consume(`restaurant:${i}`);
    expect(counter.size).toBe(100);
    // The first key was dropped with its count: it starts again with all its points.
    expect(counter.consume('restaurant:0').count.remainingPoints).toBe(2);
    // A recent key kept its count.
    expect(counter.consume('restaurant:999').count.remainingPoints).toBe(1);
  });

  it('keeps refusing a key it holds, however many others pass', () => {
    const counter = memoryWindowCounter(window, 100);
    for (let i = 0; i < 3; i += 1) expect(counter.consume('busy').spent).toBe(false);
    for (let i = 0; i < 50; i += 1) counter.consume(`other:${i}`);
    expect(counter.consume('busy')).toMatchObject({ spent: true, count: { remainingPoints: 0 } });
  });

  it('starts a key afresh once its window has ended, and says when it ends', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const counter = memoryWindowCounter({ name: 'second', points: 2, durationSeconds: 1 }, 100);
    expect(counter.consume('k').count).toEqual({ remainingPoints: 1, msBeforeNext: 1000 });
    vi.setSystemTime(1_000_400);
    expect(counter.consume('k').count).toEqual({ remainingPoints: 0, msBeforeNext: 600 });
    expect(counter.consume('k')).toMatchObject({ spent: true, count: { msBeforeNext: 600 } });
    vi.setSystemTime(1_001_000);
    expect(counter.consume('k')).toEqual({
      spent: false,
      count: { remainingPoints: 1, msBeforeNext: 1000 },
    });
  });
});
