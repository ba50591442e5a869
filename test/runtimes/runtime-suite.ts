// What the fetch adapter is tested with on Bun and on Deno: the HTTP-level suite of the
// operations, refusals and problem details (test/http/support/statuses-suite.ts), as every adapter
// runs it, and the defaults' libraries at work there (prom-client's metrics, pino's log line).
import { tokenFor } from '@workforce-kit/http/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStatuses } from '../http/support/statuses-suite.js';
import { type RuntimeName, runtimeApps, versionOf } from './apps.js';

/** The suites on `name`, in one process of it for the file. */
export function describeRuntime(name: RuntimeName): void {
  const apps = runtimeApps(name);
  afterAll(() => apps.stop());
  const runtime = versionOf(name);

  describeStatuses({ ...apps, name: runtime });

  describe(`${runtime}: metrics and the log`, () => {
    it('counts a request in prom-client and writes its line with pino', async () => {
      const app = await apps.observedApp();
      const { restaurant } = app.world;
      const res = await fetch(`${app.url}/restaurants/v1/restaurants/${restaurant.guid}`, {
        headers: {
          authorization: `Bearer ${await tokenFor([restaurant.guid])}`,
          'platform-restaurant-external-id': restaurant.guid,
        },
      });
      expect(res.status).toBe(200);
      const requestId = res.headers.get('x-request-id');
      const { metrics, logs } = await app.observed();
      expect(metrics).toMatch(
        /^workforce_kit_http_requests_total\{[^}]*operation="getRestaurant"[^}]*status="200"[^}]*\} 1$/m,
      );
      expect(logs).toContainEqual(
        expect.objectContaining({ msg: 'request', requestId, status: 200, method: 'GET' }),
      );
    });
  });
}
