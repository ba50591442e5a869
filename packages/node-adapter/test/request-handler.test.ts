// createRequestHandler over real HTTP: as the only listener of http.createServer, as
// Connect-style middleware in a host's chain, and with the same answers and headers as the other
// adapters. What the API answers is the same through every adapter and is tested once for all of
// them, in test/http of the repository.
import { once } from 'node:events';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { aWorld } from '@workforce-kit/core/testing';
import { RESTAURANT_HEADER, testApiOptions, tokenFor } from '@workforce-kit/http/testing';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createRequestHandler } from '../src/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const world = aWorld();
const token = await tokenFor([world.restaurant.guid]);
const client = { authorization: `Bearer ${token}`, [RESTAURANT_HEADER]: world.restaurant.guid };
const restaurantPath = `/restaurants/v1/restaurants/${world.restaurant.guid}`;

/** Serves `listener` on a free port of 127.0.0.1 until the test ends; its base URL. */
async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener).listen(0, '127.0.0.1');
  onTestFinished(async () => {
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections();
    await closed;
  });
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The status, the problem+json media type, the code, and the request id in body and header. */
async function expectProblem(res: Response, status: number, code: string): Promise<unknown> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(res.headers.get('x-request-id')).toMatch(UUID);
  expect(body).toMatchObject({ status, code, requestId: res.headers.get('x-request-id') });
  return body;
}

describe('as the only listener of http.createServer', () => {
  it('answers a GET of the API with the headers of every adapter', async () => {
    const url = await serve(createRequestHandler(testApiOptions(world.seed)));
    const res = await fetch(`${url}${restaurantPath}`, { headers: client });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ guid: world.restaurant.guid });
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(JSON.stringify(body))),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': expect.stringMatching(UUID),
      'ratelimit-limit': '20',
      'ratelimit-remaining': '19',
      'ratelimit-reset': expect.stringMatching(/^\d+$/),
    });
  });

  it('reads the body of an operation that takes one from the request', async () => {
    const records = aWorld();
    const url = await serve(createRequestHandler(testApiOptions(records.seed)));
    const recordsToken = await tokenFor([records.restaurant.guid]);
    const unarchive = (body: string) =>
      fetch(`${url}/labor/v1/employees/${records.archivedEmployee.guid}/unarchive`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${recordsToken}`,
          [RESTAURANT_HEADER]: records.restaurant.guid,
          'content-type': 'application/json',
        },
        body,
      });
    await expectProblem(await unarchive('{"note":'), 400, 'MALFORMED_JSON');
    const res = await unarchive('{"note":"back from leave"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ guid: records.archivedEmployee.guid, deleted: false });
  });

  it("answers the API's own 404 and 405 under its prefixes", async () => {
    const url = await serve(createRequestHandler(testApiOptions(world.seed)));
    const unknown = await expectProblem(await fetch(`${url}/labor/v1/nope`), 404, 'NOT_FOUND');
    expect(unknown).toMatchObject({ detail: 'No operation has this path.' });
    const post = await fetch(`${url}${restaurantPath}`, { method: 'POST' });
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await expectProblem(post, 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers a path outside the API with a 404 problem', async () => {
    const url = await serve(createRequestHandler(testApiOptions(world.seed)));
    const res = await fetch(`${url}/elsewhere/page?secret=1`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const body = await expectProblem(res, 404, 'NOT_FOUND');
    expect(body).toMatchObject({
      instance: '/elsewhere/page',
      detail: 'Nothing is served at this path.',
    });
    // A sane request id the client sent is its id.
    const traced = await fetch(`${url}/elsewhere`, { headers: { 'x-request-id': 'trace-42' } });
    expect(traced.headers.get('x-request-id')).toBe('trace-42');
    expect(await traced.json()).toMatchObject({ status: 404, requestId: 'trace-42' });
  });
});

describe('given next, as Connect-style middleware', () => {
  type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

  /** A host's chain, by hand: each middleware in turn until one answers, then the host's 404. */
  function chain(...middlewares: Middleware[]): RequestListener {
    return (req, res) => {
      const at = (index: number): void => {
        const middleware = middlewares[index];
        if (middleware === undefined) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('host 404');
          return;
        }
        middleware(req, res, () => at(index + 1));
      };
      at(0);
    };
  }

  it('hands a path outside the API on, and answers the API itself', async () => {
    const handedOn: string[] = [];
    const handler = createRequestHandler(testApiOptions(world.seed));
    const url = await serve(
      chain(
        (_req, res, next) => {
          res.setHeader('x-host', 'before');
          next();
        },
        (req, res, next) =>
          handler(req, res, () => {
            handedOn.push(req.url ?? '');
            next();
          }),
        (req, res, next) => {
          if (req.url !== '/healthz') return next();
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        },
      ),
    );

    const health = await fetch(`${url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
    const elsewhere = await fetch(`${url}/elsewhere`);
    expect([elsewhere.status, await elsewhere.text()]).toEqual([404, 'host 404']);
    expect(elsewhere.headers.get('x-request-id')).toBeNull();
    expect(handedOn).toEqual(['/healthz', '/elsewhere']);

    // The API's paths, answered or refused, are the API's: next is not called for them.
    const ok = await fetch(`${url}${restaurantPath}`, { headers: client });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-host')).toBe('before');
    await expectProblem(await fetch(`${url}${restaurantPath}`), 401, 'INVALID_TOKEN');
    await expectProblem(await fetch(`${url}/labor/v1/nope`), 404, 'NOT_FOUND');
    await expectProblem(
      await fetch(`${url}${restaurantPath}`, { method: 'DELETE' }),
      405,
      'METHOD_NOT_ALLOWED',
    );
    expect(handedOn).toEqual(['/healthz', '/elsewhere']);
  });
});
