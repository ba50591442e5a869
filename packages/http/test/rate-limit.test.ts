import { describe, expect, it } from 'vitest';
import { boundedMemoryCounter } from '../src/rate-limit.js';

describe('the default in-memory limiter', () => {
  const window = { name: '15 minutes', points: 3, durationSeconds: 900 } as const;

  it('holds at most maxKeys keys, dropping the least recently counted', async () => {
    const counter = boundedMemoryCounter(window, 100);
    for (let i = 0; i < 1_000; i += 1) await counter.consume(`restaurant:${i}`);
    expect(counter.size).toBe(100);
    // The first key was dropped with its count: it starts again with all its points.
    expect((await counter.consume('restaurant:0')).remainingPoints).toBe(2);
    // A recent key kept its count.
    expect((await counter.consume('restaurant:999')).remainingPoints).toBe(1);
  });

  it('keeps refusing a key it holds, however many others pass', async () => {
    const counter = boundedMemoryCounter(window, 100);
    for (let i = 0; i < 3; i += 1) await counter.consume('busy');
    for (let i = 0; i < 50; i += 1) await counter.consume(`other:${i}`);
    await expect(counter.consume('busy')).rejects.toMatchObject({ remainingPoints: 0 });
  });
});
