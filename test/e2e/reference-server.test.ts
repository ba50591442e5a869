// End to end, on each web framework the server offers (HTTP_FRAMEWORK=express|fastify|node|hono|
// nestjs, and NestJS on each of its platforms, NEST_PLATFORM=express|fastify): the
// reference server as a real process, a token from its development login, and every operation
// driven through the generated SDK of @workforce-kit/types; then the API reference page in
// headless Chromium.
import {
  archiveEmployee,
  type Client,
  createClient,
  deleteShift,
  getRestaurant,
  unarchiveEmployee,
} from '@workforce-kit/types';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRAMEWORK_SETTINGS } from '../../packages/server/test/support/frameworks.js';
import { launchChromium } from '../support/chromium.js';
import { devLogin, type ServerProcess, startReferenceServer } from '../support/reference-server.js';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const ANNEX = 'e4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8';
const NOODLE_BAR = '5d1e2f3a-4b5c-4d6e-9f70-8192a3b4c5d6';
const MARIA = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const MARIA_EXTERNAL_ID = 'PAYROLL:10042';
const SHIFT = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
const SHIFT_EXTERNAL_ID = 'SCHEDULER:shift-20260301-0042';

/**
 * One Chromium for the file, started when a test first asks for it (each framework's page opens in
 * a context of its own): a start of Chromium is a second or two of CPU.
 */
let browser: Promise<Browser> | undefined;
const theBrowser = () => (browser ??= launchChromium());
afterAll(async () => {
  await (await browser)?.close();
});

describe.each(FRAMEWORK_SETTINGS)('the reference server on $name', ({ framework, env }) => {
  let server: ServerProcess;
  let client: Client;

  beforeAll(async () => {
    server = await startReferenceServer({ ...env });
    expect(server.output()).toContain(`Framework      ${framework} (HTTP_FRAMEWORK)`);
    if (framework === 'nestjs') {
      const platform = env.NEST_PLATFORM ?? 'express';
      expect(server.output()).toContain(`on its ${platform} platform (NEST_PLATFORM)`);
    }
    const token = await devLogin(server.url, {
      clientId: 'harbor-street-integration',
      clientSecret: 'demo-secret-harbor-street-7d3f9a',
    });
    client = createClient({ baseUrl: server.url, auth: () => token });
  }, 60_000);

  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  describe('the generated SDK against the reference server', () => {
    const headers = { 'Platform-Restaurant-External-ID': HARBOR };

    it('gets the restaurant', async () => {
      const { data, response } = await getRestaurant({
        client,
        path: { restaurantGUID: HARBOR },
        headers,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(data?.general).toMatchObject({ name: 'Harbor Street Kitchen', archived: false });
      expect(Object.keys(data?.schedules?.daySchedules ?? {}).sort()).toEqual([
        'identifier',
        'weekday',
        'weekend',
      ]);
    });

    it('gets an archived restaurant only with includeArchived', async () => {
      const annex = { 'Platform-Restaurant-External-ID': ANNEX };
      const hidden = await getRestaurant({
        client,
        path: { restaurantGUID: ANNEX },
        headers: annex,
      });
      expect(hidden.response.status).toBe(404);
      expect(hidden.error).toMatchObject({ code: 'RESTAURANT_NOT_FOUND', status: 404 });
      const shown = await getRestaurant({
        client,
        path: { restaurantGUID: ANNEX },
        query: { includeArchived: true },
        headers: annex,
      });
      expect(shown.data?.general.archived).toBe(true);
    });

    it('unarchives, refuses to unarchive again, and archives an employee, idempotently', async () => {
      const unarchived = await unarchiveEmployee({
        client,
        path: { employeeId: MARIA },
        headers,
        body: {},
      });
      expect(unarchived.data).toMatchObject({ guid: MARIA, deleted: false });
      expect(unarchived.data?.deletedDate).toBeUndefined();
      expect(unarchived.data?.jobReferences).toHaveLength(2);

      const again = await unarchiveEmployee({
        client,
        path: { employeeId: MARIA },
        headers,
        body: {},
      });
      expect(again.response.status).toBe(400);
      expect(again.error).toMatchObject({ code: 'EMPLOYEE_NOT_ARCHIVED' });

      const archived = await archiveEmployee({ client, path: { employeeId: MARIA }, headers });
      expect(archived.data).toMatchObject({
        guid: MARIA,
        deleted: true,
        deletedDate: archived.data?.modifiedDate,
      });
      // Again, by the external id: 200 with the record unchanged, modifiedDate included.
      const again2 = await archiveEmployee({
        client,
        path: { employeeId: MARIA_EXTERNAL_ID },
        headers,
      });
      expect(again2.response.status).toBe(200);
      expect(again2.data).toEqual(archived.data);
      // The seed gives Maria a point-of-sale passcode; no response carries it.
      for (const body of [unarchived.data, archived.data, again2.data]) {
        expect(body).not.toHaveProperty('passcode');
      }
    });

    it('deletes a shift by external id, idempotently, and finds it by GUID after', async () => {
      const first = await deleteShift({ client, path: { shiftId: SHIFT_EXTERNAL_ID }, headers });
      expect(first.data).toMatchObject({
        guid: SHIFT,
        deleted: true,
        externalId: SHIFT_EXTERNAL_ID,
      });
      const byGuid = await deleteShift({ client, path: { shiftId: SHIFT.toUpperCase() }, headers });
      expect(byGuid.data).toEqual(first.data);
    });

    it("keeps another restaurant's shift out of reach, though it has the same external id", async () => {
      const res = await deleteShift({
        client,
        path: { shiftId: SHIFT_EXTERNAL_ID },
        headers: { 'Platform-Restaurant-External-ID': NOODLE_BAR },
      });
      expect(res.response.status).toBe(403);
      expect(res.error).toMatchObject({ code: 'RESTAURANT_NOT_PERMITTED' });
    });

    it('answers 401 to the SDK without a token', async () => {
      const anonymous = createClient({ baseUrl: server.url });
      const res = await getRestaurant({
        client: anonymous,
        path: { restaurantGUID: HARBOR },
        headers,
      });
      expect(res.response.status).toBe(401);
      expect(res.response.headers.get('www-authenticate')).toContain('invalid_token');
    });
  });

  it('sends the security headers on every kind of response, and no X-Powered-By', async () => {
    for (const path of [
      '/healthz',
      '/docs',
      '/openapi.yaml',
      '/nowhere',
      // The API's: a 401 (no token), a 404 under its prefix, a 405.
      `/restaurants/v1/restaurants/${HARBOR}`,
      '/labor/v1/nowhere',
      '/labor/v1/shifts/AUTH:1',
    ]) {
      const res = await fetch(`${server.url}${path}`);
      // Each once: a header written twice would read "nosniff, nosniff".
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('strict-transport-security'), path).toMatch(/^max-age=\d+/);
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('x-powered-by'), path).toBeNull();
      expect(res.headers.get('x-request-id'), path).toBeTruthy();
    }
  });

  describe('the API reference page in headless Chromium', () => {
    let context: BrowserContext;
    beforeAll(async () => {
      context = await (await theBrowser()).newContext();
    }, 30_000);
    afterAll(async () => {
      await context?.close();
    });

    it('renders the four operations and the three webhooks, with every asset from the server itself, under its Content-Security-Policy', async () => {
      const page = await context.newPage();
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      // Runs in the page (as a string: this project has no DOM types), before its own scripts.
      await page.addInitScript({
        content: `document.addEventListener('securitypolicyviolation', (event) =>
          console.error('Content Security Policy refused ' + event.blockedURI + ' (' + event.violatedDirective + ')'));`,
      });
      const answer = await page.goto(`${server.url}/docs`);
      const policy = answer?.headers()['content-security-policy'] ?? '';
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("object-src 'none'");
      expect(policy).not.toContain('unsafe-inline');
      await page.waitForSelector('.opblock', { timeout: 20_000 });

      const operations = await page.$$eval('.opblock', (blocks) =>
        blocks.map((block) => ({
          method: block.querySelector('.opblock-summary-method')?.textContent?.trim(),
          path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path'),
          summary: block.querySelector('.opblock-summary-description')?.textContent?.trim(),
        })),
      );
      expect(operations).toEqual(
        expect.arrayContaining([
          {
            method: 'PUT',
            path: '/labor/v1/employees/{employeeId}/unarchive',
            summary: 'Unarchive an employee',
          },
          {
            method: 'DELETE',
            path: '/labor/v1/employees/{employeeId}',
            summary: 'Archive an employee',
          },
          { method: 'DELETE', path: '/labor/v1/shifts/{shiftId}', summary: 'Delete a shift' },
          {
            method: 'GET',
            path: '/restaurants/v1/restaurants/{restaurantGUID}',
            summary: 'Get a restaurant',
          },
          // The webhooks the service sends (the spec's `webhooks` section).
          { method: 'POST', path: 'employee.archived', summary: 'An employee was archived' },
          { method: 'POST', path: 'employee.unarchived', summary: 'An employee was unarchived' },
          { method: 'POST', path: 'shift.deleted', summary: 'A shift was deleted' },
        ]),
      );
      expect(operations).toHaveLength(7);
      expect(await page.textContent('.title')).toContain('workforce-kit API');
      expect(
        requested.filter((url) => !url.startsWith(server.url) && !url.startsWith('data:')),
      ).toEqual([]);
      expect(refused).toEqual([]);
      await page.close();
    }, 30_000);
  });
});
