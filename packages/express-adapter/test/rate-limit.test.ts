import { RateLimiterMemory } from 'rate-limiter-flexible';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { RateLimitWindow } from '../src/index.js';
import { testApp, tokenFor } from './harness.js';

describe('rate limits', () => {
  it('asks the limiter factory for both windows, with their points and durations', async () => {
    const asked: RateLimitWindow[] = [];
    await testApp({
      rateLimit: {
        perSecond: 3,
        per15Minutes: 30,
        limiter: (window) => {
          asked.push(window);
          return new RateLimiterMemory({ points: window.points, duration: window.durationSeconds });
        },
      },
    });
    expect(asked).toEqual([
      { name: '15 minutes', points: 30, durationSeconds: 900 },
      { name: 'second', points: 3, durationSeconds: 1 },
    ]);
  });

  it('lets requests through, and logs, when a limiter fails', async () => {
    const broken = new RateLimiterMemory({ points: 1, duration: 1 });
    broken.consume = () => Promise.reject(new Error('limiter store unreachable'));
    const t = await testApp({ rateLimit: { limiter: () => broken } });
    const token = await tokenFor('*');
    const res = await request(t.app)
      .get(`/restaurants/v1/restaurants/${t.world.restaurant.guid}`)
      .set('Authorization', `Bearer ${token}`)
      .set('Platform-Restaurant-External-ID', t.world.restaurant.guid);
    expect(res.status).toBe(200);
    expect(
      t.logs.some((line) => line.msg === 'rate limiter unavailable; request let through'),
    ).toBe(true);
  });

  it('counts requests without a usable context by client address', async () => {
    const t = await testApp({ rateLimit: { perSecond: 1, per15Minutes: 100 } });
    const token = await tokenFor('*');
    const send = () =>
      request(t.app)
        .get(`/restaurants/v1/restaurants/${t.world.restaurant.guid}`)
        .set('Authorization', `Bearer ${token}`);
    const answers = await Promise.all([send(), send(), send()]);
    expect(answers.map((res) => res.status).sort()).toContain(429);
    expect(answers.map((res) => res.status)).toContain(400);
  });
});
