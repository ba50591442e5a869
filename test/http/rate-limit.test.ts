import type { RateLimitWindow } from '@workforce-kit/http';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS, closeApps, type TestApp, testApp, tokenFor } from './support/harness.js';

// The rate limits' decisions are @workforce-kit/http's; their answers, through each adapter.
afterAll(closeApps);

for (const adapter of ADAPTERS) {
  describe(`${adapter.name}: rate limits`, () => {
    it('asks the limiter factory for both windows, with their points and durations', async () => {
      const asked: RateLimitWindow[] = [];
      await testApp(adapter, {
        rateLimit: {
          perSecond: 3,
          per15Minutes: 30,
          limiter: (window) => {
            asked.push(window);
            return new RateLimiterMemory({
              points: window.points,
              duration: window.durationSeconds,
            });
          },
        },
      });
      expect(asked).toEqual([
        { name: 'second', points: 3, durationSeconds: 1 },
        { name: '15 minutes', points: 30, durationSeconds: 900 },
      ]);
    });

    const getRestaurant = async (t: TestApp) => {
      const token = await tokenFor('*');
      return () =>
        request(t.url)
          .get(`/restaurants/v1/restaurants/${t.world.restaurant.guid}`)
          .set('Authorization', `Bearer ${token}`)
          .set('Platform-Restaurant-External-ID', t.world.restaurant.guid);
    };

    it('describes, in RateLimit-*, the window closest to running out', async () => {
      const t = await testApp(adapter, { rateLimit: { perSecond: 20, per15Minutes: 10_000 } });
      const res = await (await getRestaurant(t))();
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('20');
      expect(res.headers['ratelimit-remaining']).toBe('19');
      expect(res.headers['ratelimit-reset']).toBe('1');

      const nearlySpent = await testApp(adapter, { rateLimit: { perSecond: 20, per15Minutes: 3 } });
      const send = await getRestaurant(nearlySpent);
      await send();
      const second = await send();
      expect(second.headers['ratelimit-limit']).toBe('3');
      expect(second.headers['ratelimit-remaining']).toBe('1');
      expect(Number(second.headers['ratelimit-reset'])).toBeGreaterThan(800);
    });

    it('describes, in RateLimit-* of a 429, the window that refused', async () => {
      const t = await testApp(adapter, { rateLimit: { perSecond: 2, per15Minutes: 10_000 } });
      const send = await getRestaurant(t);
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push(await send());
      const refused = answers[2];
      expect(refused?.status).toBe(429);
      expect(refused?.headers).toMatchObject({
        'ratelimit-limit': '2',
        'ratelimit-remaining': '0',
        'ratelimit-reset': '1',
        'retry-after': '1',
      });
    });

    it('does not spend the long window on requests the per-second window refuses', async () => {
      const t = await testApp(adapter, { rateLimit: { perSecond: 2, per15Minutes: 5 } });
      const send = await getRestaurant(t);
      const burst = await Promise.all(Array.from({ length: 12 }, () => send()));
      expect(burst.filter((res) => res.status === 200)).toHaveLength(2);
      expect(burst.filter((res) => res.status === 429)).toHaveLength(10);
      // The ten refusals spent nothing of the 15-minute window (5): a second later 2 more pass,
      // and a second after that the fifth, which leaves that window empty.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect([(await send()).status, (await send()).status]).toEqual([200, 200]);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const fifth = await send();
      expect(fifth.status).toBe(200);
      expect(fifth.headers).toMatchObject({ 'ratelimit-limit': '5', 'ratelimit-remaining': '0' });
      expect((await send()).status).toBe(429);
    });

    it('lets requests through, and logs, when a limiter fails', async () => {
      const broken = new RateLimiterMemory({ points: 1, duration: 1 });
      broken.consume = () => Promise.reject(new Error('limiter store unreachable'));
      const t = await testApp(adapter, { rateLimit: { limiter: () => broken } });
      const token = await tokenFor('*');
      const res = await request(t.url)
        .get(`/restaurants/v1/restaurants/${t.world.restaurant.guid}`)
        .set('Authorization', `Bearer ${token}`)
        .set('Platform-Restaurant-External-ID', t.world.restaurant.guid);
      expect(res.status).toBe(200);
      expect(
        t.logs.some((line) => line.msg === 'rate limiter unavailable; request let through'),
      ).toBe(true);
    });

    it('counts requests without a usable context by client address', async () => {
      const t = await testApp(adapter, { rateLimit: { perSecond: 1, per15Minutes: 100 } });
      const token = await tokenFor('*');
      const send = () =>
        request(t.url)
          .get(`/restaurants/v1/restaurants/${t.world.restaurant.guid}`)
          .set('Authorization', `Bearer ${token}`);
      const answers = await Promise.all([send(), send(), send()]);
      expect(answers.map((res) => res.status).sort()).toContain(429);
      expect(answers.map((res) => res.status)).toContain(400);
    });
  });
}
