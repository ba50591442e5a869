// The HTML report (`report: 'run.html'`, `--report run.html`) as a user sees it, in headless
// Chromium: a run against a race mutant of the mutation suite (its auth properties pass, the
// concurrent one fails) writes one page that loads nothing but itself, lists every property with
// its status, and draws the failing history: a lane per connection, a bar per call where the
// lane's calls were under way (the branches' bars overlapping), the calls that cannot be ordered
// marked in red, why no order fits, and the coverage.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../../../test/support/chromium.js';
import { checkApiContract, type Report } from '../src/index.js';
import { MUTANTS } from './support/mutants.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

let folder: string;
let browser: Browser;
let report: Report;
let page: Page;
const requested: string[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'workforce-kit-html-report-'));
  const mutant = MUTANTS.find((m) => m.name === 'overlapping-unarchives-both-200');
  const target = await routerTarget(mutant?.hooks);
  const file = join(folder, 'run.html');
  report = await checkApiContract({
    target: { handler: target.handler, reset: () => target.reset() },
    seed: demoSeedJson,
    auth: AUTH,
    only: ['auth', 'concurrent'],
    rngSeed: 3,
    report: file,
  });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(pathToFileURL(file).href);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await rm(folder, { recursive: true, force: true });
});

it('is one page that loads nothing else, with every property and its status', async () => {
  expect(requested).toEqual([page.url()]);
  expect(await page.title()).toBe('workforce-kit contract report: 3 passed, 1 failed');
  await expect(page.locator('#totals').textContent()).resolves.toBe('3 passed, 1 failed');
  const rows = page.locator('table.properties tbody tr');
  expect(await rows.count()).toBe(report.results.length);
  const failed = page.locator('table.properties tr[data-property="concurrent.races"] td.status');
  await expect(failed.textContent()).resolves.toBe('✘ failed');
  expect(await page.locator('table.coverage tbody tr').count()).toBe(4);
});

it('draws the failing history as bars per connection, the calls that cannot be ordered marked, and says why', async () => {
  const race = report.results.find((r) => r.name === 'concurrent.races')?.race;
  if (race === undefined) throw new Error('the run found no race');
  const failure = page.locator('section.failure[data-property="concurrent.races"]');
  await expect(failure.locator('#explanation').textContent()).resolves.toBe(`${race.summary}.`);
  await expect(failure.locator('#explanation').isVisible()).resolves.toBe(true);
  expect(race.summary).toMatch(/^two unarchives of employee .* both answered 200/);

  const svg = failure.locator('svg.timeline');
  const lanes = await svg.locator('.lane').allTextContents();
  expect(lanes).toEqual(['prefix and suffix', 'branch A', 'branch B']);
  for (const lane of [0, 1, 2]) {
    const bars = svg.locator(`.call[data-lane="${lane}"]`);
    expect(await bars.count()).toBe(race.calls.filter((c) => c.lane === lane).length);
  }
  // The two branches' calls were under way at once: their bars overlap in time.
  const [a, b] = await Promise.all(
    [1, 2].map((lane) => svg.locator(`.call[data-lane="${lane}"] rect`).first().boundingBox()),
  );
  if (!a || !b) throw new Error('a bar is not drawn');
  expect(a.x < b.x + b.width && b.x < a.x + a.width).toBe(true);
  expect(a.y).not.toBe(b.y);

  const marked = svg.locator('.call.marked');
  const numbers = await Promise.all(
    Array.from({ length: await marked.count() }, (_, i) =>
      marked.nth(i).getAttribute('data-number'),
    ),
  );
  expect(numbers).toEqual(race.calls.filter((c) => c.marked).map((c) => String(c.number)));
  // Drawn in red (the page's own style; an expression, as this project has no DOM types).
  const stroke = await page.evaluate(
    "getComputedStyle(document.querySelector('section.failure svg .call.marked rect')).stroke",
  );
  expect(stroke).toBe('rgb(180, 35, 24)');
  await expect(marked.first().locator('text').textContent()).resolves.toMatch(
    /^#\d+ unarchive → 200 ✘/,
  );
  expect(await failure.locator('tr.call.marked').count()).toBe(2);

  // Clicking a bar selects its row in the table of calls.
  await marked.first().click();
  const number = await marked.first().getAttribute('data-number');
  await expect(
    failure.locator(`tr.call[data-number="${number}"]`).getAttribute('class'),
  ).resolves.toContain('selected');
  await expect(failure.locator('details pre').textContent()).resolves.toContain('# branch B');
});
