// A target whose API is mounted under a path: an app with the router at /api beside a route of its
// own. With `basePath: '/api'` every property holds there; without it, the kit's requests reach
// the app's own 404 page (Express's "Cannot PUT"), and the run fails.
import { checkApiContract, formatReport } from '@workforce-kit/contract-testing';
import express from 'express';
import { expect, it } from 'vitest';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

async function appWithApiAt(path: string) {
  const api = await routerTarget();
  const app = express();
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(path, api.handler);
  return { handler: app, reset: () => api.reset() };
}

it('holds every property of an app that mounts the API at /api, given basePath /api', async () => {
  const report = await checkApiContract({
    target: await appWithApiAt('/api'),
    basePath: '/api',
    seed: demoSeedJson,
    auth: AUTH,
    runs: 4,
    rngSeed: 32,
  });
  expect(report.failed, formatReport(report)).toBe(0);
  expect(report.passed).toBeGreaterThan(15);
  expect(report.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
});

it("fails there without basePath: the requests reach the app's own routes", async () => {
  const report = await checkApiContract({
    target: await appWithApiAt('/api'),
    seed: demoSeedJson,
    auth: AUTH,
    runs: 2,
    rngSeed: 32,
    only: ['stateless'],
    shrinkTimeLimitMs: 0,
  });
  expect(report.ok).toBe(false);
  expect(report.results.find((result) => result.status === 'failed')).toBeDefined();
});

it('joins basePath after the path of a base URL, and refuses one that is not a path', async () => {
  const { resolveTarget } = await import('../src/target.js');
  expect((await resolveTarget('http://host:8080/tenant/', '/api/')).baseUrl).toBe(
    'http://host:8080/tenant/api',
  );
  await expect(resolveTarget('http://host:8080', 'api')).rejects.toThrow(
    'basePath must be a path that starts with "/"',
  );
});
