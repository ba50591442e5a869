import {
  parseGuid,
  type RateLimitWindow,
  type WindowCount,
  type WindowCounter,
  type WindowDecision,
} from '@workforce-kit/core';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { Logger, LogSource } from '../src/logger.js';
import {
  createRateLimiter,
  MemoryWindowCounter,
  type RateLimitDecision,
  rateLimitKey,
} from '../src/rate-limit.js';

describe('the default in-memory limiter', () => {
  const window = { name: '15 minutes', points: 3, durationSeconds: 900 } as const;

  it('holds at most maxKeys keys, dropping the least recently counted', () => {
    const counter = new MemoryWindowCounter(window, 100);
    for (let i = 0; i < 1_000; i += 1) counter.consumeNow(`restaurant:${i}`);
    expect(counter.size).toBe(100);
    // The first key was dropped with its count: it starts again with all its points.
    expect(counter.consumeNow('restaurant:0').remainingPoints).toBe(2);
    // A recent key kept its count.
    expect(counter.consumeNow('restaurant:999').remainingPoints).toBe(1);
  });

  it('keeps refusing a key it holds, however many others pass', () => {
    const counter = new MemoryWindowCounter(window, 100);
    for (let i = 0; i < 3; i += 1) expect(counter.consumeNow('busy').spent).toBe(false);
    for (let i = 0; i < 50; i += 1) counter.consumeNow(`other:${i}`);
    expect(counter.consumeNow('busy')).toMatchObject({ spent: true, remainingPoints: 0 });
  });

  it('answers each request with a decision of its own, which the next does not change', () => {
    const counter = new MemoryWindowCounter(window, 100);
    const first = counter.consumeNow('k');
    const second = counter.consumeNow('k');
    expect(second).not.toBe(first);
    expect(first).toMatchObject({ remainingPoints: 2, spent: false });
    expect(second).toMatchObject({ remainingPoints: 1, spent: false });
  });

  it('starts a key afresh once its window has ended, and says when it ends', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const counter = new MemoryWindowCounter({ name: 'second', points: 2, durationSeconds: 1 }, 100);
    expect(counter.consumeNow('k')).toEqual({
      remainingPoints: 1,
      msBeforeNext: 1000,
      spent: false,
    });
    vi.setSystemTime(1_000_400);
    expect(counter.consumeNow('k')).toEqual({
      remainingPoints: 0,
      msBeforeNext: 600,
      spent: false,
    });
    expect(counter.consumeNow('k')).toMatchObject({ spent: true, msBeforeNext: 600 });
    vi.setSystemTime(1_001_000);
    expect(counter.consumeNow('k')).toEqual({
      spent: false,
      remainingPoints: 1,
      msBeforeNext: 1000,
    });
  });
});

describe('rateLimitKey', () => {
  it('counts a request against its restaurant, else its address', () => {
    const restaurant = parseGuid('b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b', 'r')._unsafeUnwrap();
    expect(rateLimitKey(restaurant, '10.0.0.1')).toBe(`restaurant:${restaurant}`);
    expect(rateLimitKey(undefined, '10.0.0.1')).toBe('ip:10.0.0.1');
    expect(rateLimitKey(undefined, undefined)).toBe('ip:unknown');
  });
});

/** A request's logger that keeps its warnings. */
function keptLogger(): LogSource & { readonly warnings: string[] } {
  const warnings: string[] = [];
  const log: Logger = {
    info: () => undefined,
    warn: (_details, message) => {
      warnings.push(message ?? '');
    },
    error: () => undefined,
    child: () => log,
  };
  return { log, warnings };
}

/**
 * A shared window counter over a memory counter that answers at once (`consumeNow`) only while
 * `atOnce` says so, and through `consume` (a promise) otherwise; it records which was asked.
 */
function leasedCounter(window: RateLimitWindow, atOnce: () => boolean) {
  const memory = new MemoryWindowCounter(window, 100);
  const asked: ('now' | 'awaited')[] = [];
  const counter: WindowCounter = {
    consumeNow(key): WindowDecision | undefined {
      if (!atOnce()) return undefined;
      asked.push('now');
      return memory.consumeNow(key);
    },
    consume(key): Promise<WindowCount> {
      asked.push('awaited');
      const { remainingPoints, msBeforeNext, spent } = memory.consumeNow(key);
      const count = { remainingPoints, msBeforeNext };
      return spent ? Promise.reject(count) : Promise.resolve(count);
    },
  };
  return { counter, asked };
}

describe('a shared limiter that can answer at once (consumeNow)', () => {
  const log = keptLogger();
  const r1 = { rateLimitKey: 'r1', log: log.log };

  it('decides without a promise while every window answers at once', () => {
    const made = new Map<string, ReturnType<typeof leasedCounter>>();
    const limiter = createRateLimiter({
      perSecond: 2,
      per15Minutes: 100,
      limiter: (window) => {
        const leased = leasedCounter(window, () => true);
        made.set(window.name, leased);
        return leased.counter;
      },
    });
    const first = limiter.check(r1) as RateLimitDecision;
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({ limit: '2', remaining: '1' });
    expect(first.refusal()).toBeUndefined();
    limiter.check(r1);
    const refused = limiter.check(r1) as RateLimitDecision;
    expect(refused).not.toBeInstanceOf(Promise);
    expect(refused.refusal()).toMatchObject({
      code: 'RATE_LIMITED',
      headers: { 'Retry-After': '1' },
    });
    expect(refused).toMatchObject({ limit: '2', remaining: '0', reset: '1' });
    // The refusal by the second's window spent nothing of the 15 minutes'.
    expect(made.get('second')?.asked).toEqual(['now', 'now', 'now']);
    expect(made.get('15 minutes')?.asked).toEqual(['now', 'now']);
  });

  it('awaits from the first window that cannot answer at once, having counted the others once', async () => {
    let longAtOnce = false;
    const made = new Map<string, ReturnType<typeof leasedCounter>>();
    const limiter = createRateLimiter({
      perSecond: 10,
      per15Minutes: 2,
      limiter: (window) => {
        const leased = leasedCounter(window, () => window.name === 'second' || longAtOnce);
        made.set(window.name, leased);
        return leased.counter;
      },
    });
    const checked = limiter.check(r1);
    expect(checked).toBeInstanceOf(Promise);
    const decided = await checked;
    expect(decided).toMatchObject({ limit: '2', remaining: '1' });
    expect(decided?.refusal()).toBeUndefined();
    expect(made.get('second')?.asked).toEqual(['now']);
    expect(made.get('15 minutes')?.asked).toEqual(['awaited']);
    longAtOnce = true;
    expect((limiter.check(r1) as RateLimitDecision).refusal()).toBeUndefined();
    const refused = limiter.check(r1) as RateLimitDecision;
    expect(refused).not.toBeInstanceOf(Promise);
    expect(refused.refusal()).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('lets the request through, and logs, when consumeNow throws', () => {
    const limiter = createRateLimiter({
      limiter: () => ({
        consumeNow: () => {
          throw new Error('lease store broken');
        },
        consume: () => Promise.reject(new Error('unused')),
      }),
    });
    const logged = keptLogger();
    // No window counted it: let through, with no RateLimit-* headers.
    expect(limiter.check({ rateLimitKey: 'r1', log: logged.log })).toBeUndefined();
    expect(logged.warnings).toEqual([
      'rate limiter unavailable; request let through',
      'rate limiter unavailable; request let through',
    ]);
  });

  it('lets the request through, and logs, when consume throws rather than rejects', async () => {
    const limiter = createRateLimiter({
      limiter: () => ({
        consume: () => {
          throw new Error('lease store broken');
        },
      }),
    });
    const logged = keptLogger();
    expect(await limiter.check({ rateLimitKey: 'r1', log: logged.log })).toBeUndefined();
    expect(logged.warnings).toEqual([
      'rate limiter unavailable; request let through',
      'rate limiter unavailable; request let through',
    ]);
  });

  it('awaits a counter without consumeNow, as a rate-limiter-flexible limiter is', async () => {
    const memory = new MemoryWindowCounter({ name: 'second', points: 5, durationSeconds: 1 }, 10);
    const limiter = createRateLimiter({
      limiter: () => ({ consume: (key) => Promise.resolve(memory.consumeNow(key)) }),
    });
    const checked = limiter.check(r1);
    expect(checked).toBeInstanceOf(Promise);
    expect((await checked)?.refusal()).toBeUndefined();
  });
});
