// The fetch handler on Hono's @hono/node-server over real HTTP, with `nodeRequest`: the head and
// body read from Node's request under Hono's (the web Request's body is never made), the address
// from its socket. Every other rule is the pipeline's, tested over all adapters in test/http.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { aWorld } from '@workforce-kit/core/testing';
import { RESTAURANT_HEADER, testApiOptions, tokenFor } from '@workforce-kit/http/testing';
import { Hono } from 'hono';
import { expect, it, onTestFinished } from 'vitest';
import { createFetchHandler, type FetchHandlerOptions } from '../src/index.js';

/** Hono on @hono/node-server with the API, on a free port until the test ends; its base URL. */
async function serve(
  options: FetchHandlerOptions<HttpBindings>,
  seen: Request[] = [],
): Promise<string> {
  const api = createFetchHandler(options);
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.use(async (c, next) => {
    seen.push(c.req.raw);
    return (await api(c.req.raw, c.env)) ?? next();
  });
  const server = createServer(getRequestListener(app.fetch)).listen(0, '127.0.0.1');
  onTestFinished(async () => {
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections();
    await closed;
  });
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it("reads the body from Node's request, never from the web Request", async () => {
  const world = aWorld();
  const seen: Request[] = [];
  const url = await serve(
    { ...testApiOptions(world.seed), nodeRequest: (_request, env) => env.incoming },
    seen,
  );
  const token = await tokenFor([world.restaurant.guid]);
  const unarchive = (body: string) =>
    fetch(`${url}/labor/v1/employees/${world.archivedEmployee.guid}/unarchive`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token}`,
        [RESTAURANT_HEADER]: world.restaurant.guid,
        'content-type': 'application/json',
      },
      body,
    });
  const malformed = await unarchive('{"note":');
  expect([malformed.status, ((await malformed.json()) as { code: string }).code]).toEqual([
    400,
    'MALFORMED_JSON',
  ]);
  const ok = await unarchive('{"note":"back from leave"}');
  expect(ok.status).toBe(200);
  expect(await ok.json()).toMatchObject({ guid: world.archivedEmployee.guid, deleted: false });
  expect(seen).toHaveLength(2);
  for (const request of seen) expect(request.bodyUsed).toBe(false);
});

it("counts a request that names no restaurant against its socket's address", async () => {
  const world = aWorld();
  const url = await serve({
    ...testApiOptions(world.seed, { rateLimit: { perSecond: 1, per15Minutes: 100 } }),
    nodeRequest: (_request, env) => env.incoming,
  });
  const anonymous = async () =>
    (
      await fetch(`${url}/restaurants/v1/restaurants/${world.restaurant.guid}`, {
        headers: { authorization: `Bearer ${await tokenFor([world.restaurant.guid])}` },
      })
    ).status;
  // From 127.0.0.1, then again: the second is over the per-second limit of that address.
  expect([await anonymous(), await anonymous()]).toEqual([400, 429]);
});
