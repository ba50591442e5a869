// What 429s cost a run, in its summary and its JSON report: against the reference router with a
// low rate limit (3 requests a second per restaurant), the kit waits each 429 out (Retry-After:
// 1 s) and sends the request again; the report counts them, says how long it waited in all and
// what to do about it.
import { checkApiContract, formatReport, toJsonReport } from '@workforce-kit/contract-testing';
import { expect, it } from 'vitest';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

it('says how many 429s slowed a run, how long it waited them out, and what to do', async () => {
  const target = await routerTarget({}, demoSeedJson, { rateLimit: { perSecond: 3 } });
  const report = await checkApiContract({
    target: target.handler,
    seed: demoSeedJson,
    auth: AUTH,
    only: ['stateful'],
    runs: 1,
    rngSeed: 1,
  });
  expect(report.ok, formatReport(report)).toBe(true);
  expect(report.rateLimited).toBeGreaterThan(0);
  // Each 429 was waited out for its Retry-After of a second, one after another.
  expect(report.rateLimitWaitMs).toBeGreaterThanOrEqual(report.rateLimited * 950);
  expect(report.rateLimitWaitMs).toBeLessThanOrEqual(report.durationMs);
  const json = JSON.parse(toJsonReport(report)) as typeof report;
  expect(json.rateLimitWaitMs).toBe(report.rateLimitWaitMs);
  const text = formatReport(report);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  expect(text).toContain(
    `rate limits slowed the run: ${report.rateLimited} requests answered 429, waited out for ${seconds(report.rateLimitWaitMs)} of its ${seconds(report.durationMs)} (`,
  );
  expect(text).toContain(
    'raise the limits of the target under test, or keep under them with --rate N (the rate option), which paces every request',
  );
  // The line comes before the totals, which stay last.
  const lines = text.split('\n');
  expect(lines.at(-3)).toMatch(/^rate limits slowed the run: /);
  expect(lines.at(-2)).toMatch(/^\d+ requests sent to /);
});
